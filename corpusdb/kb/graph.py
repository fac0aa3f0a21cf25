"""The ``is_a`` graph of a knowledge base, read through its indexes: labels, ancestors, branches.

Why SQL (a recursive query) rather than a graph in memory: the NCBI Taxonomy has ~2.7 million
taxa; a lookup needs the ancestors of a few dozen candidates, ~40 levels each, which the
``(kb_id, child)`` index answers in milliseconds. Whole-graph work (Wang's similarity over an
ontology) reads the edges once with :func:`parents`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, bindparam, text

MAX_DEPTH = 200


def _chunks(items: Sequence[str], n: int = 500) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def labels(conn: Connection, kid: int, codes: Iterable[str]) -> dict[str, str]:
    """Label of each known code (unknown codes are left out)."""
    out: dict[str, str] = {}
    codes = sorted(set(codes))
    q = text("SELECT code, label FROM kb_concept WHERE kb_id = :k AND code IN :c").bindparams(
        bindparam("c", expanding=True)
    )
    for part in _chunks(codes):
        out.update({r[0]: r[1] for r in conn.execute(q, {"k": kid, "c": list(part)})})
    return out


def concepts(
    conn: Connection, kid: int, codes: Iterable[str]
) -> dict[str, tuple[str, bool, tuple[str, ...]]]:
    """``code -> (label, obsolete, replaced_by)`` for the known codes."""
    out: dict[str, tuple[str, bool, tuple[str, ...]]] = {}
    codes = sorted(set(codes))
    q = text(
        "SELECT code, label, obsolete, replaced_by FROM kb_concept WHERE kb_id = :k AND code IN :c"
    ).bindparams(bindparam("c", expanding=True))
    import json

    for part in _chunks(codes):
        for code, label, obs, rep in conn.execute(q, {"k": kid, "c": list(part)}):
            if isinstance(rep, str):
                rep = json.loads(rep)
            out[code] = (label, bool(obs), tuple(rep or ()))
    return out


def ancestors(conn: Connection, kid: int, codes: Sequence[str]) -> dict[str, set[str]]:
    """Every ancestor of each code (itself excluded), through a recursive query."""
    out: dict[str, set[str]] = {c: set() for c in codes}
    q = text(
        "WITH RECURSIVE up(code, anc, depth) AS ("
        " SELECT child, parent, 1 FROM kb_parent WHERE kb_id = :k AND child IN :c"
        " UNION SELECT up.code, p.parent, up.depth + 1 FROM up JOIN kb_parent p"
        f" ON p.kb_id = :k AND p.child = up.anc WHERE up.depth < {MAX_DEPTH})"
        " SELECT DISTINCT code, anc FROM up"
    ).bindparams(bindparam("c", expanding=True))
    for part in _chunks(list(codes)):
        for code, anc in conn.execute(q, {"k": kid, "c": list(part)}):
            out[code].add(anc)
    return out


def within(conn: Connection, kid: int, codes: Sequence[str], roots: Sequence[str]) -> set[str]:
    """The codes that are one of ``roots`` or descend from one (``is_a``, transitively)."""
    if not codes:
        return set()
    wanted = set(roots)
    return {c for c, anc in ancestors(conn, kid, codes).items() if c in wanted or anc & wanted}


def parents(conn: Connection, kid: int) -> dict[str, tuple[str, ...]]:
    """Every ``is_a`` edge of a knowledge base: ``child -> parents`` (for Wang's similarity)."""
    out: dict[str, list[str]] = {}
    for child, parent in conn.execute(
        text("SELECT child, parent FROM kb_parent WHERE kb_id = :k"), {"k": kid}
    ):
        out.setdefault(child, []).append(parent)
    return {c: tuple(sorted(p)) for c, p in out.items()}


def parents_of(conn: Connection, kid: int, code: str) -> tuple[str, ...]:
    rows = conn.execute(
        text("SELECT parent FROM kb_parent WHERE kb_id = :k AND child = :c ORDER BY parent"),
        {"k": kid, "c": code},
    )
    return tuple(r[0] for r in rows)
