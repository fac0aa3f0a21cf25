"""OBO ontologies (``.obo``) as knowledge-base concepts, read with pronto.

Why pronto: it parses OBO 1.4 through fastobo (a validating Rust parser) and exposes terms, names,
synonyms with their scopes, ``is_a`` parents, obsolete terms and their ``replaced_by``: all a
knowledge base keeps. What it does not give is a line number for a problem it does not raise itself
(a term without a name, an ``is_a`` to an id the file does not define), so those lines are found
by scanning the file for each ``id:`` line, once.

All or nothing: every problem of the file is collected and raised together as one
:class:`FormatError` (``file:line: error: ...``); nothing is yielded for a file with an error.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.records import Concept

_ID_LINE = re.compile(r"^id:\s*(\S+)")


_IS_A = re.compile(r"^is_a:\s*(\S+)")


def _id_lines(path: Path) -> tuple[dict[str, int], list[Problem]]:
    """Line number of each ``id:`` line (the first stanza that defines an id), and the ``is_a``
    lines naming an id the file does not define (pronto would stop on the first without a line)."""
    out: dict[str, int] = {}
    refs: list[tuple[int, str, str]] = []
    current = ""
    with path.open(encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = _ID_LINE.match(line)
            if m:
                current = m.group(1)
                out.setdefault(current, n)
            elif (m := _IS_A.match(line)) is not None:
                refs.append((n, current, m.group(1)))
    problems = [
        Problem(str(path), n, f"term {term}: is_a {target} is not a term of this file")
        for n, term, target in refs
        if target not in out
    ]
    return out, problems


def _open(path: Path):  # type: ignore[no-untyped-def]
    import pronto

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pronto warns about missing headers; our checks say more
            return pronto.Ontology(str(path))
    except UnicodeDecodeError as exc:
        raise FormatError.single(path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except Exception as exc:  # fastobo's syntax errors carry their own line:column
        msg = " ".join(str(exc).split()) or type(exc).__name__
        line = _line_of(msg)
        raise FormatError.single(path, line, f"not a valid OBO file: {msg}") from exc


def _line_of(message: str) -> int | None:
    m = re.search(r"(?:line|-->)\s*(\d+)", message)
    return int(m.group(1)) if m else None


def read_obo(path: str | Path) -> Iterator[Concept]:
    """Every term of an OBO file as a :class:`Concept` (ids as written, e.g. ``OBT:000965``)."""
    path = Path(path)
    if not path.is_file():
        raise FormatError.single(path, None, "no such file")
    lines, problems = _id_lines(path)
    if problems:
        raise FormatError(problems)
    onto = _open(path)
    concepts: list[Concept] = []
    terms = list(onto.terms())
    known = {t.id for t in terms}
    if not terms:
        problems.append(Problem(str(path), None, "no [Term] stanza: not an ontology (or an empty one)"))
    for t in terms:
        line = lines.get(t.id)
        name = (t.name or "").strip()
        if not name:
            problems.append(Problem(str(path), line, f"term {t.id} has no name"))
            continue
        parents = tuple(sorted(p.id for p in t.superclasses(distance=1, with_self=False)))
        missing = [p for p in parents if p not in known]
        if missing:
            problems.append(
                Problem(str(path), line, f"term {t.id}: is_a {missing[0]} is not a term of this file")
            )
            continue
        synonyms = tuple(
            (s.description, s.scope or "RELATED")
            for s in sorted(t.synonyms, key=lambda s: (s.description, s.scope or ""))
            if s.description and s.description.strip()
        )
        concepts.append(
            Concept(
                id=t.id,
                label=name,
                synonyms=synonyms,
                parents=parents,
                obsolete=bool(t.obsolete),
                replaced_by=tuple(sorted(r.id for r in t.replaced_by)),
                type=None,
            )
        )
    if problems:
        raise FormatError(problems)
    yield from concepts
