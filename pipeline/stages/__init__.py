"""One module per DVC stage (`python -m pipeline.stages.<name>`, in dvc.yaml's order: validate, clean, split,
features, train, assess, calibrate, evaluate, fairness, explain, report, track, and monitor, off by default), each
reading its params and inputs, calling, and writing; the computations they call are in pipeline/steps.
"""
