"""``corpusdb init``, ``status``, ``schema``, ``guidelines`` and ``annotator``: a project's frame."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import emit, err, out, progress, state


def init(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Project name.")],
    schema: Annotated[
        str,
        typer.Option(
            "--schema", "-s", help="A shipped schema name (see `corpusdb schema list`) or a .toml file."
        ),
    ],
    guideline: Annotated[
        Path | None, typer.Option("--guideline", help="Guideline text (Markdown); default: the schema's own.")
    ] = None,
) -> None:
    """Create a project (and the database, when it does not exist yet)."""
    from corpusdb.api import Corpus

    st = state(ctx)
    text = guideline.read_text(encoding="utf-8") if guideline is not None else None
    c = Corpus.create(name, schema, url=st.url, guideline_text=text)
    info = c.info()
    emit(
        st,
        {"project": info.name, "schema": info.schema_name, "url": st.url},
        lambda: out.print(f"created project {info.name!r} with schema {info.schema_name} in {st.url}"),
    )


def _splits_note(splits: dict[str, int]) -> str:
    """How the documents are split, in words: ``, not split yet`` or ``; splits: train 52, test 13, none 2``
    (not ``((none): 65)``, which read as a typo; issue #26)."""
    named = {k: v for k, v in splits.items() if k not in ("(none)", "", None)}
    if not named:
        return ", not split yet (corpusdb split)"
    parts = [f"{k} {v}" for k, v in named.items()]
    if splits.get("(none)"):
        parts.append(f"not in a split {splits['(none)']}")
    return "; splits: " + ", ".join(parts)


def status(
    ctx: typer.Context,
    time: Annotated[
        bool,
        typer.Option(
            "--time", help="Also active annotation time, throughput, progress per day and a projection."
        ),
    ] = False,
    idle: Annotated[
        float,
        typer.Option(
            "--idle", help="With --time: a gap between two actions longer than this (seconds) is idle."
        ),
    ] = 300.0,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="With --time: also write a self-contained HTML progress report."),
    ] = None,
) -> None:
    """Documents, annotators and annotation sets by status: where the project stands."""
    from rich.table import Table
    from rich.text import Text

    st = state(ctx)
    if html is not None and not time:
        raise UsageError("--html needs --time (the progress report)")
    corpus = st.corpus()
    rep = corpus.status()
    timed = None
    if time:
        with progress("counting time") as bar:
            task = bar.add_task("counting time", total=None)
            timed = corpus.time_report(
                idle_seconds=idle,
                progress=lambda d, n, what: bar.update(task, completed=d, total=n, description=what),
            ).to_dict()
    if html is not None and timed is not None:
        from corpusdb.reports.progress_html import render_progress_html

        html.write_text(render_progress_html(timed), encoding="utf-8")
        err.print(f"wrote {html.name}")

    def render() -> None:
        out.print(
            Text.assemble(
                (rep.project, "bold"),
                f" - schema {rep.schema}, guidelines v{rep.guideline_version}; "
                f"{rep.documents} documents{_splits_note(rep.splits) if rep.documents else ''}",
            )
        )
        t = Table("annotator", "role", "assigned", "in progress", "submitted", "total", title="Annotators")
        for i, a in enumerate(rep.annotators):
            t.add_row(a.name, a.role, str(a.assigned), str(a.in_progress), str(a.submitted), str(a.total),
                      end_section=i == len(rep.annotators) - 1)  # fmt: skip
        sums = [
            sum(getattr(a, f) for a in rep.annotators)
            for f in ("assigned", "in_progress", "submitted", "total")
        ]
        t.add_row(f"total ({len(rep.annotators)})", "", *map(str, sums))
        out.print(t)
        statuses = ("assigned", "in_progress", "submitted")
        t2 = Table("kind", "assigned", "in progress", "submitted", "total", title="Annotation sets")
        kinds = list(rep.sets_by_kind_status.items())
        for i, (kind, by) in enumerate(kinds):
            t2.add_row(kind, *(str(by.get(s, 0)) for s in statuses), str(sum(by.get(s, 0) for s in statuses)),
                       end_section=i == len(kinds) - 1)  # fmt: skip
        col = [sum(by.get(s, 0) for _, by in kinds) for s in statuses]
        t2.add_row("total", *map(str, col), str(sum(col)))
        out.print(t2)
        out.print(
            f"documents ready for adjudication: {rep.documents_ready}; documents with gold: {rep.documents_with_gold} "
            f"({rep.documents_gold_finished} finished)"
        )
        if rep.skipped:  # left out of agreement and releases
            t3 = Table("document", "annotator", "set", "reason", title="Skipped as irrelevant")
            for k in rep.skipped:
                t3.add_row(k.document, k.annotator, k.status, k.reason)
            out.print(t3)
        if timed is not None:
            _render_time(timed)

    emit(st, {**rep.to_dict(), "time": timed} if timed is not None else rep.to_dict(), render)


def _render_time(d: dict) -> None:  # type: ignore[type-arg]
    from rich.table import Table
    from rich.text import Text

    from corpusdb.reports.progress_html import hms

    rate = lambda v: "–" if v is None else f"{v:.1f}"  # noqa: E731
    t = Table(
        "annotator", "active", "documents", "items", "items/hour", "documents/hour", title="Active time"
    )
    for r in d["by_annotator"]:
        t.add_row(r["annotator"], hms(r["active_seconds"]), str(r["documents"]), str(r["items"]),
                  rate(r["items_per_hour"]), rate(r["documents_per_hour"]))  # fmt: skip
    out.print(t)
    tot = d["totals"]
    out.print(
        Text(
            f"{d['rule']}; {tot['idle_gaps']} idle gaps ({hms(tot['idle_seconds_not_counted'])}) not counted",
            style="dim",
        )
    )
    days = Table("day", "submitted", "adjudicated", "finished", "finished (total)", title="Progress per day")
    for r in d["progress"][-14:]:
        days.add_row(
            r["day"], str(r["submitted"]), str(r["adjudicated"]), str(r["finished"]), str(r["finished_total"])
        )
    out.print(days)
    p = d["projection"]
    when = (
        f"done by {p['date']} ({p['days_left']} days)" if p["date"] else "no completion date (no recent pace)"
    )
    out.print(f"finished {p['done']} of {p['documents']} at {p['pace_per_day']:g} documents/day: {when}")
    tva = d.get("time_vs_agreement")
    if tva and tva["rows"]:
        rho = tva["spearman"]
        out.print(f"time against agreement ({len(tva['rows'])} documents): Spearman's rho "
                  f"{'–' if rho is None else f'{rho:.3f}'}")  # fmt: skip


schema_app = typer.Typer(help="Annotation schemas: list, show, check.", no_args_is_help=True)


@schema_app.command("list")
def schema_list(ctx: typer.Context) -> None:
    """The schemas shipped with corpusdb."""
    from guidelines.schema import load_schema, shipped_schemas

    st = state(ctx)
    rows = [{"name": n, "title": load_schema(n).title} for n in shipped_schemas()]
    emit(st, rows, lambda: [out.print(f"{r['name']:<16} {r['title']}") for r in rows])


@schema_app.command("show")
def schema_show(
    ctx: typer.Context,
    name: Annotated[
        str | None, typer.Argument(help="Schema name or file; default: the project's current schema.")
    ] = None,
) -> None:
    """A schema's types, relations, links, labels and attributes."""
    from rich.text import Text

    from guidelines.schema import load_schema

    st = state(ctx)
    sch = load_schema(name) if name is not None else st.corpus().schema()

    def render() -> None:
        out.print(Text.assemble((sch.name, "bold"), f" - {sch.title}"))
        out.print(
            "entities: " + ", ".join(e.name + (f" (< {e.parent})" if e.parent else "") for e in sch.entities)
        )
        for r in sch.relations:
            roles = ", ".join(f"{ro.name}:{'|'.join(ro.types) or '*'}" for ro in r.roles)
            extra = f" labels={r.labels}" if r.labels else ""
            extra += f" tags={','.join(r.tags)}" if r.tags else ""
            out.print(f"{r.kind} {r.name}({roles}) {'directed' if r.directed else 'undirected'}{extra}")
        for lt in sch.links:
            out.print(f"link {lt.name} {'symmetric' if lt.symmetric else 'directed'}")
        for a in sch.attributes:
            out.print(
                f"attribute {a.name} on {'/'.join(a.applies_to)}"
                + (f": {'|'.join(a.values)}" if a.values else "")
            )
        for d in sch.document_labels:
            out.print(f"document label {d.name}: " + ", ".join(f"{v.value}={v.name}" for v in d.values))

    emit(st, sch.to_dict(), render)


@schema_app.command("check")
def schema_check(
    ctx: typer.Context, path: Annotated[Path, typer.Argument(help="A schema .toml file.")]
) -> None:
    """Check a schema file; errors name the file and the problem (exit code 4)."""
    from guidelines.schema import load_schema

    st = state(ctx)
    sch = load_schema(path)
    emit(
        st,
        {"ok": True, "name": sch.name},
        lambda: out.print(f"{path}: ok ({sch.name}, {len(sch.entities)} entity types)"),
    )


guidelines_app = typer.Typer(help="Versioned guidelines: show, history, amend.", no_args_is_help=True)


@guidelines_app.command("show")
def guidelines_show(
    ctx: typer.Context,
    version: Annotated[int | None, typer.Option(help="Version (default: current).")] = None,
) -> None:
    """Print the guideline text of a version."""
    st = state(ctx)
    g = st.corpus().guideline(version)
    emit(st, {"version": g.version, "schema": g.schema_name, "note": g.note, "text": g.text},
         lambda: out.print(g.text or "(no guideline text)", markup=False))  # fmt: skip


@guidelines_app.command("history")
def guidelines_history(ctx: typer.Context) -> None:
    """Every guideline version with the note on what changed."""
    st = state(ctx)
    rows = [{"version": g.version, "schema": g.schema_name, "created": g.created, "note": g.note}
            for g in st.corpus().guidelines()]  # fmt: skip
    emit(st, rows, lambda: [out.print(f"v{r['version']}  {r['created']:%Y-%m-%d}  {r['schema']}  {r['note']}",
                                      markup=False) for r in rows])  # fmt: skip


@guidelines_app.command("amend")
def guidelines_amend(
    ctx: typer.Context,
    note: Annotated[str, typer.Option("--note", "-m", help="What changed (required).")],
    schema: Annotated[str | None, typer.Option(help="New schema name or .toml file.")] = None,
    text: Annotated[Path | None, typer.Option(help="New guideline text file.")] = None,
) -> None:
    """Record a new guideline version (new schema and/or text) with a note."""
    st = state(ctx)
    if schema is None and text is None:
        raise UsageError("give --schema and/or --text: an amendment must change something")
    g = st.corpus().amend_guidelines(
        note=note, schema=schema, text=text.read_text(encoding="utf-8") if text is not None else None
    )
    emit(
        st,
        {"version": g.version, "note": g.note},
        lambda: out.print(f"guidelines now at v{g.version}: {g.note}"),
    )


annotator_app = typer.Typer(help="The people (and systems) who annotate.", no_args_is_help=True)


@annotator_app.command("add")
def annotator_add(
    ctx: typer.Context,
    names: Annotated[list[str], typer.Argument(help="One or more names.")],
    role: Annotated[str, typer.Option(help="annotator, adjudicator, lead or system.")] = "annotator",
) -> None:
    """Add annotators with a role."""
    st = state(ctx)
    added = [st.corpus().add_annotator(n, role) for n in names]
    emit(st, [{"name": a.name, "role": a.role} for a in added],
         lambda: [out.print(f"added {a.name} ({a.role})") for a in added])  # fmt: skip


@annotator_app.command("list")
def annotator_list(ctx: typer.Context) -> None:
    """Annotators and their roles."""
    st = state(ctx)
    rows = [{"name": a.name, "role": a.role} for a in st.corpus().annotators()]
    emit(st, rows, lambda: [out.print(f"{r['name']:<20} {r['role']}") for r in rows])


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("status")(status)
    app.add_typer(schema_app, name="schema")
    app.add_typer(guidelines_app, name="guidelines")
    app.add_typer(annotator_app, name="annotator")
