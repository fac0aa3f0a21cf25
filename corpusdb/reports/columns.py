"""Read raters' spans for an agreement report as columns, straight into arrays (issue #14).

Why not records: at 10^6 spans a rater, building a ``Span`` (with attributes, groundings, text) per
row cost 17 of the report's 22 seconds, while the measure needs five columns. This reads only
``set_id, local_id, type, start, stop, fragments`` (``fragments`` is NULL for the one-fragment
spans that make up nearly every corpus), a few hundred sets per query so the rows in flight stay
small, and hands the engine a :class:`~corpusdb.agreement.spans.SpanColumns` per rater.

The sets are those the blindness gate cleared (``corpusdb.reports.loading`` passes them in); the
order of a set's spans is the order ``content.load_many`` gives its records (by row id), so the
report is identical to the one computed from records.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Connection

from corpusdb import db
from corpusdb.records import Annotations, SetInfo

if TYPE_CHECKING:
    from corpusdb.agreement.spans import SpanColumns

CHUNK = 500
"""Sets per query (also under every database's bound-parameter limit)."""


def read_span_columns(conn: Connection, infos: Sequence[SetInfo]) -> SpanColumns:
    """One rater's spans: ``infos`` are that rater's sets, one per document."""
    import numpy as np

    from corpusdb.agreement.spans import SpanColumns

    ids = [i.id for i in infos]
    setpos = {sid: k for k, sid in enumerate(ids)}
    mark = "?" if db.is_sqlite(conn) else "%s"
    dec = orjson.loads if db.is_sqlite(conn) else _loads
    type_codes: dict[str, int] = {}
    code = type_codes.setdefault
    parts_set: list[np.ndarray] = []
    parts_type: list[np.ndarray] = []
    parts_start: list[np.ndarray] = []
    parts_stop: list[np.ndarray] = []
    local_ids: list[str] = []
    special: dict[int, tuple[tuple[int, int], ...]] = {}
    special_fix: list[tuple[int, int, int]] = []
    n = 0
    for k in range(0, len(ids), CHUNK):
        chunk = ids[k : k + CHUNK]
        rows = conn.exec_driver_sql(
            "SELECT set_id, local_id, type, start, stop, fragments FROM span "
            f"WHERE set_id IN ({', '.join(mark for _ in chunk)}) ORDER BY id",
            tuple(chunk),
        ).fetchall()
        if not rows:
            continue
        set_col, lid_col, type_col, start_col, stop_col, frag_col = zip(*rows, strict=True)
        del rows
        m = len(set_col)
        parts_set.append(np.fromiter((setpos[s] for s in set_col), dtype=np.int64, count=m))
        parts_type.append(np.fromiter((code(t, len(type_codes)) for t in type_col), dtype=np.int32, count=m))
        parts_start.append(np.fromiter(start_col, dtype=np.int64, count=m))
        parts_stop.append(np.fromiter(stop_col, dtype=np.int64, count=m))
        local_ids.extend(lid_col)
        for j, f in enumerate(frag_col):
            if f is None:
                continue
            frs = tuple((int(a), int(b)) for a, b in dec(f))
            if len(frs) == 1:  # a row written before lean rows: its one fragment is start/stop
                special_fix.append((n + j, *frs[0]))
            else:
                special[n + j] = frs
        n += m
    cat = lambda parts, dt: np.concatenate(parts) if parts else np.zeros(0, dtype=dt)  # noqa: E731
    set_of, typ = cat(parts_set, np.int64), cat(parts_type, np.int32)
    start, stop = cat(parts_start, np.int64), cat(parts_stop, np.int64)
    for row, s, e in special_fix:
        start[row], stop[row] = s, e
    order = np.argsort(set_of, kind="stable")  # by set (document), by row id within a set
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(set_of, minlength=len(ids)), out=offsets[1:])
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.arange(len(order))
    return SpanColumns(
        doc_ids=tuple(i.document_external_id for i in infos),
        offsets=offsets,
        ids=[local_ids[r] for r in order.tolist()],
        type_names=tuple(type_codes),
        type=typ[order],
        start=start[order],
        end=stop[order],
        fragments={int(inverse[r]): f for r, f in special.items()},
    )


def _loads(v: Any) -> Any:
    """psycopg decodes JSON columns itself; SQLite hands back text."""
    return orjson.loads(v) if isinstance(v, (str, bytes)) else v


class ColumnSets(Mapping[str, Annotations]):
    """A rater's sets by document, built from its columns only when asked (the report never asks)."""

    def __init__(self, cols: SpanColumns) -> None:
        self.cols = cols
        self._pos = {d: i for i, d in enumerate(cols.doc_ids)}

    def __getitem__(self, doc: str) -> Annotations:
        return Annotations(spans=self.cols.spans(self._pos[doc]))

    def __iter__(self) -> Iterator[str]:
        return iter(self.cols.doc_ids)

    def __len__(self) -> int:
        return len(self.cols.doc_ids)
