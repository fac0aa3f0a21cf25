"""Names that become file names: document ids (``<id>.txt``, ``<id>.ann``) and split names (folders).

Why checked where they enter (the API, every importer) rather than where files are written: an export
or a release must never fail, or write outside its folder, because of a name stored months earlier.
A name must be one path component on every common file system: not empty, not ``.`` or ``..``, no
``/`` or ``\\``, no control characters, valid Unicode, and at most ``MAX_NAME_BYTES`` bytes of UTF-8
(file names are limited to 255 bytes; the rest is left for extensions such as ``.a2``).
"""

from __future__ import annotations

import re

MAX_NAME_BYTES = 200


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # the control characters (C0 and DEL)


def name_problem(name: object, what: str) -> str | None:
    """Why ``name`` cannot be a ``what`` (e.g. "document id"), or None when it can.

    Checked for every document of an import (twice): the common valid name costs a few C calls."""
    if not isinstance(name, str) or not name:
        return f"{what} must be a non-empty string, got {name!r}"
    if name in (".", ".."):
        return f"{what} {_shown(name)} is not allowed (it names a folder, not a file)"
    if "/" in name or "\\" in name:
        return f"{what} {_shown(name)} contains a path separator ('/' or '\\')"
    if _CONTROL.search(name) is not None:
        return f"{what} {_shown(name)} contains a control character"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return f"{what} {_shown(name)} contains a lone surrogate (not valid Unicode)"
    if size > MAX_NAME_BYTES:
        return (
            f"{what} {_shown(name)} is {size} bytes long; at most {MAX_NAME_BYTES} (it becomes a file name)"
        )
    return None


def _shown(name: str) -> str:
    return repr(name if len(name) <= 40 else name[:40] + "...")


def check_name(name: object, what: str) -> None:
    """Raise InvalidInput when ``name`` cannot be a ``what``."""
    from corpusdb.basics.errors import InvalidInput

    problem = name_problem(name, what)
    if problem is not None:
        raise InvalidInput(problem)


_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key putting ``dev.2`` before ``dev.10`` (numbers compared as numbers, the rest as text,
    case-insensitively): how people expect a list of document ids to read."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.casefold()) for part in _DIGITS.split(name) if part
    )
