"""Where each standoff line goes: the annotation files, and the canonical order of their lines.

Shared by the reader (which decides whether a document was read in this order, so positions
need not be stored) and the writer (which puts lines without a position in it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

ANN_EXTENSIONS: tuple[str, ...] = ("ann", "a1", "a2")
"""Annotation file extensions, in the order they are read and written."""


_RANK = {"T": 0, "R": 1, "E": 1, "A": 2, "M": 2, "N": 3, "*": 4, "#": 5}
"""Lines without a position go after the positioned lines of their default file (see
:func:`_default_files`), ordered by this rank of their letter, then in the order
:func:`format_annotations` makes them."""


@lru_cache(maxsize=64)
def _default_files(first: str, last: str) -> dict[tuple[str, bool], str]:
    """Where a line without a position goes, by (letter, whether the line is an event's trigger span),
    given the first and last annotation files: a span to the first file, or to the last when it is
    some event's trigger (BioNLP's ``.a2``); every other line to the last. A table (made once per
    pair of files) because the reader looks it up for every document."""
    return {
        (p, trigger): first if p == "T" and not trigger else last for p in _RANK for trigger in (False, True)
    }


_KINDS = "TRAN*#"
"""The kinds of lines :func:`_in_writer_order` is told about, in rank order (the reader counts them
so), by letter: ``R`` stands for R and E lines, ``A`` for A and M (each pair shares its rank and
its default file)."""
if sorted(_KINDS, key=_RANK.__getitem__) != list(_KINDS):  # pragma: no cover - guards the reader's tuples
    raise ImportError(f"importers.standoff: _KINDS {_KINDS!r} must follow _RANK")
_NO_LINES = (0,) * len(_KINDS)


@lru_cache(maxsize=64)
def _misplaced_kinds(first: str, last: str, ext: str) -> tuple[int, ...]:
    """The kinds of :data:`_KINDS` (by index; spans apart) whose default file is not ``ext``."""
    home = _default_files(first, last)
    return tuple(k for k, letter in enumerate(_KINDS) if letter != "T" and home[letter, False] != ext)


def _in_writer_order(
    files: Sequence[tuple[str, Any, Sequence[int], bool]],
    n_triggers: int,
    trigger_spans: Callable[[int], int],
    owner_keys: Callable[[], tuple[Sequence[Any], Sequence[Any]]] | None,
) -> bool:
    """Whether :func:`format_annotations`, given a document's items without their line positions,
    writes every line where it is (then the reader drops the positions: they are redundant).

    Without positions the writer puts each line in its file of :func:`_default_files` and orders
    each file by :data:`_RANK` (T; R/E; A/M; N; ``*``; ``#``), and within a rank as it makes the
    lines: spans, relations, ``*`` lines and notes in record order; A/M lines by owner (each span in
    order, then each relation), each owner's in attribute order; N lines by span, each span's in
    order. The caller (the reader) vouches for what this cannot see: no verbatim line; records, each
    owner's attributes and each span's groundings in file order; relations without ``label`` or
    ``tags``; one link group per ``*`` line.

    ``files``: per annotation file, in order: its extension, anything, how many lines of each kind
    of :data:`_KINDS` there are up to its end (counting the files before), and whether its lines are
    in rank order (see ``_Parser.end_file``). ``n_triggers``: how many ids are some event's trigger
    (all spans, in a valid document); ``trigger_spans(f)``: how many of file ``f``'s spans are (asked
    only when the writer would split the spans between files). ``owner_keys`` (None when there are fewer than two A/M lines and
    fewer than two N lines): gives, for the A/M and for the N lines in file order, keys that sort
    their owners in record order. Those two are asked last, only if all else holds.
    """
    if not files:
        return True
    first, last = files[0][0], files[-1][0]
    home = _default_files(first, last)
    to_triggers, to_others = home["T", True], home["T", False]
    before: Sequence[int] = _NO_LINES
    all_triggers: list[tuple[int, int]] = []  # (file, its spans): files whose spans must all be triggers
    no_triggers: list[int] = []  # files whose spans must not be
    in_all = 0
    for f, (ext, _, ends, ordered) in enumerate(files):
        if not ordered:
            return False
        for k in _misplaced_kinds(first, last, ext):
            if ends[k] != before[k]:
                return False
        spans = ends[0] - before[0]
        if spans and not to_triggers == ext == to_others:
            if to_triggers == ext:
                all_triggers.append((f, spans))
                in_all += spans
            elif to_others == ext:
                no_triggers.append(f)
            else:
                return False
        before = ends
    if in_all > n_triggers:
        return False
    for f, n in all_triggers:
        if trigger_spans(f) != n:
            return False
    if in_all < n_triggers:  # else those files hold every trigger
        for f in no_triggers:
            if trigger_spans(f):
                return False
    if owner_keys is None:
        return True
    attr_keys, norm_keys = owner_keys()
    return list(attr_keys) == sorted(attr_keys) and list(norm_keys) == sorted(norm_keys)
