"""The interaction network of a corpus, merged by grounding (BioRelEx, Khachatrian et al. 2019, A.5).

Nodes are entities: the spans joined by the symmetric link types (synonym, abbreviation, coreference,
Equiv) form one entity per document, and entities with the same grounding are one node across the
corpus (its label: the name used most often; all names kept). Edges join the nodes of a relation's first
two span arguments, one edge per node pair and relation type (undirected, as BioRelEx's interactions),
with counts per label: ``asserted`` (1 or no label), ``speculative`` (0), ``negated`` (-1).

Entities without a grounding cannot be merged across documents: they are left out (counted in the
notes) unless ``keep_ungrounded``, which makes one node per document and name.

``entities_of`` turns the clusters of ``corpusdb.basics.clusters`` (the one model: an entity, coreference
links and brat ``Equiv`` lines alike) into this module's per-document entities.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from corpusdb.basics.clusters import clusters
from corpusdb.basics.records import Annotations, Document
from corpusdb.basics.unionfind import UnionFind

__all__ = ["CLUSTER_LINKS", "Network", "build_network", "entities_of", "format_graphml", "format_sif"]

CLUSTER_LINKS = frozenset({"synonym", "abbreviation", "coreference", "Equiv", "Alias"})


@dataclass
class Entity:
    """One entity of one document: its spans, names, types and groundings."""

    spans: list[str]
    names: list[str]
    types: list[str]
    refs: list[str]


def entities_of(ann: Annotations) -> dict[str, Entity]:
    """Span id -> its entity (spans joined by ``CLUSTER_LINKS`` share one)."""
    uf = UnionFind((s.id for s in ann.spans), root="first")
    for c in clusters(ann, CLUSTER_LINKS):  # the one cluster model: entities and symmetric links alike
        for m in c.members[1:]:
            uf.union(c.members[0], m)
    groups: dict[object, Entity] = {}
    out: dict[str, Entity] = {}
    for s in ann.spans:
        e = groups.setdefault(uf.find(s.id), Entity([], [], [], []))
        e.spans.append(s.id)
        e.names.append(s.text)
        e.types.append(s.type)
        e.refs += [g.ref for g in s.groundings]
        out[s.id] = e
    for ent in ann.entities:  # a relation may name the entity itself; its grounding is the cluster's
        ms = [m for m in ent.members if m in out]
        if ms:
            out[ent.id] = out[ms[0]]
            out[ms[0]].refs += [g.ref for g in ent.groundings]
    return out


@dataclass
class Network:
    nodes: dict[str, dict[str, Counter[str]]] = field(default_factory=dict)
    """Node id -> {"names": Counter, "types": Counter, "documents": Counter}."""
    edges: dict[tuple[str, str, str], Counter[str]] = field(default_factory=dict)
    """(node, node, relation type) -> counts: asserted/speculative/negated/documents."""
    notes: list[str] = field(default_factory=list)


def build_network(items: Sequence[tuple[Document, Annotations]], *, keep_ungrounded: bool = False) -> Network:
    net = Network()
    lost: Counter[str] = Counter()
    for doc, ann in items:
        ents = entities_of(ann)
        node_of: dict[str, str | None] = {}
        for sid, e in ents.items():
            if e.refs:
                node = sorted(Counter(e.refs).items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            elif keep_ungrounded:
                node = f"{doc.external_id}:{Counter(n.lower() for n in e.names).most_common(1)[0][0]}"
            else:
                node = None
            node_of[sid] = node
        seen: set[int] = set()
        for e in ents.values():
            if id(e) in seen:
                continue
            seen.add(id(e))
            node = node_of[e.spans[0]]
            if node is None:
                lost["ungrounded entities (left out; keep them with --ungrounded)"] += 1
                continue
            attrs = net.nodes.setdefault(
                node, {"names": Counter(), "types": Counter(), "documents": Counter()}
            )
            attrs["names"].update(e.names)
            attrs["types"].update(e.types)
            attrs["documents"][doc.external_id] += 1
        for r in ann.relations:
            ends = [node_of.get(a.ref) for a in r.args if a.ref in node_of][:2]
            if len(ends) < 2 or None in ends:
                lost["relations without two grounded entities (left out)"] += 1
                continue
            a, b = sorted(ends)  # type: ignore[type-var]
            c = net.edges.setdefault((a, b, r.type), Counter())
            c[
                {1: "asserted", None: "asserted", 0: "speculative", -1: "negated"}.get(r.label, "asserted")
            ] += 1
            c["count"] += 1
            c[f"doc:{doc.external_id}"] = 1
    net.notes = [f"network: {n} {w}" for w, n in sorted(lost.items()) if n]
    return net


def _label(names: Counter[str]) -> str:
    return sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if names else ""


def format_graphml(net: Network) -> bytes:
    """GraphML (networkx's writer): node ``label``, ``names``, ``type``, ``documents``; edge ``type``,
    ``count``, ``asserted``, ``speculative``, ``negated``, ``documents``."""
    import networkx as nx

    g = nx.MultiGraph()
    for node, attrs in sorted(net.nodes.items()):
        g.add_node(node, label=_label(attrs["names"]), names="|".join(sorted(attrs["names"])),
                   type=_label(attrs["types"]), documents=len(attrs["documents"]))  # fmt: skip
    for (a, b, typ), c in sorted(net.edges.items()):
        g.add_edge(a, b, key=typ, type=typ, count=c["count"], asserted=c["asserted"],
                   speculative=c["speculative"], negated=c["negated"],
                   documents=sum(1 for k in c if k.startswith("doc:")))  # fmt: skip
    buf = io.BytesIO()
    nx.write_graphml(g, buf, encoding="utf-8")
    return buf.getvalue()


def format_sif(net: Network) -> bytes:
    """Cytoscape's SIF: ``node<TAB>type<TAB>node`` per edge (one line per relation type and pair), a
    lone node per line for nodes without edges. Node ids are groundings; GraphML carries the names."""
    lines = [f"{a}\t{typ}\t{b}" for (a, b, typ) in sorted(net.edges)]
    linked = {x for a, b, _ in net.edges for x in (a, b)}
    lines += sorted(n for n in net.nodes if n not in linked)
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
