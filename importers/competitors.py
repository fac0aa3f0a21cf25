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

import os
from collections.abc import Callable, Iterator
from typing import Any

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.records import Annotations, Argument, DocLabel, Document, Relation, Span
from importers import jsonin
from importers.common import Collector, read_text
from importers.standoff import ReadResult

__all__ = ["READERS", "read_doccano", "read_labelstudio", "read_prodigy"]


def _jsonl(file: str) -> Iterator[tuple[int, Any]]:
    for n, line in enumerate(read_text(file).split("\n"), 1):
        if not line.strip():
            continue
        yield n, jsonin.loads(line, file, first_line=n, invalid="not a JSON object")


def _kind(value: Any) -> str:
    """How a JSON value is named in a refusal (``null``, ``a number``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"a number ({value!r})" if len(repr(value)) <= 24 else "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _objects(value: Any, what: str, errors: list[str]) -> list[dict[str, Any]]:
    """The objects of a JSON list field (absent or null: none); anything else is an error naming it."""
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(f"{what} is {_kind(value)}, not a list")
        return []
    out = []
    for i, v in enumerate(value):
        if isinstance(v, dict):
            out.append(v)
        else:
            errors.append(f"{what}[{i}] is {_kind(v)}, not an object")
    return out


def _ref(value: Any, what: str, errors: list[str]) -> str | None:
    """An id (a string or an integer) as text; anything else is an error."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    errors.append(f"{what} is {_kind(value)}, not a string or an integer")
    return None


def _name(value: Any, what: str, errors: list[str], default: str | None = None) -> str | None:
    """A label or type: a non-empty string (``default`` when absent); anything else is an error."""
    if value is None and default is not None:
        return default
    if isinstance(value, str) and value:
        return value
    errors.append(f"{what} is {_kind(value)}, not a non-empty string")
    return None


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


def _doc_id(obj: dict[str, Any], n: int, errors: list[str]) -> str:
    v = obj.get("id")
    if v is None:
        return f"line{n}"
    return _ref(v, "id", errors) or f"line{n}"


def _text(obj: dict[str, Any], errors: list[str]) -> str:
    text = obj.get("text")
    if not isinstance(text, str):
        errors.append("no 'text' string")
        return ""
    return text


def _values(v: Any, what: str, errors: list[str]) -> str:
    """A document label's value: a string, a number, or a list of them (joined by ``|``)."""
    items = v if isinstance(v, list) else [v]
    if not all(isinstance(x, str | int | float) and not isinstance(x, bool) for x in items):
        errors.append(f"{what} is {_kind(v)}, not a string or a list of strings")
        return ""
    return "|".join(str(x) for x in items)


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
        for k, e in enumerate(_objects(obj.get("entities"), "entities", errors)):
            eid = _ref(e.get("id"), f"entities[{k}].id", errors)
            s = eid and _span(
                f"T{eid}", e.get("label"), e.get("start_offset"), e.get("end_offset"), text, errors
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
            labels.append(DocLabel("label", _values(raw, "label", errors)))
        cats = obj.get("cats")
        if cats:
            chosen = [k for k, v in cats.items() if v] if isinstance(cats, dict) else cats
            labels.append(DocLabel("cats", _values(chosen, "cats", errors)))
        rels = []
        for k, r in enumerate(_objects(obj.get("relations"), "relations", errors)):
            ids = [_ref(r.get(f), f"relations[{k}].{f}", errors) for f in ("id", "from_id", "to_id")]
            typ = _name(r.get("type") or None, f"relations[{k}].type", errors, "related")
            if None not in ids and typ is not None:
                rels.append(
                    Relation(
                        f"R{ids[0]}", typ, (Argument("Arg1", f"T{ids[1]}"), Argument("Arg2", f"T{ids[2]}"))
                    )
                )
        out.add(Document(_doc_id(obj, n, errors), text, metadata={"doccano": True}),
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
    data = jsonin.loads(raw, file, invalid="not JSON")
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
        if not isinstance(d, dict):
            errors.append(f"data is {_kind(d)}, not an object")
            d = {}
        text = (
            d.get("text")
            if isinstance(d.get("text"), str)
            else next((v for v in d.values() if isinstance(v, str)), None)
        )
        if text is None:
            errors.append("no text in 'data'")
            text = ""
        anns = [
            a for a in _objects(task.get("annotations"), "annotations", errors) if not a.get("was_cancelled")
        ]
        ext = _ref(task.get("id", f"task{i}"), "id", errors) or f"task{i}"
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
        results = _objects(anns[0].get("result"), "result", errors) if anns else []
        for k, r in enumerate(results):
            v = r.get("value") or {}
            if not isinstance(v, dict):
                errors.append(f"result[{k}].value is {_kind(v)}, not an object")
                continue
            typ = r.get("type")
            if typ == "labels":
                rid = _ref(r.get("id"), f"result[{k}].id", errors)
                labs = v.get("labels") or []
                if not isinstance(labs, list):
                    errors.append(f"result[{k}].value.labels is {_kind(labs)}, not a list")
                    continue
                for j, lab in enumerate(labs):
                    if rid is None:
                        break
                    sid = rid if j == 0 else f"{rid}-{j + 1}"
                    s = _span(sid, lab, v.get("start"), v.get("end"), text, errors)
                    spans += [s] if s else []
            elif typ == "relation":
                a = _ref(r.get("from_id"), f"result[{k}].from_id", errors)
                b = _ref(r.get("to_id"), f"result[{k}].to_id", errors)
                direction = r.get("direction")
                if direction == "left":
                    a, b = b, a
                kinds = r.get("labels") or ["related"]
                kind = _name(kinds[0] if isinstance(kinds, list) else kinds, f"result[{k}].labels", errors)
                if a is not None and b is not None and kind is not None:
                    rels.append(Relation(f"R{len(rels) + 1}", kind, (Argument("Arg1", a), Argument("Arg2", b)),
                                         tags=("undirected",) if direction == "bi" else ()))  # fmt: skip
            elif typ == "choices":
                name = _name(r.get("from_name") or None, f"result[{k}].from_name", errors, "choice")
                value = _values(v.get("choices") or [], f"result[{k}].value.choices", errors)
                labels += [DocLabel(name, value)] if name else []
            else:
                warnings.append(f"task {ext}: result of type {typ!r} is not read")
        meta = {"labelstudio": {"annotator": anns[0].get("completed_by")} if anns else {}}
        out.add(Document(ext, text, metadata=meta), Annotations(tuple(spans), tuple(rels), labels=tuple(labels)),
                n, errors, warnings)  # fmt: skip
    return out.result()


class _SpanAt:
    """The span at these offsets with this label, made once (Prodigy repeats relation ends' spans)."""

    def __init__(
        self, spans: list[Span], at: dict[tuple[str, int, int], str], text: str, errors: list[str]
    ) -> None:
        self.spans, self.at, self.text, self.errors = spans, at, text, errors

    def __call__(self, sp: Any, what: str) -> str | None:
        if not isinstance(sp, dict):
            self.errors.append(f"{what} is {_kind(sp)}, not an object")
            return None
        sid = f"T{len(self.spans) + 1}"
        label = _name(sp.get("label") or None, f"{what}.label", self.errors, "span")
        start, end = sp.get("start"), sp.get("end")
        if label is None:
            return None
        s = _span(sid, label, start, end, self.text, self.errors)
        if s is None:
            return None
        key = (label, start, end)  # checked: a string and two integers
        if key in self.at:
            return self.at[key]
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
        span_at = _SpanAt(spans, {}, text, errors)
        raw_spans = obj.get("spans")
        if raw_spans is not None and not isinstance(raw_spans, list):
            errors.append(f"spans is {_kind(raw_spans)}, not a list")
            raw_spans = []
        for k, sp in enumerate(raw_spans or []):
            span_at(sp, f"spans[{k}]")
        rels: list[Relation] = []
        for k, r in enumerate(_objects(obj.get("relations"), "relations", errors)):
            h = span_at(r.get("head_span"), f"relations[{k}].head_span")
            c = span_at(r.get("child_span"), f"relations[{k}].child_span")
            label = _name(r.get("label") or None, f"relations[{k}].label", errors, "related")
            if h and c and label:
                rels.append(Relation(f"R{len(rels) + 1}", label, (Argument("Head", h), Argument("Child", c))))
        labels: list[DocLabel] = []
        if obj.get("accept"):
            labels.append(DocLabel("accept", _values(obj["accept"], "accept", errors)))
        answer = obj.get("answer")
        if answer:
            answer = _values(answer, "answer", errors)
        if obj.get("label") and answer:
            label = _name(obj["label"], "label", errors)
            labels += [DocLabel(label, answer)] if label else []
        elif answer:
            labels.append(DocLabel("answer", answer))
        meta = obj.get("meta") if isinstance(obj.get("meta"), dict) else {}
        ext = meta.get("id", obj.get("_input_hash"))
        ext = _ref(ext, "meta.id" if "id" in meta else "_input_hash", errors) if ext is not None else None
        out.add(Document(ext or f"line{n}", text, metadata={"prodigy": meta}),
                Annotations(tuple(spans), tuple(rels), labels=tuple(labels)), n, errors)  # fmt: skip
    return out.result()


READERS: dict[str, Callable[..., ReadResult]] = {
    "doccano": read_doccano,
    "labelstudio": read_labelstudio,
    "prodigy": read_prodigy,
}
