"""Pooling runs into judged units and a judge's own judgments (part of ``Corpus``).

A unit is a (topic, document) pair stored as a document ``TOPIC+DOC`` with the document's text and
metadata ``{"topic", "doc"}`` only; its annotation sets are made in the pool's shuffled order, so
nothing a judge can read (ids, order, metadata) reflects a run or a rank.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from corpusdb.basics.errors import InvalidInput, NotFound, UsageError
from corpusdb.basics.records import DocLabel, Document
from corpusdb.relevance.catalog import CatalogMixin
from corpusdb.relevance.pooling import doubled_subset, pool_pairs
from corpusdb.relevance.records import Judgment, PoolResult, PoolUnit
from corpusdb.services import access
from corpusdb.services.base import utcnow_aware
from corpusdb.services.documents import upsert_documents
from corpusdb.services.edits import Put
from corpusdb.services.sets import current_guideline_version, read_contents
from corpusdb.store import db, tables
from corpusdb.workflow.assignment import draw

T = tables.topic
D = tables.document
A = tables.annotator

UNIT_SOURCE = "relevance"
"""``Document.source`` of a judged (topic, document) unit."""
SET_COLS = (
    "id",
    "document_id",
    "annotator_id",
    "kind",
    "status",
    "guideline_version",
    "version",
    "created",
    "updated",
)


def unit_id(topic: str, doc: str) -> str:
    """The external id of the unit that judges ``doc`` for ``topic``."""
    return f"{topic}+{doc}"  # not "/": document ids become file names (one path component)


def chunks(items: Sequence[Any], n: int = 500) -> Iterable[list[Any]]:
    for i in range(0, len(items), n):
        yield list(items[i : i + n])


class JudgingMixin(CatalogMixin):
    """Pooling (leads) and judging (each judge, their own units)."""

    # -- pooling --------------------------------------------------------------------------------
    def pool(
        self,
        *,
        depth: int | None = None,
        budget: int | None = None,
        judges: Sequence[str] | None = None,
        per_unit: int = 1,
        double: float = 0.0,
        seed: int = 0,
        topics: Sequence[str] | None = None,
        runs: Sequence[str] | None = None,
        skip_missing: bool = False,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> PoolResult:
        """Pool the runs' top documents per topic and assign them blind to judges, in one transaction.

        ``depth``: the top k of every run per topic, by score as trec_eval ranks them (``trec_order``;
        a run whose rank column disagrees is named in ``warnings``); ``budget``: at most that many
        documents per topic (filled position by position across runs). Units are shuffled with ``seed``; each goes to ``per_unit``
        judges, and a ``double`` fraction of the new units to one judge more (the agreement subset).
        Pairs pooled before are kept as they are. A unit's text is the project's document of that id
        (imported beforehand); a pooled document without one is an error, or skipped with
        ``skip_missing``. ``progress(done, total, what)`` is called after each run is read and each
        later step (the CLI draws a bar).
        """
        self._require("lead", doing="pool runs for judging")
        if per_unit < 1:
            raise UsageError(f"-n (judges per document) must be at least 1, got {per_unit}")
        with self._write() as conn:
            known = set(conn.execute(select(T.c.topic_id).where(T.c.project_id == self.project_id)).scalars())
            chosen = (
                list(dict.fromkeys(topics))
                if topics is not None
                else sorted(known, key=lambda t: (len(t), t))
            )
            for t in chosen:
                if t not in known:
                    raise NotFound(f"no topic {t!r} in this project (import topics first)")
            tags = list(dict.fromkeys(runs)) if runs is not None else self._run_tags(conn)
            if not tags:
                raise UsageError("no runs to pool (import some with `corpusdb runs import`)")
            steps = len(tags) + 3

            def step(done: int, what: str) -> None:
                if progress is not None:
                    progress(done, steps, what)

            lines = {}
            for i, tag in enumerate(tags, 1):
                lines[tag] = self._top_lines(conn, tag, depth)
                step(i, f"read run {tag}")
            pairs = pool_pairs(lines, chosen, depth=depth, budget=budget, seed=seed)
            step(len(tags) + 1, "pooled")
            warnings = tuple(w for tag in tags if (w := self._rank_disorder(conn, tag)))
            names = self._judges(conn, judges)
            if per_unit + (1 if double > 0 else 0) > len(names):
                raise UsageError(
                    f"{per_unit + (1 if double > 0 else 0)} judges per document, but only {len(names)} judges"
                )
            units = {unit_id(t, d): (t, d) for t, d in pairs}
            existing = self._existing(conn, list(units))
            new = [(u, td) for u, td in units.items() if u not in existing]
            texts = self._texts(conn, sorted({d for _, (_, d) in new}))
            missing = tuple(u for u, (_, d) in new if d not in texts)
            if missing and not skip_missing:
                raise InvalidInput(
                    f"{len(missing)} pooled document(s) have no text in the project (import them first, or "
                    f"--skip-missing): {', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}"
                )
            new = [(u, td) for u, td in new if td[1] in texts]
            upsert_documents(conn, self.project_id, [
                Document(u, texts[d], source=UNIT_SOURCE, metadata={"topic": t, "doc": d}) for u, (t, d) in new
            ])  # fmt: skip
            order = [u for u, _ in new]
            doubled = doubled_subset(order, double, seed)
            before = Counter(h.annotator for h in access.set_headers(conn, self.project_id, self.actor,
                                                                     kind="annotation") if h.annotator in names)  # fmt: skip
            first = draw([u for u in order if u in doubled], names, {}, before, per_unit + 1, seed)
            mid = before + Counter(a for _, a in first)
            rest = draw([u for u in order if u not in doubled], names, {}, mid, per_unit, seed)
            load = mid + Counter(a for _, a in rest)
            assigned = first + rest
            by_unit: dict[str, list[str]] = defaultdict(list)
            for u, a in assigned:
                by_unit[u].append(a)
            step(len(tags) + 2, "documents stored")
            self._create_sets(conn, order, by_unit)
            step(steps, "assigned")
            self._audit(conn, "pool", "", units=len(order), existing=len(existing), doubled=len(doubled),
                        per_unit=per_unit, depth=depth, budget=budget, seed=seed, runs=tags)  # fmt: skip
        return PoolResult(
            tuple(PoolUnit(units[u][0], units[u][1], u, tuple(sorted(by_unit[u]))) for u in order),
            len(existing), len(doubled), missing, dict(sorted(load.items())), warnings,
        )  # fmt: skip

    def _judges(self, conn: Connection, judges: Sequence[str] | None) -> list[str]:
        roles = dict(conn.execute(select(A.c.name, A.c.role).where(A.c.project_id == self.project_id)).all())
        if judges is None:
            names = sorted(n for n, r in roles.items() if r == "annotator")
        else:
            names = list(dict.fromkeys(judges))
            for n in names:
                if n not in roles:
                    raise NotFound(f"no annotator named {n!r} in this project")
                if roles[n] == "system":
                    raise InvalidInput(f"{n} is a system (a run), not a judge")
        if not names:
            raise UsageError("no judges (add some with `corpusdb annotator add`)")
        return names

    def _existing(self, conn: Connection, external_ids: Sequence[str]) -> set[str]:
        out: set[str] = set()
        for chunk in chunks(external_ids):
            out.update(conn.execute(select(D.c.external_id).where(D.c.project_id == self.project_id,
                                                                  D.c.external_id.in_(chunk))).scalars())  # fmt: skip
        return out

    def _texts(self, conn: Connection, docs: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in chunks(docs):
            q = select(D.c.external_id, D.c.text).where(
                D.c.project_id == self.project_id, D.c.external_id.in_(chunk), D.c.source != UNIT_SOURCE
            )
            out.update({str(e): str(t) for e, t in conn.execute(q)})
        return out

    def _create_sets(
        self, conn: Connection, order: Sequence[str], by_unit: Mapping[str, Sequence[str]]
    ) -> None:
        """Annotation sets in the pool's shuffled order (their ids follow it, not a rank). The units are
        new documents, so no set exists yet: one bulk insert (as gold sets are written in bulk)."""
        version = current_guideline_version(conn, self.project_id)
        docs: dict[str, int] = {}
        for chunk in chunks(list(order)):
            docs.update(conn.execute(select(D.c.external_id, D.c.id).where(D.c.project_id == self.project_id,
                                                                           D.c.external_id.in_(chunk))).all())  # fmt: skip
        aids = dict(conn.execute(select(A.c.name, A.c.id).where(A.c.project_id == self.project_id)).all())
        pairs = [(docs[u], aids[name]) for u in order for name in sorted(by_unit[u])]
        ts = db.timestamp_param(conn, utcnow_aware())
        ids = db.allocate_ids(conn, "annotation_set", len(pairs))
        db.executemany(conn, "annotation_set", SET_COLS, [
            (pk, doc, who, "annotation", "assigned", version, 1, ts, ts) for pk, (doc, who) in zip(ids, pairs, strict=True)
        ])  # fmt: skip

    # -- judging (a judge's own units) ----------------------------------------------------------
    def _label(self) -> tuple[str, list[tuple[str, str, str | None]]]:
        schema = self.schema()  # type: ignore[attr-defined]
        if not schema.document_labels:
            raise InvalidInput(
                "the project's schema has no document label to judge with (use trec-relevance)"
            )
        d = schema.document_labels[0]
        return d.name, [(str(v.value), v.name, v.key) for v in d.values]

    def judge(self, topic: str, doc: str, grade: str, *, submit: bool = False) -> Judgment:
        """Record the acting judge's grade (DR / PR / NR, a long name or a key) on their own unit."""
        name, values = self._label()
        g = grade.strip().lower()
        value = next(
            (v for v, long, key in values if g in (v.lower(), long.lower(), (key or "").lower())), None
        )
        if value is None:
            raise InvalidInput(f"grade {grade!r} is not one of {', '.join(v for v, _, _ in values)}")
        mine = self._my_unit(topic, doc)
        res = self.edit_set(mine.set_id, [Put(DocLabel(name, value))], expected_version=mine.version)  # type: ignore[attr-defined]
        if submit:
            self.submit(mine.set_id)  # type: ignore[attr-defined]
        return self._my_unit(topic, doc) if submit else Judgment(topic, doc, mine.unit, mine.set_id, value,
                                                                  res.info.status, res.info.version)  # fmt: skip

    def _my_unit(self, topic: str, doc: str) -> Judgment:
        u = unit_id(topic, doc)
        found = self._judgments(u)
        if not found:
            raise NotFound(f"{self.actor.label} has no unit {u} to judge")
        return found[0]

    def judgments(self) -> list[Judgment]:
        """The acting user's own units and their grades so far (a judge's to-do list), pool order."""
        return self._judgments()

    def _judgments(self, unit: str | None = None) -> list[Judgment]:
        if self.actor.id is None:
            return []
        name, _ = self._label()
        with self._read() as conn:
            docs = None
            if unit is not None:  # one unit: found by its id, not by reading every unit
                q = select(D.c.id).where(D.c.project_id == self.project_id, D.c.external_id == unit,
                                         D.c.source == UNIT_SOURCE)  # fmt: skip
                docs = list(conn.execute(q).scalars())
            mine = access.visible_sets(conn, self.project_id, self.actor, document_ids=docs, kind="annotation",
                                       annotator=self.actor.name)  # fmt: skip
            meta = self._unit_meta(conn, [h.document_id for h in mine])
            mine = sorted((h for h in mine if h.document_id in meta), key=lambda h: h.id)
            body = {s.info.id: s.annotations for s in read_contents(conn, mine)}
        return [
            Judgment(*meta[h.document_id], h.document_external_id, h.id,
                     next((lb.value for lb in body[h.id].labels if lb.name == name), None), h.status, h.version)
            for h in mine
        ]  # fmt: skip

    def _unit_meta(
        self, conn: Connection, doc_ids: Sequence[int] | None = None
    ) -> dict[int, tuple[str, str]]:
        """Document id -> (topic, doc) of the project's relevance units (all, or among ``doc_ids``)."""
        q = select(D.c.id, D.c.meta).where(D.c.project_id == self.project_id, D.c.source == UNIT_SOURCE)
        out: dict[int, tuple[str, str]] = {}
        for chunk in [None] if doc_ids is None else list(chunks(list(doc_ids))):
            for pk, meta in conn.execute(q if chunk is None else q.where(D.c.id.in_(chunk))):
                if isinstance(meta, dict) and "topic" in meta and "doc" in meta:
                    out[int(pk)] = (str(meta["topic"]), str(meta["doc"]))
        return out
