"""bandkit's own exceptions: the CLI turns them into one line and an exit status."""
from __future__ import annotations


class BandkitError(Exception):
    """Base of every error bandkit reports to a user."""


class InputError(BandkitError):
    """Bad input: names the file and, where known, the line or field.

    ``str(err)`` is ``"FILE:LINE: what is wrong"`` (``FILE: what`` without a line,
    ``FILE: FIELD: what`` for a field).
    """

    def __init__(self, path: str, message: str, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        # one line, whatever a library's message held (pandas ends its parser errors with a newline)
        message = " ".join(str(message).split()) if ("\n" in str(message) or "\r" in str(message)) else message
        self.message = message
        where = self.path
        if line is not None:
            where += f":{line}"
        if field is not None:
            where += f": {field}"
        super().__init__(f"{where}: {message}")


class UsageError(BandkitError):
    """A call that does not make sense (bad option combination, wrong number of traces)."""


class InvalidValueError(UsageError, ValueError):
    """A bad parameter or data value given to a library call: a UsageError for the CLI, and the
    ValueError scikit-learn's conventions (and ``check_estimator``) expect from an estimator."""


class NotAnalysable(UsageError):
    """An analysis cannot run on this input (too short, no sampling rate, no finite values): the report
    lists the section under ``skipped`` with ``reason`` (a code of :data:`bandkit.section.SKIP_REASONS`)
    and ``detail`` (numbers, never English) instead of dropping it silently. A :class:`UsageError` for
    direct callers, with the same message as before."""

    def __init__(self, message: str, reason: str, **detail):
        super().__init__(message)
        self.reason = reason
        self.detail = detail
