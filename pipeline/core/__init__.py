"""What every stage shares: the params, the files, the data contract and the task.

config.py     params.yaml read (a key given twice refused, aliases bounded) and checked by params.py's model
params.py     params.yaml as one pydantic model (unknown, missing, mistyped and out-of-range keys; relations);
              params.schema.json generated from it
params_refusals.py  the model's first refusal as one line: the dotted key, what it must be, the value given
paths.py      where each stage reads and writes (dvc.yaml declares the same paths)
io.py         atomic reads and writes of stage files; a damaged one named with its restore command
data_files.py the user's data file or directory of parts, each way it can be wrong one line
partitions.py tables as directories of Parquet parts, worked part by part on the Dask cluster; the run's mode
dispatch.py   functions that differ by the data's mode, each variant held to a registration
errors.py     bad input -> one message and exit 1
progress.py   progress of long steps on stderr
schema.py     the data contract (pandera) and validate's policies
extremes.py   values no measurement takes (machine limits, overflow, the typical magnitude): validate and serving
task.py       the target's kind (Binary, Multiclass, Regression): what differs by task
task_base.py  the kinds' base and contract (Target: the column, its classes, what every kind provides)
task_regression.py  the regression kind
task_inference.py  data.task from the target column's values (auto), checked against them when set
records.py    the report files stages write and read, as typed records (validation, split, train, ...)
assessment_records.py  assessment.json as a typed record: leakage, single features, nested CV, the curves
evaluation_records.py  test.json and calibration.json as typed records per task kind (Target.test_record, ...)
monitor_records.py  monitor.json as a typed record: a batch checked against the served model, or the monitor off
explanation_records.py  explain's importance, attributions and partial dependence as typed records
fairness_records.py  fairness.json as a typed record per task kind (Target.fairness_record): audits, mitigations
report_inputs.py  every file the report reads, as one value (the records typed)
frames.py     DataFrame <-> numpy at the boundary with mllib
build.py      params -> mllib objects: the feature transformer, the model, the CV splitter
compute.py    where independent tasks run: in process, local worker processes or Dask (and its client)
changes.py    every row, column and value the pipeline changed, as records for the model card
summaries.py  report rows several stages share (calibration quality, reliability rows, group rates)
provenance.py what a run's outputs come from: the params hash, the code as git tree ids
timeline.py   data.time as numbers the splitters order; the columns that look like time
json_types.py the type of what stays untyped JSON (params sections, reports being built)
"""
