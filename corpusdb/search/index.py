"""What the documents' full-text index (``corpusdb.store.text_index``, kept by the database) is asked."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from sqlalchemy import ColumnElement, Connection, literal_column, select, text, true

from corpusdb.search.patterns import Pattern
from corpusdb.store import db
from corpusdb.store.text_index import (
    FTS,
    TRGM_INDEX,
    WORDS_MAX,
    has_words,
    install,
    kind,
    like_definer,
    outside_models,
    uninstall,
    words_sql,
)

__all__ = ["FTS", "TRGM_INDEX", "has_words", "install", "kind", "like_definer", "narrows", "outside_models",
           "text_filter", "uninstall"]  # fmt: skip

_NAMES = itertools.count()
_TRIGRAM = re.compile(r"[^\W_]{3}")


def narrows(index: str, patterns: Sequence[Pattern], *, words: str | None = None) -> bool:
    """Whether the index can narrow the documents for these patterns (else they are scanned): FTS5
    when a pattern has words, the PostgreSQL words index (``words``) when one is an ASCII word,
    prefix or phrase, the trigram index when a literal has three letters or digits in a row
    (shorter words give only trigrams most texts hold)."""
    if words and any(p.tsquery() is not None for p in patterns):
        return True
    if index == "fts5":
        return any(p.fts5() is not None for p in patterns)
    if index == "pg_trgm":
        return any(_TRIGRAM.search(lit) for p in patterns for lit in p.like_literals())
    return False


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def text_filter(conn: Connection, index: str, column: ColumnElement[str], patterns: Sequence[Pattern],
                document_id: ColumnElement[int] | None = None, *, like: bool = True,
                words: str | None = None, project_id: int | None = None,
                definer: bool = False) -> ColumnElement[bool]:  # fmt: skip
    """SQL that every text matching *all* ``patterns`` satisfies (a superset: the caller checks the
    candidates in Python). ``index`` is :func:`kind`; ``document_id`` (with ``fts5``) is the
    document's id column, looked up in the FTS5 index; else the literals go through ``LIKE``
    (SQLite: case-insensitive for ASCII) or ``ILIKE`` (PostgreSQL, served by the trigram index).
    ``like=False``: only what the FTS5 index answers (no scan of the column). ``words`` (PostgreSQL,
    ``column`` is ``document.text``): the words index answers the patterns it can
    (:meth:`Pattern.tsquery`), exactly and without reading a text, instead of the trigram index
    (whose every candidate text is read again to check the literal). ``definer`` (a team login on
    PostgreSQL, :func:`like_definer`; ``column`` is ``document.text``): a literal with a trigram is
    asked of the trigram index through ``corpusdb_like_candidates`` (the same ``ILIKE``, run as the
    owner for ``project_id``'s documents: under row-level security ``ILIKE`` would read every text);
    a shorter one stays an ``ILIKE`` (the index could not narrow it anyway)."""
    conds: list[ColumnElement[bool]] = []
    if words:
        rest: list[Pattern] = []
        for p in patterns:
            if (q := p.tsquery()) is None:
                rest.append(p)
                continue
            # texts of WORDS_MAX bytes or more are not in the index: always candidates (a partial
            # index lists them, so the OR is a BitmapOr of two index scans)
            name = f"words_{next(_NAMES)}"
            if words == "definer":  # a team login: the index through the owner's function (has_words)
                # ``= ANY(ARRAY(...))``, not ``IN (SELECT ...)``: the candidates are then read in
                # the primary key's order, one index scan (15 ms for 3,816, not 25: a probe each)
                expr = (
                    f"document.id = ANY(ARRAY(SELECT corpusdb_text_candidates(:{name}_p, "
                    f"CAST(:{name} AS tsquery))))"
                )
                conds.append(text(expr).bindparams(**{name: q, f"{name}_p": project_id}))
                continue
            expr = f"({words_sql('document.text')} @@ CAST(:{name} AS tsquery) OR octet_length(document.text) >= {WORDS_MAX})"
            conds.append(text(expr).bindparams(**{name: q}))
        patterns = rest
    fts_parts = [q for p in patterns if (q := p.fts5()) is not None] if index == "fts5" else []
    if fts_parts and document_id is not None:
        match = " AND ".join(fts_parts)
        sub = (
            select(literal_column("rowid"))
            .select_from(text(FTS))
            .where(text(f"{FTS} MATCH :fts_match").bindparams(fts_match=match))
        )
        conds.append(document_id.in_(sub))
    for p in patterns:
        if p.fts5() is not None and fts_parts and document_id is not None:
            continue  # the FTS5 index answered for it
        lits = p.like_literals()
        if not lits or not like:
            continue
        lit = lits[0]  # the longest: the most selective
        if definer and project_id is not None and _TRIGRAM.search(lit):
            name = f"like_{next(_NAMES)}"
            expr = f"document.id = ANY(ARRAY(SELECT corpusdb_like_candidates(:{name}_p, :{name})))"
            conds.append(text(expr).bindparams(**{name: _like(lit), f"{name}_p": project_id}))
            continue
        like = column.like if db.is_sqlite(conn) else column.ilike
        conds.append(like(_like(lit), escape="\\"))
    if not conds:
        return true()
    out = conds[0]
    for c in conds[1:]:
        out = out & c
    return out
