"""Feature selection as a transformer step fitted inside each fold (seed 004, D4:979: add the best features one by
one (forward) or start with all and remove them one by one (backward); or keep the features whose permutation
importance is positive): variance threshold, sequential (forward / backward) selection by cross-validated score,
permutation-importance selection. Each keeps columns (support_) and refuses to keep none.

Sections cited: Ghent ML notes (seed 004): 5.4 DP: Dimensionality Reduction (979)"""

from .permutation import PermutationSelector
from .sequential import SequentialSelector
from .variance import VarianceThreshold

__all__ = ["PermutationSelector", "SequentialSelector", "VarianceThreshold"]
