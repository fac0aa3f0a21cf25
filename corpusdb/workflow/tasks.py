"""Shared tasks: a task on a release's split, teams, submitted runs, scores and a leaderboard.

Why here, on releases and evaluation: the reference is a release's split (its gold stays in the stored
snapshot even when the release is blind), a run is stored as prediction sets of a system annotator of
its own (``task:NAME/TEAM/RUN@PHASE``), so scoring reads it as any system (``evaluation_data``), and
the scorers are :mod:`corpusdb.evaluation`'s official ones, with document-bootstrap CIs and paired
tests (``corpusdb.evaluation.report``). Intake checks a run with the participants' validator
(:func:`guidelines.submission.check_submission`) against the release's schema and texts (and given
layers), so a run that passes ``corpusdb validate`` at home passes here.

Who sees what: leads and adjudicators (the organizers) see everything. A team member (an annotator
named in a team's ``members``) sees only their team's runs and scores (``feedback``), and the
leaderboard only once its phase has ended.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select, update

from corpusdb.basics.errors import Conflict, FormatError, InvalidInput, NotFound, PermissionDenied, Problem
from corpusdb.basics.names import check_name
from corpusdb.services.base import ServiceBase, aware, utcnow_aware
from corpusdb.store import tables
from corpusdb.workflow.task_tsv import (
    HEADLINE,
    TSV_METRICS,
    check_run_file,
    parse_run,
    read_reference,
    run_documents,
    tsv_report,
)

T = tables.shared_task
TEAM = tables.task_team
RUN = tables.task_run
SUB = tables.task_submission
A = tables.annotator
R = tables.release

METRICS: tuple[str, ...] = ("bb", "biorelex", "ner", "rename", "triage", "ranked", "trec")
SCORED: dict[str, tuple[str, str]] = {
    "bb": ("bb2011", "all"),
    "rename": ("rename2011", "strict"),
    "ner": ("ner", "all"),
    "biorelex": ("biorelex", "Relation Extraction (any)"),
}
"""Metrics ``score`` computes today: metric -> (report task name, headline score)."""
ALPHA = 0.05
"""Runs whose paired test against their rank group's leader has p >= ALPHA share its group."""


@dataclass(frozen=True, slots=True)
class TaskInfo:
    name: str
    release: str
    split: str
    metric: str
    phases: tuple[str, ...]
    phase: str
    ended: tuple[str, ...]
    runs_per_team: int
    deadline: datetime | None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "release": self.release, "split": self.split, "metric": self.metric,
                "phases": list(self.phases), "phase": self.phase, "ended": list(self.ended),
                "runs_per_team": self.runs_per_team,
                "deadline": self.deadline.isoformat() if self.deadline else None}  # fmt: skip


@dataclass(frozen=True, slots=True)
class RunInfo:
    task: str
    team: str
    name: str
    phase: str
    documents: int
    system: str
    """The system annotator holding the run's prediction sets."""

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "team": self.team, "run": self.name, "phase": self.phase,
                "documents": self.documents, "system": self.system}  # fmt: skip


def system_name(task: str, team: str, run: str, phase: str) -> str:
    return f"task:{task}/{team}/{run}@{phase}"


def rank_groups(
    ranking: Sequence[dict[str, Any]], tests: Sequence[dict[str, Any]], alpha: float = ALPHA
) -> dict[str, int]:
    """Rank groups from the ranking and the paired tests: walking down the ranking, a run joins the
    group of the run that opened it unless their paired test says they differ (p < ``alpha``), in which
    case it opens the next group. Why against the group's leader: groups never chain a run into the
    group of one it differs from significantly."""
    p = {frozenset((t["a"], t["b"])): t.get("p_value") for t in tests}
    groups: dict[str, int] = {}
    leader, group = None, 0
    for row in ranking:
        name = row["system"]
        pv = p.get(frozenset((leader, name))) if leader is not None else None
        if leader is None or (pv is not None and pv < alpha):
            group += 1
            leader = name
        groups[name] = group
    return groups


class SharedTasksMixin(ServiceBase):
    """``task create``, ``team add``, ``submit``, ``score``, ``leaderboard``, ``feedback``, ``end``."""

    # -- reading ---------------------------------------------------------------------------------
    def _task_row(self, conn: Any, name: str) -> Any:
        row = conn.execute(select(T).where(T.c.project_id == self.project_id, T.c.name == name)).first()
        if row is None:
            raise NotFound(f"no shared task {name!r} in this project (`corpusdb task create`)")
        return row

    @staticmethod
    def _info(row: Any) -> TaskInfo:
        return TaskInfo(row.name, row.release, row.split, row.metric, tuple(row.phases or ()), row.phase,
                        tuple(row.ended or ()), row.runs_per_team, aware(row.deadline) if row.deadline else None)  # fmt: skip

    def _organizer(self) -> bool:
        return self.actor.role in ("lead", "adjudicator")

    def _my_teams(self, conn: Any, task_id: int) -> set[int]:
        rows = conn.execute(select(TEAM.c.id, TEAM.c.members).where(TEAM.c.task_id == task_id)).all()
        return {r.id for r in rows if self.actor.label in (r.members or [])}

    def task(self, name: str) -> TaskInfo:
        with self._read() as conn:
            return self._info(self._task_row(conn, name))

    def tasks(self) -> list[TaskInfo]:
        with self._read() as conn:
            rows = conn.execute(select(T).where(T.c.project_id == self.project_id).order_by(T.c.id)).all()
        return [self._info(r) for r in rows]

    # -- organizing ------------------------------------------------------------------------------
    def create_task(self, name: str, *, release: str, split: str, metric: str, phases: Sequence[str] = ("test",),
                    runs_per_team: int = 5, deadline: datetime | None = None) -> TaskInfo:  # fmt: skip
        """A task scored against ``release``'s ``split`` with ``metric``; the first phase is open."""
        self._require("lead", doing="create shared tasks")
        check_name(name, "task name")
        if metric not in METRICS:
            raise InvalidInput(f"--metric must be one of {', '.join(METRICS)}, not {metric!r}")
        phases = [p.strip() for p in phases if p.strip()]
        if not phases or len(set(phases)) != len(phases):
            raise InvalidInput("--phase: give one or more distinct phase names, e.g. dev,test")
        if runs_per_team < 1:
            raise InvalidInput("--runs-per-team must be 1 or more")
        if deadline is not None and deadline.tzinfo is None:
            raise InvalidInput("--deadline needs a time zone, e.g. 2026-12-01T23:59:00+00:00")
        with self._write() as conn:
            snap = conn.execute(
                select(R.c.snapshot).where(R.c.project_id == self.project_id, R.c.version == release)
            ).scalar_one_or_none()
            if snap is None:
                raise NotFound(f"no release {release!r} in this project")
            if split not in (snap.get("splits") or {}):
                raise InvalidInput(
                    f"release {release} has no split {split!r} ({', '.join(sorted(snap.get('splits') or {}))})"
                )
            if conn.execute(
                select(T.c.id).where(T.c.project_id == self.project_id, T.c.name == name)
            ).first():
                raise Conflict(f"shared task {name!r} exists already")
            conn.execute(insert(T).values(project_id=self.project_id, name=name, release=release, split=split,
                                          metric=metric, phases=phases, phase=phases[0], ended=[],
                                          runs_per_team=runs_per_team, deadline=deadline, created=utcnow_aware()))  # fmt: skip
            self._audit(conn, "task create", name, release=release, split=split, metric=metric)
        return self.task(name)

    def add_team(self, task: str, team: str, members: Sequence[str] = ()) -> None:
        """A team of ``task``; ``members`` are annotator names (created as annotators if missing)."""
        self._require("lead", doing="add teams")
        check_name(team, "team name")
        known = {a.name for a in self.annotators()}  # type: ignore[attr-defined]
        for m in members:
            if m not in known:
                self.add_annotator(m)  # type: ignore[attr-defined]
        with self._write() as conn:
            row = self._task_row(conn, task)
            if conn.execute(select(TEAM.c.id).where(TEAM.c.task_id == row.id, TEAM.c.name == team)).first():
                raise Conflict(f"team {team!r} is already in task {task}")
            conn.execute(
                insert(TEAM).values(task_id=row.id, name=team, members=list(members), created=utcnow_aware())
            )
            self._audit(conn, "task team add", f"{task}/{team}", members=list(members))

    def end_phase(self, task: str) -> TaskInfo:
        """End the open phase (its leaderboard becomes visible to teams) and open the next one."""
        self._require("lead", doing="end a task's phase")
        with self._write() as conn:
            row = self._task_row(conn, task)
            if not row.phase:
                raise Conflict(f"task {task} has no open phase (every phase has ended)")
            phases = list(row.phases or ())
            nxt = phases[phases.index(row.phase) + 1] if phases.index(row.phase) + 1 < len(phases) else ""
            conn.execute(
                update(T).where(T.c.id == row.id).values(phase=nxt, ended=[*(row.ended or ()), row.phase])
            )
            self._audit(conn, "task end phase", task, phase=row.phase)
        return self.task(task)

    # -- intake ----------------------------------------------------------------------------------
    def _release_files(self, release: str) -> tuple[Any, dict[str, bytes]]:
        from corpusdb.workflow.releases import render
        from guidelines.schema import schema_from_dict

        with self._read() as conn:
            snap, log = conn.execute(
                select(R.c.snapshot, R.c.changelog).where(R.c.project_id == self.project_id, R.c.version == release)
            ).one()  # fmt: skip
        files, _ = render(snap, log or {})
        return schema_from_dict(snap["schema_definition"]), files

    def check_run(self, task: str, files: Sequence[Path], texts: Path) -> list[Problem]:
        """The participants' validator on ``files`` with the task's schema and the split's texts (and
        given layers) written to ``texts``; plus documents outside the task's split."""
        from guidelines.submission import check_submission

        info = self.task(task)
        schema, rel = self._release_files(info.release)
        blind = any(p.startswith("participants/") for p in rel)
        prefix = "participants/texts/" if blind else f"brat/{info.split}/"
        texts.mkdir(parents=True, exist_ok=True)
        split_docs = set()
        for path, body in rel.items():
            if path.startswith(prefix) and (path.endswith(".txt") or (blind and path.endswith(".a1"))):
                (texts / path[len(prefix) :]).write_bytes(body)
                split_docs.add(path[len(prefix) :].rpartition(".")[0])
        res = check_submission(schema, list(files), texts)
        problems = list(res.problems)
        for doc in res.documents:
            if doc not in split_docs:
                problems.append(
                    Problem(doc, None, f"document {doc} is not in the {info.split} split of {info.release}")
                )
        return problems

    def _intake_checks(
        self, conn: Any, task: str, team: str, run: str | None, now: datetime
    ) -> tuple[Any, Any, str]:
        """The task's row, the team's row and the run's name, or the one-line refusal (no open phase,
        deadline passed, run limit used, name taken)."""
        row = self._task_row(conn, task)
        trow = conn.execute(select(TEAM).where(TEAM.c.task_id == row.id, TEAM.c.name == team)).first()
        if trow is None:
            raise NotFound(f"no team {team!r} in task {task} (`corpusdb task team add`)")
        if not row.phase:
            raise Conflict(f"task {task}: every phase has ended; run refused")
        if row.deadline is not None and now > aware(row.deadline):
            raise Conflict(
                f"task {task}: the deadline {aware(row.deadline).isoformat()} has passed; run refused"
            )
        used = conn.execute(
            select(func.count()).select_from(RUN).where(RUN.c.team_id == trow.id, RUN.c.phase == row.phase)
        ).scalar_one()
        if used >= row.runs_per_team:
            raise Conflict(
                f"task {task}: team {team} has used its {row.runs_per_team} run(s) in phase {row.phase}; run refused"
            )
        name = run or f"run{used + 1}"
        check_name(name, "run name")
        if conn.execute(select(RUN.c.id).where(RUN.c.team_id == trow.id, RUN.c.phase == row.phase,
                                               RUN.c.name == name)).first():  # fmt: skip
            raise Conflict(f"team {team} already has a run {name!r} in phase {row.phase}")
        return row, trow, name

    def submit_run(self, task: str, team: str, files: Sequence[Path], *, run: str | None = None,
                   now: datetime | None = None) -> RunInfo:  # fmt: skip
        """Validate and store a team's run in the open phase; refuses late, over-limit and malformed
        runs (a :class:`FormatError` lists every problem with its file and line).

        All or nothing: the run's prediction sets and its ``task_run`` row are written in one
        transaction (the import's), and the refusals are checked again inside it, so a file the import
        refuses, a failing write or a concurrent submission leaves nothing behind. Problems the import
        finds name the submitted file (not the working copy) and its line."""
        self._require("lead", doing="take in shared-task runs")
        now = now or utcnow_aware()
        with self._read() as conn:  # refuse early, before reading any file
            row, trow, name = self._intake_checks(conn, task, team, run, now)
        system = system_name(task, team, name, row.phase)
        if row.metric in TSV_METRICS:
            return self._submit_tsv_run(task, team, files, run, now, row, name, system)
        work = Path(tempfile.mkdtemp(prefix="corpusdb-run-"))
        from guidelines.submission import submitted_documents

        docs: dict[str, list[Path]] = {}

        def store_run(conn: Any) -> None:
            row2, _, name2 = self._intake_checks(conn, task, team, run, now)
            if (row2.phase, name2) != (row.phase, name):
                raise Conflict(
                    f"task {task}: team {team}'s runs changed while this one was read; submit it again"
                )
            aid = conn.execute(
                select(A.c.id).where(A.c.project_id == self.project_id, A.c.name == system)
            ).scalar_one()
            conn.execute(insert(RUN).values(task_id=row.id, team_id=trow.id, annotator_id=aid, name=name,
                                            phase=row.phase, documents=len(docs), created=utcnow_aware()))  # fmt: skip
            self._audit(conn, "task submit", f"{task}/{team}/{name}", phase=row.phase, documents=len(docs))

        try:
            texts = work / "texts"
            problems = self.check_run(task, files, texts)
            if any(p.severity == "error" for p in problems):
                raise FormatError(problems)
            folder = work / "run"
            folder.mkdir()
            docs.update(submitted_documents(files))
            origin: dict[str, str] = {}
            for stem, paths in docs.items():
                for p in paths:
                    shutil.copy(p, folder / p.name)
                    origin[str(folder / p.name)] = str(p)
                for ext in ("txt", "a1"):
                    src = texts / f"{stem}.{ext}"
                    if src.is_file() and not (folder / src.name).exists():
                        shutil.copy(src, folder / src.name)
            try:
                self.import_brat(folder, system, kind="prediction", then=store_run)  # type: ignore[attr-defined]
            except FormatError as exc:  # the participant's file names, not our working copy's
                raise FormatError(
                    [replace(p, file=_origin(p.file, origin, folder)) for p in exc.problems]
                ) from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return RunInfo(task, team, name, row.phase, len(docs), system)

    def _split_documents(self, info: TaskInfo) -> set[str]:
        """The documents of the task's split in its release (the texts given to participants)."""
        _, rel = self._release_files(info.release)
        blind = any(p.startswith("participants/") for p in rel)
        prefix = "participants/texts/" if blind else f"brat/{info.split}/"
        return {
            p[len(prefix) :].rpartition(".")[0] for p in rel if p.startswith(prefix) and p.endswith(".txt")
        }

    def _submit_tsv_run(self, task: str, team: str, files: Sequence[Path], run: str | None, now: datetime,
                        row: Any, name: str, system: str) -> RunInfo:  # fmt: skip
        """A triage, ranked or trec run: one tab-separated file, read and checked all or nothing
        (:mod:`corpusdb.workflow.task_tsv`), kept as sent with its ``task_run`` row in one transaction."""
        info = self.task(task)
        path, parsed = check_run_file(row.metric, files, self._split_documents(info),
                                      f"the {info.split} split of {info.release}", self._trec_tools())  # type: ignore[attr-defined]  # fmt: skip
        text = path.read_text(encoding="utf-8-sig")
        docs = len({d for _, d in run_documents(row.metric, path)})
        with self._write() as conn:
            row2, trow, name2 = self._intake_checks(conn, task, team, run, now)
            if (row2.phase, name2) != (row.phase, name):
                raise Conflict(
                    f"task {task}: team {team}'s runs changed while this one was read; submit it again"
                )
            aid = conn.execute(select(A.c.id, A.c.role).where(A.c.project_id == self.project_id,
                                                              A.c.name == system)).first()  # fmt: skip
            if aid is not None and aid.role != "system":
                raise Conflict(f"{system} is the name of a {aid.role}, not a system")
            if aid is None:
                aid_v = conn.execute(insert(A).values(project_id=self.project_id, name=system, role="system",
                                                      created=utcnow_aware()).returning(A.c.id)).scalar_one()  # fmt: skip
            else:
                aid_v = aid.id
            conn.execute(insert(RUN).values(task_id=row.id, team_id=trow.id, annotator_id=aid_v, name=name,
                                            phase=row.phase, documents=docs, created=utcnow_aware()))  # fmt: skip
            conn.execute(insert(SUB).values(task_id=row.id, team_id=trow.id, run=name, files={path.name: text},
                                            submitted_by=self.actor.label, status="stored", problems=[],
                                            created=now))  # fmt: skip
            self._audit(conn, "task submit", f"{task}/{team}/{name}", phase=row.phase, documents=docs,
                        answers=len(parsed))  # fmt: skip
        return RunInfo(task, team, name, row.phase, docs, system)

    def _tsv_runs(self, task: str, runs: Sequence[RunInfo]) -> dict[str, Any]:
        """Each run's stored file, read again with the same reader: run's ``team/name`` -> run."""
        info = self.task(task)
        with self._read() as conn:
            row = self._task_row(conn, task)
            rows = conn.execute(select(SUB.c.run, SUB.c.files, TEAM.c.name.label("team"))
                                .join(TEAM, TEAM.c.id == SUB.c.team_id)
                                .where(SUB.c.task_id == row.id, SUB.c.status == "stored")
                                .order_by(SUB.c.id)).all()  # fmt: skip
        stored = {(r.team, r.run): r.files for r in rows}  # the latest stored file of each run
        out = {}
        for r in runs:
            files = stored.get((r.team, r.name))
            if not files:
                raise NotFound(f"run {r.team}/{r.name}: its file is not stored")
            fname, text = next(iter(files.items()))
            out[f"{r.team}/{r.name}"] = parse_run(info.metric, Path(fname), self._trec_tools(), text)  # type: ignore[attr-defined]
        return out

    def _score_tsv(self, task: str, info: TaskInfo, ph: str, runs: Sequence[RunInfo], reference: Path | None, *,
                   bootstrap: int, seed: int, test_resamples: int) -> dict[str, Any]:  # fmt: skip
        if reference is None and info.metric != "trec":
            raise InvalidInput(f"task {task}: a {info.metric} task is scored against a reference file: "
                               "give --reference FILE (the organizers' gold, kept out of the release)")  # fmt: skip
        if reference is not None:
            ref, ref_name = read_reference(info.metric, reference, self._trec_tools()), str(reference)  # type: ignore[attr-defined]
        else:
            ref, ref_name = self.qrels().lines, "the project's qrels"  # type: ignore[attr-defined]
            if not ref:
                raise InvalidInput("the project has no qrels yet: give --reference QRELS")
        body = tsv_report(info.metric, ref_name, ref, self._tsv_runs(task, runs), bootstrap=bootstrap, seed=seed,
                          test_resamples=test_resamples,
                          options={"task": task, "phase": ph, "metric": info.metric},
                          trec=self._trec_tools())  # type: ignore[attr-defined]  # fmt: skip
        return body

    # -- runs handed in by team members (team mode) ----------------------------------------------
    def hand_in_run(self, task: str, team: str, files: Sequence[Path], *, run: str | None = None,
                    now: datetime | None = None) -> int:  # fmt: skip
        """A team member hands in a run: its annotation files are queued in ``task_submission`` for
        the organizers' :meth:`intake_runs` (a team login may not create prediction sets itself).
        Refused at once, with one line, when the member is not in ``team``, the phase has ended, the
        deadline has passed or the team's runs and queued submissions reach the limit; a file that is
        not UTF-8 text is named. Returns the submission's id. Check the files first with
        ``corpusdb validate`` (the intake runs the same check)."""
        from guidelines.submission import submitted_documents

        now = now or utcnow_aware()
        with self._read() as conn:
            row = self._task_row(conn, task)
            trow = conn.execute(select(TEAM).where(TEAM.c.task_id == row.id, TEAM.c.name == team)).first()
            if trow is None:
                raise NotFound(f"no team {team!r} in task {task} (`corpusdb task team add`)")
            if self.actor.label not in (trow.members or []) and not self._organizer():
                raise PermissionDenied(f"{self.actor.label} is not a member of team {team}")
            if not row.phase:
                raise Conflict(f"task {task}: every phase has ended; run refused")
            if row.deadline is not None and now > aware(row.deadline):
                raise Conflict(
                    f"task {task}: the deadline {aware(row.deadline).isoformat()} has passed; run refused"
                )
            used = conn.execute(select(func.count()).select_from(RUN)
                                .where(RUN.c.team_id == trow.id, RUN.c.phase == row.phase)).scalar_one()  # fmt: skip
            queued = conn.execute(select(func.count()).select_from(SUB)
                                  .where(SUB.c.team_id == trow.id, SUB.c.status == "queued")).scalar_one()  # fmt: skip
            if used + queued >= row.runs_per_team:
                raise Conflict(f"task {task}: team {team} has used its {row.runs_per_team} run(s) in phase "
                               f"{row.phase} ({queued} waiting for intake); run refused")  # fmt: skip
        if run is not None:
            check_name(run, "run name")
        body: dict[str, str] = {}
        if row.metric in TSV_METRICS:  # one tab-separated file, kept as sent
            one = [
                p
                for f in files
                for p in (sorted(x for x in f.iterdir() if x.is_file()) if f.is_dir() else [f])
            ]
            if len(one) != 1:
                raise InvalidInput(f"a {row.metric} run is one tab-separated file; got {len(one)}")
            try:
                body[one[0].name] = one[0].read_bytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise FormatError.single(one[0], None, f"not UTF-8 text (byte {exc.start})") from None
        for paths in ({} if body else submitted_documents(files)).values():
            for p in paths:
                if p.name in body:
                    raise InvalidInput(f"{p}: a second file named {p.name} in this run")
                try:
                    body[p.name] = p.read_bytes().decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FormatError.single(p, None, f"not UTF-8 text (byte {exc.start})") from None
        if not body:
            raise InvalidInput("no annotation file (.a1, .a2, .ann) in the run")
        with self._write() as conn:
            sid = conn.execute(insert(SUB).values(task_id=row.id, team_id=trow.id, run=run, files=body,
                                                  submitted_by=self.actor.label, status="queued",
                                                  created=now).returning(SUB.c.id)).scalar_one()  # fmt: skip
            self._audit(conn, "task hand in", f"{task}/{team}", submission=sid, files=len(body))
        return int(sid)

    def task_submissions(self, task: str) -> list[dict[str, Any]]:
        """Handed-in runs: every team's for organizers, one's own team's for a member (the server
        hides the rest in team mode). Files are left out; status and problems are in."""
        with self._read() as conn:
            row = self._task_row(conn, task)
            rows = conn.execute(select(SUB.c.id, SUB.c.run, SUB.c.submitted_by, SUB.c.status, SUB.c.problems,
                                       SUB.c.created, SUB.c.team_id, TEAM.c.name.label("team"))
                                .join(TEAM, TEAM.c.id == SUB.c.team_id).where(SUB.c.task_id == row.id)
                                .order_by(SUB.c.id)).all()  # fmt: skip
            mine = None if self._organizer() else self._my_teams(conn, row.id)
        return [{"id": r.id, "team": r.team, "run": r.run, "submitted_by": r.submitted_by, "status": r.status,
                 "problems": list(r.problems or []), "created": aware(r.created).isoformat()}
                for r in rows if mine is None or r.team_id in mine]  # fmt: skip

    def intake_runs(self, task: str) -> list[dict[str, Any]]:
        """Take in every queued run of ``task`` as :meth:`submit_run` does (validated, all or
        nothing; the deadline judged at hand-in time): each becomes ``stored`` or ``refused`` with its
        problems (file name and line). Organizers (leads) only."""
        self._require("lead", doing="take in shared-task runs")
        with self._read() as conn:
            row = self._task_row(conn, task)
            subs = conn.execute(select(SUB, TEAM.c.name.label("team")).join(TEAM, TEAM.c.id == SUB.c.team_id)
                                .where(SUB.c.task_id == row.id, SUB.c.status == "queued")
                                .order_by(SUB.c.id)).all()  # fmt: skip
        out = []
        for sub in subs:
            work = Path(tempfile.mkdtemp(prefix="corpusdb-intake-"))
            problems: list[str] = []
            try:
                for name, text in (sub.files or {}).items():
                    (work / Path(name).name).write_text(text, encoding="utf-8")
                info = self.submit_run(task, sub.team, [work], run=sub.run, now=aware(sub.created))
                status, run = "stored", info.name
            except FormatError as exc:
                status, run = "refused", sub.run
                problems = [str(p).replace(f"{work}/", "") for p in exc.problems]
            except (Conflict, InvalidInput, NotFound) as exc:
                status, run = "refused", sub.run
                problems = [str(exc).replace(f"{work}/", "")]
            finally:
                shutil.rmtree(work, ignore_errors=True)
            with self._write() as conn:
                conn.execute(update(SUB).where(SUB.c.id == sub.id).values(status=status, problems=problems,
                                                                          run=run))  # fmt: skip
            out.append({"id": sub.id, "team": sub.team, "run": run, "status": status, "problems": problems})
        return out

    # -- scoring ---------------------------------------------------------------------------------
    def task_runs(self, task: str, phase: str | None = None) -> list[RunInfo]:
        """The runs the acting user may see: all for organizers, their own team's for a member."""
        with self._read() as conn:
            row = self._task_row(conn, task)
            q = (select(RUN.c.name, RUN.c.phase, RUN.c.documents, RUN.c.team_id, TEAM.c.name.label("team"),
                        A.c.name.label("system"))
                 .join(TEAM, TEAM.c.id == RUN.c.team_id).join(A, A.c.id == RUN.c.annotator_id)
                 .where(RUN.c.task_id == row.id).order_by(RUN.c.id))  # fmt: skip
            if phase is not None:
                q = q.where(RUN.c.phase == phase)
            rows = conn.execute(q).all()
            mine = None if self._organizer() else self._my_teams(conn, row.id)
        return [RunInfo(task, r.team, r.name, r.phase, r.documents, r.system) for r in rows
                if mine is None or r.team_id in mine]  # fmt: skip

    def score_task(self, task: str, *, phase: str | None = None, bootstrap: int = 1000, seed: int = 0,
                   test_resamples: int = 2000, derived: str = "exclude",
                   reference: Path | None = None) -> dict[str, Any]:  # fmt: skip
        """Every run of ``phase`` (default: the open phase, else the last) scored with the task's
        official metric against the release split, with document-bootstrap CIs and paired tests; each
        run's entry is stored. Organizers only: the body holds every team's scores. ``derived``:
        ``include`` adds the relations the schema's rules derive (``guidelines.derive``) to the
        reference and every run before scoring, ``exclude`` (default) drops any; the body says which.
        ``triage``, ``ranked`` and ``trec`` tasks score their stored run files against ``reference``
        (a triage or ranked TSV, a qrels file; trec defaults to the project's qrels) as ``corpusdb
        evaluate triage|ranked`` and ``corpusdb runs score`` do (:mod:`corpusdb.workflow.task_tsv`)."""
        if derived not in ("include", "exclude"):
            raise InvalidInput(f"--derived must be include or exclude, not {derived!r}")
        self._require("lead", "adjudicator", doing="score a shared task")
        from corpusdb.evaluation.report import build_report, system_entry

        info = self.task(task)
        ph = phase or info.phase or (info.phases[-1] if info.phases else "")
        if info.metric in TSV_METRICS:
            runs = self.task_runs(task, ph)
            if not runs:
                raise NotFound(f"task {task} has no run in phase {ph}")
            body = self._score_tsv(task, info, ph, runs, reference, bootstrap=bootstrap, seed=seed,
                                   test_resamples=test_resamples)  # fmt: skip
            return self._store_scores(task, ph, body, runs, [None] * len(runs))
        if info.metric not in SCORED:
            raise InvalidInput(f"task {task}: scoring metric {info.metric!r} is not built in yet "
                               f"(scored today: {', '.join(SCORED)})")  # fmt: skip
        runs = self.task_runs(task, ph)
        if not runs:
            raise NotFound(f"task {task} has no run in phase {ph}")
        data = self.evaluation_data(release=info.release, split=info.split, systems=[r.system for r in runs])  # type: ignore[attr-defined]
        report_task, headline = SCORED[info.metric]
        from guidelines.derive import with_derived, without_derived

        schema, _ = self._release_files(info.release)

        def rule(a: Any) -> Any:
            return with_derived(schema, without_derived(a)) if derived == "include" else without_derived(a)

        reference = {d: rule(a) for d, a in data.reference.items()}
        from corpusdb.evaluation.errors import error_lists

        entries, errors = [], []
        for r in runs:
            pred = data.systems[r.system]
            missing = [d for d in reference if d not in pred]
            answered = {d: rule(a) for d, a in pred.items() if d in reference}
            scored = _score(info.metric, reference, answered, data.texts)
            entries.append(
                system_entry(f"{r.team}/{r.name}", scored, documents=list(reference), unanswered=missing)
            )
            errors.append(error_lists(info.metric, reference, answered, data.texts))
        body = build_report(report_task, data.reference_name, list(reference), entries, headline=headline,
                            bootstrap=bootstrap, seed=seed, test_resamples=test_resamples,
                            options={"task": task, "phase": ph, "metric": info.metric,
                                     "derived_relations": f"{derived}d" + (f" ({', '.join(x.name for x in schema.derive)})"
                                                                           if schema.derive else " (the schema has no rule)")})  # fmt: skip
        return self._store_scores(task, ph, body, runs, errors)

    def _store_scores(self, task: str, ph: str, body: dict[str, Any], runs: Sequence[RunInfo],
                      errors: Sequence[Any]) -> dict[str, Any]:  # fmt: skip
        """Rank groups added to the body, and each run's entry (with its error lists) stored."""
        groups = rank_groups(body["ranking"], body["paired_tests"])
        for row in body["ranking"]:
            row["group"] = groups[row["system"]]
        body["rank_groups"] = {"alpha": ALPHA, "rule": rank_groups.__doc__.split(".")[0].strip() + "."}  # type: ignore[union-attr]
        by_name = {r["system"]: r for r in body["ranking"]}
        said = (body.get("options") or {}).get("derived_relations")
        for entry in body["systems"]:  # what a team member's leaderboard shows once the phase ended
            entry["rank"], entry["group"] = by_name[entry["name"]]["rank"], by_name[entry["name"]]["group"]
            if said:  # scored with or without the derived relations: the stored entry says which
                entry["derived_relations"] = said
        with self._write() as conn:
            trow = self._task_row(conn, task)
            teams = {
                t.name: t.id
                for t in conn.execute(select(TEAM.c.name, TEAM.c.id).where(TEAM.c.task_id == trow.id))
            }
            for entry, r, err in zip(body["systems"], runs, errors, strict=True):
                entry = {k: v for k, v in entry.items() if k != "per_topic"}
                conn.execute(update(RUN).where(RUN.c.task_id == trow.id, RUN.c.team_id == teams[r.team],
                                               RUN.c.phase == ph, RUN.c.name == r.name)
                             .values(scores=_plain({**entry, **({"errors": err} if err is not None else {})})))  # fmt: skip
            self._audit(conn, "task score", task, phase=ph, runs=len(runs))
        return body

    def leaderboard(self, task: str, *, phase: str | None = None, bootstrap: int = 1000, seed: int = 0,
                    test_resamples: int = 2000, derived: str = "exclude") -> dict[str, Any]:  # fmt: skip
        """The scored runs ranked with CIs and rank groups. Teams see it only once the phase ended.
        ``derived``: organizers score with the schema's derived relations included or excluded; teams
        read the stored scoring, which says which (``derived_relations``)."""
        info = self.task(task)
        ph = phase or info.phase or (info.phases[-1] if info.phases else "")
        if self._organizer() and info.metric not in TSV_METRICS:
            return self.score_task(
                task, phase=ph, bootstrap=bootstrap, seed=seed, test_resamples=test_resamples, derived=derived
            )
        # triage, ranked and trec tasks: the stored scoring of `task score --reference` (organizers too)
        if ph not in info.ended and not self._organizer():
            raise PermissionDenied(
                f"task {task}: the {ph} leaderboard is hidden from teams until the phase ends"
            )
        with self._read() as conn:  # the organizers' stored scoring, as it was when the phase ended
            row = self._task_row(conn, task)
            rows = conn.execute(select(RUN.c.scores).where(RUN.c.task_id == row.id, RUN.c.phase == ph)).all()
        entries = sorted(  # without the error lists: they are each team's own (``feedback``)
            ({k: v for k, v in r.scores.items() if k != "errors"} for r in rows if r.scores),
            key=lambda e: (e["rank"], e["name"]),
        )
        if not entries:
            raise NotFound(f"task {task}: the {ph} runs have not been scored yet")
        head = SCORED[info.metric][1] if info.metric in SCORED else HEADLINE.get(info.metric, "all")
        said = sorted({str(e["derived_relations"]) for e in entries if e.get("derived_relations")})
        return {"task": task, "phase": ph, "headline": head, "systems": entries,
                **({"derived_relations": "; ".join(said)} if said else {}),
                "ranking": [{"rank": e["rank"], "system": e["name"], "group": e["group"],
                             "f1": next((s.get("f1") for s in e["scores"] if s["name"] == head), None)}
                            for e in entries]}  # fmt: skip

    def feedback(self, task: str, team: str) -> list[dict[str, Any]]:
        """A team's stored scores per run (per type; per document counts) and its false positives and
        false negatives item by item (``errors``, :mod:`corpusdb.evaluation.errors`): organizers, or
        the team's own members; never another team's data. A member reads the error lists of a run
        only once its phase has ended (``errors_hidden`` says so before): the false negatives are
        reference items, and a blind test split's reference must stay blind while runs are taken."""
        with self._read() as conn:
            row = self._task_row(conn, task)
            trow = conn.execute(select(TEAM).where(TEAM.c.task_id == row.id, TEAM.c.name == team)).first()
            if trow is None:
                raise NotFound(f"no team {team!r} in task {task}")
            if not self._organizer() and self.actor.label not in (trow.members or []):
                raise PermissionDenied(f"only team {team}'s members and the organizers read its feedback")
            rows = conn.execute(select(RUN.c.name, RUN.c.phase, RUN.c.documents, RUN.c.scores)
                                .where(RUN.c.team_id == trow.id).order_by(RUN.c.id)).all()  # fmt: skip
        ended = set(row.ended or ())
        out = []
        for r in rows:
            scores = dict(r.scores) if r.scores else None
            errors = scores.pop("errors", None) if scores else None
            item: dict[str, Any] = {"run": r.name, "phase": r.phase, "documents": r.documents, "scores": scores,
                                    "errors": errors}  # fmt: skip
            if errors is not None and not self._organizer() and r.phase not in ended:
                item["errors"] = None
                item["errors_hidden"] = f"until the {r.phase} phase ends (they show reference items)"
            out.append(item)
        return out


def _score(metric: str, reference: dict[str, Any], predicted: dict[str, Any], texts: dict[str, str]) -> Any:
    """The task's official scores, as ``corpusdb evaluate METRIC`` computes them."""
    if metric == "bb":
        from corpusdb.evaluation.bb2011 import score_bb

        return score_bb(reference, predicted)
    if metric == "ner":  # the bio-NER exact criterion, types required (evaluate ner's defaults)
        from corpusdb.evaluation.ner import reference_spans, score_ner

        return score_ner({d: reference_spans(a) for d, a in reference.items()},
                         {d: a.spans for d, a in predicted.items()}, criterion="exact", types="required",
                         texts=texts)  # fmt: skip
    if metric == "biorelex":
        from corpusdb.evaluation.adapters import sentence_from_records
        from corpusdb.evaluation.biorelex import score_biorelex

        truth = [sentence_from_records(d, texts.get(d, ""), a) for d, a in reference.items()]
        pred = [sentence_from_records(d, texts.get(d, ""), a) for d, a in predicted.items()]
        return score_biorelex(truth, pred)
    from corpusdb.evaluation.bb2011 import score_rename

    return score_rename(reference, predicted)


def _plain(value: Any) -> Any:
    """``value`` as plain JSON (numpy numbers, as some scorers' figures are, become floats)."""
    import json

    def num(x: Any) -> Any:
        if hasattr(x, "item"):
            return x.item()
        raise TypeError(f"not JSON: {type(x).__name__}")

    return json.loads(json.dumps(value, default=num))


def _origin(file: str, origin: dict[str, str], folder: Path) -> str:
    """A problem's file in the participant's terms: the submitted file a working copy came from; a
    text or given layer we added is named by its file name alone."""
    if file in origin:
        return origin[file]
    for tmp, orig in origin.items():
        if file.startswith(tmp):
            return orig + file[len(tmp) :]
    return file[len(str(folder)) + 1 :] if file.startswith(str(folder)) else file
