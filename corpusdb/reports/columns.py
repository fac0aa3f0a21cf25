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

On SQLite most sets skip even the row tuples (:func:`_read_runs`): a set whose rows are one unbroken
run of row ids comes back as one packed integer a row (start, stop, type code) joined into one
string per 262,144 rows, parsed by numpy, and its span ids are read only when asked (:class:`RunIds`). At 10^6 spans a rater, on the
development VM under a load of 6-9, the row tuples took 5-6 s (wall) a rater, the packed read 2.2-2.8 s
(0.8-0.9 CPU seconds). No index is added
(one on ``span(set_id, id, type, start, stop, local_id, fragments)`` made the file 38% bigger and
imports slower for a 1.7x faster row fetch).
"""

from __future__ import annotations

import gc
import operator
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Connection

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, DocLabel, SetInfo
from corpusdb.store import db

if TYPE_CHECKING:
    from corpusdb.agreement.spans import SpanColumns

CHUNK = 500
"""Sets per query (also under every database's bound-parameter limit)."""


def read_span_columns(conn: Connection, infos: Sequence[SetInfo], hint: Sequence[str] = ()) -> SpanColumns:
    """One rater's spans: ``infos`` are that rater's sets, one per document. ``hint``: types likely
    met (another rater's), so that the reader need not look them up first."""
    was = gc.isenabled()
    gc.disable()  # the rows are acyclic tuples: collector passes over 10^6 of them doubled the time
    try:
        return _read_span_columns(conn, infos, hint)
    finally:
        if was:
            gc.enable()


def read_raters_columns(
    conn: Connection, groups: Sequence[Sequence[SetInfo]], meanwhile: Callable[[], object] | None = None
) -> list[SpanColumns]:
    """Several raters' spans (``groups``: each rater's sets, as the blindness gate cleared them on
    ``conn``), the same as :func:`read_span_columns` rater by rater on ``conn``.

    Why concurrently: on a SQLite file each rater is read on its own connection in its own thread
    (Python's sqlite3 lets other threads run while SQLite steps), about halving the read of the
    default report at 10^6 spans a rater on two cores. Each of those connections has its own
    snapshot, later than ``conn``'s: it reads the versions of its sets in the same read transaction
    as their spans, and unless every version is the one ``conn`` saw (every content write bumps the
    set's version in its transaction, a deleted set has none) the whole read is done again on
    ``conn``, so a write racing the report never mixes two states of the store.

    ``meanwhile``: work for the calling thread while the readers wait on SQLite (e.g. importing
    what computes the report), else done first.
    """
    if len(groups) >= 2 and db.sqlite_file(conn) is not None:
        got = _read_parallel(conn.engine, groups, meanwhile)
        if got is not None:
            return got
    elif meanwhile is not None:
        meanwhile()
    out: list[SpanColumns] = []
    for infos in groups:
        out.append(read_span_columns(conn, infos, hint=out[-1].type_names if out else ()))
    return out


def _read_parallel(
    engine: Any, groups: Sequence[Sequence[SetInfo]], meanwhile: Callable[[], object] | None = None
) -> list[SpanColumns] | None:
    """Each group on its own connection and thread; None when a group's sets are not at the
    versions its headers give (the store changed since they were read: the caller reads again)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(groups), 4)) as pool:
        futures = [pool.submit(_read_checked, engine, g) for g in groups]
        if meanwhile is not None:
            meanwhile()
        got = [f.result() for f in futures]
    return None if any(g is None for g in got) else got  # type: ignore[return-value]


def _read_checked(engine: Any, infos: Sequence[SetInfo]) -> SpanColumns | None:
    """One rater's spans in one read transaction, or None if a set is not at ``infos``' version."""
    want = {i.id: i.version for i in infos}
    with db.read(engine) as conn:
        if set_versions(conn, list(want)) != want:
            return None
        return read_span_columns(conn, infos)


def set_versions(conn: Connection, ids: Sequence[int]) -> dict[int, int]:
    """Set id -> version of the sets ``ids`` that exist (in ``conn``'s transaction)."""
    from corpusdb.store import tables

    t = tables.annotation_set
    out: dict[int, int] = {}
    for k in range(0, len(ids), CHUNK):
        q = t.select().with_only_columns(t.c.id, t.c.version).where(t.c.id.in_(ids[k : k + CHUNK]))
        out.update((set_id, version) for set_id, version in conn.execute(q))
    return out


def _read_span_columns(conn: Connection, infos: Sequence[SetInfo], hint: Sequence[str]) -> SpanColumns:
    import numpy as np

    from corpusdb.agreement.spans import SpanColumns

    infos = sorted(infos, key=lambda i: i.id)  # the rows come by set id, then row id
    ids = [i.id for i in infos]
    type_codes: dict[str, int] = {}
    blocks: list[_Block] = []
    rest: Sequence[SetInfo] = infos
    # The driver's own cursor: SQLAlchemy's row objects cost as much as the query at 10^6 rows.
    cur = conn.connection.cursor()
    try:
        if db.is_sqlite(conn):
            run_types: dict[str, int] = {}  # kept only if the run reader succeeds
            got = _read_runs(cur, ids, run_types, conn.engine, hint)
            if got is not None:
                block, left = got
                blocks.append(block)
                type_codes.update(run_types)
                rest = [i for i in infos if i.id in left]
        if rest:
            blocks.append(_read_rows(cur, [i.id for i in rest], type_codes, "?" if db.is_sqlite(conn) else "%s",
                                     orjson.loads if db.is_sqlite(conn) else _loads))  # fmt: skip
    finally:
        cur.close()
    blocks = [b for b in blocks if len(b.set)]
    if len(blocks) == 1 and bool((blocks[0].set[1:] >= blocks[0].set[:-1]).all()):
        b = blocks[0]  # one block already by set (runs are read by row id: a set rewritten later comes last)
        set_of, typ, start, stop, id_seq, fragments = b.set, b.type, b.start, b.stop, b.ids, b.fragments
        order = None
    else:
        set_of = np.concatenate([b.set for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        order = np.argsort(set_of, kind="stable")  # a set's rows are all in one block, in id order
        set_of = set_of[order]
        typ = np.concatenate([b.type for b in blocks])[order] if blocks else np.zeros(0, dtype=np.int32)
        start = np.concatenate([b.start for b in blocks])[order] if blocks else np.zeros(0, dtype=np.int64)
        stop = np.concatenate([b.stop for b in blocks])[order] if blocks else np.zeros(0, dtype=np.int64)
        id_seq = _Joined([b.ids for b in blocks], order)
        inverse = np.empty(len(order), dtype=np.int64)
        inverse[order] = np.arange(len(order))
        fragments, base = {}, 0
        for b in blocks:
            fragments.update({int(inverse[base + r]): f for r, f in b.fragments.items()})
            base += len(b.set)
    # set_of is sorted and ids too: each set's first row found by one search per set, not per row
    offsets = np.empty(len(ids) + 1, dtype=np.int64)
    offsets[:-1] = np.searchsorted(set_of, np.asarray(ids, dtype=np.int64))
    offsets[-1] = len(set_of)
    return SpanColumns(
        doc_ids=tuple(i.document_external_id for i in infos),
        offsets=offsets,
        ids=id_seq,
        type_names=tuple(type_codes),
        type=typ,
        start=start,
        end=stop,
        fragments=fragments,
    )


class _Block:
    """Rows of some sets as arrays: set id, type code, start, stop; ids; several fragments by row."""

    __slots__ = ("fragments", "ids", "set", "start", "stop", "type")

    def __init__(
        self, set_: Any, type_: Any, start: Any, stop: Any, ids: Sequence[str],
        fragments: dict[int, tuple[tuple[int, int], ...]],
    ) -> None:  # fmt: skip
        self.set, self.type, self.start, self.stop, self.ids, self.fragments = (
            set_, type_, start, stop, ids, fragments,
        )  # fmt: skip


def _read_rows(cur: Any, ids: list[int], type_codes: dict[str, int], mark: str, dec: Any) -> _Block:
    """The sets' rows one by one (any database): five columns and the id, by set id then row id."""
    import numpy as np

    parts: dict[str, list[Any]] = {"set": [], "type": [], "start": [], "stop": []}
    packed = PackedIds()
    fragments: dict[int, tuple[tuple[int, int], ...]] = {}
    fixes: list[tuple[int, int, int]] = []
    n = 0
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
            _fragment(fragments, fixes, n + j, dec(frag_col[j]))
        n += m

    def cat(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate(parts[name]) if parts[name] else np.zeros(0, dtype=dtype)

    start, stop = cat("start", np.int64), cat("stop", np.int64)
    for row, s, e in fixes:
        start[row], stop[row] = s, e
    return _Block(cat("set", np.int64), cat("type", np.int32), start, stop, packed, fragments)


def _fragment(
    fragments: dict[int, tuple[tuple[int, int], ...]], fixes: list[tuple[int, int, int]], row: int, value: Any
) -> None:
    frs = tuple((int(a), int(b)) for a, b in value)
    if len(frs) == 1:  # a row written before lean rows: its one fragment is start/stop
        fixes.append((row, *frs[0]))
    else:
        fragments[row] = frs


SCAN = 262_144
"""Rows per aggregate query of the run reader (the packed string of one query stays a few MB)."""


NARROW = 25
"""Bits for ``start + 1`` and ``stop + 1`` in the narrow packing (offsets below 2^25 - 1, ~33 M)."""


def _run_chunk(cur: Any, lo: int, hi: int, names: list[str]) -> tuple[Any, Any, int, int] | None:
    """Rows ``lo..hi`` as (packed start/stop, 2 * index in ``names`` + has fragments, rows, rows with
    fragments); an index is -1 for a type not in ``names``. None: not what the packing holds.

    Why two packings: one integer a row (start, stop, type code, has-fragments and a flag for offsets
    too wide for it) joined by one ``group_concat`` and no other aggregate cost 0.30 CPU s per 10^6
    rows against 0.39 s for :func:`_run_chunk_wide`'s two strings and three aggregates (each
    aggregate a row is an extra step of SQLite's VM). A chunk with an offset the narrow packing
    cannot hold is read again the wide way.
    """
    import numpy as np

    if len(names) > 1000:  # a CASE that long (and its parameters): read row by row
        return None
    whens = " ".join("WHEN ? THEN " + str(2 * c + 2) for c in range(len(names)))
    case = f"CASE type {whens} ELSE 0 END" if names else "0"
    # bits: start + 1 (25) | stop + 1 (25) | offsets too wide (1) | 2 * (type index + 1) + has fragments (11)
    cur.execute(  # the ORDER BY keeps the row id order guaranteed (a co-routine, no sort: the rows come so)
        "SELECT group_concat(p, ',') FROM (SELECT "
        f"((((start + 1) << {NARROW}) | (stop + 1)) << 12) "
        f"| ((((start + 1) | (stop + 1)) >> {NARROW} != 0) << 11) "
        f"| ({case}) | (fragments IS NOT NULL) AS p "
        "FROM span WHERE id BETWEEN ? AND ? ORDER BY id)",
        (*names, lo, hi),
    )
    (text,) = cur.fetchone()
    if text is None:
        return None
    v = np.fromstring(text, dtype=np.int64, sep=",")
    del text
    n = hi - lo + 1
    if len(v) != n:
        return None
    if (v & 2048).any():  # an offset below -1 or from 2^25 - 1 on: read the chunk the wide way
        return _run_chunk_wide(cur, lo, hi, names)
    local = v & 2047
    n_frag = int(np.count_nonzero(local & 1))
    local -= 2  # 2 * index + has fragments, index -1 for a type not in names (as the wide way)
    v >>= 12
    packed_pos = ((v >> NARROW) << 32) | (v & ((1 << NARROW) - 1))
    return packed_pos, local, n, n_frag


def _run_chunk_wide(cur: Any, lo: int, hi: int, names: list[str]) -> tuple[Any, Any, int, int] | None:
    """:func:`_run_chunk` for offsets up to 2^31 - 2: two strings, a check that every offset is in
    [-1, 2^31 - 1) and the count of rows with fragments."""
    import numpy as np

    whens = " ".join("WHEN ? THEN " + str(c) for c in range(len(names)))
    case = f"CASE type {whens} ELSE -1 END" if names else "-1"
    cur.execute(  # one check that every offset is in [-1, 2^31 - 1): what the packing holds
        "SELECT group_concat(p, ','), group_concat(c, ','), count(*), sum(bad), count(fragments) "
        "FROM (SELECT ((start + 1) << 32) | (stop + 1) AS p, "
        f"2 * ({case}) + (fragments IS NOT NULL) AS c, "
        "(((start + 1) >> 31) | ((stop + 1) >> 32)) != 0 AS bad, fragments "
        "FROM span WHERE id BETWEEN ? AND ? ORDER BY id)",
        (*names, lo, hi),
    )
    p, c, n, bad, n_frag = cur.fetchone()
    if n != hi - lo + 1 or bad:
        return None
    packed_pos = np.fromstring(p, dtype=np.int64, sep=",")
    codes = np.fromstring(c, dtype=np.int64, sep=",")
    if len(packed_pos) != n or len(codes) != n:
        return None
    return packed_pos, codes, n, n_frag


def _read_runs(
    cur: Any, ids: list[int], type_codes: dict[str, int], engine: Any, hint: Sequence[str] = ()
) -> tuple[_Block, set[int]] | None:
    """SQLite: the sets whose rows are one unbroken run of row ids (every set an import or a
    ``create_set`` wrote) read as a few aggregate strings per 262,144 rows instead of one tuple per row.

    Why: fetching 10^6 rows as Python tuples cost ~5 s a rater on this machine; SQLite packs each
    row's start, stop and type code into integers, joins them into one string per query
    (``group_concat``) and numpy parses it in C. A set is read this way only when ``min(id)``,
    ``max(id)`` and ``count(*)`` of its rows (from the ``(set_id, local_id)`` index) show that the
    range holds its rows and nothing else, so no other set's row is read (blindness). Span ids are
    read only when asked (:class:`RunIds`). Returns the block and the ids of the sets left for
    the row reader (rows interleaved with another set's, e.g. spans added later), or None to read
    everything row by row (offsets outside what the packing holds).
    """
    import numpy as np

    got: list[tuple[int, int, int, int]] = []
    for k in range(0, len(ids), CHUNK):
        chunk = ids[k : k + CHUNK]
        cur.execute(
            "SELECT set_id, min(id), max(id), count(*) FROM span "
            f"WHERE set_id IN ({', '.join('?' for _ in chunk)}) GROUP BY set_id",
            tuple(chunk),
        )
        got += cur.fetchall()
    runs_of = sorted((g for g in got if g[2] - g[1] + 1 == g[3]), key=lambda g: g[1])
    rest = {g[0] for g in got if g[2] - g[1] + 1 != g[3]}
    if not runs_of:
        return None
    set_of = np.repeat(
        np.fromiter((g[0] for g in runs_of), dtype=np.int64, count=len(runs_of)),
        np.fromiter((g[3] for g in runs_of), dtype=np.int64, count=len(runs_of)),
    )
    spans: list[tuple[int, int]] = []  # [lo, hi] row id ranges, adjacent sets merged, cut at SCAN
    for _, lo, hi, _ in runs_of:
        if spans and spans[-1][1] + 1 == lo and hi - spans[-1][0] < SCAN:
            spans[-1] = (spans[-1][0], hi)
        else:
            spans.append((lo, hi))
    pieces: list[tuple[Any, Any]] = []
    names = list(dict.fromkeys([*type_codes, *hint]))  # types the CASE maps; others come out as -1
    fragments: dict[int, tuple[tuple[int, int], ...]] = {}
    fixes: list[tuple[int, int, int]] = []
    base = 0
    for lo0, hi0 in spans:
        for lo in range(lo0, hi0 + 1, SCAN):
            hi = min(hi0, lo + SCAN - 1)
            got = _run_chunk(cur, lo, hi, names) if names else None
            if got is None or int(got[1].min()) < 0:  # a type not met yet: learn the chunk's types
                cur.execute("SELECT DISTINCT type FROM span WHERE id BETWEEN ? AND ?", (lo, hi))
                names += [t for (t,) in cur.fetchall() if t not in set(names)]
                got = _run_chunk(cur, lo, hi, names)
            if got is None or int(got[1].min()) < 0:
                return None  # offsets the packing cannot hold (or the rows moved): read row by row
            packed_pos, local, n, n_frag = got
            used = np.flatnonzero(np.bincount(local >> 1, minlength=len(names)))
            lut = np.zeros(len(names), dtype=np.int64)
            for k in used.tolist():  # codes only for the types this rater used
                lut[k] = type_codes.setdefault(names[k], len(type_codes))
            codes = lut[local >> 1]
            pieces.append((packed_pos, codes))
            if n_frag:
                cur.execute(
                    "SELECT id, fragments FROM span WHERE id BETWEEN ? AND ? AND fragments IS NOT NULL",
                    (lo, hi),
                )
                for rid, value in cur.fetchall():
                    _fragment(fragments, fixes, base + rid - lo, orjson.loads(value))
            base += n
    packed_pos = np.concatenate([x for x, _ in pieces])
    codes = np.concatenate([x for _, x in pieces])
    start = (packed_pos >> 32) - 1
    stop = (packed_pos & 0xFFFFFFFF) - 1
    del packed_pos
    for row, s, e in fixes:
        start[row], stop[row] = s, e
    los = np.fromiter((g[1] for g in runs_of), dtype=np.int64, count=len(runs_of))
    counts = np.fromiter((g[3] for g in runs_of), dtype=np.int64, count=len(runs_of))
    owners = np.fromiter((g[0] for g in runs_of), dtype=np.int64, count=len(runs_of))
    ids_seq = RunIds(engine, los, counts, owners)
    return _Block(set_of, codes.astype(np.int32), start, stop, ids_seq, fragments), rest


class RunIds(Sequence[str]):
    """Span ids of the run reader, read from the store when first asked (by blocks of rows).

    Why lazily: the report never needs them (only ``SpanComparison.alignment()`` and the few
    one-sided spans it lists do), and reading 10^6 ids cost about a fifth of the read. The rows are
    the same row id ranges the report read; a fresh read transaction reads them again (an edit in
    between is refused rather than shown mismatched).
    """

    BLOCK = 4096  # the report lists a few hundred: one small query per rater

    def __init__(self, engine: Any, los: Any, counts: Any, owners: Any) -> None:
        import numpy as np

        self._engine = engine
        self._owners = owners
        self._los = los
        self._first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self._counts = counts
        self._n = int(counts.sum())
        self._blocks: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> str:  # type: ignore[override]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        i %= self._n
        k = i // self.BLOCK
        if k not in self._blocks:
            self._blocks[k] = self._load(k * self.BLOCK, min(self._n, (k + 1) * self.BLOCK))
        return self._blocks[k][i - k * self.BLOCK]

    def _load(self, a: int, b: int) -> list[str]:
        """Rows [a, b): the row id ranges of the sets they fall in, merged where adjacent."""
        import numpy as np

        first = int(np.searchsorted(self._first, a, side="right")) - 1
        ranges: list[list[int]] = []
        owner: list[int] = []  # the set each row was read from: a row id reused by another set is refused
        row = a
        j = first
        while row < b:
            lo = int(self._los[j]) + row - int(self._first[j])
            take = min(b, int(self._first[j] + self._counts[j])) - row
            if take > 0:
                if ranges and ranges[-1][1] + 1 == lo:
                    ranges[-1][1] = lo + take - 1
                else:
                    ranges.append([lo, lo + take - 1])
                owner += [int(self._owners[j])] * take
                row += take
            j += 1
        out: list[str] = []
        sets: list[int] = []
        with db.read(self._engine) as conn:
            cur = conn.connection.cursor()
            try:
                for lo, hi in ranges:
                    cur.execute(
                        "SELECT set_id, local_id FROM span WHERE id BETWEEN ? AND ? ORDER BY id", (lo, hi)
                    )
                    got = cur.fetchall()
                    sets += [r[0] for r in got]
                    out += [r[1] for r in got]
            finally:
                cur.close()
        if sets != owner:
            raise InvalidInput("the spans changed since the agreement report read them: run it again")
        return out


class _Joined(Sequence[str]):
    """The ids of several blocks in the final row order (``order[i]`` = row in the blocks' concatenation)."""

    def __init__(self, parts: list[Sequence[str]], order: Any) -> None:
        import numpy as np

        self._parts = parts
        self._order = order
        self._starts = np.cumsum([0] + [len(p) for p in parts])

    def __len__(self) -> int:
        return len(self._order)

    def __getitem__(self, i: int) -> str:  # type: ignore[override]
        import numpy as np

        r = int(self._order[i])
        k = int(np.searchsorted(self._starts, r, side="right")) - 1
        return self._parts[k][r - int(self._starts[k])]


def read_labels(conn: Connection, infos: Sequence[SetInfo]) -> dict[str, Annotations]:
    """One rater's document labels by document (layer ``labels``): no span is read."""
    from corpusdb.store import tables

    t = tables.document_label
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
