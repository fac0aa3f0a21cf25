"""Writing standoff: records to the annotation files' text and to files, byte-identical for what was read."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import (
    Annotations,
    Document,
    Link,
    Relation,
    Span,
)
from importers.standoff.layout import _RANK, _default_files
from importers.standoff.lines import (
    _KNOWN_PREFIXES,
    _attr_line,
    _clean,
    _field2,
    _norm_line,
    _note_line,
    _one_line,
    _star_line,
    _tail,
)


class _IdAllocator:
    """Keeps valid, unique brat ids and hands out the next free ``<prefix><n>`` for the others."""

    def __init__(self, reserved: Iterable[str]) -> None:
        self.used: set[str] = set(reserved)
        self.next: dict[str, int] = {}

    def claim(self, ident: str | None, prefixes: str) -> bool:
        if ident and ident[0] in prefixes and len(ident) > 1 and ident not in self.used and _clean(ident):
            self.used.add(ident)
            return True
        return False

    def new(self, prefix: str) -> str:
        n = self.next.get(prefix)
        if n is None:
            n = 1 + max(
                (int(u[1:]) for u in self.used if u[:1] == prefix and u[1:].isdigit() and u[1:].isascii()),
                default=0,
            )
        while f"{prefix}{n}" in self.used:
            n += 1
        self.next[prefix] = n + 1
        ident = f"{prefix}{n}"
        self.used.add(ident)
        return ident


ENTITY_LINK_TYPE = "synonym"
"""The ``*`` line type an explicit entity (cluster) is written as."""


def mention_level(annotations: Annotations, cluster_type: str | None = None) -> Annotations:
    """The same annotations with explicit entities written out as standoff can hold them.

    Why: standoff has no cluster records; a cluster is a ``*`` line over its mentions, and an R line
    joins mentions. Each entity with two members or more becomes a star of links of its
    ``extra["link_type"]`` (how its cluster was drawn: ``Equiv`` lines merged into gold), else of
    ``cluster_type`` (the project schema's, ``coreference`` in BB; default ``synonym``), from its first
    member (one ``*`` line), and a relation argument naming an entity points at the entity's
    first mentioned member (its first member when none has a mention). Sets without entities (all
    that were read from standoff) are returned unchanged, so their round trips stay byte-identical.
    """
    if not annotations.entities:
        return annotations
    frags = {s.id: bool(s.fragments) for s in annotations.spans}
    rep: dict[str, str] = {}
    links = list(annotations.links)
    for e in annotations.entities:
        members = [m for m in e.members if m in frags]
        if not members:
            continue
        rep[e.id] = next((m for m in members if frags[m]), members[0])
        links += [
            Link(
                f"{e.id}~{k}",
                str(e.extra.get("link_type") or cluster_type or ENTITY_LINK_TYPE),
                members[0],
                m,
                group=f"entity:{e.id}",
                # where the * line stood (a cluster of Equiv lines merged into gold keeps its place)
                extra={k2: v for k2, v in e.extra.items() if k2 in ("file", "line", "prefix")}
                if k == 1
                else {},
            )
            for k, m in enumerate(members[1:], 1)
        ]
    relations = tuple(
        replace(r, args=tuple(replace(a, ref=rep.get(a.ref, a.ref)) for a in r.args))
        for r in annotations.relations
    )
    return replace(annotations, relations=relations, links=tuple(links), entities=())


def expressible(
    annotations: Annotations, cluster_type: str | None = None
) -> tuple[Annotations, Counter[str]]:
    """What standoff can hold of a set (entities at :func:`mention_level`), and what it left out,
    counted by what it was: how an export writes what it can and says what it could not.

    Left out: document labels; names without a mention (BioRelEx keeps them), with what rests on them
    (relations, transitively, links, notes); groundings and attribute values containing whitespace
    (``NCBI gene:51176``: an ``N`` line's id is one token); attributes named so. A set standoff holds
    whole comes back unchanged, so its round trip stays byte-identical."""
    ann = annotations
    lost: Counter[str] = Counter()
    if ann.labels:
        lost["document labels"] += len(ann.labels)
    gone = {s.id for s in ann.spans if not s.fragments}
    lost["names without a mention"] += len(gone)
    ents = ann.entities
    if gone:  # a cluster keeps its mentions; one with none left goes, with what rests on it
        ents = tuple(replace(e, members=tuple(m for m in e.members if m not in gone)) for e in ann.entities)
        gone |= {e.id for e in ents if not e.members}
        ents = tuple(e for e in ents if e.members)
    rels = list(ann.relations)
    changed = bool(gone)
    while changed:
        changed = False
        for r in list(rels):
            if any(a.ref in gone for a in r.args) or r.trigger in gone:
                gone.add(r.id)
                rels.remove(r)
                lost["relations on a name without a mention"] += 1
                changed = True
    links = [lk for lk in ann.links if lk.source not in gone and lk.target not in gone]
    lost["links on a name without a mention"] += len(ann.links) - len(links)
    notes = [n for n in ann.notes if n.target not in gone]
    lost["notes on a name without a mention"] += len(ann.notes) - len(notes)
    on_entity = {e.id for e in ann.entities}  # a * line has no id a # line could name
    lost["notes on an entity"] += sum(n.target in on_entity for n in notes)
    notes = [n for n in notes if n.target not in on_entity]

    def attrs(owner: Span | Relation) -> Mapping[str, Any]:
        bad = [
            k for k, v in owner.attributes.items()
            if v not in (None, False) and (not _clean(k) or (v is not True and not _clean(str(v))))
        ]  # fmt: skip
        lost["attributes containing whitespace"] += len(bad)
        return {k: v for k, v in owner.attributes.items() if k not in bad} if bad else owner.attributes

    spans = []
    for sp in ann.spans:
        if sp.id in gone:
            continue
        refs = tuple(g for g in sp.groundings if _clean(g.ref))
        lost["groundings containing whitespace"] += len(sp.groundings) - len(refs)
        a = attrs(sp)
        spans.append(
            sp if refs == sp.groundings and a is sp.attributes else replace(sp, groundings=refs, attributes=a)
        )
    rels = [r if (a := attrs(r)) is r.attributes else replace(r, attributes=a) for r in rels]
    lost = +lost
    if not lost:
        return mention_level(ann, cluster_type), lost
    kept = replace(
        ann, spans=tuple(spans), relations=tuple(rels), links=tuple(links), notes=tuple(notes), labels=(),
        entities=ents,
    )  # fmt: skip
    return mention_level(kept, cluster_type), lost


def left_out_notes(lost: Mapping[str, int], fmt: str = "brat") -> list[str]:
    """``brat cannot express 19 groundings containing whitespace (left out)``, one line per kind."""
    return [f"{fmt} cannot express {n} {what} (left out)" for what, n in sorted(lost.items()) if n]


def format_annotations(annotations: Annotations) -> dict[str, str]:
    """The annotation files' contents, keyed by extension (``ann``, or ``a1``/``a2``).

    Items read from standoff are written back at their line with their ids and spacing, so a read
    followed by a write gives the same bytes; other items get valid ids and go after them (see the
    module docstring). Explicit entities are written at mention level (:func:`mention_level`).
    Raises :class:`InvalidInput` for content standoff cannot hold.
    """
    annotations = mention_level(annotations)
    meta: Mapping[str, Any] = annotations.extra.get("standoff") or {}
    files_opts: Mapping[str, Mapping[str, Any]] | None = meta.get("files")
    exts = list(files_opts) if files_opts is not None else []
    verbatim: list[Sequence[Any]] = list(meta.get("verbatim") or ())
    has_items = bool(annotations.spans or annotations.relations or annotations.links or annotations.notes)
    if not exts and (has_items or verbatim):
        exts = ["ann"]
    errors: list[str] = []
    if annotations.labels:
        errors.append(f"standoff cannot hold document labels ({annotations.labels[0].name}=...)")
    home = _default_files(exts[0] if exts else "ann", exts[-1] if exts else "ann")

    # ids: keep valid unique ones, then allocate the rest
    reserved: list[str] = []
    for v in verbatim:
        ident = str(v[2]).split("\t", 1)[0]
        if ident and ident[0] in _KNOWN_PREFIXES:
            reserved.append(ident)
    ids = _IdAllocator(reserved)
    attr_ids: dict[tuple[str, str], str] = {}
    ground_ids: dict[tuple[str, int], str] = {}
    for owner in (*annotations.spans, *annotations.relations):
        for name, entry in (owner.extra.get("attrs") or {}).items():
            aid = entry.get("id") if isinstance(entry, Mapping) else None
            if owner.attributes.get(name) not in (None, False) and ids.claim(aid, "AM"):
                attr_ids[(owner.id, name)] = str(aid)
    for s in annotations.spans:
        for k, g in enumerate(s.groundings):
            if ids.claim(g.source_id, "N"):
                ground_ids[(s.id, k)] = str(g.source_id)
    rename: dict[str, str] = {}
    span_ids = {s.id for s in annotations.spans}
    all_ids = [x.id for x in (*annotations.spans, *annotations.relations, *annotations.notes)]
    if len(set(all_ids)) != len(all_ids):
        dups = sorted(k for k, v in Counter(all_ids).items() if v > 1)
        raise InvalidInput(f"cannot write standoff: duplicate local ids {', '.join(dups[:10])}")
    pending: list[tuple[str, str]] = []
    for s in annotations.spans:
        if not ids.claim(s.id, "T"):
            pending.append((s.id, "T"))
    rel_prefix: dict[str, str] = {}
    for r in annotations.relations:
        p = "E" if r.kind == "event" or r.trigger is not None or r.extra.get("prefix") == "E" else "R"
        rel_prefix[r.id] = p
        if not ids.claim(r.id, p):
            pending.append((r.id, p))
    for nt in annotations.notes:
        if not ids.claim(nt.id, "#"):
            pending.append((nt.id, "#"))
    for old, p in pending:
        rename[old] = ids.new(p)
    known = span_ids | set(rel_prefix)
    triggers = {r.trigger for r in annotations.relations if r.trigger is not None}

    def ref(x: str, what: str) -> str:
        if x not in known:
            errors.append(f"{what} refers to unknown id {x}")
        return rename.get(x, x)

    def tok(x: str, what: str) -> str:
        if not _clean(x):
            errors.append(f"{what} {x!r} contains whitespace or is empty")
        return x

    out: dict[str, list[tuple[float, int, int, str]]] = {e: [] for e in exts}
    seq = 0

    def put(extra: Mapping[str, Any], rank_key: str, line: str, trigger: bool = False) -> None:
        nonlocal seq
        seq += 1
        ext = extra.get("file")
        pos = extra.get("line")
        if ext in out and isinstance(pos, int):
            out[ext].append((pos, 0, seq, line))
        elif ext in out:  # a file without a line (adjudicated gold keeps its sources' files)
            out[ext].append((float("inf"), _RANK[rank_key], seq, line))
        else:
            out.setdefault(home[rank_key, trigger], []).append((float("inf"), _RANK[rank_key], seq, line))

    def put_attrs(
        target: str, owner_id: str, attributes: Mapping[str, Any], attr_meta: Mapping[str, Any]
    ) -> None:
        for name, value in attributes.items():
            if value is False or value is None:
                continue
            entry = attr_meta.get(name) or {}
            aid = attr_ids.get((owner_id, name)) or ids.new("A")
            if value is not True:
                value = str(value)
                tok(value, f"value of attribute {name} of {owner_id}")
            tok(name, f"attribute name on {owner_id}")
            put(entry, aid[0], _attr_line(aid, name, target, value, entry))

    for s in annotations.spans:
        sid = rename.get(s.id, s.id)
        if not s.fragments:
            errors.append(f"span {s.id} has no fragments (a name without a mention); standoff cannot hold it")
            continue
        tok(s.type, f"type of span {s.id}")
        canon = s.type + " " + ";".join(f"{a} {b}" for a, b in s.fragments)
        line = f"{sid}\t{_field2(canon, s.extra)}"
        if not (s.extra.get("notext")):
            line += "\t" + _one_line(s.text)
        put(s.extra, "T", line, s.id in triggers)
        put_attrs(sid, s.id, s.attributes, s.extra.get("attrs") or {})
        for k, g in enumerate(s.groundings):
            gid = ground_ids.get((s.id, k)) or ids.new("N")
            line = _norm_line(gid, g.kind, sid, tok(g.ref, "grounding"), g.text, g.extra)
            put(g.extra, "N", line)
    for r in annotations.relations:
        rid = rename.get(r.id, r.id)
        p = rel_prefix[r.id]
        tok(r.type, f"type of {r.id}")
        if r.trigger is not None and r.trigger not in span_ids:
            errors.append(f"the trigger {r.trigger} of {r.id} is not a span")
        head = r.type if r.trigger is None else f"{r.type}:{rename.get(r.trigger, r.trigger)}"
        args = " ".join(f"{tok(a.role, f'role in {r.id}')}:{ref(a.ref, f'{r.id} {a.role}')}" for a in r.args)
        canon = f"{head} {args}" if args else head
        put(r.extra, p, f"{rid}\t{_field2(canon, r.extra)}{_tail(r.extra)}")
        attrs: dict[str, Any] = dict(r.attributes)
        if r.label is not None and "label" not in attrs:
            attrs["label"] = str(r.label)
        for tag in r.tags:
            attrs.setdefault(tag, True)
        put_attrs(rid, r.id, attrs, r.extra.get("attrs") or {})
    groups: dict[str, list[Link]] = {}
    for lk in annotations.links:
        groups.setdefault(lk.group if lk.group is not None else f"\0{lk.id}", []).append(lk)
    for members_links in groups.values():
        for lk in members_links:
            for end in (lk.source, lk.target):
                if end not in span_ids:
                    errors.append(f"link {lk.id} ({lk.type}) joins {end}, which is not a span")
        first = members_links[0]
        if all(lk.source == first.source for lk in members_links):
            # a star from its first member: the exact member list of a brat * line
            ends = [first.source, *(lk.target for lk in members_links)]
        else:
            ends = list(dict.fromkeys(e for lk in members_links for e in (lk.source, lk.target)))
        members = [rename.get(e, e) for e in ends]
        extra = next((lk.extra for lk in members_links if lk.extra.get("line") is not None), first.extra)
        tok(first.type, f"type of link {first.id}")
        put(extra, "*", _star_line(first.type, members, extra))
    for nt in annotations.notes:
        nid = rename.get(nt.id, nt.id)
        tok(nt.type, f"type of note {nt.id}")
        line = _note_line(nid, nt.type, ref(nt.target, f"note {nt.id}"), nt.text, nt.extra)
        put(nt.extra, "#", line)
    for v in verbatim:
        ext, pos, raw = str(v[0]), v[1], str(v[2])
        out.setdefault(ext, []).append((pos, 0, 0, raw))
    if errors:
        raise InvalidInput(
            "cannot write standoff: "
            + "; ".join(errors[:10])
            + (f" (and {len(errors) - 10} more)" if len(errors) > 10 else "")
        )
    result: dict[str, str] = {}
    for ext, entries in out.items():
        opts: Mapping[str, Any] = (files_opts or {}).get(ext) or {}
        nl = opts.get("newline", "\n")
        entries.sort(key=lambda t: (t[0], t[1], t[2]))
        body = nl.join(t[3] for t in entries)
        if entries and opts.get("final_newline", True):
            body += nl
        if opts.get("bom"):
            body = "\ufeff" + body
        result[ext] = body
    return result


def format_document(
    document: Document, annotations: Annotations, cluster_type: str | None = None
) -> dict[str, bytes]:
    """The bytes of ``<external_id>.txt`` and its annotation files, keyed by file name.

    Why apart from writing: an export formats every document first, so content standoff cannot
    hold is refused before any file is written (:func:`expressible` first leaves out what it cannot
    hold, counted). ``cluster_type``: see :func:`mention_level`.
    """
    name = document.external_id
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise InvalidInput(f"cannot use the external id {name!r} as a file name")
    contents = format_annotations(mention_level(annotations, cluster_type))
    prefix = "\ufeff" if document.metadata.get("bom") else ""
    files = {f"{name}.txt": (prefix + document.text).encode("utf-8")}
    for ext, body in contents.items():
        files[f"{name}.{ext}"] = body.encode("utf-8")
    return files


def write_document(
    document: Document, annotations: Annotations, outdir: str | os.PathLike[str]
) -> list[Path]:
    """Write ``<external_id>.txt`` and its annotation files into ``outdir``; return the paths written.

    Bytes are written as they are (no newline translation), so a document read by
    :func:`read_document` comes back byte for byte.
    """
    files = format_document(document, annotations)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in files.items():
        p = out / name
        p.write_bytes(data)
        paths.append(p)
    return paths
