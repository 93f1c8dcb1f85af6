"""Writing a report where the user asked, without harming anything the user owns.

- Never over an input: every file the loaders read is compared by identity (device, inode), so a
  symbolic or hard link to an input is refused too.
- A regular file is replaced atomically (a temporary file in the same directory, renamed over it):
  a failed or interrupted write leaves the old file, never a partial one. An existing file keeps
  its permission bits (and, for root, its owner); a symbolic link stays a link and its target is
  replaced.
- A device, FIFO or socket (``/dev/null``, ``/dev/stdout``, a named pipe) is written in place, like
  a shell's ``>`` would: it is never replaced by a regular file.
- Write errors (disk full, permission, file-size limit, ...) become one :class:`OutputError` line.
- A signal (Ctrl-C, SIGTERM, SIGHUP) received at any time before the output is committed stops
  the write: no report is written for an interrupted run, even when some library swallowed the
  KeyboardInterrupt on its way up (see :func:`signals_as_interrupts`).
"""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import threading
from typing import Iterable, Iterator

from .errors import BandkitError, UsageError

_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
_pending: list[int] = []  # signals received inside signals_as_interrupts (most recent last)


class OutputError(BandkitError):
    """The report could not be written: ``str(err)`` is ``"FILE: what went wrong"``."""

    def __init__(self, path: str, message: str):
        self.path, self.message = str(path), message
        super().__init__(f"{self.path}: {message}")


# -- signals ----------------------------------------------------------------------------------
def _on_signal(signum, frame) -> None:
    _pending.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Inside the block, SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt and are remembered
    (:func:`pending_signal`). Only in the main thread (signal handlers cannot be set elsewhere)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {}
    try:
        for s in _SIGNALS:
            old[s] = signal.signal(s, _on_signal)
        del _pending[:]
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)


def pending_signal() -> int | None:
    """The signal received in the current :func:`signals_as_interrupts` block, if any."""
    return _pending[-1] if _pending else None


def check_interrupted() -> None:
    """Raise KeyboardInterrupt if a signal was received (even one whose exception was swallowed)."""
    if _pending:
        raise KeyboardInterrupt


# -- writing ----------------------------------------------------------------------------------
def _identities(protected: Iterable) -> set[tuple[int, int]]:
    ids = set()
    for p in protected:
        if hasattr(p, "dev") and hasattr(p, "ino"):
            ids.add((p.dev, p.ino))
            continue
        s = os.fspath(p) if isinstance(p, (str, os.PathLike)) else None
        if not s or s == "-":
            continue
        try:
            st = os.stat(s)
        except (OSError, ValueError):
            continue
        ids.add((st.st_dev, st.st_ino))
    return ids


def encode(text: str) -> bytes:
    """UTF-8; characters that cannot be encoded (a file name's undecodable bytes) as ``\\udcXX``."""
    return text.encode("utf-8", "backslashreplace")


def write_output(text: str, output: str | os.PathLike | None, protected: Iterable = ()) -> None:
    """Write ``text`` to standard output (``output`` None or ``-``) or to the file ``output``.

    ``protected``: the inputs (:class:`~bandkit.loaders.source.OpenedFile` records or paths); the
    output is refused (UsageError) when it is one of them.
    """
    data = encode(text)
    if output is None or os.fspath(output) == "-":
        write_stdout(data)
        return
    path = os.fspath(output)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(path, _why(exc)) from None
    if st is not None:
        if (st.st_dev, st.st_ino) in _identities(protected):
            raise UsageError(f"{path}: refusing to overwrite an input file")
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(path, "is a directory")
        if not stat.S_ISREG(st.st_mode):
            _write_in_place(path, data, truncate=False)
            return
    target = os.path.realpath(path)  # a symbolic link stays: its target is (created or) replaced
    parent = os.path.dirname(target) or "."
    if st is None and not os.path.isdir(parent):
        raise OutputError(path, f"directory {os.path.dirname(path) or parent} does not exist")
    _replace(path, target, data, st)


def write_stdout(data: bytes) -> None:
    """Write bytes to standard output; failures become OutputError (BrokenPipeError is re-raised)."""
    check_interrupted()
    try:
        out = sys.stdout
        buf = getattr(out, "buffer", None)
        if buf is None:
            out.write(data.decode("utf-8"))
            out.flush()
        else:
            out.flush()
            buf.write(data)
            buf.flush()
    except BrokenPipeError:
        _detach_stdout()
        raise
    except OSError as exc:
        _detach_stdout()
        raise OutputError("standard output", _why(exc)) from None


def _detach_stdout() -> None:
    """After a failed write, point fd 1 at /dev/null so the interpreter's final flush cannot fail
    again (a second message or exit status 120)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass


_REASONS = {
    errno.ENOSPC: "no space left on device",
    errno.EFBIG: "file too large: file-size limit reached",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENAMETOOLONG: "file name too long",
    errno.ENOENT: "no such directory",
    errno.ENXIO: "no reader on the other end / not a writable device",
}


def _why(exc: OSError) -> str:
    return f"cannot write ({_REASONS.get(exc.errno) or exc.strerror or exc})"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _write_in_place(path: str, data: bytes, truncate: bool) -> None:
    """Open an existing device / FIFO (or a file in a directory we may not create in) and write."""
    check_interrupted()
    flags = os.O_WRONLY | (os.O_TRUNC if truncate else 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise OutputError(path, _why(exc)) from None
    try:
        _write_all(fd, data)
    except OSError as exc:
        raise OutputError(path, _why(exc)) from None
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _replace(path: str, target: str, data: bytes, st: os.stat_result | None) -> None:
    """Write ``data`` to a temporary file next to ``target`` and rename it over ``target``."""
    check_interrupted()
    parent = os.path.dirname(target) or "."
    import tempfile  # (here: only a write to a file needs it; ~1-2 ms of imports for a report on stdout)

    try:
        fd, tmp = tempfile.mkstemp(prefix=".bandkit-", suffix=".tmp", dir=parent)
    except OSError as exc:
        if st is not None and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) and os.access(target, os.W_OK):
            # may write the file but not create in its directory: write in place (not atomic)
            _write_in_place(target, data, truncate=True)
            return
        raise OutputError(path, _why(exc)) from None
    try:
        try:
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
                if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
                    with contextlib.suppress(OSError):
                        os.fchown(fd, st.st_uid, st.st_gid)
            else:
                os.fchmod(fd, 0o666 & ~_umask())  # like open(): mkstemp's 0600 is not what a user expects
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        check_interrupted()
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, _why(exc)) from None
        raise
