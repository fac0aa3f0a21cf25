"""The one bridge from corpusdb records to the BioRelEx scorer's own input types.

Why isolated: the scorers never see records. A cluster is one of ``corpusdb.basics.clusters`` (the one
model: an explicit entity, symmetric links such as synonym or Equiv, alike), joined with the
``cluster`` index a BioRelEx import keeps in ``Span.extra``.

A name's ``is_mentioned`` comes from ``Span.extra["name_mentioned"]`` (kept by a BioRelEx import);
without it, a name with a mention is mentioned and a name without one is not. A release snapshot keeps
no extras, so a name marked mentioned that has no mention is read as not mentioned there.
"""

from __future__ import annotations

from collections.abc import Collection

from corpusdb.basics.clusters import clusters as clusters_of
from corpusdb.basics.records import Annotations, Span
from corpusdb.basics.unionfind import UnionFind
from corpusdb.evaluation.biorelex import Cluster, Interaction, Name, Sentence

CLUSTER_LINK_TYPES: frozenset[str] = frozenset({"synonym", "abbreviation", "coreference", "Equiv"})


def sentence_from_records(
    doc_id: str, text: str, ann: Annotations, link_types: Collection[str] = CLUSTER_LINK_TYPES
) -> Sentence:
    """A document's annotations as a BioRelEx sentence: clusters of names with their mentions, and
    interactions (two-argument relations) between clusters, with label and ``implicit`` tag."""
    uf = UnionFind((s.id for s in ann.spans), root="first")
    first_of_cluster: dict[object, str] = {}
    for s in ann.spans:
        ci = s.extra.get("cluster")
        if isinstance(ci, int):
            uf.union(first_of_cluster.setdefault(ci, s.id), s.id)
    for c in clusters_of(ann, link_types):  # the one cluster model: entities and symmetric links alike
        for m in c.members[1:]:
            uf.union(c.members[0], m)
    groups: dict[object, list[Span]] = {}
    for s in ann.spans:
        groups.setdefault(uf.find(s.id), []).append(s)
    index: dict[str, int] = {}
    clusters: list[Cluster] = []
    for k, members in enumerate(groups.values()):
        names: dict[str, tuple[list[tuple[int, int]], bool]] = {}
        for s in members:
            index[s.id] = k
            mentions, mentioned = names.setdefault(s.text, ([], False))
            if s.fragments:
                mentions.append((s.start, s.end))
            flag = s.extra.get("name_mentioned")
            names[s.text] = (mentions, mentioned or (bool(flag) if flag is not None else bool(s.fragments)))
        clusters.append(Cluster(tuple(Name(n, tuple(m), f) for n, (m, f) in names.items()), members[0].type))
    for e in ann.entities:  # a relation may name the entity itself
        ms = [m for m in e.members if m in index]
        if ms:
            index[e.id] = index[ms[0]]
    interactions = tuple(
        Interaction(
            index[r.args[0].ref],
            index[r.args[1].ref],
            r.label,
            "implicit" in r.tags,
            r.type,
            str(r.extra.get("derived") or ""),
        )
        for r in ann.relations
        if len(r.args) == 2 and all(a.ref in index for a in r.args)
    )
    return Sentence(doc_id, text, tuple(clusters), interactions)
