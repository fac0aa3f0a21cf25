"""TREC-style relevance judging: ``topics``, ``runs``, ``pool``, ``judge``, ``judgments``, ``qrels`` and
``evaluate trec``. A thin layer over ``Corpus`` (``corpusdb.relevance.service``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.cli.common import emit, err, out, state
from corpusdb.cli.workflow_common import codes, fmt_float

topics_app = typer.Typer(
    help="Topics (information needs) that documents are judged against.", no_args_is_help=True
)
runs_app = typer.Typer(
    help="Retrieval runs (TREC run files) to pool and to score (lead only).", no_args_is_help=True
)
judgments_app = typer.Typer(help="Relevance judgments: your own units, agreement on the doubled subset.",
                            no_args_is_help=True)  # fmt: skip
qrels_app = typer.Typer(
    help="TREC qrels: export the judgments, import existing qrels as gold.", no_args_is_help=True
)

MappingOpt = Annotated[
    str | None, typer.Option("--map", help="Label value -> qrels grade (default DR=2,PR=1,NR=0).")
]
DisagreeOpt = Annotated[
    str,
    typer.Option("--disagree", help="Judges disagree and no gold: first (primary judge), max, min, skip."),
]
MeasureOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--measure", "-m", help="An ir-measures name (repeatable): AP, P@10, Bpref, nDCG, AP(rel=2)..."
    ),
]


# -- topics ---------------------------------------------------------------------------------------
@topics_app.command("import", epilog=codes("4 invalid file (file and line named)", "5 not a lead"))
def topics_import(
    ctx: typer.Context, path: Annotated[Path, typer.Argument(help="TREC XML, TREC <top> text, or TSV.")]
) -> None:
    """Add or update topics from a file (all or nothing)."""
    from corpusdb.relevance.topics import read_topics

    st = state(ctx)
    topics = read_topics(path)
    n = st.corpus().add_topics(topics)
    emit(
        st,
        {"read": len(topics), "changed": n},
        lambda: out.print(f"{len(topics)} topic(s) read, {n} added or changed"),
    )


@topics_app.command("list", epilog=codes())
def topics_list(ctx: typer.Context) -> None:
    """Every topic: id and title (the need and context with --format json)."""
    st = state(ctx)
    ts = st.corpus().topics()
    emit(st, [t.to_dict() for t in ts], lambda: [out.print(f"{t.id}\t{t.title}", markup=False) for t in ts])


@topics_app.command("show", epilog=codes())
def topics_show(ctx: typer.Context, topic: Annotated[str, typer.Argument(help="Topic id.")]) -> None:
    """One topic in full: what a judge reads before judging."""
    st = state(ctx)
    t = st.corpus().topic(topic)

    def render() -> None:
        out.print(f"topic {t.id}: {t.title}", markup=False)
        out.print(f"need: {t.need}", markup=False)
        if t.context:
            out.print(f"context: {t.context}", markup=False)

    emit(st, t.to_dict(), render)


# -- runs -----------------------------------------------------------------------------------------
@runs_app.command(
    "import", epilog=codes("4 invalid file (file and line named)", "5 not a lead", "6 run exists")
)
def runs_import(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="TREC run files: topic Q0 doc rank score tag.")],
    tag: Annotated[str | None, typer.Option(help="Store under this tag (one file only).")] = None,
    replace: Annotated[bool, typer.Option(help="Replace a stored run of the same tag.")] = False,
) -> None:
    """Store runs as the output of system annotators named by their tags (each file one run; all or none)."""
    from corpusdb.basics.errors import UsageError
    from corpusdb.relevance.runs import read_run

    st = state(ctx)
    if tag and len(paths) > 1:
        raise UsageError("--tag names one run: give one file with it")
    runs = [(p, read_run(p, tag=tag)) for p in paths]  # every file is read and checked before any is stored
    infos = st.corpus().add_runs([(lines, p.name) for p, lines in runs], replace=replace)  # one transaction
    _warn_disorder([lines for _, lines in runs])
    emit(st, [i.to_dict() for i in infos], lambda: [
        out.print(f"run {i.tag}: {i.documents} line(s), {i.topics} topic(s)", markup=False) for i in infos
    ])  # fmt: skip


@runs_app.command("list", epilog=codes("5 not a lead"))
def runs_list(ctx: typer.Context) -> None:
    """The stored runs (lead only: judges never learn where a document came from)."""
    st = state(ctx)
    rs = st.corpus().runs()
    emit(st, [r.to_dict() for r in rs], lambda: [
        out.print(f"{r.tag}\t{r.topics} topic(s)\t{r.documents} line(s)\t{r.source}", markup=False) for r in rs
    ])  # fmt: skip


@runs_app.command("export", epilog=codes("5 not a lead"))
def runs_export(
    ctx: typer.Context,
    tag: Annotated[str, typer.Argument(help="The run's tag.")],
    path: Annotated[Path | None, typer.Argument(help="Output file (default: stdout).")] = None,
) -> None:
    """A stored run as a TREC run file."""
    from corpusdb.relevance.runs import format_run

    st = state(ctx)
    text = format_run(st.corpus().run(tag))
    _write(st, path, text)


@runs_app.command("score", epilog=codes("4 no qrels yet, unknown measure", "5 not a lead"))
def runs_score(
    ctx: typer.Context,
    tags: Annotated[
        list[str] | None, typer.Argument(help="Runs to score (default: every stored run).")
    ] = None,
    run_file: Annotated[Path | None, typer.Option("--run-file", help="Score this run file instead.")] = None,
    measures: MeasureOpt = None,
    mapping: MappingOpt = None,
    disagree: DisagreeOpt = "first",
    per_topic: Annotated[bool, typer.Option("--per-topic", help="Also print each topic's figures.")] = False,
) -> None:
    """Score runs against the project's qrels (trec_eval measures through ir-measures)."""
    from corpusdb.relevance.runs import read_run

    st = state(ctx)
    lines = read_run(run_file) if run_file is not None else None
    _warn_disorder([lines] if lines else [])
    scores = st.corpus().score_runs(
        tags, measures=measures, mapping=mapping, disagree=disagree, run_lines=lines
    )  # type: ignore[arg-type]
    _print_scores(st, scores, per_topic)


def _warn_disorder(runs: list[list[Any]]) -> None:
    """A run whose rank column disagrees with its scores: said on stderr (scored and pooled by score)."""
    from corpusdb.relevance.pooling import run_warning

    for lines in runs:
        if lines and (w := run_warning(lines)):
            err.print(f"warning: {w}", markup=False, soft_wrap=True)


# -- pool -----------------------------------------------------------------------------------------
def pool(
    ctx: typer.Context,
    depth: Annotated[int | None, typer.Option("--depth", "-k", help="The top K documents of every run per topic.")] = None,
    budget: Annotated[int | None, typer.Option(help="At most N documents per topic, filled rank by rank.")] = None,
    per_unit: Annotated[int, typer.Option("--judges-per-document", "-n", help="Judges per document.")] = 1,
    double: Annotated[float, typer.Option(help="Fraction of documents given one judge more (agreement).")] = 0.0,
    seed: Annotated[int, typer.Option(help="Seed of the shuffle and the draws.")] = 0,
    judges: Annotated[list[str] | None, typer.Option("--judge", "-j", help="A judge (repeatable; default: every annotator).")] = None,
    topics: Annotated[list[str] | None, typer.Option("--topic", help="A topic (repeatable; default: all).")] = None,
    runs: Annotated[list[str] | None, typer.Option("--run", "-r", help="A run tag (repeatable; default: all).")] = None,
    skip_missing: Annotated[bool, typer.Option("--skip-missing", help="Skip pooled documents without text.")] = False,
) -> None:  # fmt: skip
    """Pool the runs' top documents per topic, de-duplicated and shuffled, and assign them blind to judges
    (lead only). Judges see a topic and a document, never a run or a rank."""
    st = state(ctx)
    from corpusdb.cli.common import progress

    with progress("pooling") as bar:  # silent when stderr is not a terminal
        task = bar.add_task("pooling", total=None)
        res = st.corpus().pool(depth=depth, budget=budget, judges=judges, per_unit=per_unit, double=double, seed=seed,
                               topics=topics, runs=runs, skip_missing=skip_missing,
                               progress=lambda d, n, what: bar.update(task, completed=d, total=n, description=what))  # fmt: skip

    for w in res.warnings:
        err.print(f"warning: {w}", markup=False, soft_wrap=True)

    def render() -> None:
        out.print(f"pooled {len(res.units)} new document(s) ({res.doubled} doubly judged), "
                  f"{res.existing} pooled before", markup=False)  # fmt: skip
        if res.missing:
            out.print(f"skipped {len(res.missing)} without text: {', '.join(res.missing[:10])}", markup=False)
        out.print("load: " + ", ".join(f"{k} {v}" for k, v in res.load.items()), markup=False)

    emit(st, res.to_dict(), render)


# -- judging --------------------------------------------------------------------------------------
def judge(
    ctx: typer.Context,
    topic: Annotated[str, typer.Argument(help="Topic id.")],
    doc: Annotated[str, typer.Argument(help="Document id.")],
    grade: Annotated[str, typer.Argument(help="DR, PR or NR (or the schema's long name or key).")],
    submit: Annotated[bool, typer.Option(help="Submit the judgment (read-only afterwards).")] = False,
) -> None:
    """Judge one of your own units (with --as): for scripts; the TUI has one key per grade."""
    st = state(ctx)
    j = st.corpus().judge(topic, doc, grade, submit=submit)
    emit(st, j.to_dict(), lambda: out.print(f"{j.unit}: {j.grade} ({j.status})", markup=False))


@judgments_app.command("list", epilog=codes())
def judgments_list(ctx: typer.Context) -> None:
    """Your own units (with --as), in pool order, with your grade so far."""
    st = state(ctx)
    js = st.corpus().judgments()
    emit(st, [j.to_dict() for j in js], lambda: [
        out.print(f"{j.topic}\t{j.doc}\t{j.grade or '-'}\t{j.status}", markup=False) for j in js
    ])  # fmt: skip


@judgments_app.command("agree", epilog=codes("4 no doubly judged unit yet", "5 not a lead or adjudicator"))
def judgments_agree(ctx: typer.Context) -> None:
    """Cohen's kappa on the doubly judged units: three-way (DR/PR/NR) and with DR+PR merged."""
    st = state(ctx)
    res = st.corpus().relevance_agreement()

    def render() -> None:
        out.print(f"{res['units']} doubly judged unit(s)", markup=False)
        for key, title in (("three_way", "DR / PR / NR"), ("merged", "DR+PR / NR")):
            r = res[key]
            ci = f" [{fmt_float(r['ci'][0])}, {fmt_float(r['ci'][1])}]" if r["ci"] else ""
            note = f" ({r['note']})" if r["kappa"] is None and r["note"] else ""
            out.print(f"  {title}: kappa {fmt_float(r['kappa'])}{ci}, observed {fmt_float(r['observed'])}{note}",
                      markup=False)  # fmt: skip

    emit(st, res, render)


# -- qrels ----------------------------------------------------------------------------------------
@qrels_app.command("export", epilog=codes("4 a grade outside the mapping", "5 not a lead or adjudicator"))
def qrels_export(
    ctx: typer.Context,
    path: Annotated[Path | None, typer.Argument(help="Output file (default: stdout).")] = None,
    mapping: MappingOpt = None,
    disagree: DisagreeOpt = "first",
) -> None:
    """The judgments as a TREC qrels file: gold where adjudicated, else the judges' grade."""
    from corpusdb.relevance.qrels import format_qrels

    st = state(ctx)
    res = st.corpus().qrels(mapping, disagree=disagree)  # type: ignore[arg-type]
    if path is None and st.format.value == "json":
        emit(st, res.to_dict(), lambda: None)
        return
    _write(st, path, format_qrels(res.lines))
    if path is not None:
        emit(st, {"lines": len(res.lines), "from_gold": res.from_gold, "from_judgments": res.from_judgments,
                  "skipped": list(res.skipped)},
             lambda: out.print(f"{len(res.lines)} qrels line(s) written to {path} ({res.from_gold} from gold); "
                               f"{len(res.skipped)} unit(s) skipped", markup=False))  # fmt: skip


@qrels_app.command(
    "import", epilog=codes("4 invalid file (file and line named)", "5 not a lead", "6 gold differs")
)
def qrels_import(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A TREC qrels file: topic iteration doc grade.")],
    mapping: MappingOpt = None,
    replace: Annotated[bool, typer.Option(help="Replace gold grades that differ from the qrels.")] = False,
) -> None:
    """Existing qrels as gold (all or nothing)."""
    from corpusdb.relevance.qrels import read_qrels

    st = state(ctx)
    lines = read_qrels(path)
    n = st.corpus().import_qrels(lines, mapping, source=path.name, replace=replace)
    emit(
        st,
        {"read": len(lines), "written": n},
        lambda: out.print(f"{len(lines)} line(s) read, {n} gold grade(s) written"),
    )


# -- evaluate trec --------------------------------------------------------------------------------
def evaluate_trec(
    ctx: typer.Context,
    qrels: Annotated[Path, typer.Argument(help="A TREC qrels file.")],
    runs: Annotated[list[Path], typer.Argument(help="TREC run files.")],
    measures: MeasureOpt = None,
    per_topic: Annotated[bool, typer.Option("--per-topic", help="Also print each topic's figures.")] = False,
) -> None:
    """Score run files against a qrels file with trec_eval's measures (through ir-measures); no database.
    Against the project's own qrels: `corpusdb runs score`."""
    from corpusdb.relevance.qrels import read_qrels
    from corpusdb.relevance.runs import read_run
    from corpusdb.relevance.scoring import DEFAULT_MEASURES, score_run

    st = state(ctx)
    q = read_qrels(qrels)
    lines = [read_run(p) for p in runs]
    _warn_disorder(lines)
    ms = tuple(measures) if measures else DEFAULT_MEASURES
    _print_scores(st, [score_run(q, r, ms, tag=r[0].tag) for r in lines], per_topic)


def add_trec_command(group: typer.Typer) -> None:
    """Add ``trec`` to an ``evaluate`` command group."""
    group.command("trec", epilog=codes("4 invalid file (file and line named), unknown measure"))(
        evaluate_trec
    )


# -- shared ---------------------------------------------------------------------------------------
def _write(st: Any, path: Path | None, text: str) -> None:
    if path is None:
        import sys

        sys.stdout.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def _print_scores(st: Any, scores: list[Any], per_topic: bool) -> None:
    def render() -> None:
        for s in scores:
            out.print(f"run {s.tag} ({s.topics} topic(s))", markup=False)
            out.print("  " + "  ".join(f"{m} {fmt_float(s.mean.get(m))}" for m in s.measures), markup=False)
            if per_topic:
                for t, vals in s.per_topic.items():
                    out.print(
                        f"    {t}: " + "  ".join(f"{m} {fmt_float(v)}" for m, v in vals.items()), markup=False
                    )

    emit(st, [s.to_dict() for s in scores], render)


def register(app: typer.Typer) -> None:
    app.add_typer(topics_app, name="topics")
    app.add_typer(runs_app, name="runs")
    app.add_typer(judgments_app, name="judgments")
    app.add_typer(qrels_app, name="qrels")
    app.command("pool", epilog=codes("4 pooled documents without text", "5 not a lead"))(pool)
    app.command(
        "judge", epilog=codes("4 not a grade", "5 not your unit or submitted", "6 changed meanwhile")
    )(judge)
    group = next((g.typer_instance for g in app.registered_groups if g.name == "evaluate"), None)
    if group is None:  # until the evaluation command group exists: a minimal one for `evaluate trec`
        group = typer.Typer(help="Score systems against a reference.", no_args_is_help=True)
        app.add_typer(group, name="evaluate")
    add_trec_command(group)
