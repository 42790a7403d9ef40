"""Explainability: model-agnostic views of what a fitted model relies on.

Notes: seed 004, D4:2002-2056 (section 11.2); catalogue section 4.

Sections cited: Ghent ML notes (seed 004): 11.2 Model Explainability (2002)"""

from .kernel_shap import kernel_shap
from .partial_dependence import partial_dependence
from .permutation import permutation_importance
from .relevance import gradient_x_input, lrp
from .shapley import exact_shapley, linear_shapley
from .surrogate import global_surrogate
from .tree_shap import tree_shap

__all__ = [
    "permutation_importance",
    "partial_dependence",
    "exact_shapley",
    "linear_shapley",
    "kernel_shap",
    "tree_shap",
    "gradient_x_input",
    "lrp",
    "global_surrogate",
]
