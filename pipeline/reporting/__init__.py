"""The report page (reports/report.html) and the headline figures, built only from the files the stages wrote.

headline.py             the headline figures (reports/metrics.json, the MLflow metrics, the promotion gate's inputs)
verdict.py              the verdict first: the report's first panel and the summary that ends `dvc repro`
sections.py             the page in order: the sections every task has, then the task's own, and their figures
task_pages.py           each task's page: what differs by task, looked up by the task's name
classification_page.py  binary and multiclass targets: test, calibration, decisions; their model-card lines
classification_fairness.py  their fairness section: rates, parity criteria, per-group thresholds, reweighing
regression_page.py      regression targets: test with the intervals, errors by group; their model-card lines
results.py              the sections every task has: trust, explainability, metrics beside the no-skill baseline
card.py                 the model card
page.py                 the page's pieces (cells, tables, headings) and the document
figures.py              matplotlib figures (PNG bytes, deterministic)
monitor_page.py         the monitor's page (reports/monitor.html) in the report's template
templates/              report.html.j2, the page's HTML and CSS (Jinja2; escapes every text once)
"""
