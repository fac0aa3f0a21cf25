"""JSON input that the store can keep and give back: one loader for every JSON reader.

Why one: Python's ``json`` accepts what cannot be stored and read back — NaN and Infinity, numbers
beyond 64 bits, lone surrogates (``"\\ud800"``, not a character), nesting deep enough to exhaust the
parser's recursion (``RecursionError``) or the store's JSON encoder (orjson stops at 255 levels) — and
reports no position for values it accepts. Every JSON reader (BioRelEx, BioC JSON, doccano, Label
Studio, Prodigy) refuses such input here, before any record is made, with the file and the line of the
value (issue #22.10).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from typing import Any

from corpusdb.basics.errors import FormatError

__all__ = ["MAX_DEPTH", "load_file", "loads"]

MAX_DEPTH = 64
"""Deepest JSON nesting accepted (BioRelEx needs 6, BioC JSON 12): deeper input is refused before it
can exhaust the parser's recursion or the store's JSON encoder."""
_INT64 = 2**63


class _Bad(str):
    """A JSON number or constant that cannot be stored and read back (NaN, Infinity, 1e999, 2**64)."""


def _bad_float(s: str) -> float | _Bad:
    f = float(s)
    return f if math.isfinite(f) else _Bad(s)


def _bad_int(s: str) -> int | _Bad:
    if len(s) > 20:  # also keeps int() from refusing 4,300+ digits with a bare ValueError
        return _Bad(s)
    n = int(s)
    return n if -_INT64 <= n < _INT64 else _Bad(s)


# A JSON token scanner used only to find where a problem is (JSON decoders report no positions for
# values they accept): strings are skipped whole so that their content is never taken for a token.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def _line_of(
    raw: str, *, token: str | None = None, depth: int | None = None, string: str | None = None
) -> int | None:
    """The line of the first ``token`` outside strings, of the first nesting deeper than ``depth``,
    or of the first string literal whose decoded value is ``string``."""
    level = 0
    for m in _TOKENS.finditer(raw):
        t = m.group()
        if t[0] == '"':
            if string is not None and "\\u" in t:
                try:
                    hit = json.loads(t) == string
                except ValueError:
                    hit = False
                if hit:
                    return raw.count("\n", 0, m.start()) + 1
            continue
        if t in "[{":
            level += 1
            if depth is not None and level > depth:
                return raw.count("\n", 0, m.start()) + 1
        elif t in "]}":
            level -= 1
        elif token is not None and t == token:
            return raw.count("\n", 0, m.start()) + 1
    return None


def _unstorable(raw: str, data: Any) -> tuple[int | None, str] | None:
    """The line and description of the first value that could not be stored and read back."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > MAX_DEPTH:
            return _line_of(raw, depth=MAX_DEPTH), f"JSON nested more than {MAX_DEPTH} levels deep"
        if isinstance(obj, _Bad):
            return _line_of(raw, token=str(obj)), (
                f"non-standard JSON value {str(obj)!r} (NaN, Infinity and numbers beyond 64 bits cannot be "
                "stored; write null or a string)"
            )
        if isinstance(obj, str):
            if not obj.isascii():
                try:
                    obj.encode("utf-8")
                except UnicodeEncodeError as err:
                    code = ord(obj[err.start])
                    return _line_of(raw, string=obj), (
                        f"lone surrogate \\u{code:04x} in a string (not a character; text must be valid Unicode)"
                    )
        elif isinstance(obj, dict):
            stack.extend((k, depth + 1) for k in obj)
            stack.extend((v, depth + 1) for v in obj.values())
        elif isinstance(obj, list):
            stack.extend((v, depth + 1) for v in obj)
    return None


def loads(
    raw: str,
    file: str,
    *,
    first_line: int = 1,
    invalid: str = "not valid JSON",
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """The JSON value of ``raw`` (text of ``file`` from line ``first_line``: a JSONL line gives its
    number), or :class:`FormatError` naming the file and line of what cannot be kept (``invalid``
    starts the message for text that is not JSON at all)."""
    shift = first_line - 1
    try:
        value = json.loads(raw, object_pairs_hook=object_pairs_hook, parse_constant=_Bad,
                           parse_float=_bad_float, parse_int=_bad_int)  # fmt: skip
    except json.JSONDecodeError as err:
        raise FormatError.single(
            file, err.lineno + shift, f"{invalid}: {err.msg} (column {err.colno})"
        ) from err
    except RecursionError:
        line = _line_of(raw, depth=MAX_DEPTH)
        raise FormatError.single(
            file, None if line is None else line + shift, f"JSON nested more than {MAX_DEPTH} levels deep"
        ) from None
    bad = _unstorable(raw, value)
    if bad is not None:
        line, why = bad
        raise FormatError.single(file, None if line is None else line + shift, why)
    return value


def load_file(
    path: str | os.PathLike[str],
    *,
    invalid: str = "not valid JSON",
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> tuple[str, Any]:
    """A UTF-8 JSON file's text (a BOM dropped) and value, checked as :func:`loads` does."""
    file = os.fspath(path)
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise FormatError.single(file, None, f"cannot read: {err.strerror or err}") from err
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise FormatError.single(
            file, line, f"not valid UTF-8: byte 0x{data[err.start]:02x} at byte offset {err.start}"
        ) from err
    raw = raw.removeprefix("\ufeff")
    return raw, loads(raw, file, invalid=invalid, object_pairs_hook=object_pairs_hook)
