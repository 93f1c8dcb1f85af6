"""Renderers: a :class:`bandkit.analyze.Report` to text, JSON or HTML. Findings become English only here."""
