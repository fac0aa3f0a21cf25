"""Tab-separated files for the document-level tasks (BioCreative II.5 / TREC 2004 style), read strictly.

Formats (UTF-8, one record a line, ``#`` comments and blank lines skipped):

* triage reference: ``DOC<TAB>1|0`` (also ``yes/no``, ``true/false``, ``DR/PR`` vs ``NR``... see POSITIVE)
* triage run: ``DOC<TAB>1|0<TAB>CONFIDENCE``
* ranked reference: ``DOC<TAB>ITEM`` where ITEM is a normalised id (``P12345``) or, for pairs,
  ``ID1,ID2`` (undirected: stored in one canonical order)
* ranked run: ``DOC<TAB>ITEM<TAB>CONFIDENCE`` (any order; ranked by confidence, ties in file order)
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from corpusdb.evaluation.counts import EvaluationInputError
from corpusdb.evaluation.documents import Judgement, normalise_pair

POSITIVE = {"1", "yes", "true", "y", "t", "pos", "positive", "relevant", "dr", "pr"}
NEGATIVE = {"0", "no", "false", "n", "f", "neg", "negative", "irrelevant", "nr"}


def _lines(path: str | Path, fields: int) -> list[tuple[int, list[str]]]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise EvaluationInputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise EvaluationInputError(f"{p}: not UTF-8 (byte {exc.start})") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [x.strip() for x in line.split("\t")]
        if len(parts) != fields:
            raise EvaluationInputError(
                f"{p}: line {n}: expected {fields} tab-separated fields, got {len(parts)}"
            )
        out.append((n, parts))
    return out


def _bool(p: Path | str, n: int, v: str) -> bool:
    if v.lower() in POSITIVE:
        return True
    if v.lower() in NEGATIVE:
        return False
    raise EvaluationInputError(
        f"{p}: line {n}: {v!r} is neither positive (1, yes, DR...) nor negative (0, no, NR...)"
    )


def _float(p: Path | str, n: int, v: str) -> float:
    try:
        return float(v)
    except ValueError:
        raise EvaluationInputError(f"{p}: line {n}: confidence {v!r} is not a number") from None


def _item(v: str) -> Hashable:
    if "," in v:
        a, _, b = v.partition(",")
        return normalise_pair(a.strip(), b.strip())
    return v


def read_triage_reference(path: str | Path) -> dict[str, bool]:
    return {doc: _bool(path, n, v) for n, (doc, v) in _lines(path, 2)}


def read_triage_run(path: str | Path) -> dict[str, Judgement]:
    return {doc: Judgement(_bool(path, n, v), _float(path, n, c)) for n, (doc, v, c) in _lines(path, 3)}


def read_ranked_reference(path: str | Path) -> dict[str, set[Hashable]]:
    out: dict[str, set[Hashable]] = {}
    for _, (doc, item) in _lines(path, 2):
        out.setdefault(doc, set()).add(_item(item))
    return out


def read_ranked_run(path: str | Path) -> dict[str, list[tuple[Hashable, float]]]:
    out: dict[str, list[tuple[Hashable, float]]] = {}
    for n, (doc, item, conf) in _lines(path, 3):
        out.setdefault(doc, []).append((_item(item), _float(path, n, conf)))
    return out
