"""Topics and runs of a relevance project (part of ``Corpus``, see ``corpusdb.relevance.service``).

Topics are the judges' instructions: everyone in the project reads them. Runs say which system
retrieved which document, at which rank and score: only leads read them, so a judge never learns
where a document came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import ColumnElement, Connection, func, insert, select, update

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound
from corpusdb.relevance.pooling import disorder_warning, rank_disorder
from corpusdb.relevance.records import RunInfo, RunLine, Topic
from corpusdb.relevance.topics import topic_id_problem
from corpusdb.services.base import ServiceBase, utcnow_aware
from corpusdb.services.projects import check_annotator_name
from corpusdb.store import db, rls, tables

T = tables.topic
R = tables.run
RE = tables.run_entry
A = tables.annotator


def _bytes(conn: Connection) -> ColumnElement[str]:
    """A run entry's document id compared byte by byte, as trec_eval's ``strcmp`` compares it
    (PostgreSQL's default collation follows the locale; SQLite's is already binary)."""
    return RE.c.doc if db.is_sqlite(conn) else RE.c.doc.collate("C")


class CatalogMixin(ServiceBase):
    """Topics (everyone) and runs (leads)."""

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
                bad = topic_id_problem(t.id)
                if bad is not None:
                    raise InvalidInput(bad)
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
        return self.add_runs([(lines, source)], tag=tag, replace=replace)[0]

    def add_runs(self, runs: Sequence[tuple[Sequence[RunLine], str]], *, tag: str | None = None,
                 replace: bool = False) -> list[RunInfo]:  # fmt: skip
        """Store several runs ((lines, source) each) in one transaction: all or none."""
        self._require("lead", doing="import runs")
        named: list[tuple[str, Sequence[RunLine], str]] = []
        for lines, source in runs:
            tags = {tag} if tag else {r.tag for r in lines}
            if len(tags) != 1 or not lines:
                raise InvalidInput(
                    f"{source or 'a run'}: a run has one tag and at least one line; got tags {sorted(tags)}"
                )
            name = tags.pop()
            check_annotator_name(name)  # a run is a system annotator named by its tag
            if len({(r.topic, r.doc) for r in lines}) != len(lines):
                raise InvalidInput(f"run {name}: a document is retrieved twice for one topic")
            if any(n == name for n, _, _ in named):
                raise InvalidInput(f"run {name} is given twice")
            named.append((name, lines, source))
        with self._write() as conn:
            for name, lines, source in named:
                self._store_run(conn, name, lines, source, replace)
        return [
            RunInfo(name, len({r.topic for r in lines}), len(lines), source) for name, lines, source in named
        ]

    def _store_run(
        self, conn: Connection, name: str, lines: Sequence[RunLine], source: str, replace: bool
    ) -> None:
        role = conn.execute(
            select(A.c.id, A.c.role).where(A.c.project_id == self.project_id, A.c.name == name)
        ).first()
        if role is not None and role[1] != "system":
            raise Conflict(f"run tag {name!r} is the name of a {role[1]}; runs belong to system annotators")
        if role is None:
            aid = conn.execute(insert(A).values(project_id=self.project_id, name=name, role="system",
                                                created=utcnow_aware()).returning(A.c.id)).scalar_one()  # fmt: skip
        else:
            aid = role[0]
        old = conn.execute(select(R.c.id).where(R.c.project_id == self.project_id, R.c.tag == name)).first()
        if old is not None:
            if not replace:
                raise Conflict(f"run {name!r} exists already (replace it with --replace)")
            rls.delete_rows(conn, RE, RE.c.run_id == old[0])
            rls.delete_rows(conn, R, R.c.id == old[0])
        rid = conn.execute(insert(R).values(project_id=self.project_id, annotator_id=aid, tag=name,
                                            source=source, created=utcnow_aware()).returning(R.c.id)).scalar_one()  # fmt: skip
        ids = db.allocate_ids(conn, "run_entry", len(lines))
        db.executemany(conn, "run_entry", ("id", "run_id", "topic", "doc", "rank", "score"),
                       [(pk, rid, r.topic, r.doc, r.rank, r.score) for pk, r in zip(ids, lines, strict=True)])  # fmt: skip
        self._audit(conn, "add_run", name, lines=len(lines), replace=replace)

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
        ``pool_pairs`` uses (trec_eval's: the higher score, then the larger id byte by byte), selected
        in SQL (a window function, on SQLite and PostgreSQL alike) so that a deep run is not read whole."""
        if depth is None:
            return self._run_lines(conn, tag)
        rid = self._run_id(conn, tag)
        order = func.row_number().over(
            partition_by=RE.c.topic, order_by=(RE.c.score.desc(), _bytes(conn).desc())
        )
        sub = (
            select(RE.c.topic, RE.c.doc, RE.c.rank, RE.c.score, order.label("n"))
            .where(RE.c.run_id == rid)
            .subquery()
        )
        rows = conn.execute(select(sub.c.topic, sub.c.doc, sub.c.rank, sub.c.score).where(sub.c.n <= depth))
        return [RunLine(t, d, int(k), float(s), tag) for t, d, k, s in rows]

    def _run_id(self, conn: Connection, tag: str) -> int:
        rid = conn.execute(select(R.c.id).where(R.c.project_id == self.project_id, R.c.tag == tag)).scalar()
        if rid is None:
            raise NotFound(f"no run {tag!r} in this project")
        return int(rid)

    def _rank_disorder(self, conn: Connection, tag: str) -> str | None:
        """A warning when the run's rank column orders some topic's documents otherwise than its scores
        (what ``pool_pairs`` and the scorer go by), else None. Found in SQL without reading the run:
        in rank order (equal ranks in score order), a line after one with a lower score, or with an
        equal score and a smaller id, is out of trec_eval's order."""
        rid = self._run_id(conn, tag)
        doc = _bytes(conn)
        w = {"partition_by": RE.c.topic, "order_by": (RE.c.rank, RE.c.score.desc(), doc.desc())}
        sub = (
            select(RE.c.topic, RE.c.score, doc.label("doc"), func.lag(RE.c.score).over(**w).label("ps"),
                   func.lag(doc).over(**w).label("pd"))
            .where(RE.c.run_id == rid)
            .subquery()
        )  # fmt: skip
        bad = (sub.c.score > sub.c.ps) | ((sub.c.score == sub.c.ps) & (sub.c.doc > sub.c.pd))
        topics = sorted(
            set(conn.execute(select(sub.c.topic).where(bad)).scalars()), key=lambda t: (len(t), t)
        )
        if not topics:
            return None
        example = conn.execute(select(RE.c.doc, RE.c.rank, RE.c.score).where(RE.c.run_id == rid,
                                                                            RE.c.topic == topics[0])).all()  # fmt: skip
        n = conn.execute(select(func.count(func.distinct(RE.c.topic))).where(RE.c.run_id == rid)).scalar_one()
        found = rank_disorder(RunLine(topics[0], d, int(k), float(s), tag) for d, k, s in example)
        return disorder_warning(tag, len(topics), int(n), topics[0], found[topics[0]])

    def _run_tags(self, conn: Connection) -> list[str]:
        return list(
            conn.execute(select(R.c.tag).where(R.c.project_id == self.project_id).order_by(R.c.tag)).scalars()
        )
