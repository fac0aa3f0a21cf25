"""Groundings against their knowledge base: ids that do not exist, obsolete ids, ids outside the
entity type's branch. What ``submit``, an import (of submitted sets) and adjudication refuse or
warn about, with the severity the schema's ``[[knowledge_base]]`` gives.

Why beside ``guidelines.validate`` and not inside it: that check is pure (records and schema in),
while this one reads the knowledge base; the store calls both and lists their violations together.
A grounding whose database the schema maps to no knowledge base is not checked here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import Connection, select

from corpusdb.basics.errors import Problem
from corpusdb.basics.records import Annotations, Grounding, grounding_key, split_key
from corpusdb.kb import graph
from corpusdb.store import tables
from guidelines.schema import KnowledgeBaseRef, Schema
from guidelines.validate import Violation

CODES = ("grounding-unknown-id", "grounding-obsolete", "grounding-outside-branch", "grounding-kb-missing")


def _grounded(ann: Annotations) -> Iterable[tuple[str, str, str, Grounding]]:
    """``(item kind, item id, entity type, grounding)`` of every span and entity grounding."""
    for s in ann.spans:
        for g in s.groundings:
            yield "span", s.id, s.type, g
    for e in ann.entities:
        for g in e.groundings:
            yield "entity", e.id, e.type, g


def resolve(concepts: dict[str, tuple[str, bool, tuple[str, ...]]], key: str) -> str | None:
    """The knowledge-base code a grounding key names: the whole key (``OBT:000965``), else its
    accession (``NCBI_Taxonomy:210`` -> ``210``)."""
    if key in concepts:
        return key
    acc = split_key(key)[1]
    return acc if acc in concepts else None


def grounding_keys(ann: Annotations) -> set[str]:
    """Every grounding key of the spans and entities of a set."""
    return {grounding_key(g) for _, _, _, g in _grounded(ann)}


def grounding_labels(conn: Connection, schema: Schema, keys: Iterable[str]) -> dict[str, str]:
    """The label of each grounding key (``OBT:000965`` -> ``gastric mucosa``) whose database the
    schema maps to a loaded knowledge base; others are left out."""
    by_kb: dict[str, set[str]] = defaultdict(set)
    for key in keys:
        ref = schema.knowledge_base(split_key(key)[0])
        if ref is not None:
            by_kb[ref.kb].add(key)
    out: dict[str, str] = {}
    K = tables.kb
    for kb_name, ks in by_kb.items():
        row = conn.execute(select(K.c.id).where(K.c.name == kb_name)).first()
        if row is None:
            continue
        found = graph.concepts(conn, int(row[0]), {x for k in ks for x in (k, split_key(k)[1])})
        for k in ks:
            code = resolve(found, k)
            if code is not None:
                out[k] = found[code][0]
    return out


def violations(conn: Connection, schema: Schema, ann: Annotations) -> list[Violation]:
    """Every knowledge-base problem of the groundings in ``ann``, in item order."""
    if not schema.knowledge_bases:
        return []
    todo: dict[str, list[tuple[str, str, str, str, KnowledgeBaseRef]]] = defaultdict(list)
    for kind, item, etype, g in _grounded(ann):
        key = grounding_key(g)
        ref = schema.knowledge_base(split_key(key)[0])
        if ref is not None:
            todo[ref.kb].append((kind, item, etype, key, ref))
    out: list[Violation] = []
    K = tables.kb
    for kb_name, items in todo.items():
        row = conn.execute(select(K.c.id).where(K.c.name == kb_name)).first()
        if row is None:
            dbs = sorted({it[4].database for it in items})
            out.append(Violation("warning", "grounding-kb-missing", "set", "",
                                 f"the knowledge base {kb_name!r} (for {', '.join(dbs)}) is not loaded: "
                                 f"{len(items)} grounding(s) not checked (corpusdb kb add {kb_name} FILE)"))  # fmt: skip
            continue
        kid = int(row[0])
        wanted = {k for it in items for k in (it[3], split_key(it[3])[1])}
        found = graph.concepts(conn, kid, wanted)
        branch_codes: dict[str, set[str]] = defaultdict(set)
        for kind, item, etype, key, ref in items:
            code = resolve(found, key)
            if code is None:
                out.append(Violation(ref.unknown, "grounding-unknown-id", kind, item,  # type: ignore[arg-type]
                                     f"{key}: no such id in the knowledge base {kb_name!r}"))  # fmt: skip
                continue
            label, obsolete, replaced = found[code]
            if obsolete:
                instead = f"; use {', '.join(replaced)}" if replaced else ""
                out.append(Violation(ref.obsolete, "grounding-obsolete", kind, item,  # type: ignore[arg-type]
                                     f"{key} ({label}) is obsolete in {kb_name!r}{instead}"))  # fmt: skip
                continue  # (its branch is moot: obsolete terms have no is_a)
            root = ref.branch_of(etype)
            if root is not None:
                branch_codes[root].add(code)
        inside: dict[str, set[str]] = {
            r: graph.within(conn, kid, sorted(c), [r]) for r, c in branch_codes.items()
        }
        for kind, item, etype, key, ref in items:
            code = resolve(found, key)
            root = ref.branch_of(etype)
            if code is not None and root is not None and not found[code][1] and code not in inside[root]:
                out.append(Violation(ref.unknown, "grounding-outside-branch", kind, item,  # type: ignore[arg-type]
                                     f"{key} ({found[code][0]}) is not under {root}, the branch of {etype} "
                                     f"in {kb_name!r}"))  # fmt: skip
    return out


def stored_problems(
    conn: Connection,
    schema: Schema,
    project_id: int,
    external_ids: Iterable[str],
    annotator: str | None,
    kind: str,
) -> list[Problem]:
    """The knowledge-base violations of the sets an import just wrote (the documents ``external_ids``,
    ``annotator``'s sets of ``kind``; gold when ``annotator`` is None), one problem per violation,
    named by document. Why after writing: every import format goes through it the same way, in the
    import's own transaction, so an error rolls the whole import back."""
    import json

    from sqlalchemy import bindparam, text

    from corpusdb.basics.records import Span
    from corpusdb.services.content import grounding_from_json

    if not schema.knowledge_bases:
        return []
    ids = sorted(set(external_ids))
    who = "st.annotator_id IS NULL" if annotator is None else "a.name = :who"
    q = text(
        "SELECT d.external_id, x.local_id, x.type, x.groundings FROM span x "
        "JOIN annotation_set st ON st.id = x.set_id JOIN document d ON d.id = st.document_id "
        f"LEFT JOIN annotator a ON a.id = st.annotator_id WHERE d.project_id = :p AND st.kind = :kind AND {who} "
        "AND x.groundings IS NOT NULL AND d.external_id IN :ids ORDER BY d.external_id, x.id"
    ).bindparams(bindparam("ids", expanding=True))
    per_doc: dict[str, list[Span]] = defaultdict(list)
    for i in range(0, len(ids), 500):
        params = {"p": project_id, "kind": kind, "who": annotator, "ids": ids[i : i + 500]}
        for doc, local, etype, raw in conn.execute(q, params):
            gs = json.loads(raw) if isinstance(raw, str) else raw
            per_doc[doc].append(
                Span(local, etype, (), "", groundings=tuple(grounding_from_json(g) for g in gs))
            )
    out: list[Problem] = []
    for doc, spans in per_doc.items():
        for v in violations(conn, schema, Annotations(spans=tuple(spans))):
            out.append(
                Problem(doc, None, f"document {doc}: {v.item_kind} {v.item_id}: {v.message}", v.severity)
            )
    return out
