"""Relation agreement between two annotation sets, with arguments matched through the span alignment.

``strict``: same type, and each argument is the aligned partner of the other's: a span argument
(standoff) through the span alignment, an entity argument (a BioRelEx interaction joins clusters)
through the one-to-one entity alignment (``entities.align_strict``: entities align through their
mentions, and names without a mention through their text); roles and argument order count for
directed relation types, and are ignored for undirected ones.
``relaxed`` (as BioRelEx scores): an argument matches when it is *any aligned mention of the same
entity*: A's and B's entities (explicit ones, and the closures of their symmetric links: synonym,
abbreviation, coreference, Equiv...) are joined whenever they share an aligned mention, and a
relation is its type plus the entities of its arguments, spans or entities alike; direction is
ignored (as the BioNLP Rename task's relaxed score). Neither mode depends on the order in which
names, mentions or clusters were listed.

Arguments pointing at other relations/events (nested events) are mapped through the relation
matching itself, pass by pass, until nothing changes. Relations are matched one-to-one by equal
key (duplicates pair with one of the same label and tags first, then in file order). Label agreement (1/0/-1) is Cohen's kappa, Krippendorff's
alpha and percent agreement over matched pairs where both have a label.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from corpusdb.agreement import entities as ent
from corpusdb.agreement.coefficients import (
    cohen_kappa,
    contingency_table,
    krippendorff_alpha_table,
    percent_agreement,
)
from corpusdb.agreement.results import PRF, AgreementInputError, Coefficient, _ToDict
from corpusdb.basics.records import Annotations, Relation

SYMMETRIC_LINK_TYPES = ent.SYMMETRIC_LINK_TYPES
Mode = Literal["strict", "relaxed"]
Alignment = Mapping[str, Mapping[str, str]]

POLICY = (
    "one-to-one by equal key; unmatched A relations are only_a (A = reference), unmatched B relations "
    "only_b; label agreement over matched pairs where both carry a label"
)


@dataclass(frozen=True, slots=True)
class RelationComparison(_ToDict):
    mode: str
    overall: PRF
    per_type: Mapping[str, PRF]
    per_tag: Mapping[str, PRF]
    label_agreement: Mapping[str, Coefficient] | None
    label_table: tuple[tuple[int, ...], ...] | None
    label_values: tuple[Any, ...]
    n_documents: int
    policy: str
    per_document: np.ndarray | None = field(default=None, repr=False, compare=False, metadata={"json": False})
    """(documents, 3) matched, only_a, only_b per document (for the bootstrap)."""
    pairs: Mapping[str, tuple[tuple[str, str], ...]] = field(
        default_factory=dict, repr=False, compare=False, metadata={"json": False}
    )
    """Per document, matched (A relation id, B relation id) pairs."""


def _is_directed(directed: bool | Collection[str], rtype: str) -> bool:
    return directed if isinstance(directed, bool) else rtype in directed


def _match_document(
    a: Annotations,
    b: Annotations,
    align: Mapping[str, str],
    mode: str,
    directed: bool | Collection[str],
    symmetric: Collection[str],
) -> list[tuple[Relation, Relation]]:
    span_a = {s.id for s in a.spans}
    span_b = {s.id for s in b.spans}
    ea, eb = ent.entities(a, symmetric), ent.entities(b, symmetric)
    ka = ent.keyed(ea, ent.mention_keys(a, "A", align, b))
    kb = ent.keyed(eb, ent.mention_keys(b, "B"))
    if mode == "relaxed":
        cls_a, cls_b = ent.relaxed_classes(ka, kb)
    else:
        strict = ent.align_strict(ka, kb)
    rel_map: dict[str, str] = {}

    def arg_key(side: str, ref: str) -> Hashable:
        spans = span_a if side == "A" else span_b
        es = ea if side == "A" else eb
        c = es.of(ref)
        if c is not None and mode == "relaxed":
            return ("c", (cls_a if side == "A" else cls_b)[c])
        if ref in spans:
            if side == "A":
                return ("s", align[ref]) if ref in align else ("A-only", ref)
            return ("s", ref)
        if c is not None:  # an entity argument, strict
            if side == "A":
                return ("e", strict[c]) if c in strict else ("A-only-entity", c)
            return ("e", c)
        if side == "A":
            return ("r", rel_map[ref]) if ref in rel_map else ("A-only-rel", ref)
        return ("r", ref)

    def key(side: str, r: Relation) -> Hashable:
        args = [(arg.role, arg_key(side, arg.ref)) for arg in r.args]
        if mode == "strict" and _is_directed(directed, r.type):
            return (r.type, tuple(sorted(args, key=repr)))
        return (r.type, tuple(sorted((k for _, k in args), key=repr)))

    pairs: list[tuple[Relation, Relation]] = []
    for _ in range(8):  # nested events resolve level by level
        by_key: dict[Hashable, list[Relation]] = defaultdict(list)
        for r in b.relations:
            by_key[key("B", r)].append(r)
        pairs = []
        new_map: dict[str, str] = {}

        def sig(r: Relation) -> tuple[Any, ...]:
            return (r.label is None, r.label or 0, tuple(sorted(r.tags)))

        by_key_a: dict[Hashable, list[Relation]] = defaultdict(list)
        for r in a.relations:
            by_key_a[key("A", r)].append(r)
        for k, xs in by_key_a.items():
            ys = by_key.get(k)
            if not ys:
                continue
            # duplicates (BioRelEx repeats pairs, some with other labels) pair with an identical one
            # first, the rest in label order: the order they were listed in changes no figure
            rest_a: list[Relation] = []
            for r in xs:
                same = next((j for j, y in enumerate(ys) if sig(y) == sig(r)), None)
                if same is None:
                    rest_a.append(r)
                else:
                    pairs.append((r, ys.pop(same)))
            for r, y in zip(sorted(rest_a, key=sig), sorted(ys, key=sig), strict=False):
                pairs.append((r, y))
        for r, y in pairs:
            new_map[r.id] = y.id
        if new_map == rel_map:
            break
        rel_map = new_map
    return pairs


def compare_relations(
    documents: Mapping[str, tuple[Annotations, Annotations]],
    span_alignment: Alignment | Any,
    *,
    mode: Mode = "strict",
    directed: bool | Collection[str] = True,
    symmetric_link_types: Collection[str] = SYMMETRIC_LINK_TYPES,
) -> RelationComparison:
    """Compare A's and B's relations document by document.

    ``span_alignment``: per document, A span id -> B span id (``SpanComparison.alignment()``, or
    the comparison itself). ``directed``: True/False for all types, or the directed type names.
    """
    if mode not in ("strict", "relaxed"):
        raise AgreementInputError(f"mode must be 'strict' or 'relaxed', got {mode!r}")
    align_all = span_alignment.alignment() if hasattr(span_alignment, "alignment") else span_alignment
    doc_ids = list(documents)
    per_doc = np.zeros((len(doc_ids), 3), dtype=np.int64)
    per_type: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    per_tag: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    labels_a: list[Any] = []
    labels_b: list[Any] = []
    all_pairs: dict[str, tuple[tuple[str, str], ...]] = {}
    for d, doc in enumerate(doc_ids):
        a, b = documents[doc]
        pairs = _match_document(a, b, align_all.get(doc, {}), mode, directed, symmetric_link_types)
        all_pairs[doc] = tuple((x.id, y.id) for x, y in pairs)
        got_a = {x.id for x, _ in pairs}
        got_b = {y.id for _, y in pairs}
        only_a = [r for r in a.relations if r.id not in got_a]
        only_b = [r for r in b.relations if r.id not in got_b]
        per_doc[d] = (len(pairs), len(only_a), len(only_b))
        for x, y in pairs:
            per_type[x.type][0] += 1
            for t in set(x.tags) | set(y.tags):
                per_tag[t][0] += 1
            if x.label is not None and y.label is not None:
                labels_a.append(x.label)
                labels_b.append(y.label)
        for col, rels in ((1, only_a), (2, only_b)):
            for r in rels:
                per_type[r.type][col] += 1
                for t in r.tags:
                    per_tag[t][col] += 1
    tot = per_doc.sum(axis=0)
    label_agreement = None
    table_t = None
    values: tuple[Any, ...] = ()
    if labels_a:
        table, cats = contingency_table(labels_a, labels_b)
        values = tuple(cats)
        table_t = tuple(tuple(int(v) for v in row) for row in table)
        label_agreement = {
            "percent_agreement": percent_agreement(table),
            "cohen_kappa": cohen_kappa(table),
            "krippendorff_alpha": krippendorff_alpha_table(table),
        }
    return RelationComparison(
        mode=mode,
        overall=PRF.from_counts(*map(int, tot)),
        per_type={k: PRF.from_counts(*v) for k, v in sorted(per_type.items())},
        per_tag={k: PRF.from_counts(*v) for k, v in sorted(per_tag.items())},
        label_agreement=label_agreement,
        label_table=table_t,
        label_values=values,
        n_documents=len(doc_ids),
        policy=POLICY,
        per_document=per_doc,
        pairs=all_pairs,
    )
