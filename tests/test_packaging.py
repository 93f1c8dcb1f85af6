"""pyproject.toml and environment.yml list the same dependencies; README opens with the two commands."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# conda package names that differ from PyPI's
CONDA_TO_PYPI = {"distributed": "dask", "python-fastjsonschema": "fastjsonschema"}


def _name(req: str) -> str:
    return re.split(r"[\s<>=!~\[;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject_names() -> set[str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(r) for r in meta["dependencies"]}
    for extra in meta["optional-dependencies"].values():
        names |= {_name(r) for r in extra}
    return names


def _conda_names() -> set[str]:
    names = set()
    text = (ROOT / "environment.yml").read_text()
    for line in text.split("\ndependencies:", 1)[1].splitlines():
        m = re.match(r"^\s{2}-\s+([A-Za-z0-9_.\-]+)", line)
        if m and not line.strip().startswith("- -e"):
            n = _name(m.group(1))
            if n in ("python", "pip"):
                continue
            names.add(CONDA_TO_PYPI.get(n, n))
    return names


def test_environment_matches_pyproject():
    py, conda = _pyproject_names(), _conda_names()
    assert py == conda, f"only in pyproject: {sorted(py - conda)}; only in environment.yml: {sorted(conda - py)}"


def test_drift_would_be_caught(tmp_path):
    """The comparison above is not vacuous: dropping a dependency from one side changes the set."""
    assert "scikit-learn" in _pyproject_names() and "scikit-learn" in _conda_names()
    assert len(_pyproject_names()) >= 6


def test_readme_opens_with_two_commands():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    first, second = blocks[0], blocks[1]
    assert "pip install" in first and "bandkit report data/" in first
    assert "pip install" in second and "pytest" in second
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = [l for l in second.strip().splitlines() if "pytest" in l][0].strip()
    assert test_cmd in ci, ".ci/run must run the README's test command"
