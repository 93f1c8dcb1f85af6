"""A fleet of CI histories: ranking by open regressions, then episodes, then noise; local processes
and a Dask LocalCluster give byte-identical JSON; CLI gating, --since, HTML sparklines."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bandkit.cli import main
from bandkit.fleet import rank_fleet
from bandkit.synthetic.history import generate_history

DATA = Path(__file__).resolve().parent.parent / "data"

# name -> generator options (400 builds each, first build 515000)
FLEET = {
    "small_regression": {"events": ((250, None, 1.06),)},
    "big_regression": {"events": ((300, None, 1.30),)},
    "fixed_episode": {"events": ((150, 190, 1.20),)},
    "quiet": {"between_cv": 0.005},
    "noisy": {"between_cv": 0.04, "within_cv": 0.04},
}


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("histories")
    for k, (name, opts) in enumerate(FLEET.items()):
        generate_history(400, seed=10 + k, **opts).to_csv(d / f"{k:05d}__{name}__ms.csv")
    return d


@pytest.fixture(scope="module")
def local(fleet_dir):
    return rank_fleet([fleet_dir], jobs=1)


def _name(row) -> str:
    return row.label.split("__")[1]


def test_ranking_is_what_matters(local):
    assert local.ranking == "regressions"
    assert [_name(r) for r in local.rows] == ["big_regression", "small_regression", "fixed_episode", "noisy",
                                              "quiet"]
    big = local.rows[0].extra["open_regressions"][0]
    assert big["build"] == 515300 and big["ratio"] == pytest.approx(1.30, rel=0.03)
    assert local.rows[2].extra["regressions_fixed"] == 1 and not local.rows[2].extra["open_regressions"]
    d = local.to_dict()
    assert d["n_with_open_regressions"] == 2 and [Path(p).name.split("__")[1] for p in d["flagged"]] == [
        "big_regression", "small_regression", "fixed_episode"]


def test_jobs_2_and_dask_give_byte_identical_json(fleet_dir, local):
    distributed = pytest.importorskip("distributed")
    assert rank_fleet([fleet_dir], jobs=2).to_json() == local.to_json()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            rep = rank_fleet([fleet_dir], client=client)
    assert rep.backend == "dask" and rep.to_json() == local.to_json()


def test_cli_fleet_gating_since_and_html(fleet_dir, tmp_path, capsys):
    assert main(["fleet", str(fleet_dir), "--fail-on", "regression", "--quiet"]) == 1
    text = capsys.readouterr().out
    assert "2 with open regressions" in text and "×1.3 at 515300" in text
    # only changes from build 515350 on: both regressions are older
    assert main(["fleet", str(fleet_dir), "--since", "515350", "--fail-on", "regression", "--quiet",
                 "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n_open_regressions"] == 0 and all(r["since"] == 515350 for r in doc["rows"])
    out = tmp_path / "fleet.html"
    assert main(["fleet", str(fleet_dir), "-f", "html", "-o", str(out), "--quiet"]) == 0
    html = out.read_text()
    assert html.count("<svg") == 3 and "<script" not in html
    # worst first: the big regression's sparkline comes before the small one's
    assert html.index("big_regression", html.index("Flagged")) < html.index("small_regression", html.index("Flagged"))
    assert len(re.findall(r'stroke="#d62728"', html)) == 2  # one mark per open regression


def test_runner_results_rank_with_histories(fleet_dir):
    rep = rank_fleet([fleet_dir, DATA / "runners" / "pyperf-tests_telco.json.gz"], jobs=1)
    kinds = {r.extra.get("kind") for r in rep.rows}
    assert kinds == {"history", "runner"} and rep.ranking == "regressions" and not rep.errors
