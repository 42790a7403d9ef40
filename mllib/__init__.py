"""mllib: the project's own machine-learning library, written from the lecture notes (numpy + scipy only)."""

__version__ = "0.1.0"
