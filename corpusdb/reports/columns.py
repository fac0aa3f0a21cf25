"""Read raters' spans for an agreement report as columns, straight into arrays (issue #14).

Why not records: at 10^6 spans a rater, building a ``Span`` (with attributes, groundings, text) per
row cost 17 of the report's 22 seconds, while the measure needs five columns. This reads only
``set_id, local_id, type, start, stop, fragments`` (``fragments`` is NULL for the one-fragment
spans that make up nearly every corpus), a few hundred sets per query so the rows in flight stay
small, and hands the engine a :class:`~corpusdb.agreement.spans.SpanColumns` per rater.

The sets are those the blindness gate cleared (``corpusdb.reports.loading`` passes them in); the
order of a set's spans is the order ``content.load_many`` gives its records (by row id), so the
report is identical to the one computed from records. Values go into arrays through ``map`` with
C-level callables and ``numpy.fromiter``: no Python frame runs per row.
"""

from __future__ import annotations

import gc
import operator
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Connection

from corpusdb import db
from corpusdb.records import Annotations, DocLabel, SetInfo

if TYPE_CHECKING:
    from corpusdb.agreement.spans import SpanColumns

CHUNK = 500
"""Sets per query (also under every database's bound-parameter limit)."""


def read_span_columns(conn: Connection, infos: Sequence[SetInfo]) -> SpanColumns:
    """One rater's spans: ``infos`` are that rater's sets, one per document."""
    was = gc.isenabled()
    gc.disable()  # the rows are acyclic tuples: collector passes over 10^6 of them doubled the time
    try:
        return _read_span_columns(conn, infos)
    finally:
        if was:
            gc.enable()


def _read_span_columns(conn: Connection, infos: Sequence[SetInfo]) -> SpanColumns:
    import numpy as np

    from corpusdb.agreement.spans import SpanColumns

    infos = sorted(infos, key=lambda i: i.id)  # the rows come by set id, then row id
    ids = [i.id for i in infos]
    mark = "?" if db.is_sqlite(conn) else "%s"
    dec = orjson.loads if db.is_sqlite(conn) else _loads
    type_codes: dict[str, int] = {}
    parts: dict[str, list[Any]] = {"set": [], "type": [], "start": [], "stop": []}
    packed = PackedIds()
    fragments: dict[int, tuple[tuple[int, int], ...]] = {}
    fixes: list[tuple[int, int, int]] = []
    n = 0
    # The driver's own cursor: SQLAlchemy's row objects cost as much as the query at 10^6 rows.
    cur = conn.connection.cursor()
    try:
        for k in range(0, len(ids), CHUNK):
            chunk = ids[k : k + CHUNK]
            cur.execute(
                "SELECT set_id, local_id, type, start, stop, fragments FROM span "
                f"WHERE set_id IN ({', '.join(mark for _ in chunk)}) ORDER BY set_id, id",
                tuple(chunk),
            )
            rows = cur.fetchall()
            if not rows:
                continue
            set_col, lid_col, type_col, start_col, stop_col, frag_col = zip(*rows, strict=True)
            del rows
            m = len(set_col)
            for t in set(type_col).difference(type_codes):
                type_codes[t] = len(type_codes)
            # map() with C-level callables: no Python frame per row
            parts["set"].append(np.fromiter(set_col, dtype=np.int64, count=m))
            parts["type"].append(np.fromiter(map(type_codes.__getitem__, type_col), dtype=np.int32, count=m))
            parts["start"].append(np.fromiter(start_col, dtype=np.int64, count=m))
            parts["stop"].append(np.fromiter(stop_col, dtype=np.int64, count=m))
            packed.add(lid_col)
            has = np.fromiter(map(operator.is_not, frag_col, repeat(None)), dtype=bool, count=m)
            for j in np.flatnonzero(has).tolist():
                frs = tuple((int(a), int(b)) for a, b in dec(frag_col[j]))
                if len(frs) == 1:  # a row written before lean rows: its one fragment is start/stop
                    fixes.append((n + j, *frs[0]))
                else:
                    fragments[n + j] = frs
            n += m
    finally:
        cur.close()

    def cat(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate(parts[name]) if parts[name] else np.zeros(0, dtype=dtype)

    set_of, start, stop = cat("set", np.int64), cat("start", np.int64), cat("stop", np.int64)
    for row, s, e in fixes:
        start[row], stop[row] = s, e
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(
        np.bincount(np.searchsorted(np.asarray(ids, dtype=np.int64), set_of), minlength=len(ids)),
        out=offsets[1:],
    )
    return SpanColumns(
        doc_ids=tuple(i.document_external_id for i in infos),
        offsets=offsets,
        ids=packed,
        type_names=tuple(type_codes),
        type=cat("type", np.int32),
        start=start,
        end=stop,
        fragments=fragments,
    )


def read_labels(conn: Connection, infos: Sequence[SetInfo]) -> dict[str, Annotations]:
    """One rater's document labels by document (layer ``labels``): no span is read."""
    from corpusdb.models import DocumentLabelRow

    t = DocumentLabelRow.__table__
    ids = [i.id for i in infos]
    got: dict[int, list[DocLabel]] = {}
    for k in range(0, len(ids), CHUNK):
        q = t.select().with_only_columns(t.c.set_id, t.c.name, t.c.value, t.c.extra)
        for set_id, name, value, extra in conn.execute(
            q.where(t.c.set_id.in_(ids[k : k + CHUNK])).order_by(t.c.id)
        ):
            got.setdefault(set_id, []).append(DocLabel(name, value, _loads(extra) or {}))
    return {i.document_external_id: Annotations(labels=tuple(got.get(i.id, ()))) for i in infos}


def _loads(v: Any) -> Any:
    """psycopg decodes JSON columns itself; SQLite hands back text."""
    return orjson.loads(v) if isinstance(v, (str, bytes)) else v


class PackedIds(Sequence[str]):
    """Span ids kept as one string per chunk of rows, split only when one is asked for.

    Why: the report never needs them (only ``SpanComparison.alignment()`` does), and 10^6 separate
    strings a rater weigh about 60 MB.
    """

    SEP = "\x1f"

    def __init__(self) -> None:
        self._chunks: list[str | Sequence[str]] = []
        self._starts: list[int] = []
        self._n = 0

    def add(self, ids: Sequence[str]) -> None:
        """Append a chunk of ids (packed at once, so the separate strings can go)."""
        if not ids:
            return
        joined = self.SEP.join(ids)
        ok = joined.count(self.SEP) == len(ids) - 1  # an id holding the separator: keep the list
        self._chunks.append(joined if ok else list(ids))
        self._starts.append(self._n)
        self._n += len(ids)

    def _chunk(self, k: int) -> Sequence[str]:
        c = self._chunks[k]
        if isinstance(c, str):
            c = self._chunks[k] = c.split(self.SEP)
        return c

    def __getitem__(self, i: int) -> str:  # type: ignore[override]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        i %= self._n
        k = bisect_right(self._starts, i) - 1
        return self._chunk(k)[i - self._starts[k]]

    def __len__(self) -> int:
        return self._n


class ColumnSets(Mapping[str, Annotations]):
    """A rater's sets by document, built from its columns only when asked (the report never asks)."""

    def __init__(self, cols: SpanColumns) -> None:
        self.cols = cols
        self._pos = {d: i for i, d in enumerate(cols.doc_ids)}

    def __getitem__(self, doc: str) -> Annotations:
        return Annotations(spans=self.cols.spans(self._pos[doc]))

    def __contains__(self, doc: object) -> bool:  # without building the document's records
        return doc in self._pos

    def __iter__(self) -> Iterator[str]:
        return iter(self.cols.doc_ids)

    def __len__(self) -> int:
        return len(self.cols.doc_ids)
