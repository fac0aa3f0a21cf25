"""INCEpTION's / WebAnno's TSV 3 export (``#FORMAT=WebAnno TSV 3.x``), read into corpusdb records.

Why hand-written: INCEpTION's own reader is Java (DKPro Core); the Python readers on PyPI cover
version 3.2 spans only. The format is documented in INCEpTION's user guide ("WebAnno TSV 3.x"): a header
naming span layers (``#T_SP=layer|feature|...``) and relation layers (``#T_RL=layer|feature|...|BT_<span
layer>``), then per sentence ``#Text=`` lines and one row per token::

    1-1<TAB>0-4<TAB>IL-2<TAB><one column per feature of each layer, in header order>

Mapping
-------
* One file = one document, named after the file; the text is rebuilt from the ``#Text=`` lines placed at
  their first token's offset (gaps: a line break between sentences, spaces otherwise).
* A span layer's cell ``VALUE[3]`` marks token rows of span 3 (a single-token span has no ``[n]``;
  stacked annotations are joined by ``|``; ``*`` is an annotation without a value, ``_`` none). The span
  type is its ``value`` feature (else the first feature with a value, else the layer's short name);
  other features become attributes, except ``identifier`` (a knowledge-base link) -> grounding.
* A relation layer's cells sit on the row of the relation's *target* token; its last column names the
  source: ``1-3`` (single-token spans) or ``1-3[4_7]`` (source span 4, target span 7). Relations have
  roles ``Arg1`` (source) and ``Arg2`` (target), type = their first feature with a value, else the layer's
  short name. Chain layers (``#T_CH``) and sub-token rows (``1-2.1``) are refused with their line.
"""

from __future__ import annotations

import os
import re
from typing import Any

from corpusdb.basics.records import Annotations, Argument, Document, Grounding, Relation, Span
from importers.common import MAX_TEXT, Collector, offset, read_text
from importers.standoff import ReadResult

__all__ = ["read_webanno_lenient"]

_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_REF = re.compile(r"^(.*?)(?:\[(\d+)\])?$", re.DOTALL)
_UNESC = re.compile(r"\\([\\\[\]|_*\->\t\n;])")


def _unescape(v: str) -> str:
    return _UNESC.sub(r"\1", v)


class _Layer:
    def __init__(self, kind: str, name: str, features: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.short = name.rsplit(".", 1)[-1]
        self.features = features
        self.first_col = 0


def read_webanno_lenient(path: str | os.PathLike[str]) -> ReadResult:
    """Read one WebAnno TSV 3 file as one document (spans and relations); problems name their line."""
    file = os.fspath(path)
    out = Collector(file)
    lines = read_text(file).split("\n")
    errors: list[str] = []
    layers: list[_Layer] = []
    col = 3
    if not lines or not lines[0].startswith("#FORMAT=WebAnno TSV 3"):
        out.error(1, "not a WebAnno TSV 3 file (no '#FORMAT=WebAnno TSV 3.x' first line)", file)
        return out.result()
    texts: list[tuple[int, str]] = []  # (first token start, sentence text)
    rows: list[tuple[int, str, int, int, list[str]]] = []
    pending_text: list[str] = []
    for n, raw in enumerate(lines[1:], 2):
        line = raw.removesuffix("\r")
        if line.startswith(("#T_SP=", "#T_RL=", "#T_CH=")):
            kind = line[1:5]
            name, *features = line[6:].split("|")
            if kind == "T_CH":
                errors.append(f"line {n}: chain layers ({name}) are not read")
                continue
            if kind == "T_RL" and not (features and features[-1].startswith("BT_")):
                errors.append(
                    f"line {n}: relation layer {name} names no span layer (its last feature BT_...)"
                )
                col += len(features)  # (its columns are there all the same)
                continue
            layer = _Layer(kind, name, features)
            layer.first_col = col
            col += len(features)
            layers.append(layer)
            continue
        if line.startswith("#Text="):
            pending_text.append(_unescape(line[6:]))
            continue
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) < 3 or not re.fullmatch(r"\d+-\d+(\.\d+)?", cells[0]):
            errors.append(f"line {n}: not a token row")
            continue
        if "." in cells[0]:
            errors.append(f"line {n}: sub-token annotations ({cells[0]}) are not read")
            continue
        m = re.fullmatch(r"([0-9]+)-([0-9]+)", cells[1])
        if m is None:
            errors.append(f"line {n}: offsets {cells[1][:40]!r} are not START-END")
            continue
        start, end = offset(m.group(1)), offset(m.group(2))
        if start is None or end is None or max(start, end) > MAX_TEXT:
            errors.append(
                f"line {n}: offsets {cells[1][:40]!r}: a text longer than {MAX_TEXT:,} characters is refused"
            )
            continue
        if pending_text:
            texts.append((start, "\n".join(pending_text)))
            pending_text = []
        rows.append((n, cells[0], start, end, cells))
    text = ""
    for start, sent in texts:
        if start < len(text):
            errors.append(f"sentence at offset {start} overlaps the previous one")
            continue
        gap = start - len(text)
        text += ("\n" + " " * (gap - 1) if gap and text else " " * gap) + sent
    spans, rels = _annotations(layers, rows, text, errors)
    ext = os.path.basename(file).rsplit(".", 1)[0]
    out.add(
        Document(ext, text, metadata={"webanno": True}), Annotations(tuple(spans), tuple(rels)), 1, errors
    )
    return out.result()


def _annotations(
    layers: list[_Layer], rows: list[tuple[int, str, int, int, list[str]]], text: str, errors: list[str]
) -> tuple[list[Span], list[Relation]]:
    spans: dict[tuple[str, str], dict[str, Any]] = {}  # (layer, span key) -> start, end, features
    order: list[tuple[str, str]] = []
    at_token: dict[tuple[str, str, str], tuple[str, str]] = {}  # (layer, token, index) -> span key
    for n, tok, start, end, cells in rows:
        for layer in (x for x in layers if x.kind == "T_SP"):
            values = [
                cells[layer.first_col + i] if layer.first_col + i < len(cells) else "_"
                for i in range(len(layer.features))
            ]
            stacks = [_CELL_SPLIT.split(v) for v in values]
            depth = max(len(s) for s in stacks) if stacks else 0
            for k in range(depth):
                feats: dict[str, str] = {}
                idx = None
                present = False
                for f, stack in zip(layer.features, stacks, strict=True):
                    cell = stack[k] if k < len(stack) else "_"
                    if cell == "_":
                        continue
                    m = _REF.match(cell)
                    assert m is not None
                    val, num = m.groups()
                    idx = num or idx
                    present = True
                    if val != "*":
                        feats[f] = _unescape(val)
                if not present:
                    continue
                key = (layer.name, idx if idx else f"{tok}#{k}")
                if key not in spans:
                    spans[key] = {"start": start, "end": end, "feats": feats, "layer": layer, "line": n}
                    order.append(key)
                else:
                    spans[key]["end"] = end
                at_token[(layer.name, tok, idx or "0")] = key
    made: list[Span] = []
    ids: dict[tuple[str, str], str] = {}
    for key in order:
        s = spans[key]
        layer = s["layer"]
        feats = dict(s["feats"])
        ident = feats.pop("identifier", None)
        typ = feats.pop("value", None) or next(iter(feats.values()), None) or layer.short
        if "value" not in layer.features and feats:
            feats.pop(next(iter(feats)))
        sid = f"T{len(made) + 1}"
        ids[key] = sid
        made.append(Span(sid, typ, ((s["start"], s["end"]),), text[s["start"] : s["end"]], feats,
                         (Grounding(ident),) if ident else ()))  # fmt: skip
    rels: list[Relation] = []
    for n, tok, _start, _end, cells in rows:
        for layer in (x for x in layers if x.kind == "T_RL"):
            cols = [
                cells[layer.first_col + i] if layer.first_col + i < len(cells) else "_"
                for i in range(len(layer.features))
            ]
            base = layer.features[-1].removeprefix("BT_")
            sources = _CELL_SPLIT.split(cols[-1])
            if cols[-1] == "_":
                continue
            for k, src in enumerate(sources):
                m = re.fullmatch(r"(\d+-\d+)(?:\[(\d+)_(\d+)\])?", src)
                if m is None:
                    errors.append(f"line {n}: relation source {src!r} is not TOKEN or TOKEN[SRC_TGT]")
                    continue
                stok, sidx, tidx = m.group(1), m.group(2) or "0", m.group(3) or "0"
                a = at_token.get((base, stok, sidx))
                b = at_token.get((base, tok, tidx))
                if a is None or b is None:
                    errors.append(
                        f"line {n}: relation from {src} finds no {base.rsplit('.', 1)[-1]} span at its ends"
                    )
                    continue
                feats = [_CELL_SPLIT.split(c)[k] if k < len(_CELL_SPLIT.split(c)) else "_" for c in cols[:-1]]
                label = next((_unescape(f) for f in feats if f not in ("_", "*")), None) or layer.short
                rels.append(
                    Relation(f"R{len(rels) + 1}", label, (Argument("Arg1", ids[a]), Argument("Arg2", ids[b])))
                )
    return made, rels
