"""Other annotation tools' exports as imports: doccano JSONL, Label Studio JSON, Prodigy JSONL.

Why hand-written: each tool's export is a small JSON shape documented by the tool (doccano's sequence
labelling and relation export, Label Studio's task format, Prodigy's task format); none ships a reader
usable without the tool itself, and the mapping onto corpusdb records is the work that matters.

Common rules: one document per JSON object (line of a JSONL file, element of Label Studio's list); its
id is the object's ``id`` (Prodigy: ``meta.id``, else ``_input_hash``), else ``line<n>``; offsets are
character offsets into the text (Python code points); a span's text is taken from the document.

* **doccano** (JSONL): ``text``; spans from ``entities`` (``{"id", "label", "start_offset",
  "end_offset"}``, ids kept as ``T<id>``) or the older ``label`` list ``[[start, end, "LABEL"], ...]``;
  ``relations`` (``{"id", "from_id", "to_id", "type"}``) -> relations ``R<id>`` with roles
  ``Arg1``/``Arg2``; a text-classification ``label`` list of strings (or ``cats``) -> document label
  ``label`` (several values joined by ``|``).
* **Label Studio** (JSON list of tasks): text from ``data.text`` (else the first string in ``data``);
  the first non-cancelled entry of ``annotations`` (a warning names the others, which are not read),
  or with ``completed_by`` the one by that Label Studio user (import each annotator in turn);
  results of type ``labels`` -> spans (id = the region id; a region with several labels gives one span
  per label), ``relation`` -> relations (``direction`` ``left`` swaps the arguments; type = the first
  of ``labels``, else ``related``), ``choices`` -> document label named after ``from_name``.
* **Prodigy** (JSONL): ``spans`` (``start``, ``end``, ``label``) -> spans ``T<n>``; ``relations``
  (``head_span``/``child_span`` with ``start``/``end``, ``label``) -> relations with roles
  ``Head``/``Child`` between the spans at those offsets (added if not listed in ``spans``); ``accept``
  (choice tasks) -> label ``accept``; ``label`` with ``answer`` (binary tasks) -> label ``<label>`` =
  answer; ``answer`` alone -> label ``answer``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from corpusdb.errors import FormatError, Problem
from corpusdb.records import Annotations, Argument, DocLabel, Document, Relation, Span
from importers.common import Collector, read_text
from importers.standoff import ReadResult

__all__ = ["READERS", "read_doccano", "read_labelstudio", "read_prodigy"]


def _jsonl(file: str) -> Iterator[tuple[int, Any]]:
    for n, line in enumerate(read_text(file).split("\n"), 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as err:
            raise FormatError.single(file, n, f"not a JSON object: {err.msg} (column {err.colno})") from err


def _span(sid: str, label: Any, start: Any, end: Any, text: str, errors: list[str]) -> Span | None:
    if (
        not (isinstance(start, int) and isinstance(end, int))
        or isinstance(start, bool)
        or isinstance(end, bool)
    ):
        errors.append(f"span {sid}: offsets {start!r}-{end!r} are not integers")
        return None
    if not isinstance(label, str) or not label:
        errors.append(f"span {sid}: no label")
        return None
    if not 0 <= start <= end <= len(text):
        errors.append(
            f"span {sid} ({label}): offsets {start}-{end} are outside the text (length {len(text)})"
        )
        return None
    return Span(sid, label, ((start, end),), text[start:end])


def _doc_id(obj: dict[str, Any], n: int) -> str:
    v = obj.get("id")
    return str(v) if v is not None and not isinstance(v, bool) else f"line{n}"


def _text(obj: dict[str, Any], errors: list[str]) -> str:
    text = obj.get("text")
    if not isinstance(text, str):
        errors.append("no 'text' string")
        return ""
    return text


def _values(v: Any) -> str:
    return "|".join(str(x) for x in v) if isinstance(v, list) else str(v)


def read_doccano(path: str | os.PathLike[str]) -> ReadResult:
    """A doccano JSONL export (sequence labelling, relations, text classification)."""
    file = os.fspath(path)
    out = Collector(file)
    for n, obj in _jsonl(file):
        if not isinstance(obj, dict):
            out.error(n, "expected a JSON object per line", f"line{n}")
            continue
        errors: list[str] = []
        text = _text(obj, errors)
        spans: list[Span] = []
        labels: list[DocLabel] = []
        for e in obj.get("entities") or []:
            s = _span(
                f"T{e.get('id')}", e.get("label"), e.get("start_offset"), e.get("end_offset"), text, errors
            )
            spans += [s] if s else []
        raw = obj.get("label", obj.get("labels"))
        if isinstance(raw, list) and raw and all(isinstance(x, list) for x in raw):
            for k, item in enumerate(raw, 1):
                if len(item) != 3:
                    errors.append(f"label {item!r} is not [start, end, LABEL]")
                    continue
                s = _span(f"T{k}", item[2], item[0], item[1], text, errors)
                spans += [s] if s else []
        elif raw:
            labels.append(DocLabel("label", _values(raw)))
        if obj.get("cats"):
            cats = obj["cats"]
            chosen = [k for k, v in cats.items() if v] if isinstance(cats, dict) else cats
            labels.append(DocLabel("cats", _values(chosen)))
        rels = [
            Relation(f"R{r.get('id')}", str(r.get("type") or "related"),
                     (Argument("Arg1", f"T{r.get('from_id')}"), Argument("Arg2", f"T{r.get('to_id')}")))
            for r in obj.get("relations") or []
        ]  # fmt: skip
        out.add(Document(_doc_id(obj, n), text, metadata={"doccano": True}),
                Annotations(tuple(spans), tuple(rels), labels=tuple(labels)), n, errors)  # fmt: skip
    return out.result()


def _ls_lines(raw: str) -> list[int]:
    """The line of each task (a top-level ``{`` of the list), to name in problems; best effort."""
    lines: list[int] = []
    depth = 0
    line = 1
    in_str = esc = False
    for ch in raw:
        if ch == "\n":
            line += 1
        if in_str:
            esc = not esc and ch == "\\"
            if ch == '"' and not esc:
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            if depth == 1 and ch == "{":
                lines.append(line)
            depth += 1
        elif ch in "]}":
            depth -= 1
    return lines


def _annotator_names(who: Any) -> set[str]:
    """How a Label Studio annotation names its annotator: a user id, or an object with id and e-mail."""
    if isinstance(who, dict):
        return {str(who[k]) for k in ("id", "email") if who.get(k) is not None}
    return {str(who)} if who is not None else set()


def read_labelstudio(path: str | os.PathLike[str], *, completed_by: str | None = None) -> ReadResult:
    """A Label Studio JSON export (a list of tasks with annotations). ``completed_by`` reads the
    annotation of that Label Studio user (id or e-mail) on each task instead of the first; tasks
    that user did not annotate are left out (listed as rejected, with a warning)."""
    file = os.fspath(path)
    raw = read_text(file)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise FormatError.single(file, err.lineno, f"not JSON: {err.msg}") from err
    if not isinstance(data, list):
        raise FormatError.single(file, 1, "expected a JSON list of tasks (Label Studio's JSON export)")
    lines = _ls_lines(raw)
    out = Collector(file)
    for i, task in enumerate(data):
        n = lines[i] if i < len(lines) else None
        if not isinstance(task, dict):
            out.error(n, f"task {i} is not an object", str(i))
            continue
        errors: list[str] = []
        warnings: list[str] = []
        d = task.get("data") or {}
        text = (
            d.get("text")
            if isinstance(d.get("text"), str)
            else next((v for v in d.values() if isinstance(v, str)), None)
        )
        if text is None:
            errors.append("no text in 'data'")
            text = ""
        anns = [a for a in task.get("annotations") or [] if not a.get("was_cancelled")]
        ext = str(task.get("id", f"task{i}"))
        if completed_by is not None:
            anns = [a for a in anns if completed_by in _annotator_names(a.get("completed_by"))]
            if not anns:
                out.problems.append(
                    Problem(file, n, f"task {ext}: no annotation by {completed_by}", "warning")
                )
                out.rejected.append(ext)
                continue
        if len(anns) > 1:
            warnings.append(
                f"task {ext}: {len(anns)} annotations; only the first (by {anns[0].get('completed_by')}) is read"
            )
        spans: list[Span] = []
        rels: list[Relation] = []
        labels: list[DocLabel] = []
        results = anns[0].get("result") or [] if anns else []
        for r in results:
            v = r.get("value") or {}
            typ = r.get("type")
            if typ == "labels":
                for k, lab in enumerate(v.get("labels") or []):
                    sid = str(r.get("id")) if k == 0 else f"{r.get('id')}-{k + 1}"
                    s = _span(sid, lab, v.get("start"), v.get("end"), text, errors)
                    spans += [s] if s else []
            elif typ == "relation":
                a, b = str(r.get("from_id")), str(r.get("to_id"))
                if r.get("direction") == "left":
                    a, b = b, a
                kind = (r.get("labels") or ["related"])[0]
                rels.append(Relation(f"R{len(rels) + 1}", kind, (Argument("Arg1", a), Argument("Arg2", b)),
                                     tags=("undirected",) if r.get("direction") == "bi" else ()))  # fmt: skip
            elif typ == "choices":
                labels.append(DocLabel(str(r.get("from_name") or "choice"), _values(v.get("choices") or [])))
            else:
                warnings.append(f"task {ext}: result of type {typ!r} is not read")
        meta = {"labelstudio": {"annotator": anns[0].get("completed_by")} if anns else {}}
        out.add(Document(ext, text, metadata=meta), Annotations(tuple(spans), tuple(rels), labels=tuple(labels)),
                n, errors, warnings)  # fmt: skip
    return out.result()


class _SpanAt:
    """The span at these offsets with this label, made once (Prodigy repeats relation ends' spans)."""

    def __init__(
        self, spans: list[Span], at: dict[tuple[Any, Any, Any], str], text: str, errors: list[str]
    ) -> None:
        self.spans, self.at, self.text, self.errors = spans, at, text, errors

    def __call__(self, sp: dict[str, Any]) -> str | None:
        key = (sp.get("start"), sp.get("end"), sp.get("label"))
        if key in self.at:
            return self.at[key]
        sid = f"T{len(self.spans) + 1}"
        s = _span(sid, sp.get("label") or "span", sp.get("start"), sp.get("end"), self.text, self.errors)
        if s is None:
            return None
        self.spans.append(s)
        self.at[key] = s.id
        return s.id


def read_prodigy(path: str | os.PathLike[str]) -> ReadResult:
    """A Prodigy JSONL export (``db-out``): spans, relations, choices and answers."""
    file = os.fspath(path)
    out = Collector(file)
    for n, obj in _jsonl(file):
        if not isinstance(obj, dict):
            out.error(n, "expected a JSON object per line", f"line{n}")
            continue
        errors: list[str] = []
        text = _text(obj, errors)
        spans: list[Span] = []
        at: dict[tuple[Any, Any, Any], str] = {}
        span_at = _SpanAt(spans, at, text, errors)

        for sp in obj.get("spans") or []:
            span_at(sp)
        rels: list[Relation] = []
        for r in obj.get("relations") or []:
            h, c = span_at(r.get("head_span") or {}), span_at(r.get("child_span") or {})
            if h and c:
                rels.append(Relation(f"R{len(rels) + 1}", str(r.get("label") or "related"),
                                     (Argument("Head", h), Argument("Child", c))))  # fmt: skip
        labels: list[DocLabel] = []
        if obj.get("accept"):
            labels.append(DocLabel("accept", _values(obj["accept"])))
        if obj.get("label") and obj.get("answer"):
            labels.append(DocLabel(str(obj["label"]), str(obj["answer"])))
        elif obj.get("answer"):
            labels.append(DocLabel("answer", str(obj["answer"])))
        meta = obj.get("meta") if isinstance(obj.get("meta"), dict) else {}
        ext = meta.get("id", obj.get("_input_hash"))
        ext = str(ext) if ext is not None else f"line{n}"
        out.add(Document(ext, text, metadata={"prodigy": meta}),
                Annotations(tuple(spans), tuple(rels), labels=tuple(labels)), n, errors)  # fmt: skip
    return out.result()


READERS: dict[str, Callable[..., ReadResult]] = {
    "doccano": read_doccano,
    "labelstudio": read_labelstudio,
    "prodigy": read_prodigy,
}
