"""BioRelEx 1.0 JSON reader and writer.

Why: BioRelEx (Khachatrian et al. 2019) is the binding-interaction benchmark our agreement figures are
compared with; its file is a JSON list of sentences whose entities are *clusters* of names, each name
with zero or more mentions, and whose interactions join clusters, not mentions. The reader maps that
onto plain records without losing anything the writer needs to give the same JSON back (same data,
same key order, ``indent=1`` and ASCII ``\\uXXXX`` escapes as the published files).

Mapping
-------
* sentence -> :class:`Document`: ``id`` -> ``external_id``, ``text`` -> ``text``, ``paperid`` ->
  ``group_key`` (for group-aware splits), ``url`` and ``_line_`` -> ``metadata``.
* each mention of each name of each cluster -> one :class:`Span` (``type`` = the cluster's ``label``,
  ``text`` = the name); a name without mentions -> a span with no fragments. Spans are numbered
  ``T1``, ``T2``... in file order (cluster, then name, then mention).
* each cluster -> one :class:`Entity` ``C<index+1>`` whose ``members`` are all its spans (names without
  a mention included), ``type`` = ``label``, ``extra`` = ``{"cluster": index}``. No link is made: the
  entity *is* the cluster, and no mention or name is singled out as its representative.
* ``is_mutant``/``is_state`` -> attributes ``mutant``/``state`` (present, ``True``, only when true),
  on the entity and on every span of the cluster.
* ``grounding`` -> one :class:`Grounding` on the entity and on every span of the cluster: ``ref`` =
  ``<source>:<id>`` (the id taken from the link's last path segment, else the Entrez gene, else the
  link), ``text`` = the HGNC symbol when not ``"NA"``, ``extra["object"]`` = the full object; ``null``
  -> no grounding.
* interaction -> :class:`Relation` ``R<k>`` of the interaction's ``type`` (``bind``) with arguments
  ``Arg1``/``Arg2`` pointing at the *entities* of its two clusters (a self-interaction points twice at
  the same entity), ``label`` 1/0/-1, tag ``implicit`` when ``implicit`` is true. Duplicate pairs,
  even with conflicting labels, stay separate relations.

Extras layout (JSON-serialisable; keys absent when they hold their default)
--------------------------------------------------------------------------
``Document.metadata``::

    {"url": null, "_line_": 12,
     "biorelex": {"keys": [...],        # the sentence's key order when not the usual one
                  "other": {...},       # keys we do not know, kept with their values
                  "id": 5, "paperid": 10022123}}   # id/paperid when not strings (kept as they were)

``Span.extra``::

    {"cluster": 0,                  # index of the cluster in "entities" (what interactions refer to)
     "name": 1,                     # position of the name in the cluster's "names"
     "mention": 0,                  # position of the mention in the name's "mentions" (absent: no mention)
     "name_mentioned": true,        # the name's "is_mentioned"
     "cluster_mentioned": true,     # the cluster's "is_mentioned"
     "keys": [...], "other": {...}, # the cluster's key order / unknown keys, when needed
     "name_keys": [...], "name_other": {...}}   # the same for the name's object

``Relation.extra``: ``{"participants": [0, 2], "index": 4}`` (cluster indices as in the file, position in
``interactions``) plus ``keys``/``other`` when needed. ``Grounding.extra``: ``{"object": {...}}``.

Writing documents that were not read from BioRelEx: clusters are the explicit entities joined with
the connected components of links of the types in ``CLUSTER_LINK_TYPES`` (spans with a ``cluster``
extra keep theirs); the cluster's label, flags and grounding come from its entity, else its first
span; names are span texts; relations must have two arguments, spans or entities. Discontinuous spans cannot be written and are refused (:class:`InvalidInput`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from corpusdb.basics.clusters import clusters
from corpusdb.basics.errors import FormatError, InvalidInput, Problem, Severity
from corpusdb.basics.names import name_problem
from corpusdb.basics.records import (
    Annotations,
    Argument,
    Document,
    Entity,
    Grounding,
    ParsedDocument,
    Relation,
    Span,
)
from corpusdb.basics.unionfind import UnionFind
from importers import jsonin
from importers.standoff import ReadResult

__all__ = [
    "CLUSTER_LINK_TYPES",
    "format_biorelex",
    "read_biorelex",
    "read_biorelex_lenient",
    "write_biorelex",
]

SENTENCE_KEYS = ("id", "paperid", "url", "_line_", "text", "entities", "interactions")
CLUSTER_KEYS = ("label", "is_mentioned", "is_state", "is_mutant", "grounding", "names")
NAME_KEYS = ("is_mentioned", "mentions")
INTERACTION_KEYS = ("participants", "type", "implicit", "label")
DERIVED_KEY = "derived"
"""Not BioRelEx's: the rule that derived an interaction (``guidelines.derive``), written by corpusdb's
releases beside ``implicit``; read back as a derived relation, never an annotated one. The official
``evaluate.py`` reads only the keys it knows, so it scores such a file as any other."""
CLUSTER_LINK_TYPES: frozenset[str] = frozenset({"synonym", "abbreviation", "coreference", "Equiv"})
"""Link types whose closure forms a BioRelEx cluster when writing documents made elsewhere."""

_REQUIRED_SENTENCE = ("id", "text", "entities", "interactions")
_REQUIRED_CLUSTER = ("label", "names")
_REQUIRED_NAME = ("mentions",)
_REQUIRED_INTERACTION = ("participants",)


class _Obj(dict[str, Any]):
    """A JSON object that had duplicate keys (``json`` would keep the last one silently)."""

    duplicates: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        o = _Obj(d)
        counts = Counter(k for k, _ in pairs)
        o.duplicates = [k for k, n in counts.items() if n > 1]
        return o
    return d


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _ref_of(g: Mapping[str, Any]) -> str:
    source = str(g.get("source") or "unknown")
    link = g.get("link")
    if isinstance(link, str) and link not in ("", "NA"):
        tail = link.rstrip("/").rsplit("/", 1)[-1].rsplit("=", 1)[-1]
        return f"{source}:{tail or link}"
    gene = g.get("entrez_gene")
    if gene not in (None, "", "NA"):
        return f"{source}:{gene}"
    return f"{source}:NA"


class _Sentence:
    """Validates and converts one sentence; collects every problem with the sentence's position."""

    def __init__(self, obj: Any, index: int, file: str, locate: Callable[[int], int | None]) -> None:
        self.obj = obj
        self.index = index
        self.file = file
        self.locate = locate
        self.problems: list[Problem] = []
        sid = obj.get("id") if isinstance(obj, dict) else None
        self.where = f"sentence {index} (id {sid!r})" if sid is not None else f"sentence {index}"

    def err(self, msg: str, severity: Severity = "error") -> None:
        self.problems.append(Problem(self.file, self.locate(self.index), f"{self.where}: {msg}", severity))

    def dup_check(self, obj: Any, what: str) -> None:
        if isinstance(obj, _Obj):
            self.err(f"{what} has duplicate keys {obj.duplicates} (JSON would keep only the last)")

    def parse(self) -> ParsedDocument | None:
        obj = self.obj
        if not isinstance(obj, dict):
            self.err(f"expected an object, got {type(obj).__name__}")
            return None
        self.dup_check(obj, "the sentence")
        missing = [k for k in _REQUIRED_SENTENCE if k not in obj]
        if missing:
            self.err(f"missing keys {missing}")
            return None
        text, entities, interactions = obj["text"], obj["entities"], obj["interactions"]
        if not isinstance(text, str):
            self.err("'text' is not a string")
            return None
        if not isinstance(entities, list) or not isinstance(interactions, list):
            self.err("'entities' and 'interactions' must be lists")
            return None
        spans: list[Span] = []
        clusters: list[Entity] = []
        reps: list[str | None] = []
        for ci, cluster in enumerate(entities):
            reps.append(self.cluster(ci, cluster, text, spans, clusters))
        relations = [r for k, inter in enumerate(interactions) if (r := self.interaction(k, inter, reps))]
        if any(p.severity == "error" for p in self.problems):
            return None
        sid, paperid = obj["id"], obj.get("paperid")
        bad_id = name_problem(str(sid), "sentence id")
        if bad_id is not None:
            self.err(bad_id)
            return None
        bx: dict[str, Any] = {}
        keys = list(obj)
        if tuple(keys) != SENTENCE_KEYS:
            bx["keys"] = keys
        other = {k: v for k, v in obj.items() if k not in SENTENCE_KEYS}
        if other:
            bx["other"] = other
        if not isinstance(sid, str):
            bx["id"] = sid
        if paperid is not None and not isinstance(paperid, str):
            bx["paperid"] = paperid
        metadata: dict[str, Any] = {k: obj[k] for k in ("url", "_line_") if k in obj}
        if bx:
            metadata["biorelex"] = bx
        document = Document(
            external_id=str(sid),
            text=text,
            source=os.path.basename(self.file),
            metadata=metadata,
            group_key=None if paperid is None else str(paperid),
        )
        annotations = Annotations(spans=tuple(spans), relations=tuple(relations), entities=tuple(clusters))
        warnings = tuple(str(p) for p in self.problems)
        return ParsedDocument(document=document, annotations=annotations, warnings=warnings)

    def cluster(
        self, ci: int, cluster: Any, text: str, spans: list[Span], clusters: list[Entity]
    ) -> str | None:
        """The cluster's spans appended to ``spans``, its entity to ``clusters``; the entity's id."""
        where = f"cluster {ci}"
        if not isinstance(cluster, dict):
            self.err(f"{where} is not an object")
            return None
        self.dup_check(cluster, where)
        missing = [k for k in _REQUIRED_CLUSTER if k not in cluster]
        if missing:
            self.err(f"{where}: missing keys {missing}")
            return None
        label, names = cluster["label"], cluster["names"]
        if not isinstance(label, str) or not label:
            self.err(f"{where}: 'label' must be a non-empty string, got {label!r}")
            return None
        if not isinstance(names, dict):
            self.err(f"{where}: 'names' must be an object")
            return None
        self.dup_check(names, f"{where} 'names'")
        flags: dict[str, bool] = {}
        for key in ("is_mentioned", "is_state", "is_mutant"):
            if key in cluster:
                if not isinstance(cluster[key], bool):
                    self.err(f"{where}: '{key}' must be true or false, got {cluster[key]!r}")
                    return None
                flags[key] = cluster[key]
        grounding = cluster.get("grounding")
        if grounding is not None and not isinstance(grounding, dict):
            self.err(f"{where}: 'grounding' must be null or an object")
            return None
        attributes: dict[str, Any] = {}
        if flags.get("is_mutant"):
            attributes["mutant"] = True
        if flags.get("is_state"):
            attributes["state"] = True
        groundings: tuple[Grounding, ...] = ()
        if grounding is not None:
            symbol = grounding.get("hgnc_symbol")
            groundings = (
                Grounding(
                    ref=_ref_of(grounding),
                    text=symbol if isinstance(symbol, str) and symbol != "NA" else None,
                    source_id=None,
                    extra={"object": grounding},
                ),
            )
        base: dict[str, Any] = {"cluster": ci}
        if "is_mentioned" in flags:
            base["cluster_mentioned"] = flags["is_mentioned"]
        if tuple(cluster) != CLUSTER_KEYS:
            base["keys"] = list(cluster)
        other = {k: v for k, v in cluster.items() if k not in CLUSTER_KEYS}
        if other:
            base["other"] = other
        members: list[str] = []
        made = 0
        for ni, (name, meta) in enumerate(names.items()):
            nwhere = f"{where} name {name!r}"
            if not isinstance(meta, dict):
                self.err(f"{nwhere}: expected an object with 'mentions'")
                continue
            self.dup_check(meta, nwhere)
            if any(k not in meta for k in _REQUIRED_NAME):
                self.err(f"{nwhere}: missing 'mentions'")
                continue
            mentions = meta["mentions"]
            if not isinstance(mentions, list):
                self.err(f"{nwhere}: 'mentions' must be a list")
                continue
            extra = dict(base)
            extra["name"] = ni
            if "is_mentioned" in meta:
                if not isinstance(meta["is_mentioned"], bool):
                    self.err(f"{nwhere}: 'is_mentioned' must be true or false")
                    continue
                extra["name_mentioned"] = meta["is_mentioned"]
            if tuple(meta) != NAME_KEYS:
                extra["name_keys"] = list(meta)
            nother = {k: v for k, v in meta.items() if k not in NAME_KEYS}
            if nother:
                extra["name_other"] = nother
            todo: list[tuple[tuple[tuple[int, int], ...], dict[str, Any]]] = []
            for mi, m in enumerate(mentions):
                if not (isinstance(m, list) and len(m) == 2 and _is_int(m[0]) and _is_int(m[1])):
                    self.err(f"{nwhere} mention {mi}: expected [start, end] integers, got {m!r}")
                    continue
                s, e = m
                if s < 0 or e <= s:
                    self.err(
                        f"{nwhere} mention {m}: start must be >= 0 and end > start (a mention is not empty)"
                    )
                    continue
                if e > len(text):
                    self.err(f"{nwhere} mention {m}: beyond the end of the text ({len(text)} characters)")
                    continue
                found = text[s:e]
                if found != name:
                    if found.split() == name.split():
                        self.err(
                            f"{nwhere} mention {m}: the text has {found!r}, which differs from the name "
                            "only in whitespace",
                            "warning",
                        )
                    else:
                        self.err(f"{nwhere} mention {m}: the text there is {found!r}, not the name")
                        continue
                todo.append((((s, e),), {**extra, "mention": mi}))
            if not mentions:
                todo.append(((), extra))
            for frags, ex in todo:
                made += 1
                sid = f"T{len(spans) + 1}"
                spans.append(Span(sid, label, frags, name, dict(attributes), groundings, ex))
                members.append(sid)
        if made == 0 and not names:
            # a cluster without names still has an index interactions may use: keep it as an empty span
            sid = f"T{len(spans) + 1}"
            spans.append(Span(sid, label, (), "", dict(attributes), groundings, {**base, "empty": True}))
            members.append(sid)
        if not members:
            return None  # every name was invalid (and reported)
        eid = f"C{ci + 1}"
        clusters.append(Entity(eid, label, tuple(members), dict(attributes), groundings, {"cluster": ci}))
        return eid

    def interaction(self, k: int, inter: Any, reps: list[str | None]) -> Relation | None:
        where = f"interaction {k}"
        if not isinstance(inter, dict):
            self.err(f"{where} is not an object")
            return None
        self.dup_check(inter, where)
        if "participants" not in inter:
            self.err(f"{where}: missing 'participants'")
            return None
        parts = inter["participants"]
        if not (isinstance(parts, list) and len(parts) == 2 and all(_is_int(p) for p in parts)):
            self.err(f"{where}: 'participants' must be two cluster indices, got {parts!r}")
            return None
        bad = [p for p in parts if not 0 <= p < len(reps)]
        if bad:
            self.err(f"{where}: participant {bad[0]} is not a cluster index (0..{len(reps) - 1})")
            return None
        type_ = inter.get("type", "bind")
        if not isinstance(type_, str) or not type_:
            self.err(f"{where}: 'type' must be a non-empty string")
            return None
        label = inter.get("label")
        if label is not None and not (_is_int(label) and label in (1, 0, -1)):
            self.err(f"{where}: 'label' must be 1, 0 or -1, got {label!r}")
            return None
        implicit = inter.get("implicit", False)
        if not isinstance(implicit, bool):
            self.err(f"{where}: 'implicit' must be true or false")
            return None
        a, b = reps[parts[0]], reps[parts[1]]
        if a is None or b is None:
            return None  # the cluster itself is invalid and reported
        extra: dict[str, Any] = {"participants": list(parts), "index": k}
        if tuple(inter) != INTERACTION_KEYS:
            extra["keys"] = list(inter)
        other = {key: v for key, v in inter.items() if key not in INTERACTION_KEYS}
        if isinstance(other.get(DERIVED_KEY), str) and other[DERIVED_KEY]:  # a release's derived one
            extra["derived"] = other.pop(DERIVED_KEY)
            kept = [key for key in inter if key != DERIVED_KEY]
            extra.pop("keys", None)
            if tuple(kept) != INTERACTION_KEYS:
                extra["keys"] = kept
        if other:
            extra["other"] = other
        return Relation(
            id=f"R{k + 1}",
            type=type_,
            args=(Argument("Arg1", a), Argument("Arg2", b)),
            label=label,
            tags=("implicit",) if implicit else (),
            attributes={},
            extra=extra,
        )


def _line_locator(raw: str, data: list[Any]) -> Callable[[int], int | None]:
    """Line of a sentence in the file, found lazily from its ``"id"`` (JSON has no positions)."""
    cache: dict[int, int | None] = {}

    def locate(index: int) -> int | None:
        if index in cache:
            return cache[index]
        line = None
        obj = data[index] if 0 <= index < len(data) else None
        if isinstance(obj, dict) and "id" in obj:
            for needle in (
                f'"id": {json.dumps(obj["id"])}',
                f'"id": {json.dumps(obj["id"], ensure_ascii=False)}',
            ):
                pos = raw.find(needle)
                if pos >= 0 and raw.find(needle, pos + 1) < 0:  # only when unambiguous
                    line = raw.count("\n", 0, pos) + 1
                    break
        cache[index] = line
        return line

    return locate


def _load(path: str) -> tuple[str, Any]:
    return jsonin.load_file(path, object_pairs_hook=_pairs)


def read_biorelex_lenient(path: str | os.PathLike[str]) -> ReadResult:
    """Read a BioRelEx JSON file; keep the valid sentences and list every problem of the others.

    A file that is not JSON, or not a list, raises :class:`FormatError` (nothing can be imported).
    """
    file = os.fspath(path)
    raw, data = _load(file)
    if not isinstance(data, list):
        raise FormatError.single(file, 1, f"expected a JSON list of sentences, got {type(data).__name__}")
    locate = _line_locator(raw, data)
    docs: list[ParsedDocument] = []
    problems: list[Problem] = []
    rejected: list[str] = []
    seen: dict[str, int] = {}
    for i, obj in enumerate(data):
        sentence = _Sentence(obj, i, file, locate)
        parsed = sentence.parse()
        if parsed is not None and parsed.document.external_id in seen:
            first = seen[parsed.document.external_id]
            sentence.err(f"duplicate sentence id (first at sentence {first})")
            parsed = None
        if parsed is None:
            problems.extend(sentence.problems)
            rejected.append(str(obj.get("id", i)) if isinstance(obj, dict) else str(i))
        else:
            seen[parsed.document.external_id] = i
            docs.append(parsed)
    return ReadResult(documents=docs, problems=problems, rejected=rejected,
                      line_of=lambda ext: locate(seen[ext]) if ext in seen else None)  # fmt: skip


def read_biorelex(path: str | os.PathLike[str]) -> list[ParsedDocument]:
    """Read a BioRelEx JSON file, all or nothing: :class:`FormatError` lists every problem of every
    sentence (file, line of the sentence when it can be found, sentence position and id)."""
    result = read_biorelex_lenient(path)
    if result.problems:
        raise FormatError(result.problems)
    return result.documents


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _ordered(keys: Sequence[str], values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: values[k] for k in keys if k in values}


class _Clusters:
    """Spans grouped into clusters: read clusters by index, others by their links' closure."""

    def __init__(self, ann: Annotations, link_types: Collection[str]) -> None:
        uf = UnionFind((s.id for s in ann.spans), root="first")
        union = uf.union
        by_index: dict[Any, str] = {}
        for s in ann.spans:
            ci = s.extra.get("cluster")
            if _is_int(ci):
                if ci in by_index:
                    union(by_index[ci], s.id)
                else:
                    by_index[ci] = s.id
        for c in clusters(ann, link_types):  # the one cluster model: entities and symmetric links alike
            for m in c.members[1:]:
                union(c.members[0], m)
        groups: dict[object, list[Span]] = {}
        for s in ann.spans:
            groups.setdefault(uf.find(s.id), []).append(s)

        position = {s.id: k for k, s in enumerate(ann.spans)}

        def order(members: list[Span]) -> tuple[int, int]:
            idx = [s.extra["cluster"] for s in members if _is_int(s.extra.get("cluster"))]
            return (0, min(idx)) if idx else (1, min(position[m.id] for m in members))

        self.clusters: list[list[Span]] = sorted(groups.values(), key=order)
        self.index_of: dict[str, int] = {s.id: i for i, members in enumerate(self.clusters) for s in members}
        self.entity: dict[int, Entity] = {}
        for e in ann.entities:
            known = [m for m in e.members if m in uf.parent]
            if known:
                self.index_of[e.id] = self.index_of[known[0]]
                self.entity.setdefault(self.index_of[e.id], e)


def _sort_key(s: Span, pos: int) -> tuple[int, int, int]:
    name = s.extra.get("name")
    mention = s.extra.get("mention")
    return (name if _is_int(name) else 1 << 30, mention if _is_int(mention) else 1 << 30, pos)


def _cluster_object(members: list[Span], errors: list[str], entity: Entity | None = None) -> dict[str, Any]:
    members = [members[k] for k in sorted(range(len(members)), key=lambda k: _sort_key(members[k], k))]
    head = members[0]
    ex = head.extra
    names: dict[str, dict[str, Any]] = {}
    name_extra: dict[str, Mapping[str, Any]] = {}
    for s in members:
        if ex.get("empty") and s is head and not s.fragments:
            continue
        entry = names.get(s.text)
        if entry is None:
            entry = names[s.text] = {"mentions": []}
            name_extra[s.text] = s.extra
        if len(s.fragments) > 1:
            errors.append(f"span {s.id} is discontinuous; BioRelEx mentions are contiguous")
        elif s.fragments:
            entry["mentions"].append(list(s.fragments[0]))
    names_obj: dict[str, Any] = {}
    for name, entry in names.items():
        nex = name_extra[name]
        values = {
            "is_mentioned": nex.get("name_mentioned", bool(entry["mentions"])),
            "mentions": entry["mentions"],
            **(nex.get("name_other") or {}),
        }
        names_obj[name] = _ordered(nex.get("name_keys") or NAME_KEYS, values)
    grounding: Any = None
    g = next((g for g in entity.groundings), None) if entity is not None else None
    g = g or next((g for s in members for g in s.groundings), None)
    if g is not None:
        obj = g.extra.get("object")
        if isinstance(obj, Mapping):
            grounding = dict(obj)
        else:
            db, _, ident = g.ref.partition(":")
            grounding = {"source": db, "id": ident, "hgnc_symbol": g.text or "NA"}
    attrs = [s.attributes for s in members] + ([entity.attributes] if entity is not None else [])
    values = {
        "label": entity.type if entity is not None else head.type,
        "is_mentioned": ex.get("cluster_mentioned", any(s.fragments for s in members)),
        "is_state": any(bool(a.get("state")) for a in attrs),
        "is_mutant": any(bool(a.get("mutant")) for a in attrs),
        "grounding": grounding,
        "names": names_obj,
        **(ex.get("other") or {}),
    }
    return _ordered(ex.get("keys") or CLUSTER_KEYS, values)


def _sentence_object(
    document: Document, annotations: Annotations, link_types: Collection[str], errors: list[str]
) -> dict[str, Any]:
    where = f"document {document.external_id!r}"
    clusters = _Clusters(annotations, link_types)
    interactions: list[dict[str, Any]] = []
    for r in annotations.relations:
        if len(r.args) != 2 or any(a.ref not in clusters.index_of for a in r.args):
            errors.append(
                f"{where}: relation {r.id} must have two span or entity arguments to be an interaction"
            )
            continue
        values: dict[str, Any] = {
            "participants": [clusters.index_of[a.ref] for a in r.args],
            "type": r.type,
            "implicit": "implicit" in r.tags,
            "label": r.label,
            **(r.extra.get("other") or {}),
        }
        keys = r.extra.get("keys") or (INTERACTION_KEYS if r.label is not None else INTERACTION_KEYS[:3])
        if r.extra.get("derived"):  # a schema rule's: marked with its rule (read back as derived)
            values[DERIVED_KEY] = r.extra["derived"]
            keys = (*[k for k in keys if k != DERIVED_KEY], DERIVED_KEY)
        interactions.append(_ordered(keys, values))
    cluster_errors: list[str] = []
    entities = [
        _cluster_object(members, cluster_errors, clusters.entity.get(i))
        for i, members in enumerate(clusters.clusters)
    ]
    errors.extend(f"{where}: {e}" for e in cluster_errors)
    meta = document.metadata
    bx: Mapping[str, Any] = meta.get("biorelex") or {}
    values = {
        "id": bx.get("id", document.external_id),
        "paperid": bx.get("paperid", document.group_key),
        "url": meta.get("url"),
        "text": document.text,
        "entities": entities,
        "interactions": interactions,
        **(bx.get("other") or {}),
    }
    if "_line_" in meta:
        values["_line_"] = meta["_line_"]
    return _ordered(bx.get("keys") or SENTENCE_KEYS, values)


def format_biorelex(
    docs: Iterable[tuple[Document, Annotations]], *, link_types: Collection[str] = CLUSTER_LINK_TYPES
) -> str:
    """The BioRelEx JSON text for these documents: ASCII with ``\\uXXXX`` escapes, ``indent=1``."""
    errors: list[str] = []
    data = [_sentence_object(d, a, link_types, errors) for d, a in docs]
    if errors:
        more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
        raise InvalidInput("cannot write BioRelEx: " + "; ".join(errors[:10]) + more)
    return json.dumps(data, indent=1, ensure_ascii=True)


def write_biorelex(
    docs: Iterable[tuple[Document, Annotations]],
    path: str | os.PathLike[str],
    *,
    link_types: Collection[str] = CLUSTER_LINK_TYPES,
) -> None:
    """Write documents as a BioRelEx JSON file equal, as data, to the file they were read from."""
    text = format_biorelex(docs, link_types=link_types)
    with open(path, "w", encoding="ascii", newline="") as fh:
        fh.write(text)
