"""``Corpus`` methods for relevance judging (a mixin of ``corpusdb.api.Corpus``).

Who may do what, and why (blindness):

* topics are the judges' instructions: everyone in the project reads them;
* runs (which system retrieved which document, at which rank and score), pooling, qrels and scores
  are a lead's: a judge must not know where a document came from, so no judge-facing call returns
  or depends on a run;
* a judge reads and writes only their own units' judgments (through the ordinary set gate);
* qrels and agreement come from what ``corpusdb.services.access`` shows the actor: a unit counts only once
  every judge of it has submitted (leads and adjudicators), gold included.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection, select

from corpusdb.basics.errors import Conflict, InvalidInput, UsageError
from corpusdb.basics.records import Annotations, DocLabel, Document
from corpusdb.relevance import qrels as qrels_mod
from corpusdb.relevance.judging import UNIT_SOURCE, JudgingMixin, chunks, unit_id
from corpusdb.relevance.records import QrelLine, QrelsExport, RunLine
from corpusdb.services import access
from corpusdb.services.documents import upsert_documents
from corpusdb.services.sets import read_contents
from corpusdb.store import tables

if TYPE_CHECKING:
    from corpusdb.relevance.scoring import RunScores

D = tables.document

Disagree = Literal["first", "max", "min", "skip"]


class RelevanceMixin(JudgingMixin):
    """Topics, runs, pools, judgments, qrels and run scores (TREC Genomics style)."""

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
        for chunk in chunks(ids):
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
        where = f"{source}: " if source else ""  # the file the lines come from
        bad = sorted({q.grade for q in lines} - set(inv))
        if bad:
            raise InvalidInput(
                f"{where}grade {bad[0]} is not in the grade mapping "
                f"({', '.join(f'{v}={g}' for g, v in inv.items())})"
            )
        known = {t.id for t in self.topics()}
        unknown = sorted({q.topic for q in lines} - known)
        if unknown:
            raise InvalidInput(
                f"{where}qrels name topics not in the project (import topics first): {', '.join(unknown[:10])}"
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
            for chunk in chunks(list(units)):
                ids.update(conn.execute(select(D.c.external_id, D.c.id).where(D.c.project_id == self.project_id,
                                                                              D.c.external_id.in_(chunk))).all())  # fmt: skip
            golds = {}
            for chunk in chunks(list(ids.values())):
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
                                        [("label", name, "adjudicated", self.actor.id, [{"qrels": source}], why)],
                                        version=g.version if g else None))  # fmt: skip
            if clashes:
                raise Conflict(f"{len(clashes)} gold grade(s) differ from the qrels (--replace to take the qrels'): "
                               + ", ".join(clashes[:5]))  # fmt: skip
            write_golds(conn, self.project_id, writes)
            self._audit(conn, "import_qrels", source, written=len(writes), lines=len(lines))
        return len(writes)

    @staticmethod
    def _trec_tools() -> Any:
        """The TREC readers and scorer, for the shared tasks' ``trec`` runs (``corpusdb.workflow``
        reaches them through the facade: the relevance package already builds on the workflow)."""
        from types import SimpleNamespace

        from corpusdb.relevance.qrels import read_qrels
        from corpusdb.relevance.runs import read_run
        from corpusdb.relevance.scoring import DEFAULT_MEASURES, score_run

        return SimpleNamespace(read_run=read_run, read_qrels=read_qrels, score_run=score_run,
                               measures=DEFAULT_MEASURES)  # fmt: skip

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
