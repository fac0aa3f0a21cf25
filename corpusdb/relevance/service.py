"""``Corpus`` methods for relevance judging (a mixin of ``corpusdb.api.Corpus``).

Who may do what, and why (blindness):

* topics are the judges' instructions: everyone in the project reads them;
* runs (which system retrieved which document, at which rank and score), pooling, qrels and scores
  are a lead's: a judge must not know where a document came from, so no judge-facing call returns
  or depends on a run;
* a judge reads and writes only their own units' judgments (through the ordinary set gate);
* qrels and agreement come from what ``corpusdb.access`` shows the actor: a unit counts only once
  every judge of it has submitted (leads and adjudicators), gold included.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection, delete, func, insert, select, update

from corpusdb import access, db
from corpusdb.documents import upsert_documents
from corpusdb.edits import Put
from corpusdb.errors import Conflict, InvalidInput, NotFound, UsageError
from corpusdb.models import AnnotatorRow, DocumentRow, RunEntryRow, RunRow, TopicRow
from corpusdb.records import Annotations, DocLabel, Document
from corpusdb.relevance import qrels as qrels_mod
from corpusdb.relevance.pooling import doubled_subset, pool_pairs
from corpusdb.relevance.records import (
    Judgment,
    PoolResult,
    PoolUnit,
    QrelLine,
    QrelsExport,
    RunInfo,
    RunLine,
    Topic,
)
from corpusdb.service import ServiceBase, utcnow_aware
from corpusdb.sets import current_guideline_version, read_contents
from corpusdb.workflow.assignment import draw

if TYPE_CHECKING:
    from corpusdb.relevance.scoring import RunScores

T = TopicRow.__table__
R = RunRow.__table__
RE = RunEntryRow.__table__
D = DocumentRow.__table__
A = AnnotatorRow.__table__

UNIT_SOURCE = "relevance"
"""``Document.source`` of a judged (topic, document) unit."""
Disagree = Literal["first", "max", "min", "skip"]
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
    return f"{topic}/{doc}"


def _chunks(items: Sequence[Any], n: int = 500) -> Iterable[list[Any]]:
    for i in range(0, len(items), n):
        yield list(items[i : i + n])


class RelevanceMixin(ServiceBase):
    """Topics, runs, pools, judgments, qrels and run scores (TREC Genomics style)."""

    # -- topics (everyone reads them: they are the judges' instructions) -------------------------
    def add_topics(self, topics: Iterable[Topic]) -> int:
        """Add or update topics (by id) in one transaction; returns how many were added or changed."""
        self._require("lead", doing="add topics")
        topics = list(topics)
        if len({t.id for t in topics}) != len(topics):
            raise InvalidInput("a topic id is given twice")
        changed = 0
        with self._write() as conn:
            have = {r.topic_id: r for r in conn.execute(select(T).where(T.c.project_id == self.project_id))}
            for t in topics:
                if not t.id or t.id != t.id.strip() or "/" in t.id:
                    raise InvalidInput(f"topic id {t.id!r} must be non-empty, without spaces around or '/'")
                old = have.get(t.id)
                vals = {"title": t.title, "need": t.need, "context": t.context}
                if old is None:
                    conn.execute(insert(T).values(project_id=self.project_id, topic_id=t.id, created=utcnow_aware(),
                                                  **vals))  # fmt: skip
                elif (old.title, old.need, old.context) != (t.title, t.need, t.context):
                    conn.execute(update(T).where(T.c.id == old.id).values(**vals))
                else:
                    continue
                changed += 1
            if changed:
                self._audit(conn, "add_topics", "", changed=changed)
        return changed

    def topics(self) -> list[Topic]:
        """Every topic of the project, in id order (numeric ids numerically)."""
        with self._read() as conn:
            rows = conn.execute(select(T).where(T.c.project_id == self.project_id)).all()
        out = [Topic(r.topic_id, r.title, r.need, r.context) for r in rows]
        return sorted(out, key=lambda t: (len(t.id), t.id))

    def topic(self, topic_id: str) -> Topic:
        found = [t for t in self.topics() if t.id == topic_id]
        if not found:
            raise NotFound(f"no topic {topic_id!r} in this project")
        return found[0]

    # -- runs (a lead's: they say where each document came from) --------------------------------
    def add_run(self, lines: Sequence[RunLine], *, tag: str | None = None, source: str = "",
                replace: bool = False) -> RunInfo:  # fmt: skip
        """Store a run as the output of a system annotator named by its tag (created if missing)."""
        self._require("lead", doing="import runs")
        tags = {tag} if tag else {r.tag for r in lines}
        if len(tags) != 1 or not lines:
            raise InvalidInput(f"a run has one tag and at least one line; got tags {sorted(tags)}")
        name = tags.pop()
        if len({(r.topic, r.doc) for r in lines}) != len(lines):
            raise InvalidInput(f"run {name}: a document is retrieved twice for one topic")
        with self._write() as conn:
            role = conn.execute(
                select(A.c.id, A.c.role).where(A.c.project_id == self.project_id, A.c.name == name)
            ).first()
            if role is not None and role[1] != "system":
                raise Conflict(
                    f"run tag {name!r} is the name of a {role[1]}; runs belong to system annotators"
                )
            if role is None:
                aid = conn.execute(insert(A).values(project_id=self.project_id, name=name, role="system",
                                                    created=utcnow_aware()).returning(A.c.id)).scalar_one()  # fmt: skip
            else:
                aid = role[0]
            old = conn.execute(
                select(R.c.id).where(R.c.project_id == self.project_id, R.c.tag == name)
            ).first()
            if old is not None:
                if not replace:
                    raise Conflict(f"run {name!r} exists already (replace it with --replace)")
                conn.execute(delete(RE).where(RE.c.run_id == old[0]))
                conn.execute(delete(R).where(R.c.id == old[0]))
            rid = conn.execute(insert(R).values(project_id=self.project_id, annotator_id=aid, tag=name,
                                                source=source, created=utcnow_aware()).returning(R.c.id)).scalar_one()  # fmt: skip
            ids = db.allocate_ids(conn, "run_entry", len(lines))
            db.executemany(conn, "run_entry", ("id", "run_id", "topic", "doc", "rank", "score"),
                           [(pk, rid, r.topic, r.doc, r.rank, r.score) for pk, r in zip(ids, lines, strict=True)])  # fmt: skip
            self._audit(conn, "add_run", name, lines=len(lines), replace=replace)
        return RunInfo(name, len({r.topic for r in lines}), len(lines), source)

    def runs(self) -> list[RunInfo]:
        self._require("lead", doing="list runs (judges never see where a document came from)")
        with self._read() as conn:
            rows = conn.execute(
                select(R.c.id, R.c.tag, R.c.source).where(R.c.project_id == self.project_id).order_by(R.c.tag)
            ).all()
            out = []
            for rid, tag, source in rows:
                ents = conn.execute(select(RE.c.topic).where(RE.c.run_id == rid)).scalars().all()
                out.append(RunInfo(tag, len(set(ents)), len(ents), source))
        return out

    def run(self, tag: str) -> list[RunLine]:
        """A stored run's lines, by topic then rank."""
        self._require("lead", doing="read runs (judges never see where a document came from)")
        with self._read() as conn:
            return self._run_lines(conn, tag)

    def _run_lines(self, conn: Connection, tag: str) -> list[RunLine]:
        rid = conn.execute(select(R.c.id).where(R.c.project_id == self.project_id, R.c.tag == tag)).scalar()
        if rid is None:
            raise NotFound(f"no run {tag!r} in this project")
        rows = conn.execute(
            select(RE.c.topic, RE.c.doc, RE.c.rank, RE.c.score).where(RE.c.run_id == rid)
        ).all()
        return sorted((RunLine(t, d, int(k), float(s), tag) for t, d, k, s in rows),
                      key=lambda r: (len(r.topic), r.topic, r.rank, r.doc))  # fmt: skip

    def _top_lines(self, conn: Connection, tag: str, depth: int | None) -> list[RunLine]:
        """A run's lines that pooling to ``depth`` may take: the first ``depth`` per topic in the order
        ``pool_pairs`` uses (rank, then the higher score, then the id), selected in SQL (a window
        function, on SQLite and PostgreSQL alike) so that a deep run is not read whole."""
        if depth is None:
            return self._run_lines(conn, tag)
        rid = conn.execute(select(R.c.id).where(R.c.project_id == self.project_id, R.c.tag == tag)).scalar()
        if rid is None:
            raise NotFound(f"no run {tag!r} in this project")
        order = func.row_number().over(
            partition_by=RE.c.topic, order_by=(RE.c.rank, RE.c.score.desc(), RE.c.doc)
        )
        sub = (
            select(RE.c.topic, RE.c.doc, RE.c.rank, RE.c.score, order.label("n"))
            .where(RE.c.run_id == rid)
            .subquery()
        )
        rows = conn.execute(select(sub.c.topic, sub.c.doc, sub.c.rank, sub.c.score).where(sub.c.n <= depth))
        return [RunLine(t, d, int(k), float(s), tag) for t, d, k, s in rows]

    def _run_tags(self, conn: Connection) -> list[str]:
        return list(
            conn.execute(select(R.c.tag).where(R.c.project_id == self.project_id).order_by(R.c.tag)).scalars()
        )

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
    ) -> PoolResult:
        """Pool the runs' top documents per topic and assign them blind to judges, in one transaction.

        ``depth``: the top k of every run per topic; ``budget``: at most that many documents per topic
        (filled rank by rank across runs). Units are shuffled with ``seed``; each goes to ``per_unit``
        judges, and a ``double`` fraction of the new units to one judge more (the agreement subset).
        Pairs pooled before are kept as they are. A unit's text is the project's document of that id
        (imported beforehand); a pooled document without one is an error, or skipped with
        ``skip_missing``.
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
            lines = {tag: self._top_lines(conn, tag, depth) for tag in tags}
            pairs = pool_pairs(lines, chosen, depth=depth, budget=budget, seed=seed)
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
            self._create_sets(conn, order, by_unit)
            self._audit(conn, "pool", "", units=len(order), existing=len(existing), doubled=len(doubled),
                        per_unit=per_unit, depth=depth, budget=budget, seed=seed, runs=tags)  # fmt: skip
        return PoolResult(
            tuple(PoolUnit(units[u][0], units[u][1], u, tuple(sorted(by_unit[u]))) for u in order),
            len(existing), len(doubled), missing, dict(sorted(load.items())),
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
        for chunk in _chunks(external_ids):
            out.update(conn.execute(select(D.c.external_id).where(D.c.project_id == self.project_id,
                                                                  D.c.external_id.in_(chunk))).scalars())  # fmt: skip
        return out

    def _texts(self, conn: Connection, docs: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in _chunks(docs):
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
        for chunk in _chunks(list(order)):
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
        for chunk in [None] if doc_ids is None else list(_chunks(list(doc_ids))):
            for pk, meta in conn.execute(q if chunk is None else q.where(D.c.id.in_(chunk))):
                if isinstance(meta, dict) and "topic" in meta and "doc" in meta:
                    out[int(pk)] = (str(meta["topic"]), str(meta["doc"]))
        return out

    # -- what leads read: judged units, agreement, qrels, scores ---------------------------------
    def _judged_units(self, conn: Connection) -> tuple[dict[int, tuple[str, str]], dict[int, str | None],
                                                       dict[int, list[tuple[int, str | None]]], set[int]]:  # fmt: skip
        """(units, gold grade, submitted judgments (set id, grade), units not ready) the actor may read."""
        self._require("lead", "adjudicator", doing="read judgments (double-blind until every judge submits)")
        name, _ = self._label()
        units = self._unit_meta(conn)
        ids = sorted(units)
        heads: list[Any] = []
        visible: list[Any] = []
        for chunk in _chunks(ids):
            heads += access.set_headers(
                conn, self.project_id, self.actor, document_ids=chunk, kind="annotation"
            )
            visible += access.visible_sets(conn, self.project_id, self.actor, document_ids=chunk)
        not_ready = {h.document_id for h in heads if h.status != "submitted"}
        visible = [
            v
            for v in visible
            if v.kind == "gold" or (v.kind == "annotation" and v.document_id not in not_ready)
        ]
        body = {s.info.id: s.annotations for s in read_contents(conn, visible)}

        def grade(set_id: int) -> str | None:
            return next((lb.value for lb in body[set_id].labels if lb.name == name), None)

        gold = {v.document_id: grade(v.id) for v in visible if v.kind == "gold"}
        judged: dict[int, list[tuple[int, str | None]]] = defaultdict(list)
        for v in sorted((v for v in visible if v.kind == "annotation"), key=lambda v: v.id):
            judged[v.document_id].append((v.id, grade(v.id)))
        return units, gold, judged, not_ready

    def relevance_agreement(self) -> dict[str, Any]:
        """Cohen's kappa between the first two judgments of every doubly judged unit (all judges
        submitted): three-way DR/PR/NR and with DR+PR merged, as TREC 2004 Genomics reported it."""
        from corpusdb.relevance.kappa import doubled_agreement

        with self._read() as conn:
            units, _gold, judged, not_ready = self._judged_units(conn)
        pairs: list[tuple[str, str]] = []
        for pk in sorted(judged):
            grades = [g for _, g in judged[pk] if g is not None]
            if len(grades) >= 2:
                pairs.append((grades[0], grades[1]))
        if not pairs:
            raise InvalidInput("no unit has two submitted judgments yet (pool with --double, or -n 2)")
        out = doubled_agreement(pairs, [v for v, _, _ in self._label()[1]])
        out["units_not_ready"] = len([u for u in not_ready if u in units])
        return out

    def qrels(
        self, mapping: str | Mapping[str, int] | None = None, *, disagree: Disagree = "first"
    ) -> QrelsExport:
        """The project's qrels: a unit's gold grade if adjudicated, else its judges' grade when they
        agree; when they do not, ``disagree`` picks the first judge's (the primary judge, as TREC 2004
        did), the highest or lowest grade, or skips the unit. Units a judge has not submitted are
        skipped (and listed)."""
        grades = qrels_mod.parse_mapping(mapping)
        if disagree not in ("first", "max", "min", "skip"):
            raise UsageError(f"disagree must be first, max, min or skip, not {disagree!r}")
        with self._read() as conn:
            units, gold, judged, not_ready = self._judged_units(conn)
        lines: list[QrelLine] = []
        skipped: list[str] = []
        n_gold = n_judged = 0
        for pk, (topic, doc) in sorted(units.items(), key=lambda kv: kv[1]):
            value: str | None = gold.get(pk)
            if value is not None:
                n_gold += 1
            elif pk in not_ready:
                skipped.append(f"{unit_id(topic, doc)}: not every judge has submitted")
                continue
            else:
                got = [g for _, g in judged.get(pk, []) if g is not None]
                if not got:
                    skipped.append(f"{unit_id(topic, doc)}: no grade")
                    continue
                if len(set(got)) > 1 and disagree == "skip":
                    skipped.append(f"{unit_id(topic, doc)}: judges disagree ({', '.join(got)})")
                    continue
                unknown = [g for g in got if g not in grades]
                if unknown:
                    raise InvalidInput(
                        f"grade {unknown[0]!r} of {unit_id(topic, doc)} has no number in the mapping"
                    )
                if disagree == "max":
                    value = max(got, key=grades.__getitem__)
                elif disagree == "min":
                    value = min(got, key=grades.__getitem__)
                else:
                    value = got[0]
                n_judged += 1
            if value not in grades:
                raise InvalidInput(f"grade {value!r} of {unit_id(topic, doc)} has no number in the mapping")
            lines.append(QrelLine(topic, doc, grades[value]))
        return QrelsExport(tuple(lines), n_gold, n_judged, tuple(skipped))

    def import_qrels(self, lines: Sequence[QrelLine], mapping: str | Mapping[str, int] | None = None, *,
                     source: str = "", replace: bool = False) -> int:  # fmt: skip
        """Existing qrels as gold (one transaction): each (topic, document) becomes a unit (text from
        the project's document of that id, else empty) whose gold set holds the grade's label.
        Returns the number of gold grades written."""
        self._require("lead", doing="import qrels as gold")
        from corpusdb.workflow.store import GoldWrite, write_golds

        inv = qrels_mod.inverse(qrels_mod.parse_mapping(mapping))
        name, _ = self._label()
        bad = sorted({q.grade for q in lines} - set(inv))
        if bad:
            raise InvalidInput(
                f"grade {bad[0]} is not in the grade mapping ({', '.join(f'{v}={g}' for g, v in inv.items())})"
            )
        known = {t.id for t in self.topics()}
        unknown = sorted({q.topic for q in lines} - known)
        if unknown:
            raise InvalidInput(
                f"qrels name topics not in the project (import topics first): {', '.join(unknown[:10])}"
            )
        with self._write() as conn:
            units = {unit_id(q.topic, q.doc): q for q in lines}
            existing = self._existing(conn, list(units))
            texts = self._texts(conn, sorted({q.doc for u, q in units.items() if u not in existing}))
            upsert_documents(conn, self.project_id, [
                Document(u, texts.get(q.doc, ""), source=UNIT_SOURCE,
                         metadata={"topic": q.topic, "doc": q.doc, **({} if q.doc in texts else {"text": "missing"})})
                for u, q in units.items() if u not in existing
            ])  # fmt: skip
            ids: dict[str, int] = {}
            for chunk in _chunks(list(units)):
                ids.update(conn.execute(select(D.c.external_id, D.c.id).where(D.c.project_id == self.project_id,
                                                                              D.c.external_id.in_(chunk))).all())  # fmt: skip
            golds = {}
            for chunk in _chunks(list(ids.values())):
                for g in access.visible_sets(
                    conn, self.project_id, self.actor, document_ids=chunk, kind="gold"
                ):
                    golds[g.document_id] = g
            body = {s.info.id: s.annotations for s in read_contents(conn, list(golds.values()))}
            writes: list[GoldWrite] = []
            clashes: list[str] = []
            why = f"imported from qrels {source}".strip()
            for u, q in units.items():
                value = inv[q.grade]
                g = golds.get(ids[u])
                old = body[g.id] if g is not None else Annotations()
                cur = next((lb.value for lb in old.labels if lb.name == name), None)
                if cur == value:
                    continue
                if cur is not None and not replace:
                    clashes.append(f"{u} ({cur} in gold, {value} in the qrels)")
                    continue
                labels = (*tuple(lb for lb in old.labels if lb.name != name), DocLabel(name, value))
                new = Annotations(old.spans, old.relations, old.links, old.notes, labels, old.extra)
                writes.append(GoldWrite(ids[u], g.id if g else None, "submitted", g.status if g else None, new, True,
                                        [("label", name, "adjudicated", self.actor.id, [{"qrels": source}], why)]))  # fmt: skip
            if clashes:
                raise Conflict(f"{len(clashes)} gold grade(s) differ from the qrels (--replace to take the qrels'): "
                               + ", ".join(clashes[:5]))  # fmt: skip
            write_golds(conn, self.project_id, writes)
            self._audit(conn, "import_qrels", source, written=len(writes), lines=len(lines))
        return len(writes)

    def score_runs(self, tags: Sequence[str] | None = None, *, measures: Sequence[str] | None = None,
                   mapping: str | Mapping[str, int] | None = None, disagree: Disagree = "first",
                   run_lines: Sequence[RunLine] | None = None) -> list[RunScores]:  # fmt: skip
        """Score the project's runs (or ``run_lines`` from a file) against the project's qrels."""
        from corpusdb.relevance.scoring import DEFAULT_MEASURES, score_run

        self._require("lead", doing="score runs")
        qrels = self.qrels(mapping, disagree=disagree).lines
        if not qrels:
            raise InvalidInput("the project has no qrels yet (no submitted judgments, no imported qrels)")
        ms = tuple(measures) if measures else DEFAULT_MEASURES
        if run_lines is not None:
            return [score_run(qrels, run_lines, ms, tag=run_lines[0].tag if run_lines else "")]
        with self._read() as conn:
            chosen = list(tags) if tags else self._run_tags(conn)
            lines = {t: self._run_lines(conn, t) for t in chosen}
        if not lines:
            raise UsageError("no runs to score (import some with `corpusdb runs import`)")
        return [score_run(qrels, lines[t], ms, tag=t) for t in chosen]
