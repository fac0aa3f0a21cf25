"""``corpusdb task``: run a shared task from a release to a leaderboard (thin over ``SharedTasksMixin``).

``create``, ``team add``, ``submit`` (validated as ``corpusdb validate`` does; late, over-limit and
malformed runs refused with one line each), ``score`` (official metric, document-bootstrap CIs),
``leaderboard`` (text, JSON, Markdown or HTML; rank groups from the paired tests; hidden from teams
until the phase ends), ``feedback`` (one team's own scores), ``end-phase`` and ``list``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.basics.errors import FormatError, InvalidInput, UsageError
from corpusdb.cli.common import emit, err, out, state
from corpusdb.cli.evaluate import SUFFIX, OutFormat, _render

task_app = typer.Typer(help="Shared tasks: teams, submissions, scores, leaderboards.", no_args_is_help=True,
                       rich_markup_mode=None)  # fmt: skip
team_app = typer.Typer(help="Teams of a shared task.", no_args_is_help=True, rich_markup_mode=None)
task_app.add_typer(team_app, name="team")

TaskOpt = Annotated[str | None, typer.Option("--task", help="The task (default: the project's only one).")]
PhaseOpt = Annotated[
    str | None, typer.Option("--phase", help="The phase (default: the open one, else the last).")
]
Fmt = Annotated[OutFormat | None, typer.Option("--format", "-f", help="text, json, markdown or html.")]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")]
Bootstrap = Annotated[int, typer.Option("--bootstrap", "-B", help="Document-bootstrap resamples for CIs.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and the paired tests.")]


def _task(c: Any, name: str | None) -> str:
    if name is not None:
        return name
    tasks = c.tasks()
    if len(tasks) != 1:
        raise UsageError(f"give --task NAME ({', '.join(t.name for t in tasks) or 'no task yet'})")
    return str(tasks[0].name)


@task_app.command("create")
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The task's name.")],
    release: Annotated[str, typer.Option("--release", help="The release whose split is the reference.")],
    split: Annotated[str, typer.Option("--split", help="The reference split (e.g. the blind test split).")],
    metric: Annotated[
        str, typer.Option("--metric", help="bb, biorelex, ner, rename, triage, ranked or trec.")
    ],
    phase: Annotated[str, typer.Option("--phase", help="Phases in order, comma-separated.")] = "test",
    runs_per_team: Annotated[
        int, typer.Option("--runs-per-team", help="Runs a team may submit per phase.")
    ] = 5,
    deadline: Annotated[
        str | None, typer.Option("--deadline", help="ISO 8601 with a time zone, e.g. 2026-12-01T23:59+00:00.")
    ] = None,
) -> None:
    """Create a shared task on a release's split."""
    when = None
    if deadline is not None:
        try:
            when = datetime.fromisoformat(deadline)
        except ValueError as exc:
            raise UsageError(f"--deadline {deadline!r} is not an ISO 8601 time") from exc
    st = state(ctx)
    info = st.corpus().create_task(name, release=release, split=split, metric=metric, phases=phase.split(","),
                                   runs_per_team=runs_per_team, deadline=when)  # fmt: skip
    emit(st, info.to_dict(), lambda: out.print(f"task {info.name}: {info.metric} on {info.release} "
                                               f"({info.split}), phase {info.phase} open", markup=False))  # fmt: skip


@team_app.command("add")
def team_add(
    ctx: typer.Context,
    team: Annotated[str, typer.Argument(help="The team's name.")],
    member: Annotated[
        list[str] | None, typer.Option("--member", "-m", help="A member (annotator/login), repeatable.")
    ] = None,
    task: TaskOpt = None,
) -> None:
    """Add a team (its members see only their own team's runs and scores)."""
    st = state(ctx)
    c = st.corpus()
    name = _task(c, task)
    c.add_team(name, team, member or [])
    emit(st, {"task": name, "team": team, "members": member or []},
         lambda: out.print(f"team {team} added to task {name}", markup=False))  # fmt: skip


@task_app.command("submit")
def submit(
    ctx: typer.Context,
    team: Annotated[str, typer.Argument(help="The submitting team.")],
    files: Annotated[
        list[Path], typer.Argument(help="The run's files or folder (.a2/.ann; .a1 if not given).")
    ],
    run: Annotated[str | None, typer.Option("--run", help="The run's name (default: run1, run2...).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Only validate (store nothing).")] = False,
    task: TaskOpt = None,
) -> None:
    """Validate a team's run and store it as prediction sets; late, over-limit or malformed runs are
    refused. A team member (not a lead) hands the run in: it waits for the organizers' `task intake`."""
    st = state(ctx)
    c = st.corpus()
    name = _task(c, task)
    try:
        if check:
            import tempfile

            with tempfile.TemporaryDirectory(prefix="corpusdb-check-") as tmp:
                problems = c.check_run(name, files, Path(tmp) / "texts")
            if any(p.severity == "error" for p in problems):
                raise FormatError(problems)
            for p in problems:
                err.print(str(p), markup=False, soft_wrap=True)
            out.print("the run is well formed", markup=False)
            return
        if c.actor.role != "lead":  # a team member: queued for the organizers' `task intake`
            sid = c.hand_in_run(name, team, files, run=run)
            emit(st, {"task": name, "team": team, "submission": sid, "status": "queued"},
                 lambda: out.print(f"run handed in (submission {sid}); the organizers' intake validates and "
                                   "stores it: see `corpusdb task submissions`", markup=False))  # fmt: skip
            return
        info = c.submit_run(name, team, files, run=run)
    except FormatError as exc:
        for p in exc.problems:
            sys.stdout.write(f"{p}\n")
        n = sum(p.severity == "error" for p in exc.problems)
        raise InvalidInput(
            f"run refused: {n} error(s), listed above (check it with `corpusdb validate`)"
        ) from None
    emit(st, info.to_dict(), lambda: out.print(f"run {info.team}/{info.name} stored ({info.documents} documents, "
                                               f"phase {info.phase})", markup=False))  # fmt: skip


def _board_text(body: dict[str, Any], markdown: bool) -> str:
    head = body["headline"]
    rows = []
    for e in body["systems"]:
        s = next((x for x in e["scores"] if x["name"] == head), {})
        ci = (s.get("ci") or {}).get("f1") or {}
        lo, hi = ci.get("low"), ci.get("high")
        rows.append((e.get("rank"), e.get("group"), e["name"], s.get("f1"), lo, hi))
    rows.sort(key=lambda r: (r[0] or 0, r[2]))

    def f(x: Any) -> str:
        return "-" if x is None else f"{x:.4f}"

    lines = [f"leaderboard: task {body['options'].get('task', body.get('task'))} phase "
             f"{body['options'].get('phase', body.get('phase'))}, {head} F1; runs sharing a group do not differ "
             f"significantly (paired test, p >= 0.05 against the group's first run)"] if "options" in body else []  # fmt: skip
    said = (body.get("options") or {}).get("derived_relations") or body.get("derived_relations")
    if said:  # whether the schema's derived relations were scored: always said
        lines.append(f"derived relations: {said}")
    if markdown:
        lines += ["", "| rank | group | run | F1 | CI low | CI high |", "|---|---|---|---|---|---|"]
        lines += [f"| {r[0]} | {r[1]} | {r[2]} | {f(r[3])} | {f(r[4])} | {f(r[5])} |" for r in rows]
    else:
        lines += [f"{'rank':>4}  {'group':>5}  {'run':<24}  {'F1':>6}  CI"]
        lines += [f"{r[0]:>4}  {r[1]:>5}  {r[2]:<24}  {f(r[3]):>6}  [{f(r[4])}, {f(r[5])}]" for r in rows]
    return "\n".join(lines) + "\n"


def _board_html(body: dict[str, Any]) -> str:
    """The leaderboard table with CI whiskers (inline SVG), then the full evaluation report."""
    head = body["headline"]
    rows = []
    for e in sorted(body["systems"], key=lambda e: (e.get("rank") or 0, e["name"])):
        s = next((x for x in e["scores"] if x["name"] == head), {})
        ci = (s.get("ci") or {}).get("f1") or {}
        f1, lo, hi = s.get("f1"), ci.get("low"), ci.get("high")
        svg = ""
        if f1 is not None:
            x = lambda v: 5 + 290 * float(v)  # noqa: E731 (0..1 on a 300px axis)
            whisker = (f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="8" y2="8" stroke="#333"/>'
                       if lo is not None and hi is not None else "")  # fmt: skip
            svg = (f'<svg width="300" height="16" role="img" aria-label="F1 {f1:.4f}">{whisker}'
                   f'<circle cx="{x(f1):.1f}" cy="8" r="4" fill="#4363d8"/></svg>')  # fmt: skip
        rows.append(f"<tr><td>{e.get('rank')}</td><td>{e.get('group')}</td><td>{escape(e['name'])}</td>"
                    f"<td>{'-' if f1 is None else f'{f1:.4f}'}</td><td>{svg}</td></tr>")  # fmt: skip
    table = ("<h1>Leaderboard</h1><p>Runs sharing a group do not differ significantly (paired test, p &ge; 0.05 "
             "against the group's first run); whiskers: document-bootstrap CI of F1.</p>"
             "<table><tr><th>rank</th><th>group</th><th>run</th><th>F1</th><th>F1 and CI</th></tr>"
             + "".join(rows) + "</table>")  # fmt: skip
    if "options" not in body:  # a team's view: the stored scores, no full report
        return f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Leaderboard</title></head><body>{table}</body></html>\n'
    page = _render(body, OutFormat.html)
    return page.replace("<body>", "<body>" + table, 1)


def _write(st: Any, text: str, output: Path | None) -> None:
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}", markup=False)
    else:
        sys.stdout.write(text)


Derived = Annotated[
    str,
    typer.Option(
        "--derived", help="include or exclude the relations the schema's rules derive (stated in the report)."
    ),
]


@task_app.command("score")
def score(ctx: typer.Context, task: TaskOpt = None, phase: PhaseOpt = None, bootstrap: Bootstrap = 1000,
          seed: Seed = 0, derived: Derived = "exclude", reference: Annotated[Path | None, typer.Option(
              "--reference", help="triage/ranked/trec tasks: the gold (DOC<TAB>LABEL, DOC<TAB>ITEM, qrels; "
              "trec: default the project's qrels).")] = None,
          fmt: Fmt = None, output: Output = None) -> None:  # fmt: skip
    """Score every run of the phase with the task's official metric and document-bootstrap CIs (organizers)."""
    st = state(ctx)
    c = st.corpus()
    body = c.score_task(_task(c, task), phase=phase, bootstrap=bootstrap, seed=seed, derived=derived,
                        reference=reference)  # fmt: skip
    fmt = fmt or (SUFFIX.get(output.suffix.lower()) if output else None) or OutFormat.text
    if body.get("task") == "trec" and fmt != OutFormat.json:  # trec_eval's measures: one table
        _write(st, _trec_text(body), output)
        return
    _write(st, _render(body, fmt), output)


def _trec_text(body: dict[str, Any]) -> str:
    """A trec task's scoring as text: each run's mean of every measure, ranked by AP, with its group."""
    ms = body["measures"]
    by = {s["name"]: s for s in body["systems"]}
    lines = [f"trec scoring against {body['reference']} (ranked by mean AP; runs sharing a group do not "
             "differ significantly)", "\t".join(["rank", "group", "run", "topics", *ms])]  # fmt: skip
    for r in body["ranking"]:
        s = by[r["system"]]
        lines.append("\t".join([str(r["rank"]), str(r["group"]), r["system"], str(s["topics"]),
                                *(f"{s['mean'].get(m, 0.0):.4f}" for m in ms)]))  # fmt: skip
    return "\n".join(lines) + "\n"


@task_app.command("leaderboard")
def leaderboard(ctx: typer.Context, task: TaskOpt = None, phase: PhaseOpt = None, bootstrap: Bootstrap = 1000,
                seed: Seed = 0, fmt: Fmt = None, output: Output = None, derived: Derived = "exclude") -> None:  # fmt: skip
    """Rank the runs (CI whiskers, rank groups); teams see it once the phase has ended."""
    st = state(ctx)
    c = st.corpus()
    body = c.leaderboard(_task(c, task), phase=phase, bootstrap=bootstrap, seed=seed, derived=derived)
    fmt = fmt or (SUFFIX.get(output.suffix.lower()) if output else None) or OutFormat.text
    if fmt == OutFormat.json:
        text = json.dumps(body, indent=2, ensure_ascii=False, default=str) + "\n"
    elif fmt == OutFormat.html:
        text = _board_html(body)
    else:
        text = _board_text(body, fmt == OutFormat.markdown)
    _write(st, text, output)


@task_app.command("feedback")
def feedback(
    ctx: typer.Context, team: Annotated[str, typer.Argument(help="The team.")], task: TaskOpt = None
) -> None:
    """One team's own runs and scores (per type, per document counts) and its false positives and
    negatives item by item; nothing of other teams."""
    st = state(ctx)
    c = st.corpus()
    rows = c.feedback(_task(c, task), team)

    def render() -> None:
        for r in rows:
            out.print(f"{r['run']} ({r['phase']}, {r['documents']} documents)", markup=False)
            for s in (r["scores"] or {}).get("scores", []):
                out.print(
                    f"  {s['name']}: tp {s['tp']} fn {s['fn']} fp {s['fp']} F1 {s.get('f1')}", markup=False
                )
            if not r["scores"]:
                out.print("  not scored yet", markup=False)
            if r.get("errors_hidden"):
                out.print(f"  false positives and negatives: hidden {r['errors_hidden']}", markup=False)
            errs = r.get("errors") or {}
            for key, label in (("false_negatives", "missed (false negatives)"),
                               ("false_positives", "wrong (false positives)")):  # fmt: skip
                items = errs.get(key) or []
                if r["scores"] and not r.get("errors_hidden"):
                    out.print(f"  {label}: {len(items)}", markup=False)
                for e in items:
                    credit = f" (credit {e['credit']:g})" if e.get("credit") else ""
                    out.print(f"    {e['document']}: {e['item']}{credit}", markup=False)

    emit(st, rows, render)


@task_app.command("intake")
def intake(ctx: typer.Context, task: TaskOpt = None) -> None:
    """Take in the runs team members handed in: each validated and stored, or refused with its problems."""
    st = state(ctx)
    c = st.corpus()
    rows = c.intake_runs(_task(c, task))

    def render() -> None:
        if not rows:
            out.print("no run waiting for intake", markup=False)
        _print_with_problems(
            rows,
            lambda r: (
                f"submission {r['id']} of {r['team']}: {r['status']}"
                + (f" as {r['run']}" if r["status"] == "stored" else "")
            ),
        )

    emit(st, rows, render)


@task_app.command("submissions")
def submissions(ctx: typer.Context, task: TaskOpt = None) -> None:
    """Handed-in runs and what became of them (a member: their own team's only)."""
    st = state(ctx)
    c = st.corpus()
    rows = c.task_submissions(_task(c, task))

    def render() -> None:
        _print_with_problems(
            rows,
            lambda r: (
                f"{r['id']}: {r['team']} {r['run'] or '(next run)'} by {r['submitted_by']}, {r['status']}"
            ),
        )

    emit(st, rows, render)


def _print_with_problems(rows: list[dict], headline: Callable[[dict], str]) -> None:
    """One line per submission, then its validator problems indented (intake and submissions alike)."""
    for r in rows:
        out.print(headline(r), markup=False)
        for p in r["problems"]:
            out.print(f"  {p}", markup=False)


@task_app.command("end-phase")
def end_phase(ctx: typer.Context, task: TaskOpt = None) -> None:
    """End the open phase: its leaderboard becomes visible to teams; the next phase opens."""
    st = state(ctx)
    c = st.corpus()
    info = c.end_phase(_task(c, task))
    emit(st, info.to_dict(), lambda: out.print(f"task {info.name}: ended {info.ended[-1]}; "
                                               f"open: {info.phase or 'none'}", markup=False))  # fmt: skip


@task_app.command("list")
def list_tasks(ctx: typer.Context) -> None:
    """The project's shared tasks."""
    st = state(ctx)
    infos = st.corpus().tasks()
    emit(st, [i.to_dict() for i in infos], lambda: [out.print(
        f"{i.name}: {i.metric} on {i.release} ({i.split}), phase {i.phase or 'ended'}, "
        f"{i.runs_per_team} runs/team, deadline {i.deadline or 'none'}", markup=False) for i in infos])  # fmt: skip


def register(app: typer.Typer) -> None:
    app.add_typer(task_app, name="task")
