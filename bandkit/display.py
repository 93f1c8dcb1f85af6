"""The display hook: the one documented place where a lower floor reaches the renderers and plots.

Traces, analysis results and reports are data; turning them into text, HTML or a figure is the job
of :mod:`bandkit.render` and :mod:`bandkit.plots`, which sit on higher floors. The conveniences on
the data objects (``Report.to_text()``, ``FleetReport.plot()``, the notebook view ``_repr_html_``)
go through :func:`render`, which imports the renderer named in :data:`RENDERERS` when it is called.
This module is the only exception to "import downwards only" (``tests/test_architecture.py``).
"""
from __future__ import annotations

from typing import Any

#: (class name, output) -> ``"module:function"`` taking the object (and keyword options). Looked up
#: along the class's MRO. Output ``"notebook"`` is the compact HTML of ``_repr_html_``; a class
#: without a ``"notebook"`` entry gets :data:`DEFAULT_NOTEBOOK` (its scalars and its key plot).
RENDERERS: dict[tuple[str, str], str] = {
    ("Trace", "notebook"): "bandkit.render.notebook:trace_html",
    ("Report", "text"): "bandkit.render.text:render_text",
    ("Report", "html"): "bandkit.render.html:render_html",
    ("Report", "notebook"): "bandkit.render.html:report_html_fragment",
    ("TraceReport", "notebook"): "bandkit.render.html:trace_report_html",
    ("FleetReport", "text"): "bandkit.render.text_fleet:fleet_text",
    ("FleetReport", "html"): "bandkit.render.text_fleet:fleet_html",
    ("FleetReport", "notebook"): "bandkit.render.text_fleet:fleet_notebook",
    ("FleetReport", "plot"): "bandkit.plots.fleet:plot_fleet_heatmap",
    ("Comparison", "text"): "bandkit.render.text_runners:compare_text",
    ("Comparison", "html"): "bandkit.render.html_compare:compare_html",
    ("Comparison", "notebook"): "bandkit.render.html_compare:compare_fragment",
}
DEFAULT_NOTEBOOK = "bandkit.render.notebook:result_html"


def renderer(obj: Any, output: str):
    """The function that renders ``obj`` as ``output`` (KeyError when there is none)."""
    from .section import resolve

    for cls in type(obj).__mro__:
        spec = RENDERERS.get((cls.__name__, output))
        if spec:
            return resolve(spec)
    if output == "notebook":
        return resolve(DEFAULT_NOTEBOOK)
    raise KeyError(f"no {output!r} renderer for {type(obj).__name__}")


def outputs(class_name: str) -> tuple[str, ...]:
    """The file outputs registered for a class (``notebook`` and ``plot`` are not files), in order."""
    return tuple(out for (cls, out) in RENDERERS if cls == class_name and out not in ("notebook", "plot", "text"))


def render(obj: Any, output: str, **options: Any):
    """Render ``obj`` as ``output`` ("text", "html", "notebook", "plot") with its registered renderer."""
    return renderer(obj, output)(obj, **options)


class DisplayMixin:
    """Gives a class the notebook view ``_repr_html_`` through :func:`render`. Has no fields, so it is
    safe in frozen dataclasses and in classes with ``__slots__``."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return render(self, "notebook")
