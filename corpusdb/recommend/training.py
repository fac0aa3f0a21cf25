"""What a recommender learns from, read under the blindness rules.

The rule (DESIGN.md, "Recommenders are systems with a lifecycle"): a recommender serving alice
learns only from gold of documents already adjudicated, and from alice's own sets; never from a
colleague's work that is not adjudicated. It is applied here, by what each query selects, not by who
runs it: the database owner (who may read everything) trains exactly the same model as alice would.

* ``gold_examples``: the gold sets that are finished (status ``submitted``) on documents whose
  annotation sets are all submitted (so no one is still annotating them: their gold tells no one
  the answer to a document in front of them); read by leads, who train the shared part.
* ``own_examples``: one annotator's own annotation sets (``submitted_only`` for the tagger, which
  learns from submitted work; the string matcher takes her drafts too).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, and_, exists, select

from corpusdb.services import content
from corpusdb.store import tables

S = tables.annotation_set
D = tables.document

Item = tuple[str, tuple[tuple[int, int], ...]]


@dataclass(frozen=True, slots=True)
class Example:
    """One document's text with the items (type, fragments) a model learns from."""

    document: str
    text: str
    items: tuple[Item, ...]

    def names(self) -> Iterable[tuple[str, str]]:
        """(name, type) of the contiguous items (what a string matcher learns)."""
        for typ, frags in self.items:
            if len(frags) == 1:
                a, b = frags[0]
                yield self.text[a:b], typ


def _examples(
    conn: Connection, rows: list[tuple[int, str, str]], types: Collection[str] | None
) -> list[Example]:
    body = content.load_many(conn, [r[0] for r in rows])
    out = []
    for set_id, doc, text in rows:
        items = tuple(
            (sp.type, tuple((int(a), int(b)) for a, b in sp.fragments))
            for sp in body[set_id].spans
            if sp.fragments and (types is None or sp.type in types)
        )
        out.append(Example(doc, text, items))
    return out


def adjudicated_gold(project_id: int):  # type: ignore[no-untyped-def]
    """SQL: the ids, documents and texts of finished gold sets of fully submitted documents."""
    other = S.alias()
    unfinished = exists().where(
        and_(
            other.c.document_id == S.c.document_id,
            other.c.kind == "annotation",
            other.c.status != "submitted",
        )
    )
    return (
        select(S.c.id, D.c.external_id, D.c.text)
        .join(D, D.c.id == S.c.document_id)
        .where(D.c.project_id == project_id, S.c.kind == "gold", S.c.status == "submitted", ~unfinished)
        .order_by(D.c.external_id)
    )


def gold_examples(
    conn: Connection,
    project_id: int,
    types: Collection[str] | None = None,
    *,
    documents: Collection[str] | None = None,
    exclude: Collection[str] = (),
) -> list[Example]:
    """Gold of adjudicated documents (``documents``: only these external ids; ``exclude``: not these)."""
    rows = [(int(r[0]), str(r[1]), str(r[2])) for r in conn.execute(adjudicated_gold(project_id))]
    rows = [r for r in rows if (documents is None or r[1] in documents) and r[1] not in exclude]
    return _examples(conn, rows, types)


def own_examples(
    conn: Connection,
    project_id: int,
    annotator_id: int,
    types: Collection[str] | None = None,
    *,
    submitted_only: bool = False,
) -> list[Example]:
    """One annotator's own annotation sets (nobody else's: the query names her)."""
    q = (
        select(S.c.id, D.c.external_id, D.c.text)
        .join(D, D.c.id == S.c.document_id)
        .where(D.c.project_id == project_id, S.c.kind == "annotation", S.c.annotator_id == annotator_id)
        .order_by(D.c.external_id)
    )
    if submitted_only:
        q = q.where(S.c.status == "submitted")
    rows = [(int(r[0]), str(r[1]), str(r[2])) for r in conn.execute(q)]
    return _examples(conn, rows, types)


def own_sets(conn: Connection, project_id: int, annotator_id: int) -> list[tuple[int, str, str]]:
    """(set id, document, text) of one annotator's own submitted annotation sets (nobody else's: the
    query names her). Submitted only: in a draft, two spans not related yet may be related soon."""
    q = (
        select(S.c.id, D.c.external_id, D.c.text)
        .join(D, D.c.id == S.c.document_id)
        .where(D.c.project_id == project_id, S.c.kind == "annotation", S.c.annotator_id == annotator_id)
        .where(S.c.status == "submitted")
        .order_by(D.c.external_id)
    )
    return [(int(r[0]), str(r[1]), str(r[2])) for r in conn.execute(q)]


def texts(conn: Connection, project_id: int, documents: Collection[str]) -> dict[str, str]:
    """Document texts by external id (every member may read texts)."""
    out: dict[str, str] = {}
    ids = list(documents)
    for i in range(0, len(ids), 500):
        q = select(D.c.external_id, D.c.text).where(
            D.c.project_id == project_id, D.c.external_id.in_(ids[i : i + 500])
        )
        out.update((str(a), str(b)) for a, b in conn.execute(q))
    return out
