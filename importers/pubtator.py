"""PubTator text format (``PMID|t|title``, ``PMID|a|abstract``, tab-separated annotations and relations).

Why hand-written rather than ``bioc.pubtator``: that decoder reports no line numbers, stops at the first
bad line and keeps relation lines as loose strings; an import here must list every problem with its
file and line and refuse a document whose relation names an identifier no mention carries. The format
is a handful of line shapes, so reading and writing it directly is shorter than adapting the library.

Reading
-------
* Documents are separated by blank lines; the text is ``title + "\\n" + abstract`` (PubTator's offsets
  count one character between them), the id is the PMID.
* ``PMID<TAB>start<TAB>end<TAB>mention<TAB>type<TAB>identifier[<TAB>more...]`` -> span ``T<n>``; the
  identifier (``-`` or empty: none; several joined by ``,``, ``;`` or ``|``) -> groundings; further
  columns are kept in ``extra["pubtator"]``.
* ``PMID<TAB>type<TAB>id1<TAB>id2[<TAB>more...]`` -> relation ``R<n>`` between the *first* mentions that
  carry ``id1`` and ``id2`` (PubTator relations join concepts, not mentions; ``extra["pubtator"]`` says
  so and keeps the identifiers, so the writer gives the same line back); more columns -> attributes
  ``col5``, ``col6``...

Writing
-------
The first line of the text is the title, the rest the abstract; newlines inside the abstract become
spaces (same length, so offsets hold). Not expressible, and counted in the notes: discontinuous spans
(written as the range from first to last character), spans without a grounding (identifier ``-``),
relations whose arguments have no grounding (left out), links and notes (left out).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from corpusdb.basics.records import Annotations, Argument, Document, Grounding, Relation, Span
from importers.common import Collector, offset, read_text, strict
from importers.standoff import ReadResult

__all__ = ["format_pubtator", "read_pubtator", "read_pubtator_lenient"]

_HEAD = re.compile(r"^([^|\t]+)\|([ta])\|(.*)$")
_SPLIT_IDS = re.compile(r"[,;|]")


class _Doc:
    def __init__(self, pmid: str, line: int) -> None:
        self.pmid = pmid
        self.line = line
        self.title: str | None = None
        self.abstract: str | None = None
        self.ann_lines: list[tuple[int, list[str]]] = []
        self.errors: list[str] = []


def _parse(file: str, text: str) -> tuple[list[_Doc], list[tuple[int, str]]]:
    docs: list[_Doc] = []
    loose: list[tuple[int, str]] = []
    cur: _Doc | None = None
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.removesuffix("\r")
        if not line.strip():
            cur = None
            continue
        m = _HEAD.match(line)
        if m and "\t" not in line.split("|", 2)[0]:
            pmid, part, body = m.groups()
            if cur is None or cur.pmid != pmid:
                cur = _Doc(pmid, n)
                docs.append(cur)
            if part == "t":
                if cur.title is not None:
                    cur.errors.append(f"line {n}: a second title")
                cur.title = body
            else:
                if cur.abstract is not None:
                    cur.errors.append(f"line {n}: a second abstract")
                cur.abstract = body
            continue
        cols = line.split("\t")
        if cur is None or cols[0] != cur.pmid:
            loose.append((n, f"annotation line for {cols[0]!r} outside that document's block"))
            continue
        cur.ann_lines.append((n, cols))
    return docs, loose


def _doc_records(d: _Doc) -> tuple[Document, Annotations, list[str]]:
    errors = list(d.errors)
    if d.title is None:
        errors.append("no title line (PMID|t|...)")
    title = d.title or ""
    text = title if d.abstract is None else f"{title}\n{d.abstract}"
    spans: list[Span] = []
    rels: list[Relation] = []
    first_with: dict[str, str] = {}
    pending: list[tuple[int, list[str]]] = []
    for n, cols in d.ann_lines:
        start, end = (offset(cols[1]), offset(cols[2])) if len(cols) >= 5 else (None, None)
        if start is not None and end is not None:
            mention, typ = cols[3], cols[4]
            ident = cols[5] if len(cols) > 5 else ""
            refs = [r.strip() for r in _SPLIT_IDS.split(ident) if r.strip() and r.strip() != "-"]
            sid = f"T{len(spans) + 1}"
            extra: dict[str, Any] = {"line": n}
            if len(cols) > 6:
                extra["more"] = cols[6:]
            if ident and ident != ",".join(refs):
                extra["identifier"] = ident
            if end > len(text) or start > end:
                errors.append(
                    f"line {n}: offsets {cols[1][:20]}-{cols[2][:20]} are outside the text (length {len(text)})"
                )
                continue
            if text[start:end] != mention:
                errors.append(
                    f"line {n}: mention {mention!r} is not the text at {start}-{end} ({text[start:end]!r})"
                )
                continue
            spans.append(Span(sid, typ, ((start, end),), mention, {}, tuple(Grounding(r) for r in refs),
                              {"pubtator": extra}))  # fmt: skip
            for r in refs:
                first_with.setdefault(r, sid)
        elif len(cols) >= 4:
            pending.append((n, cols))
        else:
            errors.append(f"line {n}: neither an annotation (6 columns) nor a relation (4 columns)")
    for n, cols in pending:
        typ, id1, id2 = cols[1], cols[2], cols[3]
        missing = [i for i in (id1, id2) if i not in first_with]
        if missing:
            errors.append(
                f"line {n}: relation {typ} names {missing[0]!r}, which no mention of this document carries"
            )
            continue
        attrs = {f"col{k + 5}": v for k, v in enumerate(cols[4:])}
        args = (Argument("Arg1", first_with[id1]), Argument("Arg2", first_with[id2]))
        rels.append(Relation(f"R{len(rels) + 1}", typ, args, None, (), attrs,
                             extra={"pubtator": {"line": n, "ids": [id1, id2]}}))  # fmt: skip
    return Document(d.pmid, text, metadata={"pubtator": True}), Annotations(tuple(spans), tuple(rels)), errors


def read_pubtator_lenient(path: str | os.PathLike[str]) -> ReadResult:
    """Read a PubTator file; keep the valid documents and list every problem of the others."""
    file = os.fspath(path)
    docs, loose = _parse(file, read_text(file))
    out = Collector(file)
    for n, msg in loose:
        out.error(n, msg)
    for d in docs:
        doc, ann, errors = _doc_records(d)
        out.add(doc, ann, d.line, errors)
    return out.result()


read_pubtator = strict(read_pubtator_lenient)


def format_pubtator(items: Sequence[tuple[Document, Annotations]]) -> tuple[str, list[str]]:
    """PubTator text of these documents, and what could not be expressed (counted, one line each)."""
    lost: Counter[str] = Counter()
    blocks: list[str] = []
    for doc, ann in items:
        title, sep, rest = doc.text.partition("\n")
        if "\n" in rest or "\r" in rest:
            lost["documents whose abstract had line breaks (written as spaces)"] += 1
        abstract = rest.replace("\r", " ").replace("\n", " ")
        pmid = doc.external_id
        lines = [f"{pmid}|t|{title}"]
        if sep:
            lines.append(f"{pmid}|a|{abstract}")
        flat = doc.text.replace("\r", " ").replace("\n", " ")
        refs: dict[str, str] = {}
        for s in sorted(ann.spans, key=lambda s: (s.start, s.end)):
            if not s.fragments:
                lost["names without a mention (left out)"] += 1
                continue
            if len(s.fragments) > 1:
                lost["discontinuous spans (written from first to last character)"] += 1
            ident = ",".join(g.ref for g in s.groundings)
            meta = s.extra.get("pubtator") or {}
            ident = meta.get("identifier", ident)
            if not s.groundings:
                lost["spans without a grounding (identifier -)"] += 1
            if s.groundings:
                refs[s.id] = s.groundings[0].ref
            more = "".join(f"\t{c}" for c in meta.get("more", ()))
            lines.append(
                f"{pmid}\t{s.start}\t{s.end}\t{flat[s.start : s.end]}\t{s.type}\t{ident or '-'}{more}"
            )
        for r in ann.relations:
            meta = r.extra.get("pubtator") or {}
            ids = meta.get("ids") or [refs.get(a.ref) for a in r.args]
            if len(r.args) != 2 or None in ids:
                lost["relations not between two grounded mentions (left out)"] += 1
                continue
            more = "".join(f"\t{r.attributes[k]}" for k in sorted(r.attributes) if re.fullmatch(r"col\d+", k))
            lines.append(f"{pmid}\t{r.type}\t{ids[0]}\t{ids[1]}{more}")
        if ann.links:
            lost["links (left out)"] += len(ann.links)
        if ann.notes:
            lost["notes (left out)"] += len(ann.notes)
        blocks.append("\n".join(lines) + "\n")
    notes = [f"PubTator cannot express {n} {what}" for what, n in sorted(lost.items())]
    return "\n".join(blocks), notes
