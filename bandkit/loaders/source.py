"""`Source`: one input (a path, ``-`` for stdin, or a file object), read once, ``.gz`` decompressed."""
from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Union

from ..errors import InputError

PathOrFile = Union[str, os.PathLike, IO[bytes], IO[str]]


@dataclass
class Source:
    """An input's display name (used in every error message), its path if it has one, and its bytes."""

    name: str
    path: Path | None = None
    _data: bytes | None = field(default=None, repr=False)

    @classmethod
    def open(cls, obj: PathOrFile) -> "Source":
        if isinstance(obj, Source):
            return obj
        if isinstance(obj, (str, os.PathLike)):
            s = os.fspath(obj)
            if s == "-":
                return cls(name="<stdin>", _data=_maybe_gunzip("<stdin>", sys.stdin.buffer.read()))
            p = Path(s)
            if p.is_dir():
                return cls(name=s, path=p)
            if not p.exists():
                raise InputError(s, "no such file")
            if not os.access(p, os.R_OK):
                raise InputError(s, "cannot read file (permission denied)")
            return cls(name=s, path=p)
        # file object
        name = getattr(obj, "name", None)
        name = str(name) if isinstance(name, (str, os.PathLike)) else "<file>"
        raw = obj.read()
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        return cls(name=name, _data=_maybe_gunzip(name, raw))

    @property
    def is_dir(self) -> bool:
        return self.path is not None and self.path.is_dir()

    def read_bytes(self) -> bytes:
        """The whole content, decompressed if gzip (by magic number, not by name)."""
        if self._data is None:
            if self.path is None or self.is_dir:
                raise InputError(self.name, "is a directory, not a file")
            try:
                raw = self.path.read_bytes()
            except OSError as exc:
                raise InputError(self.name, f"cannot read file ({exc.strerror or exc})") from None
            self._data = _maybe_gunzip(self.name, raw)
        return self._data

    def release(self) -> None:
        """Drop the cached bytes of a file on disk (a loader is done with them; a later read re-reads)."""
        if self.path is not None:
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

    def head(self, n: int = 8192) -> bytes:
        """The first ``n`` bytes (decompressed), without reading the rest of a file on disk."""
        if self.is_dir:
            return b""
        if self._data is not None or self.path is None:
            return self.read_bytes()[:n]
        return self._read_range(0, n)

    def read_from(self, offset: int) -> bytes:
        """The (decompressed) content from byte ``offset`` on: for a file on disk, read straight from
        the file, so the part before ``offset`` is never copied (big FTQ bodies after a header)."""
        if self._data is not None or self.path is None:
            return self.read_bytes()[offset:]
        return self._read_range(offset, -1)

    def _read_range(self, offset: int, n: int) -> bytes:
        try:
            with open(self.path, "rb") as fh:
                gz = fh.read(2) == b"\x1f\x8b"
            with (gzip.open(self.path, "rb") if gz else open(self.path, "rb")) as fh:
                if offset:
                    fh.seek(offset)
                return fh.read(n)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise InputError(self.name, f"corrupt or truncated gzip data ({exc})") from None
        except OSError as exc:
            raise InputError(self.name, f"cannot read file ({exc.strerror or exc})") from None

    def stream(self) -> IO[bytes]:
        return io.BytesIO(self.read_bytes())


def _maybe_gunzip(name: str, raw: bytes) -> bytes:
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, f"corrupt or truncated gzip data ({exc})") from None
    return raw
