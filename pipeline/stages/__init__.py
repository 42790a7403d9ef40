"""One module per DVC stage (`python -m pipeline.stages.<name>`), each reading its params and inputs, calling, and
writing; the computations they call are in pipeline/steps. table/ declares the stages, in the order they run (what
each reads, runs and writes), and generates dvc.yaml and the stages' reference page from that table.
"""
