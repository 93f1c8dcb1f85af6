"""The house has floors (ARCHITECTURE.md): every import in bandkit/ (function-level ones included) goes to
the same or a lower floor, packages on one floor do not import each other (but for ALLOWED_SIDEWAYS),
and no modules import each other in a circle. Walks the AST; imports nothing from bandkit."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "bandkit"

#: Floors, lowest first: (floor name, module prefixes on it). A module belongs to the longest prefix.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("ground", ("bandkit._version", "bandkit.errors", "bandkit._json", "bandkit._lazy", "bandkit._gc", "bandkit.robust", "bandkit.metadata",
                "bandkit.peaks1d", "bandkit.filters1d", "bandkit.findings", "bandkit.section", "bandkit.display", "bandkit.trace",
                "bandkit.stalls", "bandkit.schema", "bandkit.limits", "bandkit._numba", "bandkit._cpus")),
    ("loaders and analyses", ("bandkit.loaders", "bandkit.summary", "bandkit.bands", "bandkit.changepoints",
                              "bandkit.spectrum", "bandkit.postmortem", "bandkit.history")),
    ("pipeline", ("bandkit.analyze", "bandkit.synthetic", "bandkit._warm")),
    ("applications", ("bandkit.fleet", "bandkit.compare")),
    ("plots", ("bandkit.plots",)),
    ("renderers", ("bandkit.render",)),
    ("front doors", ("bandkit.cli", "bandkit.output", "bandkit.__main__", "bandkit")),
]
#: Floors whose packages are independent of each other (a loader does not import an analysis, nor an
#: analysis another one); on the other floors modules may import each other (without circles).
INDEPENDENT = {"loaders and analyses", "pipeline", "applications"}
#: Imports between independent packages of one floor that are allowed: (importer prefix, imported prefix).
ALLOWED_SIDEWAYS = {
    ("bandkit.postmortem", "bandkit.changepoints"),  # the post-mortem finds steps in run means with FPOP
    ("bandkit.history", "bandkit.changepoints"),  # a history's changes: FPOP, penalty, location intervals
    ("bandkit.history", "bandkit.postmortem"),  # and the metadata suspects of its builds
}
#: Circles inside one package that are known and left to their package's owner (each with the reason).
KNOWN_CYCLES: set[frozenset[str]] = set()
#: The display hook reaches the renderers by "module:function" strings (resolved when called), never by an
#: import statement; it is the one documented way up (ARCHITECTURE.md).
DISPLAY_HOOK = "bandkit.display"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _imports(name: str, path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(imported bandkit module, line) for every import statement of the module, at any depth."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if source is None else source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "bandkit":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((sub if sub in MODULES else target, node.lineno))
        elif isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "bandkit")
    return out


def _home(module: str) -> tuple[int, str]:
    """(floor number, package prefix) of a module: the longest matching prefix ("bandkit" itself is the
    package's __init__ only, so that a new module must be given its floor)."""
    best = None
    for i, (_, prefixes) in enumerate(FLOORS):
        for pre in prefixes:
            if module == pre or (module.startswith(pre + ".") and pre != "bandkit"):
                if best is None or len(pre) > len(best[1]):
                    best = (i, pre)
    assert best is not None, f"{module} is on no floor: add it to FLOORS (and ARCHITECTURE.md)"
    return best


def test_every_module_is_on_a_floor():
    for name in MODULES:
        _home(name)


def _violations(name: str, path: Path, source: str | None = None) -> list[str]:
    bad = []
    floor, pkg = _home(name)
    for target, line in _imports(name, path, source):
        t_floor, t_pkg = _home(target)
        if t_pkg == pkg or t_floor < floor:
            continue
        if t_floor == floor and (FLOORS[floor][0] not in INDEPENDENT or (pkg, t_pkg) in ALLOWED_SIDEWAYS):
            continue
        bad.append(f"{path.relative_to(PKG.parent)}:{line}: {name} ({FLOORS[floor][0]}) imports "
                   f"{target} ({FLOORS[t_floor][0]})")
    return bad


def test_imports_go_down_or_stay_in_their_package():
    bad = [v for name, path in MODULES.items() for v in _violations(name, path)]
    assert not bad, "imports against the floors:\n" + "\n".join(bad)


def test_no_import_cycles():
    graph = {name: {t for t, _ in _imports(name, path) if t in MODULES and t != name}
             for name, path in MODULES.items()}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 and frozenset(comp) not in KNOWN_CYCLES:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, f"modules that import each other in a circle: {cycles}"


def test_the_display_hook_imports_nothing_above_the_ground_floor():
    assert all(_home(t)[0] == 0 for t, _ in _imports(DISPLAY_HOOK, MODULES[DISPLAY_HOOK]))


def test_the_walk_sees_real_imports():
    """Guard against a walker that finds nothing: known edges are seen, and an upward one is caught."""
    edges = {t for t, _ in _imports("bandkit.render.html", MODULES["bandkit.render.html"])}
    assert "bandkit.section" in edges and "bandkit.render.text" in edges
    lazy = {t for t, _ in _imports("bandkit.trace", MODULES["bandkit.trace"])}
    assert "bandkit.stalls" in lazy  # a function-level import
    assert _home("bandkit.bands.section") == (1, "bandkit.bands") and _home("bandkit.render.html")[0] == 5
    # what the old code did: results importing the renderer, postmortem importing a loader helper
    assert _violations("bandkit.bands.result", MODULES["bandkit.bands.result"],
                       "def f():\n    from ..render.notebook import result_html\n")
    assert _violations("bandkit.postmortem.result", MODULES["bandkit.postmortem.result"],
                       "from ..loaders.runner_common import plain\n")
    assert not _violations("bandkit.postmortem.classify", MODULES["bandkit.postmortem.classify"],
                           "from ..changepoints.fpop import fpop\n")


def test_architecture_md_documents_the_floors():
    text = (PKG.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for name, prefixes in FLOORS:
        assert name in text, name
        for pre in prefixes:
            short = pre.split(".", 1)[1] if "." in pre else "bandkit/__init__"
            assert f"`{short}" in text, f"{pre} is not in ARCHITECTURE.md's table of floors"
