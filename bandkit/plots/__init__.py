"""Plots (matplotlib, imported lazily): every function takes an optional ``ax`` and returns the Axes."""
