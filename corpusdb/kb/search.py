"""Candidates for a typed text: exact names, then synonyms, prefixes and typo-tolerant matches.

How (per keystroke, so every step is a bounded index lookup, never a scan of the names):

1. **exact**: ``norm = q`` on the ``(kb_id, norm)`` index; a concept's label first, its synonyms next;
2. **prefix**: names starting with ``q``, a byte range read in index order and stopped at
   ``PREFIX_ROWS`` (SQLite's ``(kb_id, norm)`` index; PostgreSQL's ``(kb_id, norm COLLATE "C")``);
3. **fuzzy**, only when 1 and 2 found fewer than ``limit`` concepts (fuzzy candidates rank after
   prefixes, so when prefixes fill the list they could never be shown: while a name is being typed
   without a typo, this step costs nothing). Where is the typo? ``L``, the longest prefix of ``q``
   that begins some name (a few one-row index probes), is at or past it, so the intended name
   begins with ``q[:L-1]`` when the typo is late, and contains ``q[L+2:]`` whatever the edit
   (dropped, added, changed or swapped letter). Candidates are fetched from each side, each a
   bounded index read: the names around ``q`` in index order sharing ``q[:L-1]``; the names
   containing the tail ``q[L+2:]`` (3 characters or more); and, for a second typo, names containing
   the longest words of ``q``. The substring reads use the trigram index (SQLite FTS5's
   ``trigram`` tokenizer as a phrase query; PostgreSQL ``pg_trgm``'s GIN index under ``LIKE``).
   rapidfuzz then scores the few hundred names fetched against ``q`` and keeps the best.

Why rapidfuzz for the score: it is the maintained C++ implementation of the Levenshtein-family
ratios, ~100x faster than pure Python; its ratios tolerate typos and words in another order.
Ranking: exact label > exact synonym > prefix > fuzzy, then score, then the shorter name. Obsolete
concepts are never offered (they have no names); a branch (a concept id) keeps only its
descendants. ``bench/bench_kb.py`` measures it per keystroke at NCBI Taxonomy scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from corpusdb.kb import graph, index
from corpusdb.kb.norm import normalize
from corpusdb.store import db

TIERS = {"exact": 0, "synonym": 1, "prefix": 2, "fuzzy": 3}
PREFIX_ROWS = 200
NEAR_ROWS = 100
"""Names read on each side of the typed text (in index order) for fuzzy scoring."""
FUZZY_ROWS = 300
"""Names read per substring (a tail or a word) for fuzzy scoring."""
TOP = "\U0010ffff"


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


def pieces(q: str, longest: int) -> list[str]:
    """The substrings a name with a typo in ``q`` still contains: the tail after the typo
    (``q[longest+2:]``, ``longest`` being the longest prefix of ``q`` some name begins with), and
    the words of 4+ characters (for a second typo), longest first; none with LIKE's wildcards."""
    out = []
    tail = q[longest + 2 :].strip()
    if len(tail) >= 3:
        out.append(tail)
    words = sorted({w for w in q.split() if len(w) >= 4 and w not in tail}, key=len, reverse=True)
    out += words[:2]
    return [p for p in out if not any(ch in p for ch in '%_\\"')]


def _range(conn: Connection) -> tuple[str, str]:
    """The SQL for "norm in [lo, hi)" on the prefix index, and the ordering that reads it."""
    if db.is_sqlite(conn):
        return "norm >= :lo AND norm < :hi", "norm"
    return 'norm COLLATE "C" >= :lo AND norm COLLATE "C" < :hi', 'norm COLLATE "C"'


def _prefix_rows(conn: Connection, kid: int, q: str) -> Sequence[tuple[str, str, str, str]]:
    where, order = _range(conn)
    return conn.execute(
        text(f"SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND {where} AND norm <> :q "
             f"ORDER BY {order} LIMIT {PREFIX_ROWS}"),
        {"k": kid, "lo": q, "hi": q + TOP, "q": q},
    ).fetchall()  # fmt: skip


def _begins(conn: Connection, kid: int, p: str) -> bool:
    where, _ = _range(conn)
    return (
        conn.execute(
            text(f"SELECT 1 FROM kb_name WHERE kb_id = :k AND {where} LIMIT 1"),
            {"k": kid, "lo": p, "hi": p + TOP},
        ).first()
        is not None
    )


def longest_prefix(conn: Connection, kid: int, q: str) -> int:
    """The length of the longest prefix of ``q`` that begins some name (binary search: ~log2(len(q))
    one-row index probes)."""
    lo, hi = 0, len(q)  # q[:lo] begins a name; q[:hi+1] does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _begins(conn, kid, q[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _near_rows(conn: Connection, kid: int, q: str, head: str) -> list[tuple[str, str, str, str]]:
    """The names sharing ``head`` nearest ``q`` in index order, on both sides."""
    where, order = _range(conn)
    col = order
    args = {"k": kid, "lo": head, "hi": head + TOP, "q": q}
    after = conn.execute(
        text(f"SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND {where} AND {col} >= :q "
             f"ORDER BY {order} LIMIT {NEAR_ROWS}"), args).fetchall()  # fmt: skip
    before = conn.execute(
        text(f"SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND {where} AND {col} < :q "
             f"ORDER BY {order} DESC LIMIT {NEAR_ROWS}"), args).fetchall()  # fmt: skip
    return [*after, *before]


def _containing(
    conn: Connection, kid: int, piece: str, kind: str, rows: int = FUZZY_ROWS
) -> Sequence[tuple[str, str, str, str]]:
    """Names of ``kid`` containing ``piece``, at most ``rows``, through the trigram index."""
    if kind == "fts5":  # a phrase of trigrams: the index alone answers it, in rowid order
        phrase = '"' + piece.replace('"', '""') + '"'
        return conn.exec_driver_sql(
            f"SELECT n.code, n.name, n.norm, n.kind FROM kb_name n WHERE n.id IN "
            f"(SELECT rowid FROM {index.FTS} WHERE {index.FTS} MATCH ? LIMIT {rows * 4}) "
            f"AND +n.kb_id = ? LIMIT {rows}",  # +: by rowid, not a scan of the kb_id index
            (phrase, kid),
        ).fetchall()
    return conn.execute(
        text(
            f"SELECT code, name, norm, kind FROM kb_name WHERE kb_id = :k AND norm LIKE :p LIMIT {FUZZY_ROWS}"
        ),
        {"k": kid, "p": f"%{piece}%"},
    ).fetchall()


def _fuzzy_rows(conn: Connection, kid: int, q: str, kind: str) -> list[tuple[str, str, str, str]]:
    longest = longest_prefix(conn, kid, q)
    out: list[tuple[str, str, str, str]] = []
    if longest >= 3:
        out += _near_rows(conn, kid, q, q[: max(3, longest - 1)])
    if kind == "pg_trgm":  # the GIN index, even where the planner guesses a scan would find rows sooner
        conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
    if kind != "none":  # without a trigram index a substring would be a scan of every name
        for i, piece in enumerate(pieces(q, longest)):
            out += _containing(conn, kid, piece, kind, FUZZY_ROWS if i == 0 else FUZZY_ROWS // 3)
    return out


MIN_TYPED = 5
"""Fuzzy candidates are looked for once this many characters are typed."""
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


def _inside(conn: Connection, kid: int, best: dict[str, Any], branch: Sequence[str]) -> set[str]:
    return graph.within(conn, kid, list(best), branch)


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
    fuzzy = len(q) >= MIN_TYPED and len(best) < limit
    if fuzzy and branch and len(_inside(conn, kid, best, branch)) >= limit:
        fuzzy = False  # enough exact and prefix candidates under the branch
    if fuzzy:
        rows = _fuzzy_rows(conn, kid, q, index.kind(conn))
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
        inside = _inside(conn, kid, dict(ranked[: limit * 20]), branch)
        ranked = [kv for kv in ranked if kv[0] in inside]
    ranked = ranked[:limit]
    labels = graph.labels(conn, kid, [code for code, _ in ranked])
    return [
        Candidate(code, labels.get(code, name), name, kind, match, round(score, 1))
        for code, (_key, name, kind, match, score) in ranked
    ]
