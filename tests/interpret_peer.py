"""InterpretML's explainable boosting machine (interpret-core) set up like mllib.additive's: the peer of
tests/mllib/additive and benchmarks/bench_additive.py (tests/ is on their sys.path, as for tree_protocol.py).

Matched: learning rate, outer bags, leaves per main step, rows per leaf, l2 (0), min hessian (mllib's 1e-3), bins
(255 main, 32 per pair feature), pairs, validation share (0.15), early stopping rounds and relative tolerance (1e-5),
max rounds; interpret's extras off (greedy rounds, smoothing rounds with random cuts, inner bags) and every column
continuous, n_jobs=1. Not matchable, so the models agree closely but not exactly: interpret bins with its own
quantile rule; it checks early stopping after every term step (window: early_stopping_rounds x terms steps), mllib
after every round; it ranks pairs per bag (mllib once, on the bags' mean main effects) and purifies the pairs into
the main effects; both grow a pair's steps as depth-2 trees."""


def interpret_model(regression: bool, n_features: int, settings: dict):
    """interpret's ExplainableBoostingRegressor or ...Classifier with `settings` named as mllib's."""
    from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    return (ExplainableBoostingRegressor if regression else ExplainableBoostingClassifier)(
        learning_rate=settings["learning_rate"],
        outer_bags=settings["outer_bags"],
        inner_bags=0,
        max_leaves=settings["max_leaves"],
        min_samples_leaf=settings["min_samples_leaf"],
        reg_lambda=settings.get("l2_regularization", 0.0),
        min_hessian=1e-3,
        max_bins=settings.get("max_bins", 255),
        max_interaction_bins=settings.get("max_interaction_bins", 32),
        interactions=settings["interactions"],
        validation_size=settings.get("validation_fraction", 0.15),
        early_stopping_rounds=settings["early_stopping_rounds"],
        early_stopping_tolerance=settings.get("tol", 1e-5),
        max_rounds=settings["max_rounds"],
        greedy_ratio=0.0,
        cyclic_progress=True,
        smoothing_rounds=0,
        interaction_smoothing_rounds=0,
        feature_types=["continuous"] * n_features,
        n_jobs=1,
        random_state=0,
    )
