"""TREC qrels files (``topic iteration doc grade``) and the mapping between grades and label values.

TREC 2004 Genomics judged definitely / possibly / not relevant and scored with both DR and PR
relevant; a mapping such as ``DR=2,PR=1,NR=0`` keeps the grades apart (trec_eval then counts grade
>= 1 as relevant, and graded measures such as nDCG use the grades).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from corpusdb.basics.errors import InvalidInput
from corpusdb.relevance.columns import Rows
from corpusdb.relevance.records import QrelLine

DEFAULT_MAPPING = {"DR": 2, "PR": 1, "NR": 0}


def parse_mapping(spec: str | Mapping[str, int] | None) -> dict[str, int]:
    """``"DR=2,PR=1,NR=0"`` (or a mapping) as label value -> integer grade."""
    if spec is None:
        return dict(DEFAULT_MAPPING)
    if isinstance(spec, Mapping):
        return {str(k): int(v) for k, v in spec.items()}
    out: dict[str, int] = {}
    for part in spec.split(","):
        if not part.strip():
            continue
        value, eq, grade = part.partition("=")
        try:
            if not eq or not value.strip():
                raise ValueError
            out[value.strip()] = int(grade)
        except ValueError:
            raise InvalidInput(
                f"a grade mapping is VALUE=INT,..., e.g. DR=2,PR=1,NR=0; got {spec!r}"
            ) from None
    if not out:
        raise InvalidInput(f"empty grade mapping {spec!r}")
    return out


def inverse(mapping: Mapping[str, int]) -> dict[int, str]:
    """Grade -> label value, for importing qrels; refuses a mapping that merges values (not invertible)."""
    inv: dict[int, str] = {}
    for value, grade in mapping.items():
        if grade in inv:
            raise InvalidInput(
                f"the grade mapping gives {grade} to both {inv[grade]} and {value}: qrels cannot be read back"
            )
        inv[grade] = value
    return inv


def read_qrels(path: str | Path) -> list[QrelLine]:
    """Every line of a qrels file, checked, all or nothing."""
    rows = Rows(path, "qrels", "topic iteration doc grade")
    out: list[QrelLine] = []
    for n, (topic, _it, doc, grade_s) in rows:
        grade = rows.integer(n, grade_s, "grade")
        if grade is None:
            continue
        if rows.first_time(n, topic, doc, "judged"):
            out.append(QrelLine(topic, doc, grade))
    rows.done(len(out))
    return out


def format_qrels(lines: Iterable[QrelLine]) -> str:
    rows = sorted(lines, key=lambda q: (q.topic, q.doc))
    return "".join(f"{q.topic} 0 {q.doc} {q.grade}\n" for q in rows)
