"""BioC XML and BioC JSON (BioCreative's interchange format) read and written with the ``bioc`` package.

Why the ``bioc`` package: it is the format's reference Python implementation (the BioC DTD's data
model, its XML and JSON codecs); this module only maps that model onto corpusdb records and back.

Mapping (offsets are code points into the document text, as everywhere in corpusdb)
-----------------------------------------------------------------------------------
* document -> BioC document (``id`` = external id); its text -> passages. A document that came from
  BioC keeps its passages (offsets and infons, in ``metadata["bioc"]``); any other is one passage at
  offset 0 with infon ``type=text``. Reading joins passages at their offsets (gaps become spaces).
* span -> annotation: ``type`` infon, one ``location`` per fragment (several for a discontinuous span),
  ``text`` = the span text; groundings -> ``identifier`` infon (refs joined by ``;``, as PubTator's
  BioC does), and their knowledge-base labels, when the exporter knows them, in ``identifier_label``
  (same order; derived from the knowledge base, so not read back); attributes -> ``attr:<name>`` infons (``true`` for a flag). Annotations sit in the
  passage that holds their first fragment.
* relation/event -> relation: ``type`` infon, one node per argument (``role``, ``refid``), ``label``
  (1/0/-1), ``tags`` (comma-joined), ``kind=event`` and ``trigger`` for events.
* link (synonym, abbreviation...) -> relation with infon ``corpusdb=link``, nodes ``source``/``target``.
  note -> relation with infon ``corpusdb=note``, node ``target`` and infon ``text``.
* document labels -> document infons ``label:<name>``; group key, split, source -> ``group_key``,
  ``split``, ``source`` infons; other metadata -> ``corpusdb:metadata`` (JSON).
* what has no BioC field (records' ``extra``, grounding names, typed attribute values) travels as JSON
  in ``corpusdb:*`` infons, so a round trip store -> BioC -> store is exact.

Reading BioC made elsewhere: annotations and relations at document, passage or sentence level; an
annotation needs a ``type`` infon (else the document is refused); ``identifier`` (or ``Identifier``)
gives groundings, other infons become attributes; a relation needs nodes (entity-level relations that
name identifiers instead, as in BioRED, are refused: corpusdb relations join mentions).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from corpusdb.basics.errors import FormatError
from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Document,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
    grounding_key,
)
from importers import jsonin
from importers.common import MAX_TEXT, Collector, strict
from importers.standoff import ReadResult

__all__ = ["format_bioc", "read_bioc", "read_bioc_lenient"]

_J = "corpusdb:"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------


def _attr_infons(attributes: Mapping[str, Any], infons: dict[str, str]) -> None:
    typed = False
    for name, value in attributes.items():
        if value is True:
            infons[f"attr:{name}"] = "true"
        elif isinstance(value, str):
            infons[f"attr:{name}"] = value
        else:
            infons[f"attr:{name}"] = _json(value)
            typed = True
    if typed:
        infons[_J + "attributes"] = _json(dict(attributes))


def _extra_infon(extra: Mapping[str, Any], infons: dict[str, str]) -> None:
    """A record's ``extra`` (no BioC field) as the JSON infon ``corpusdb:extra``, when it has any."""
    if extra:
        infons[_J + "extra"] = _json(dict(extra))


def _bioc_relation(rid: str, typ: str, marker: str | None = None) -> Any:
    """A BioC relation with its id and ``type`` infon; links and notes say what they are in the
    ``corpusdb`` infon (``marker``), which comes next."""
    import bioc

    r = bioc.BioCRelation()
    r.id = rid
    r.infons["type"] = typ
    if marker is not None:
        r.infons["corpusdb"] = marker
    return r


def _span_annotation(span: Span, labels: Mapping[str, str] | None = None) -> Any:
    import bioc

    a = bioc.BioCAnnotation()
    a.id = span.id
    a.text = span.text
    a.infons["type"] = span.type
    for start, end in span.fragments:
        a.add_location(bioc.BioCLocation(start, end - start))
    if not span.fragments:  # a name without a mention (BioRelEx): said so, since BioC requires a location
        a.infons[_NAME_ONLY] = "true"
    if span.groundings:
        a.infons["identifier"] = ";".join(g.ref for g in span.groundings)
        named = [(labels or {}).get(grounding_key(g), "") for g in span.groundings]
        if any(named):  # the knowledge base's labels, in the same order (derived: not read back)
            a.infons["identifier_label"] = ";".join(n.replace(";", ",") for n in named)
        if any(g.text is not None or g.source_id is not None or g.kind != "Reference" or g.extra
               for g in span.groundings):  # fmt: skip
            a.infons[_J + "groundings"] = _json(
                [
                    {
                        "ref": g.ref,
                        "text": g.text,
                        "source_id": g.source_id,
                        "kind": g.kind,
                        "extra": dict(g.extra),
                    }
                    for g in span.groundings
                ]
            )
    _attr_infons(span.attributes, a.infons)
    _extra_infon(span.extra, a.infons)
    return a


def _relation(rel: Relation) -> Any:
    import bioc

    r = _bioc_relation(rel.id, rel.type)
    for arg in rel.args:
        r.add_node(bioc.BioCNode(arg.ref, arg.role))
    if rel.label is not None:
        r.infons["label"] = str(rel.label)
    if rel.tags:
        r.infons["tags"] = ",".join(rel.tags)
    if rel.kind != "relation":
        r.infons["kind"] = rel.kind
    if rel.trigger is not None:
        r.infons["trigger"] = rel.trigger
    _attr_infons(rel.attributes, r.infons)
    _extra_infon(rel.extra, r.infons)
    return r


def _link(link: Link) -> Any:
    import bioc

    r = _bioc_relation(link.id, link.type, "link")
    if link.group is not None:
        r.infons["group"] = link.group
    r.add_node(bioc.BioCNode(link.source, "source"))
    r.add_node(bioc.BioCNode(link.target, "target"))
    _extra_infon(link.extra, r.infons)
    return r


def _note(note: Note) -> Any:
    import bioc

    r = _bioc_relation(note.id, note.type, "note")
    r.infons["text"] = note.text
    r.add_node(bioc.BioCNode(note.target, "target"))
    _extra_infon(note.extra, r.infons)
    return r


def _document(doc: Document, ann: Annotations, labels: Mapping[str, str] | None = None) -> Any:
    import bioc

    d = bioc.BioCDocument()
    d.id = doc.external_id
    meta = dict(doc.metadata)
    layout = meta.pop("bioc", None) or {}
    d.infons.update(layout.get("infons") or {})
    if doc.source:
        d.infons["source"] = doc.source
    if doc.group_key is not None:
        d.infons["group_key"] = doc.group_key
    if doc.split is not None:
        d.infons["split"] = doc.split
    if meta:
        d.infons[_J + "metadata"] = _json(meta)
    for lb in ann.labels:
        d.infons[f"label:{lb.name}"] = lb.value
        if lb.extra:
            d.infons[f"{_J}label-extra:{lb.name}"] = _json(dict(lb.extra))
    if ann.extra:
        d.infons[_J + "set-extra"] = _json(dict(ann.extra))
    passages = layout.get("passages") or [{"offset": 0, "length": len(doc.text), "infons": {"type": "text"}}]
    made = []
    for p in passages:
        bp = bioc.BioCPassage()
        bp.offset = p["offset"]
        bp.text = doc.text[p["offset"] : p["offset"] + p["length"]]
        bp.infons.update(p.get("infons") or {})
        d.add_passage(bp)
        made.append(bp)
    for span in ann.spans:
        home = made[0]
        for bp, p in zip(made, passages, strict=True):
            if span.fragments and p["offset"] <= span.start < p["offset"] + max(p["length"], 1):
                home = bp
                break
        home.add_annotation(_span_annotation(span, labels))
    for rel in ann.relations:
        d.add_relation(_relation(rel))
    for link in ann.links:
        d.add_relation(_link(link))
    for note in ann.notes:
        d.add_relation(_note(note))
    return d


def format_bioc(
    items: Sequence[tuple[Document, Annotations]],
    *,
    fmt: str = "xml",
    source: str = "corpusdb",
    labels: Mapping[str, str] | None = None,
) -> str:
    """The BioC collection of these documents as XML (``fmt="xml"``) or JSON (``fmt="json"``);
    ``labels`` (grounding key -> knowledge-base label) go into ``identifier_label`` infons."""
    import bioc
    from bioc import biocjson

    coll = bioc.BioCCollection()
    coll.source = source
    coll.key = "corpusdb.key"
    for doc, ann in items:
        coll.add_document(_document(doc, ann, labels))
    if fmt == "json":
        return biocjson.dumps(coll, indent=1, ensure_ascii=False) + "\n"
    if fmt != "xml":
        raise ValueError(f"BioC format is xml or json, not {fmt!r}")
    return bioc.dumps(coll)


# ------------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------------


def _load(file: str, fmt: str) -> list[Any]:
    """The collection's documents as ``bioc`` objects; a BioC JSON document of the wrong shape is given
    as the message saying what is wrong in it (the other documents are still read)."""
    if fmt == "json":
        _raw, obj = jsonin.load_file(file, invalid="not JSON")
        if not isinstance(obj, dict) or not isinstance(obj.get("documents"), list):
            raise FormatError.single(
                file, 1, "not a BioC JSON collection: expected an object with a 'documents' list"
            )
        from bioc.biocjson.decoder import parse_doc

        return [
            _shape(d, _DOCUMENT, f"documents[{i}]") or parse_doc(d) for i, d in enumerate(obj["documents"])
        ]
    from bioc import biocxml

    try:
        with open(file, "rb") as fh:
            return list(biocxml.load(fh).documents)
    except OSError as err:
        raise FormatError.single(file, None, f"cannot read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise FormatError.single(file, None, f"not UTF-8: {err.reason}") from err
    except (KeyError, TypeError, ValueError, AttributeError, SyntaxError) as err:  # lxml's XMLSyntaxError
        raise FormatError.single(file, getattr(err, "lineno", None), f"not BioC XML: {err}") from err


# The shape of a BioC JSON document as the ``bioc`` package's decoder reads it (it checks nothing: a
# null role or a string offset would reach the records). A dict maps keys to shapes (``?`` ends an
# optional key); a one-item list is a list of that shape; a tuple lists the types a value may have.
_STR = (str,)
_OPT_STR = (str, type(None))
_INT = (int,)
_INFONS = {"*": (str, int, float, bool, list, dict, type(None))}  # (which must be text: ``_infons``)
_LOCATION = {"offset": _INT, "length": _INT}
_NODE = {"refid": _STR, "role": _STR}
_ANNOTATION = {"id": _OPT_STR, "infons": _INFONS, "text": _OPT_STR, "locations": [_LOCATION]}
_RELATION = {"id": _OPT_STR, "infons": _INFONS, "nodes": [_NODE]}
_SENTENCE = {"offset": _INT, "infons": _INFONS, "text": _OPT_STR, "annotations": [_ANNOTATION],
             "relations": [_RELATION]}  # fmt: skip
_PASSAGE = {"offset": _INT, "infons": _INFONS, "text?": _OPT_STR, "sentences": [_SENTENCE],
            "annotations": [_ANNOTATION], "relations": [_RELATION]}  # fmt: skip
_DOCUMENT = {"id": _OPT_STR, "infons": _INFONS, "passages": [_PASSAGE], "annotations?": [_ANNOTATION],
             "relations": [_RELATION]}  # fmt: skip
_TYPE_NAMES = {str: "a string", int: "an integer", type(None): "null", float: "a number", bool: "true or false",
               list: "a list", dict: "an object"}  # fmt: skip


def _shape(value: Any, shape: Any, where: str) -> str | None:
    """What in ``value`` does not have ``shape`` (the first thing found), or None."""
    if isinstance(shape, tuple):
        if isinstance(value, shape) and (bool in shape or not isinstance(value, bool)):
            return None
        want = " or ".join(_TYPE_NAMES[t] for t in shape)
        return f"{where} is {json.dumps(value)[:40]}, not {want}"
    if isinstance(shape, list):
        if not isinstance(value, list):
            return f"{where} is {json.dumps(value)[:40]}, not a list"
        for i, item in enumerate(value):
            bad = _shape(item, shape[0], f"{where}[{i}]")
            if bad:
                return bad
        return None
    if not isinstance(value, dict):
        return f"{where} is {json.dumps(value)[:40]}, not an object"
    if "*" in shape:  # infons: any key, every value of one shape
        return next((b for k, v in value.items() if (b := _shape(v, shape["*"], f"{where}.{k}"))), None)
    for key, sub in shape.items():
        name = key.rstrip("?")
        if name not in value:
            if key.endswith("?"):
                continue
            return f"{where} has no {name!r}"
        bad = _shape(value[name], sub, f"{where}.{name}")
        if bad:
            return bad
    return None


def _fmt_of(file: str, fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    return "json" if file.lower().endswith(".json") else "xml"


def _lines_of_documents(file: str, fmt: str, n: int) -> list[int | None]:
    """The line where each document starts (``<document>`` or ``"id"`` of a document object), best effort."""
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().split("\n")
    except OSError:
        return [None] * n
    marker = "<document" if fmt == "xml" else '"bioctype": "BioCDocument"'
    found: list[int | None] = [i + 1 for i, line in enumerate(lines) if marker in line]
    if fmt == "json" and len(found) != n:
        found = []
    return (found + [None] * n)[:n] if len(found) >= n or fmt == "xml" else [None] * n


def _infon_json(infons: Mapping[str, str], key: str, errors: list[Any], kind: type = dict) -> Any:
    """The JSON value a ``corpusdb:*`` infon carries (an empty ``kind()`` when absent), checked as every
    JSON input is; a value that is not such JSON is an error of the document."""
    raw = infons.get(key)
    if not raw:
        return kind()
    try:
        value = jsonin.loads(raw, key)
    except FormatError as err:
        errors.append(f"infon {key!r}: {err.problems[0].message}")
        return kind()
    if not isinstance(value, kind):
        errors.append(f"infon {key!r} is not a JSON {'object' if kind is dict else 'list'}")
        return kind()
    return value


def _attrs(infons: Mapping[str, str], errors: list[str]) -> dict[str, Any]:
    if infons.get(_J + "attributes"):
        return _infon_json(infons, _J + "attributes", errors)  # type: ignore[no-any-return]
    out: dict[str, Any] = {}
    for key, value in infons.items():
        if key.startswith("attr:"):
            out[key[5:]] = True if value == "true" else value
    return out


def _groundings(infons: Mapping[str, str], errors: list[str], where: str) -> tuple[Grounding, ...]:
    if not infons.get(_J + "groundings"):
        refs = infons.get("identifier") or infons.get("Identifier") or ""
        return tuple(
            Grounding(r.strip()) for r in refs.replace(",", ";").split(";") if r.strip() and r != "-"
        )
    out = []
    for g in _infon_json(infons, _J + "groundings", errors, list):
        text, sid, kind, extra = (
            g.get(k) if isinstance(g, dict) else None for k in ("text", "source_id", "kind", "extra")
        )
        if not (isinstance(g, dict) and isinstance(g.get("ref"), str) and isinstance(text, str | None)
                and isinstance(sid, str | None) and isinstance(kind, str | None) and isinstance(extra, dict | None)):  # fmt: skip
            errors.append(f"{where}: infon {_J}groundings holds {json.dumps(g)[:60]}, not a grounding")
            return ()
        out.append(Grounding(g["ref"], text, sid, kind or "Reference", extra or {}))
    return tuple(out)


_SPAN_INFONS = {"type", "identifier", "Identifier", "identifier_label"}
_NAME_ONLY = _J + "name-only"
"""Infon of an annotation without a location: a name without a mention (BioRelEx), as corpusdb writes it."""


def _read_span(
    a: Any, fallback_id: str, errors: list[tuple[int | None, str] | str], line: int | None
) -> Span | None:
    sid = a.id or fallback_id
    infons = _infons(a.infons, errors, f"annotation {sid}")
    typ = infons.get("type")
    if not typ:
        errors.append(f"annotation {sid}: no 'type' infon")
        return None
    if not a.locations and infons.get(_NAME_ONLY) != "true":
        errors.append((line, f"annotation {sid} ({typ}) has no location: a BioC annotation marks text, at least "
                       "one <location> (offset and length) in XML, one entry of \"locations\" in JSON"))  # fmt: skip
        return None
    frags = tuple((loc.offset, loc.offset + loc.length) for loc in a.locations)
    item: list[str] = []
    groundings = _groundings(infons, item, f"annotation {sid}")
    attrs = _attrs(infons, item)
    for key, value in infons.items():  # foreign infons (e.g. PubTator's) are kept as attributes
        if key not in _SPAN_INFONS and not key.startswith(("attr:", _J)):
            attrs[key] = value
    extra = _infon_json(infons, _J + "extra", item)
    errors += [f"annotation {sid}: {e}" if not e.startswith("annotation ") else e for e in item]
    return None if item else Span(sid, typ, frags, a.text or "", attrs, groundings, extra)


_STRING_INFONS = frozenset({"type", "identifier", "Identifier", "label", "tags", "kind", "trigger", "corpusdb",
                            "group", "text", "relation type", "source", "group_key", "split"})  # fmt: skip
"""Infons read as text; others (BioC JSON from PubTator has ``"valid": true``) are kept as they are."""


def _infons(infons: Mapping[str, Any], errors: list[Any], where: str) -> dict[str, Any]:
    """Infons with an empty XML ``<infon key="k"/>`` as the empty string, not None; an infon read as
    text (``type``, ``label``, ``corpusdb:*``...) that is not text in BioC JSON is an error."""
    out: dict[str, Any] = {}
    for k, v in infons.items():
        v = "" if v is None else v
        if not isinstance(v, str) and (k in _STRING_INFONS or k.startswith((_J, "label:"))):
            errors.append(f"{where}: infon {k!r} is {json.dumps(v)[:40]}, not a string")
            continue
        out[k] = v
    return out


def _read_relation(
    r: Any, fallback_id: str, errors: list[tuple[int | None, str] | str]
) -> Relation | Link | Note | None:
    rid = r.id or fallback_id
    infons = _infons(r.infons, errors, f"relation {rid}")
    typ = infons.get("type") or infons.get("relation type")
    item: list[str] = []
    extra = _infon_json(infons, _J + "extra", item)
    if item:
        errors += [f"relation {rid}: {e}" for e in item]
        return None
    nodes = {n.role: n.refid for n in r.nodes}
    if infons.get("corpusdb") == "link":
        return Link(
            rid,
            typ or "",
            nodes.get("source", ""),
            nodes.get("target", ""),
            infons.get("group") or None,
            extra,
        )
    if infons.get("corpusdb") == "note":
        return Note(rid, typ or "AnnotatorNotes", nodes.get("target", ""), infons.get("text", ""), extra)
    if not typ:
        errors.append(f"relation {rid}: no 'type' infon")
        return None
    if not r.nodes:
        errors.append(
            f"relation {rid} ({typ}) has no nodes: entity-level relations (naming identifiers in infons) "
            "cannot be stored as relations between mentions"
        )
        return None
    label = infons.get("label")
    if label is not None and label not in ("1", "0", "-1"):
        errors.append(f"relation {rid}: label {label!r} is not 1, 0 or -1")
        return None
    tags = tuple(t for t in (infons.get("tags") or "").split(",") if t)
    kind = "event" if infons.get("kind") == "event" else "relation"
    args = tuple(Argument(n.role, n.refid) for n in r.nodes)
    attrs = _attrs(infons, item)
    errors += [f"relation {rid}: {e}" for e in item]
    return None if item else Relation(rid, typ, args, int(label) if label is not None else None, tags, attrs,
                                      infons.get("trigger") or None, kind, extra)  # fmt: skip


def _text_of(d: Any) -> tuple[str, list[dict[str, Any]]]:
    parts: list[str] = []
    layout: list[dict[str, Any]] = []
    pos = 0
    for p in sorted(d.passages, key=lambda p: p.offset):
        if p.offset > MAX_TEXT:
            raise ValueError(
                f"passage at offset {p.offset}: a text longer than {MAX_TEXT:,} characters is refused"
            )
        text = p.text
        if text is None:  # sentences only
            text = ""
            for s in sorted(p.sentences, key=lambda s: s.offset):
                gap = s.offset - (p.offset + len(text))
                if s.offset > MAX_TEXT:
                    raise ValueError(
                        f"sentence at offset {s.offset}: a text longer than {MAX_TEXT:,} characters is refused"
                    )
                text += " " * max(gap, 0) + (s.text or "")
        if p.offset < pos:
            where = "is negative" if pos == 0 else f"overlaps the previous one (ends at {pos})"
            raise ValueError(f"passage at offset {p.offset} {where}")
        parts.append(" " * (p.offset - pos) + text)
        layout.append({"offset": p.offset, "length": len(text), "infons": dict(p.infons)})
        pos = p.offset + len(text)
    return "".join(parts), layout


def _line_after(lines: list[str], start: int | None, needle: str) -> int | None:
    """The first line from ``start`` (1-based) holding ``needle``: where an item of a document is."""
    if start is None:
        return None
    return next((i + 1 for i in range(start - 1, len(lines)) if needle in lines[i]), start)


def read_bioc_lenient(path: str | os.PathLike[str], *, fmt: str | None = None) -> ReadResult:
    """Read a BioC XML (or, by ``fmt`` or a ``.json`` name, BioC JSON) collection; keep the valid
    documents and list every problem of the others. An unreadable file raises :class:`FormatError`."""
    file = os.fspath(path)
    kind = _fmt_of(file, fmt)
    documents = _load(file, kind)
    lines = _lines_of_documents(file, kind, len(documents))
    raw_lines: list[str] | None = None
    out = Collector(file)
    for i, (d, line) in enumerate(zip(documents, lines, strict=True)):
        if isinstance(d, str):  # a BioC JSON document of the wrong shape
            out.error(line, f"document {i + 1}: {d}", str(i))
            continue
        errors: list[tuple[int | None, str] | str] = []
        try:
            text, layout = _text_of(d)
        except ValueError as err:
            out.error(line, f"document {d.id!r}: {err}", d.id or str(i))
            continue
        infons = _infons(d.infons, errors, "document")
        labels: list[DocLabel] = []
        doc_infons: dict[str, str] = {}
        for key, value in infons.items():
            if key.startswith("label:"):
                name = key[6:]
                lx = _infon_json(infons, f"{_J}label-extra:{name}", errors)
                labels.append(DocLabel(name, value, lx))
            elif not key.startswith(_J) and key not in ("source", "group_key", "split"):
                doc_infons[key] = value
        meta: dict[str, Any] = _infon_json(infons, _J + "metadata", errors)
        plain = len(layout) == 1 and layout[0]["offset"] == 0 and layout[0]["infons"] == {"type": "text"}
        if not plain or doc_infons:
            meta["bioc"] = {"passages": layout, **({"infons": doc_infons} if doc_infons else {})}
        spans: list[Span] = []
        n = 0
        containers = [d, *d.passages, *(s for p in d.passages for s in p.sentences)]
        for c in containers:
            for a in c.annotations:
                n += 1
                at: int | None = line
                if not a.locations:  # (refused unless a name: say where it is)
                    if raw_lines is None:
                        with open(file, encoding="utf-8", errors="replace") as fh:
                            raw_lines = fh.read().split("\n")
                    mark = f'<annotation id="{a.id}"' if kind == "xml" else f'"id": {json.dumps(a.id)}'
                    at = _line_after(raw_lines, line, mark)
                span = _read_span(a, f"T{n}", errors, at)
                if span is not None:
                    spans.append(span)
        rels: list[Relation] = []
        links: list[Link] = []
        notes: list[Note] = []
        k = 0
        for c in containers:
            for r in c.relations:
                k += 1
                item = _read_relation(r, f"R{k}", errors)
                if isinstance(item, Relation):
                    rels.append(item)
                elif isinstance(item, Link):
                    links.append(item)
                elif isinstance(item, Note):
                    notes.append(item)
        set_extra = _infon_json(infons, _J + "set-extra", errors)
        doc = Document(
            d.id or "",
            text,
            infons.get("source", ""),
            meta,
            infons.get("group_key") or None,
            infons.get("split") or None,
        )
        ann = Annotations(tuple(spans), tuple(rels), tuple(links), tuple(notes), tuple(labels), set_extra)
        warnings = [
            f"document {doc.external_id!r}: span {s.id} text {s.text!r} differs from the document's "
            f"{' '.join(text[a:b] for a, b in s.fragments)!r}"
            for s in spans
            if s.text
            and all(0 <= a <= b <= len(text) for a, b in s.fragments)
            and s.text != " ".join(text[a:b] for a, b in s.fragments)
        ]
        out.add(doc, ann, line, errors, warnings)
    return out.result()


read_bioc = strict(read_bioc_lenient)
