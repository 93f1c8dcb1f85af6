"""`Source`: one input (a path, ``-`` for stdin, or a file object), read once, ``.gz`` decompressed.

A regular file is read lazily (a loader may read only its head, or its body from an offset). Every
other input -- standard input, a pipe such as ``<(zcat trace.gz)``, a FIFO, a device -- can be
read only once, so it is read whole when opened, like ``-``. Decompressed and streamed sizes are
bounded by :class:`bandkit.limits.Limits`.

Every file a loader opens is recorded (``Source.files``; sibling files through
:meth:`Source.related`, and in every :func:`record_opened` block), so that the CLI can refuse to
write its output over any of them, whatever name or symbolic link they were reached through.
"""
from __future__ import annotations

import contextlib
import contextvars
import errno
import gzip
import io
import os
import stat
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, NamedTuple, Union

from ..errors import InputError
from ..limits import DEFAULT, GZIP_RATIO, Limits, fmt_size

PathOrFile = Union[str, os.PathLike, IO[bytes], IO[str]]

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


class OpenedFile(NamedTuple):
    """A file an input was read from: the name used and the file's identity (device, inode)."""

    path: str
    dev: int
    ino: int


_RECORDERS: contextvars.ContextVar[tuple[list, ...]] = contextvars.ContextVar("bandkit_opened", default=())


@contextlib.contextmanager
def record_opened() -> Iterator[list[OpenedFile]]:
    """Collect every file any :class:`Source` opens inside the block (siblings included)."""
    files: list[OpenedFile] = []
    token = _RECORDERS.set(_RECORDERS.get() + (files,))
    try:
        yield files
    finally:
        _RECORDERS.reset(token)


@dataclass
class Source:
    """An input's display name (used in every error message), its path if it has one, and its bytes.

    ``files``: the files read for this input (shared with :meth:`related` sources).
    ``limits``: the resource limits its loader must respect.
    """

    name: str
    path: Path | None = None
    _data: bytes | None = field(default=None, repr=False)
    limits: Limits = field(default=DEFAULT, repr=False)
    files: list[OpenedFile] = field(default_factory=list, repr=False)
    _dir: bool = field(default=False, repr=False)
    _size: int | None = field(default=None, repr=False)

    @classmethod
    def open(cls, obj: PathOrFile, limits: Limits | None = None) -> "Source":
        if isinstance(obj, Source):
            if limits is not None and limits != obj.limits:
                obj.limits = limits
            return obj
        limits = limits or DEFAULT
        if isinstance(obj, (str, os.PathLike)):
            s = os.fspath(obj)
            if s == "-":
                data = _read_stream(sys.stdin.buffer, "<stdin>", limits)
                return cls(name="<stdin>", _data=data, limits=limits)
            return cls._open_path(s, limits, [])
        # file object
        name = getattr(obj, "name", None)
        name = str(name) if isinstance(name, (str, os.PathLike)) else "<file>"
        if isinstance(obj, io.TextIOBase):
            raw = obj.read()
            raw = raw.encode("utf-8") if isinstance(raw, str) else raw
            return cls(name=name, _data=_maybe_gunzip(name, raw, limits, len(raw)), limits=limits)
        return cls(name=name, _data=_read_stream(obj, name, limits), limits=limits)

    @classmethod
    def _open_path(cls, s: str, limits: Limits, files: list[OpenedFile]) -> "Source":
        p = Path(s)
        try:
            st = os.stat(p)
        except OSError as exc:
            raise InputError(s, _open_error(p, exc)) from None
        if stat.S_ISDIR(st.st_mode):
            return cls(name=s, path=p, limits=limits, files=files, _dir=True)
        if not os.access(p, os.R_OK):
            raise InputError(s, "cannot read file (permission denied)")
        src = cls(name=s, path=p, limits=limits, files=files)
        src._note(st)
        if stat.S_ISREG(st.st_mode):
            src._size = st.st_size
            return src
        # a pipe, FIFO, socket or device: readable once, so read it whole now
        try:
            with open(p, "rb", buffering=0) as fh:
                src._data = _read_stream(fh, s, limits)
        except OSError as exc:
            raise InputError(s, f"cannot read ({exc.strerror or exc})") from None
        return src

    def related(self, path: str | os.PathLike) -> "Source":
        """Another file read for this input (the other file of a pair, a sibling holding the name):
        same limits, and recorded in this source's ``files``."""
        return Source._open_path(os.fspath(path), self.limits, self.files)

    def _note(self, st: os.stat_result) -> None:
        rec = OpenedFile(str(self.path), st.st_dev, st.st_ino)
        self.files.append(rec)
        for files in _RECORDERS.get():
            files.append(rec)

    @property
    def is_dir(self) -> bool:
        return self._dir

    @property
    def _lazy(self) -> bool:
        """A regular file on disk that is (re-)read on demand."""
        return self._size is not None

    def read_bytes(self) -> bytes:
        """The whole content, decompressed if gzip (by magic number, not by name)."""
        if self._data is None:
            if self.path is None or self.is_dir:
                raise InputError(self.name, "is a directory, not a file")
            self._data = self._read_range(0, -1)
        return self._data

    def release(self) -> None:
        """Drop the cached bytes of a file on disk (a loader is done with them; a later read re-reads)."""
        if self._lazy:
            self._data = None

    def read_text(self) -> str:
        data = self.read_bytes()
        if b"\x00" in data[:65536]:
            raise InputError(self.name, "binary data, not a text file")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise InputError(self.name, "not valid UTF-8 text (binary data?)", line=line) from None

    def read_table_text(self) -> str:
        """:meth:`read_text` for a line-oriented table: no line longer than ``limits.max_line_bytes``."""
        text = self.read_text()
        check_line_length(self, text)
        return text

    def head(self, n: int = 8192) -> bytes:
        """The first ``n`` bytes (decompressed), without reading the rest of a file on disk."""
        if self.is_dir:
            return b""
        if self._data is not None or not self._lazy:
            return self.read_bytes()[:n]
        return self._read_range(0, n)

    def read_from(self, offset: int) -> bytes:
        """The (decompressed) content from byte ``offset`` on: for a file on disk, read straight from
        the file, so the part before ``offset`` is never copied (big FTQ bodies after a header)."""
        if self._data is not None or not self._lazy:
            return self.read_bytes()[offset:]
        return self._read_range(offset, -1)

    def _read_range(self, offset: int, n: int) -> bytes:
        try:
            with open(self.path, "rb") as fh:
                gz = fh.read(2) == _GZIP_MAGIC
                fh.seek(0)
                if not gz:
                    if offset:
                        fh.seek(offset)
                    return fh.read(n)
                with gzip.GzipFile(fileobj=fh, mode="rb") as z:
                    if offset:
                        z.seek(offset)
                    limit = self.limits.gzip_bytes(self._size)
                    return _read_bounded(z, n if n >= 0 else None, limit - offset,
                                         lambda: _gzip_too_big(self.name, limit, self._size, self.limits))
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise InputError(self.name, f"corrupt or truncated gzip data ({exc})") from None
        except OSError as exc:
            raise InputError(self.name, f"cannot read file ({exc.strerror or exc})") from None

    def stream(self) -> IO[bytes]:
        return io.BytesIO(self.read_bytes())


def check_line_length(source: Source, text: str | bytes) -> None:
    """Raise InputError at the first line longer than ``source.limits.max_line_bytes`` (characters
    of a str, bytes of bytes). C-speed: one ``rfind`` per window of the limit's length."""
    limit = source.limits.max_line_bytes
    n = len(text)
    if n <= limit:
        return
    nl = "\n" if isinstance(text, str) else b"\n"
    pos = 0  # start of a line
    while n - pos > limit:
        last = text.rfind(nl, pos, pos + limit + 1)
        if last < 0:  # no line end within limit + 1 characters of this line's start
            end = text.find(nl, pos)
            length = (n if end < 0 else end) - pos
            unit = "characters" if isinstance(text, str) else "bytes"
            raise InputError(source.name, f"line is {length:,} {unit} long, more than the limit of {limit:,} "
                                          "(raise it with --max-line-length)", line=text.count(nl, 0, pos) + 1)
        pos = last + 1


def check_columns(source: Source, ncols: int, line: int | None = 1) -> None:
    """Raise InputError when a table has more than ``source.limits.max_columns`` columns."""
    limit = source.limits.max_columns
    if ncols > limit:
        raise InputError(source.name, f"{ncols:,} columns, more than the limit of {limit:,} "
                                      "(raise it with --max-columns)", line=line)


def check_benchmarks(source: Source, n: int, *, at_least: bool = False) -> None:
    """Raise InputError when an input holds more than ``source.limits.max_benchmarks`` benchmarks
    (traces); ``at_least``: ``n`` is a count so far (a loader stopping early)."""
    limit = source.limits.max_benchmarks
    if n > limit:
        raise InputError(source.name, f"{'at least ' if at_least else ''}{n:,} benchmarks, more than the limit of "
                                      f"{limit:,} (raise it with --max-benchmarks)")


def _open_error(p: Path, exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "broken symbolic link" if os.path.islink(p) else "no such file"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "cannot read file (permission denied)"
    if exc.errno == errno.ENAMETOOLONG:
        return "file name too long"
    if exc.errno == errno.ENOTDIR:
        return "no such file (a part of the path is not a directory)"
    return f"cannot open ({exc.strerror or exc})"


def _read_bounded(fh, n: int | None, limit: int, too_big) -> bytes:
    """Read ``n`` bytes (all when None) from ``fh`` in chunks; call ``too_big()`` (which raises)
    as soon as more than ``limit`` bytes would be needed."""
    chunks = []
    total = 0
    want = n if n is not None else limit + 1
    while total < want:
        b = fh.read(min(_CHUNK, want - total))
        if not b:
            break
        chunks.append(b)
        total += len(b)
    if n is None and total > limit:
        too_big()
    return b"".join(chunks)


def _read_stream(fh, name: str, limits: Limits) -> bytes:
    """Everything from a stream (stdin, pipe, FIFO, device, file object), decompressed if gzip."""
    limit = limits.stream_bytes()
    first = fh.read(min(65536, limit + 1))
    first = first.encode("utf-8") if isinstance(first, str) else (first or b"")
    if b"\x00" in first and not first.startswith(_GZIP_MAGIC):
        raise InputError(name, "binary data: not a trace or result file bandkit knows")

    def too_big():
        raise InputError(name, f"more than {fmt_size(limit)} of input, the limit for a stream "
                               "(raise it with --max-input-size)")

    rest = _read_bounded(fh, None, limit - len(first), too_big) if first else b""
    raw = first + rest if rest else first
    return _maybe_gunzip(name, raw, limits, len(raw))


def _gzip_too_big(name: str, limit: int, compressed: int | None, limits: Limits):
    why = ("" if limits.max_input_bytes is not None or compressed is None or
           GZIP_RATIO * compressed < limit else f" ({GZIP_RATIO}x its compressed size)")
    raise InputError(name, f"gzip data expands to more than {fmt_size(limit)}{why}, the limit for "
                           "decompressed input (raise it with --max-input-size)")


def _maybe_gunzip(name: str, raw: bytes, limits: Limits = DEFAULT, compressed: int | None = None) -> bytes:
    if raw[:2] != _GZIP_MAGIC:
        return raw
    limit = limits.gzip_bytes(compressed if compressed is not None else len(raw))
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as z:
            return _read_bounded(z, None, limit, lambda: _gzip_too_big(name, limit, compressed, limits))
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(name, f"corrupt or truncated gzip data ({exc})") from None


def opened_files() -> list[OpenedFile]:
    """Every file recorded by the :func:`record_opened` blocks active now."""
    return [f for files in _RECORDERS.get() for f in files]
