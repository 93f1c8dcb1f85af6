"""The HTML report in headless Chromium (DevTools protocol): it loads with no console errors and no
network requests, shows the verdict and the plots, fits a phone's width; screenshots are inspected.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped otherwise. Talks to Chromium over
``--remote-debugging-pipe`` (standard library only).
Set ``BANDKIT_SCREENSHOTS=DIR`` to keep the screenshots for a human to look at.
"""
from __future__ import annotations

import base64
import io
import json
import os
import shutil
import select
import subprocess
import time
from pathlib import Path

import pytest

import bandkit

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("error:bandkit HTML")]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("chromium not installed (apt-get install -y chromium; .ci/run does this)", allow_module_level=True)

import report_cache as rc
from report_cache import FTQ_7777, FTQ_10000, pyperf_files

EVIL = "<script>alert(1)</script>"


class Browser:
    """Headless Chromium driven over the DevTools protocol through a pipe (``--remote-debugging-pipe``:
    NUL-terminated JSON on fds 3/4), so no port is opened and no extra package is needed."""

    def __init__(self, tmp: Path):
        self.profile = tmp / "profile"
        self.profile.mkdir()
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def child_fds():  # runs in the child before exec: its fd 3 reads commands, fd 4 writes replies
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
             f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "--window-size=1200,2000",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.session: str | None = None
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _recv(self, timeout: float) -> dict | None:
        while b"\0" not in self._buf:
            ready, _, _ = select.select([self._r], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, browser_level: bool = False, **params):
        self._id += 1
        my = self._id
        msg = {"id": my, "method": method, "params": params}
        if self.session and not browser_level:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            reply = self._recv(max(0.05, deadline - time.monotonic()))
            if reply is None:
                break
            if reply.get("id") == my:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)
        raise TimeoutError(method)

    def wait_event(self, name: str, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for e in self.events:
                if e["method"] == name and not e.get("_seen"):
                    e["_seen"] = True
                    return e
            left = deadline - time.monotonic()
            msg = self._recv(left) if left > 0 else None
            if msg is None:
                raise TimeoutError(name)
            if "method" in msg:
                self.events.append(msg)

    def drain(self, seconds: float = 0.5) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            msg = self._recv(left)
            if msg is not None and "method" in msg:
                self.events.append(msg)

    def load(self, path: Path, width: int = 1200, height: int = 2000, mobile: bool = False) -> dict:
        """Open ``path``; return the problems seen while loading and a few DOM facts."""
        self.events.clear()
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=mobile)
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_event("Page.loadEventFired")
        self.drain(0.5)
        requests = [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]
        errors = []
        for e in self.events:
            p = e["params"]
            if e["method"] == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert", "warning"):
                errors.append(("console", p["type"], [a.get("value") for a in p.get("args", [])]))
            elif e["method"] == "Runtime.exceptionThrown":
                errors.append(("exception", p["exceptionDetails"].get("text")))
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                errors.append(("log", p["entry"]["level"], p["entry"].get("text")))
            elif e["method"] == "Page.javascriptDialogOpening":
                errors.append(("dialog", p.get("message")))
            elif e["method"] == "Network.loadingFailed":
                errors.append(("loadingFailed", p.get("errorText")))
        facts = self.eval("""({
            title: document.title,
            verdict: (document.querySelector('.summary') || {innerText: ''}).innerText,
            body: document.body.innerText,
            imgs: Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width]),
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            scripts: document.scripts.length,
        })""")
        return {"requests": requests, "errors": errors, **facts}

    def eval(self, expr: str):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"]["value"]

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close", browser_level=True)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = Browser(tmp_path_factory.mktemp("chromium"))
    yield b
    b.close()


def _keep(name: str, png: bytes) -> None:
    d = os.environ.get("BANDKIT_SCREENSHOTS")
    if d:
        Path(d).mkdir(parents=True, exist_ok=True)
        (Path(d) / name).write_bytes(png)


def _inspect(png: bytes, min_blue_rows: int = 100) -> dict:
    """Facts about a screenshot: size, share of non-white pixels per vertical fifth, plot-blue rows."""
    from matplotlib.image import imread

    img = imread(io.BytesIO(png), format="png")[..., :3]
    h = img.shape[0]
    nonwhite = img.min(axis=2) < 0.9
    fifths = [float(nonwhite[i * h // 5:(i + 1) * h // 5].mean()) for i in range(5)]
    blue = (img[..., 2] > 0.55) & (img[..., 0] < 0.35) & (img[..., 1] > 0.3)  # matplotlib's C0 points
    dark = img.max(axis=2) < 0.35  # text
    return {"shape": img.shape, "fifths": fifths, "blue_rows": int(blue.any(axis=1).sum()),
            "text_rows_top": int(dark[: h // 5].any(axis=1).sum())}


def _check_clean(facts: dict) -> None:
    bad = [u for u in facts["requests"] if not u.startswith(("file:", "data:", "about:"))]
    assert bad == [], f"network requests: {bad}"
    assert facts["errors"] == [], facts["errors"]
    assert facts["scripts"] == 0
    assert facts["imgs"] and all(c and w > 0 for c, w, _ in facts["imgs"]), facts["imgs"]


def _render(tmp_path: Path, report, name: str, text: str | None = None) -> Path:
    p = tmp_path / name
    p.write_text(text if text is not None else report.to_html(), encoding="utf-8")
    return p


def _check_report_page(browser, tmp_path, paths, name):
    report = rc.report(*paths)
    page = _render(tmp_path, report, name + ".html", rc.html(*paths))
    facts = browser.load(page)
    _check_clean(facts)
    # the verdict is at the top and is the text report's verdict
    verdicts = [l.split("verdict:", 1)[1].strip() for l in report.to_text().splitlines()
                if l.strip().startswith("verdict:")]
    assert verdicts
    for v in verdicts:
        assert v in facts["verdict"]
    assert facts["body"].index("Verdict") < facts["body"].index(report.traces[0].trace.label + " —") \
        if report.traces[0].trace.meta.name is None else True
    png = browser.screenshot()
    _keep(name + ".png", png)
    info = _inspect(png)
    assert info["shape"][:2] == (2000, 1200)
    assert info["text_rows_top"] > 50, info  # title + verdict text in the top fifth
    assert info["blue_rows"] > 100, info  # at least one plot's worth of data points
    assert sum(f > 0.01 for f in info["fifths"]) >= 2, info  # content spread over the page, not blank
    # a phone: no horizontal scrolling, images scaled to the width
    phone = browser.load(page, width=390, height=844, mobile=True)
    _check_clean(phone)
    assert phone["scrollWidth"] <= phone["innerWidth"] + 1, (phone["scrollWidth"], phone["innerWidth"])
    assert all(w <= 390 for _, _, w in phone["imgs"])
    _keep(name + "_phone.png", browser.screenshot())
    return facts


def test_ftq_single_rate(browser, tmp_path):
    facts = _check_report_page(browser, tmp_path, (FTQ_7777,), "ftq_single")
    assert "stalls" in facts["verdict"]


def test_ftq_two_rates(browser, tmp_path):
    facts = _check_report_page(browser, tmp_path, (FTQ_10000, FTQ_7777), "ftq_pair")
    assert "ftq_f7777" in facts["body"] and "ftq_f10000" in facts["body"]


@pytest.mark.skipif(not pyperf_files(), reason="no pyperf file under data/")
def test_pyperf(browser, tmp_path):
    rep = rc.report(pyperf_files()[0])
    facts = _check_report_page(browser, tmp_path, (pyperf_files()[0],), "pyperf")
    assert rep.traces[0].trace.label in facts["body"]


def test_crafted_name_renders_as_text(browser, tmp_path):
    """`<script>alert(1)</script>` as a benchmark name: shown as text, no dialog, no script."""
    doc = {"version": "1.0", "metadata": {},
           "benchmarks": [{"metadata": {"name": EVIL, "unit": "second", "loops": 1},
                           "runs": [{"metadata": {"date": f"2024-01-01T00:00:0{i}"},
                                     "values": [0.01 + 1e-4 * i, 0.0101, 0.0102]} for i in range(5)]}]}
    src = tmp_path / "evil.json"
    src.write_text(json.dumps(doc))
    traces = bandkit.load(str(src))
    page = _render(tmp_path, bandkit.analyze(traces if isinstance(traces, list) else [traces]), "evil.html")
    facts = browser.load(page)
    _check_clean(facts)  # includes: no javascript dialog opened
    assert EVIL in facts["body"]
    assert EVIL in facts["title"]
    _keep("evil.png", browser.screenshot())


def test_detects_problems(browser, tmp_path):
    """The harness itself sees network requests and console errors (so its silence means something)."""
    p = tmp_path / "bad.html"
    p.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">'
                 "<script>console.error('boom')</script></body></html>")
    facts = browser.load(p)
    assert any(u.startswith("http://127.0.0.1:9/") for u in facts["requests"])
    assert any("boom" in str(e) for e in facts["errors"])


# -- issue 15, point 1: the HTML's headline never contradicts the JSON ---------------------------------
_R = rc.DATA / "runners"
HEADLINE_FIXTURES = {
    "shared_suspect": (_R / "speedpython_2020-06-04_20-10-master-dc24b8a2ac32.json.gz",),  # 60 benchmarks
    "quiet_pair_inferred_f0": (rc.DATA / "ftq" / "ftq_f10000_quiet_0.dat.gz", rc.DATA / "ftq" / "ftq_f7777_quiet_0.dat.gz"),
    "two_rates": (FTQ_10000, FTQ_7777),
    "ftq_single": (FTQ_7777,),
    "hyperfine": (_R / "3em_tools_benchmarks_results.json",),
    "gbench_too_few_runs": (_R / "bpfilter_005d041.json",),
    "ftq_2009": (rc.FTQ_2009,),
}


@pytest.mark.parametrize("name", sorted(HEADLINE_FIXTURES))
def test_html_headline_agrees_with_the_json(browser, tmp_path, name):
    """What Chromium shows in the verdict area (section .summary) holds the phrase of every finding of
    the JSON report with severity warning, and of every finding across traces; it never says 'nothing
    unusual' about a trace (or across traces) for which the JSON has a warning."""
    import re

    from bandkit.render.text import phrase

    paths = HEADLINE_FIXTURES[name]
    doc = json.loads(rc.json_text(*paths))
    page = _render(tmp_path, None, name + ".html", rc.html(*paths))
    facts = browser.load(page)
    assert [u for u in facts["requests"] if not u.startswith(("file:", "data:", "about:"))] == []
    assert facts["errors"] == [], facts["errors"]
    shown = " ".join(facts["verdict"].split())
    for f in doc["findings"]:
        if f["severity"] == "warning" or f.get("trace") is None:
            p = " ".join(phrase(f).split())
            assert p and p in shown, (f["kind"], p, shown[:500])
    # each overview row that says 'nothing unusual' belongs to a trace without warnings
    rows = browser.eval(
        "Array.from(document.querySelectorAll('.summary table.overview tr')).map(r => r.innerText)")
    warned = {doc["traces"][f["trace"]].get("name") or doc["traces"][f["trace"]]["path"]
              for f in doc["findings"] if f["severity"] == "warning" and f.get("trace") is not None}
    for row in rows:
        if "nothing unusual" in row:
            assert not any(re.search(rf"(^|/){re.escape(str(w).rsplit('/', 1)[-1])}\b", row) for w in warned), row
    if any(f.get("trace") is None and f["severity"] == "warning" for f in doc["findings"]):
        assert "Across traces" in shown and not re.search(r"Across traces:\s*nothing unusual", shown)
        if rows:  # and it comes first, as in the text report
            assert shown.index("Across traces") < shown.index(rows[0].split("\t")[0].strip())
