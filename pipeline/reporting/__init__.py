"""The report page (reports/report.html) and the headline figures, built only from the files the stages wrote.

headline.py   the headline figures (reports/metrics.json, the MLflow metrics, the promotion gate's inputs)
page.py       the page's pieces (cells, tables) and the model card
sections.py   the page's sections and their figures, in order
results.py    the result sections: test, regression, fairness, explanations, trust
figures.py    matplotlib figures (PNG bytes, deterministic)
templates/    report.html.j2, the page's HTML and CSS (Jinja2; escapes every text once)
"""
