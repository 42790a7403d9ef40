"""The computations the stages call, one module per concept (a stage module only reads its params and inputs,
calls, and writes):

validation.py      validate: the policies and the schema's checks on rows, in memory or part by part
cleaning.py        clean: duplicate rows and columns, impossible values, outliers, by the params' policies
partitioned_cleaning.py  clean on parts: the facts that need every row (duplicates), then each part cleaned
folds.py           split: the hold-out and the splits from the keys alone, their checks, the test fraction
feature_fits.py    features: each split's transformer fitted, in memory or from the parts
feature_blocks.py  features, train on parts: split rows as blocks on the cluster, features made when a stage reads
training.py        train (and assess): one model's search over its grid on the fixed splits
comparison.py      train, assess, evaluate: several models compared on the same folds (model.name auto)
target_transform.py  train (and assess, calibrate): a regression target's scale (y or log(y + c)) and floor
assessment.py      assess: leakage estimate, single features, learning and validation curves
nested_cv.py       assess: nested CV around the whole model selection (its unbiased estimate, the optimism)
calibration.py     calibrate: the calibration maps compared cross-fitted, the deployed classifier
regression.py      calibrate, evaluate: the deployed regressor, its conformal intervals, its test metrics
evaluation.py      evaluate: the test tables of the deployed predictor
evaluation_files.py  evaluate: its summary line and plot files, for the target's kind
row_outputs.py     evaluate: what the metrics need of each test row (scores; predictions and intervals)
fairness_audit.py  fairness: per-group rates, intervals, criteria, mitigation and reweighing
explanations.py    explain: attributions in the raw columns of the user's data
shapley_values.py  Shapley values per raw column: the explain stage's and the served reasons'
shape_functions.py  explain: an additive model's shape functions in the raw columns' units and level names
measures.py        evaluate, monitor: the deployed predictor's figures on labelled rows, for the target's kind
drift.py           evaluate, monitor: rows against the training rows, column by column and by a domain classifier
monitoring.py      monitor: the shift in predictions, the promises on labelled rows, the label-free estimate
batch_check.py     monitor: one batch's record (contract, drift, promises or estimate) and its failed checks
"""
