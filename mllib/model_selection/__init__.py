"""Splitting, cross-validation, hyperparameter search and curves (seed 004, D4:159-212, 471-572; seed 003, D3:333-347).

Every splitter yields sorted int64 (train_idx, test_idx) and raises if a group straddles a split;
all randomness comes from numpy Generators seeded by `random_state`.

Sections cited:
- Introduction to Machine Learning (Heidelberg) (seed 003): Support Vector Machine (SVM) (333)
- Ghent ML notes (seed 004): 1.4 Evaluating Models and Conditions for Generalization (159)"""

from ._checks import check_no_group_overlap
from .bias_variance import bias_variance_estimate
from .candidates import ParameterGrid, ParameterSampler
from .cross_fit import cross_fit, inner_splits, inner_splitter
from .curves import learning_curve, validation_curve
from .holdout import early_stopping_split, split_groups, train_test_split_indices
from .nested import nested_cv
from .search import (
    BlockFold,
    FoldData,
    GridSearch,
    RandomSearch,
    best_candidate_index,
    block_responses,
    evaluate_candidates,
    resolve_cv,
    response_values,
)
from .splitters import (
    Bootstrap,
    GroupBootstrap,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    RepeatedGroupKFold,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    fold_assignment,
)
from .stratified_group import (
    RepeatedStratifiedGroupKFold,
    StratifiedGroupKFold,
    fold_balance,
    stratified_group_assignment,
)
from .time_order import ForwardChainingSplit, more_than_gap_before, time_holdout_indices, time_values

__all__ = [
    "BlockFold",
    "block_responses",
    # splitters
    "KFold",
    "StratifiedKFold",
    "GroupKFold",
    "StratifiedGroupKFold",
    "LeaveOneOut",
    "LeaveOneGroupOut",
    "RepeatedKFold",
    "RepeatedStratifiedKFold",
    "RepeatedGroupKFold",
    "RepeatedStratifiedGroupKFold",
    "ShuffleSplit",
    "GroupShuffleSplit",
    "Bootstrap",
    "GroupBootstrap",
    "ForwardChainingSplit",
    "more_than_gap_before",
    # assignment, hold-out and checks
    "stratified_group_assignment",
    "train_test_split_indices",
    "early_stopping_split",
    "time_holdout_indices",
    "time_values",
    "split_groups",
    "fold_assignment",
    "fold_balance",
    "check_no_group_overlap",
    "inner_splits",
    "inner_splitter",
    # search
    "ParameterGrid",
    "ParameterSampler",
    "FoldData",
    "evaluate_candidates",
    "best_candidate_index",
    "GridSearch",
    "RandomSearch",
    "nested_cv",
    "resolve_cv",
    "response_values",
    # curves and diagnostics
    "learning_curve",
    "validation_curve",
    "cross_fit",
    "bias_variance_estimate",
]
