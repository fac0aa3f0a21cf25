"""Candidates for a typed text: exact names, then synonyms, prefixes and typo-tolerant matches.

How (per keystroke, so every step is an index lookup, never a scan of the names):

1. **exact**: ``norm = q`` on the ``(kb_id, norm)`` index; a concept's label first, its synonyms next;
2. **prefix**: names starting with ``q`` (a range on the same index on SQLite; ``LIKE 'q%'`` on
   PostgreSQL's ``text_pattern_ops`` index), shortest first within the index order;
3. **fuzzy** (``q`` of 5 characters or more, when the database has a trigram index): ``q`` is cut
   into two or three pieces, and names containing any piece are fetched (``norm LIKE '%piece%'``,
   answered by SQLite's FTS5 trigram index or PostgreSQL's pg_trgm GIN index). A typo spoils at most
   the pieces it falls in, so the name is still fetched through another; rapidfuzz then scores each
   fetched name against ``q`` (``ratio``/``token_sort_ratio``) and keeps the best.

Why rapidfuzz for the score: it is the maintained C++ implementation of the Levenshtein-family
ratios, ~100x faster than pure Python; its ratios tolerate typos and words in another order.
Ranking: exact label > exact synonym > prefix > fuzzy, then score, then the shorter name. Obsolete
concepts are never offered (they have no names); a branch (a concept id) keeps only its
descendants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from sqlalchemy import Connection, text

from corpusdb.kb import graph, index
from corpusdb.kb.norm import normalize
from corpusdb.store import db

TIERS = {"exact": 0, "synonym": 1, "prefix": 2, "fuzzy": 3}
PREFIX_ROWS = 200
FUZZY_ROWS = 400
"""Names fetched per piece of the query for fuzzy scoring."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One concept offered for a typed text, with the name that matched and why."""

    id: str
    label: str
    name: str
    """The name that matched (the label or a synonym)."""
    kind: str
    """The name's kind: ``label``, an OBO synonym scope, an NCBI name class..."""
    match: str
    """``exact``, ``synonym``, ``prefix`` or ``fuzzy``."""
    score: float
    """0-100: 100 for an exact name, else rapidfuzz's similarity of the typed text and the name."""


def pieces(q: str) -> list[str]:
    """``q`` cut into 2 (5-9 characters) or 3 (10 or more) contiguous pieces of 3+ characters.

    A typo changes at most one piece... unless it falls on a boundary, where it spoils two: three
    pieces keep one intact (and two pieces suffice for short queries, where there is little else)."""
    n = len(q)
    if n < 5:
        return []
    k = 2 if n < 10 else 3
    cuts = [round(i * n / k) for i in range(k + 1)]
    out = [q[a:b] for a, b in pairwise(cuts)]
    return [p for p in out if len(p.strip()) >= 3 and not any(ch in p for ch in "%_\\")]


def _prefix_rows(conn: Connection, kid: int, q: str) -> Sequence[tuple[str, str, str, str]]:
    if db.is_sqlite(conn):
        return conn.exec_driver_sql(
            "SELECT code, name, norm, kind FROM kb_name WHERE kb_id = ? AND norm > ? AND norm < ? "
            f"ORDER BY norm LIMIT {PREFIX_ROWS}",
            (kid, q, q + "\U0010ffff"),
        ).fetchall()
    pattern = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return conn.execute(
        text("SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND norm LIKE :p AND norm <> :q "
             f"ORDER BY norm LIMIT {PREFIX_ROWS}"),
        {"k": kid, "p": pattern, "q": q},
    ).fetchall()  # fmt: skip


def _fuzzy_rows(conn: Connection, kid: int, q: str, kind: str) -> list[tuple[str, str, str, str]]:
    out: list[tuple[str, str, str, str]] = []
    for piece in pieces(q):
        like = f"%{piece}%"
        if kind == "fts5":  # the trigram index first (a join lets SQLite scan kb_name instead)
            ids = [r[0] for r in conn.exec_driver_sql(
                f"SELECT rowid FROM {index.FTS} WHERE norm LIKE ? LIMIT {FUZZY_ROWS * 4}", (like,))]  # fmt: skip
            if not ids:
                continue
            marks = ",".join("?" * len(ids))
            rows = conn.exec_driver_sql(
                f"SELECT code, name, norm, kind FROM kb_name WHERE id IN ({marks}) AND kb_id = ? LIMIT {FUZZY_ROWS}",
                (*ids, kid),
            ).fetchall()
        else:
            rows = conn.execute(
                text(
                    f"SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND norm LIKE :p LIMIT {FUZZY_ROWS}"
                ),
                {"k": kid, "p": like},
            ).fetchall()
        out += rows
    return out


MIN_FUZZY = 70.0
"""A fuzzy candidate scoring below this is not offered (a typo or two in a word scores ~85-95)."""


def _score(q: str, norm: str) -> float:
    """rapidfuzz's similarity of two names, 0-100: the best of the plain ratio (typos), the
    token-sorted ratio (words in another order) and, while the typed text is shorter than the name
    (still being typed), 0.9 x the partial ratio (its best alignment inside the name)."""
    from rapidfuzz import fuzz

    score = max(fuzz.ratio(q, norm), fuzz.token_sort_ratio(q, norm))
    if len(q) < len(norm):
        score = max(score, 0.9 * fuzz.partial_ratio(q, norm))
    return float(score)


def search(
    conn: Connection, kid: int, typed: str, *, limit: int = 20, branch: Sequence[str] = ()
) -> list[Candidate]:
    """The best ``limit`` candidates for ``typed`` in knowledge base ``kid`` (under ``branch``)."""
    q = normalize(typed)
    if not q:
        return []
    best: dict[str, tuple[tuple[int, float, int], str, str, str, float]] = {}

    def offer(code: str, name: str, norm: str, kind: str, match: str, score: float) -> None:
        key = (TIERS[match], -score, len(norm))
        old = best.get(code)
        if old is None or key < old[0]:
            best[code] = (key, name, kind, match, score)

    exact = conn.execute(
        text("SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND norm = :q LIMIT 100"),
        {"k": kid, "q": q},
    ).fetchall()
    for code, name, norm, kind in exact:
        offer(code, name, norm, kind, "exact" if kind == "label" else "synonym", 100.0)
    for code, name, norm, kind in _prefix_rows(conn, kid, q):
        offer(code, name, norm, kind, "prefix", _score(q, norm))
    fuzzy_index = index.kind(conn) if len(q) >= 5 else "none"
    if fuzzy_index != "none":
        rows = _fuzzy_rows(conn, kid, q, fuzzy_index)
        seen: set[str] = set()
        for code, name, norm, kind in rows:
            if norm in seen:
                continue
            seen.add(norm)
            score = _score(q, norm)
            if score >= MIN_FUZZY:
                offer(code, name, norm, kind, "fuzzy", score)
    ranked = sorted(best.items(), key=lambda kv: kv[1][0])
    if branch:
        inside = graph.within(conn, kid, [code for code, _ in ranked[: limit * 20]], branch)
        ranked = [kv for kv in ranked if kv[0] in inside]
    ranked = ranked[:limit]
    labels = graph.labels(conn, kid, [code for code, _ in ranked])
    return [
        Candidate(code, labels.get(code, name), name, kind, match, round(score, 1))
        for code, (_key, name, kind, match, score) in ranked
    ]
