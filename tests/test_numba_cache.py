"""numba's cache from a read-only install, and the "compiling once" notice only on a terminal."""
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import bandkit
from bandkit import _numba

PKG = Path(bandkit.__file__).resolve().parent
# one small kernel: compiles in about a second
KERNEL_CALL = ("import numpy as np\n"
               "from bandkit.peaks1d import _local_maxima, local_maxima\n"
               "local_maxima(np.array([0.0, 1.0, 0.0, 2.0, 0.0]))\n"
               "print('hits', sum(_local_maxima.stats.cache_hits.values()),"
               " 'misses', sum(_local_maxima.stats.cache_misses.values()))\n")


def _as_other_user() -> list[str]:
    """A prefix that runs a command as a user who cannot write the copied package (root ignores modes)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only directory cannot be simulated")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def readonly_install():
    """A copy of the bandkit package in a directory nobody may write to, and a writable home."""
    root = Path(tempfile.mkdtemp(prefix="bandkit-ro-"))
    try:
        site = root / "site"
        shutil.copytree(PKG, site / "bandkit", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
        home = root / "home"
        home.mkdir()
        for p in [site, *site.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        home.chmod(0o1777)
        root.chmod(0o755)
        yield site, home
    finally:
        for p in [root, *root.rglob("*")]:
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)


def _run_readonly(site: Path, home: Path, code: str, **env_extra) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_", "PYTHON"))}
    env.update(PYTHONPATH=str(site), HOME=str(home), PYTHONDONTWRITEBYTECODE="1", **env_extra)
    return subprocess.run([*_as_other_user(), sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=str(site))


def test_a_read_only_install_caches_its_kernels_in_the_user_cache_dir(readonly_install):
    site, home = readonly_install
    xdg = home / "xdg"
    code = ("import os, bandkit\n"
            f"assert bandkit.__file__.startswith({str(site)!r}), bandkit.__file__\n"
            "print('dir', os.environ.get('NUMBA_CACHE_DIR'))\n" + KERNEL_CALL)
    first = _run_readonly(site, home, code, XDG_CACHE_HOME=str(xdg))
    assert first.returncode == 0, first.stderr
    assert f"dir {xdg / 'bandkit' / 'numba'}" in first.stdout
    assert "hits 0 misses 1" in first.stdout  # compiled, and no "no locator available"
    assert list((xdg / "bandkit" / "numba").rglob("*peaks1d._local_maxima*.nbi"))
    assert not list(site.rglob("*.nb[ic]"))
    second = _run_readonly(site, home, code, XDG_CACHE_HOME=str(xdg))
    assert second.returncode == 0, second.stderr
    assert "hits 1 misses 0" in second.stdout  # loaded from the fallback cache


def test_without_xdg_the_home_cache_is_used_and_a_user_choice_is_kept(readonly_install):
    site, home = readonly_install
    out = _run_readonly(site, home, "import os, bandkit; print(os.environ.get('NUMBA_CACHE_DIR'))")
    assert out.stdout.strip() == str(home / ".cache" / "bandkit" / "numba"), out.stderr
    mine = home / "mine"
    out = _run_readonly(site, home, "import os, bandkit; print(os.environ.get('NUMBA_CACHE_DIR'))",
                        NUMBA_CACHE_DIR=str(mine))
    assert out.stdout.strip() == str(mine), out.stderr


def test_a_writable_install_keeps_numbas_default(tmp_path):
    env = {}
    assert _numba.configure_cache(env, package_dir=tmp_path) is None
    assert env == {}


def test_an_unwritable_home_falls_back_to_the_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(_numba, "_writable_dir", lambda p: str(p).startswith(tempfile.gettempdir())
                        and "nohome" not in str(p))
    env = {"HOME": str(tmp_path / "nohome"), "XDG_CACHE_HOME": str(tmp_path / "nohome" / "c")}
    monkeypatch.setattr(_numba, "_package_writable", lambda package_dir=None: False)
    got = _numba.configure_cache(env)
    assert got == env["NUMBA_CACHE_DIR"]
    assert Path(got).parent.name.startswith("bandkit-") and Path(got).name == "numba"


def _run_on_a_pty(code: str, env: dict) -> str:
    """Run ``code`` with stderr on a pseudo-terminal; what it wrote there."""
    main, child = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=child, env=env)
        os.close(child)
        chunks = []
        while True:
            try:
                data = os.read(main, 4096)
            except OSError:  # EIO: the child closed its end
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait() == 0, b"".join(chunks)
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(main)


ANNOUNCE = "import sys, bandkit._numba as N\nN.announce_compiles(sys.stderr)\n" + KERNEL_CALL


def test_the_compile_notice_shows_on_a_terminal_only_when_something_compiles(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}  # an empty cache: a compile happens
    cold = _run_on_a_pty(ANNOUNCE, env)
    assert re.search(r"bandkit: compiling once \(≈ \d+ s\)…", cold), cold
    warm = _run_on_a_pty(ANNOUNCE, env)
    assert "compiling" not in warm, warm


def test_the_cli_announces_only_on_a_terminal(monkeypatch, tmp_path):
    from bandkit import cli

    calls = []
    monkeypatch.setattr(cli, "_announce_compiles", lambda traces: calls.append(len(traces)))
    path = tmp_path / "x.csv"
    path.write_text("value\n" + "\n".join(str(1.0 + (i % 3) * 0.01) for i in range(50)) + "\n")
    out = tmp_path / "r.txt"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert cli.main(["report", str(path), "-o", str(out)]) == 0
    assert calls == []
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert cli.main(["report", str(path), "-o", str(out), "--quiet"]) == 0
    assert calls == []
    assert cli.main(["report", str(path), "-o", str(out)]) == 0
    assert calls == [1]


def test_no_writable_home_falls_back_to_the_temporary_directory_instead_of_crashing(readonly_install):
    """Issue 14: numba raised "cannot cache function '_local_maxima': no locator available"."""
    site, home = readonly_install
    tmp = home / "tmp"
    tmp.mkdir(mode=0o1777)
    tmp.chmod(0o1777)
    out = _run_readonly(site, Path("/nonexistent"), "import bandkit\n" + KERNEL_CALL, TMPDIR=str(tmp))
    assert out.returncode == 0, out.stderr
    assert "hits 0 misses 1" in out.stdout
    assert list(tmp.glob("bandkit-*/numba/**/*.nbi"))
