"""``corpusdb recommend``: recommenders (add, list, remove, train, evaluate) and suggestions.

A thin layer over ``Corpus``'s ``RecommendMixin`` (``corpusdb.recommend.service``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import emit, out, progress_callback, state

recommend_app = typer.Typer(
    help="Recommenders that suggest items while annotating: string matcher, CRF tagger, a system's predictions.",
    no_args_is_help=True,
)


def _options(values: list[str] | None) -> dict[str, Any]:
    """``-o case=insensitive -o min_count=2`` -> {"case": "insensitive", "min_count": 2}."""
    out_: dict[str, Any] = {}
    for v in values or ():
        key, sep, raw = v.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"an option is KEY=VALUE, got {v!r}")
        try:
            out_[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out_[key.strip()] = raw
    return out_


@recommend_app.command("add")
def add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The recommender's name (shown with each suggestion).")],
    kind: Annotated[
        str,
        typer.Option(
            "--kind", "-k", help="string (matcher), tagger (CRF) or external (a system's predictions)."
        ),
    ] = "string",
    types: Annotated[
        list[str] | None,
        typer.Option("--type", "-t", help="Only this entity type (repeatable; default: all)."),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option",
            "-o",
            help="KEY=VALUE (repeatable). string: case=sensitive|insensitive|auto, auto_min=5, "
            "boundaries=token|none, min_length=2, min_count=1, min_score=0; tagger: c1, c2, max_iterations, "
            "min_score=0.5.",
        ),
    ] = None,
    dictionary: Annotated[
        Path | None, typer.Option("--dictionary", help="A TSV of names and types for a string matcher.")
    ] = None,
    system: Annotated[
        str | None,
        typer.Option("--system", help="external: the system annotator whose predictions it offers."),
    ] = None,
) -> None:
    """Add a recommender (lead)."""
    st = state(ctx)
    info = st.corpus().add_recommender(
        name, kind, types=types or None, options=_options(option), dictionary=dictionary, system=system
    )
    extra = f", {info.dictionary} dictionary names" if info.dictionary else ""
    emit(
        st,
        info.to_dict(),
        lambda: out.print(f"added {info.kind} recommender {info.name}{extra}", markup=False),
    )


@recommend_app.command("list")
def list_(ctx: typer.Context) -> None:
    """The project's recommenders: kind, types, version (trainings of the shared part), last training."""
    st = state(ctx)
    recs = st.corpus().recommenders()

    def render() -> None:
        if not recs:
            out.print("no recommenders (add one: corpusdb recommend add NAME --kind string)")
            return
        out.print("name\tkind\ttypes\tversion\ttrained\tstats", markup=False)
        for r in recs:
            types = ",".join(r.types) if r.types else "all"
            trained = r.trained.isoformat(timespec="seconds") if r.trained else "never"
            stats = " ".join(f"{k}={v}" for k, v in r.stats.items())
            out.print(f"{r.name}\t{r.kind}\t{types}\tv{r.version}\t{trained}\t{stats}", markup=False)
        out.print(f"{len(recs)} recommender(s)")

    emit(st, [r.to_dict() for r in recs], render)


@recommend_app.command("remove")
def remove(ctx: typer.Context, name: Annotated[str, typer.Argument(help="The recommender.")]) -> None:
    """Remove a recommender, its models and suggestions (lead); accepted items keep their provenance."""
    st = state(ctx)
    n = st.corpus().remove_recommender(name)
    emit(st, {"removed": name, "suggestions": n}, lambda: out.print(f"removed {name} and {n} suggestion(s)"))


@recommend_app.command("train")
def train(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="The recommender (default: every one).")] = None,
    annotator: Annotated[
        str | None,
        typer.Option(
            "--for", help="Train this annotator's own part (yourself, or anyone as the database owner)."
        ),
    ] = None,
    background: Annotated[
        bool, typer.Option("--background", help="Train in a separate process and return at once.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing (background training).")
    ] = False,
) -> None:
    """Train: a lead trains the shared part (gold of adjudicated documents, dictionaries; external:
    offers the system's predictions as suggestions); an annotator her own part (gold + her sets)."""
    st = state(ctx)
    corpus = st.corpus()
    if background:
        if annotator is not None:
            raise UsageError("--background trains as yourself: drop --for")
        proc = corpus.train_in_background(name, url=st.url, project=st.project)
        emit(st, {"pid": proc.pid}, lambda: out.print(f"training in the background (process {proc.pid})"))
        return
    if quiet:
        corpus.train_recommender(name, annotator=annotator)
        return
    with progress_callback("training") as step:
        results = corpus.train_recommender(name, annotator=annotator, progress=step)

    def render() -> None:
        for r in results:
            detail = " ".join(f"{k}={v}" for k, v in r.detail.items())
            out.print(
                f"{r.recommender} ({r.part}): v{r.version} from {r.examples} document(s) in {r.seconds:.2f} s {detail}",
                markup=False,
            )

    emit(st, [r.to_dict() for r in results], render)


@recommend_app.command("evaluate")
def evaluate(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The recommender.")],
    split: Annotated[
        str | None,
        typer.Option("--split", help="Hold out this split's documents (default: a seeded fraction)."),
    ] = None,
    holdout: Annotated[
        float, typer.Option("--holdout", help="Fraction of adjudicated documents held out.")
    ] = 0.2,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the held-out draw.")] = 0,
    criterion: Annotated[str, typer.Option("--criterion", "-c", help="NER matching criterion.")] = "exact",
) -> None:
    """P/R/F per type on held-out adjudicated documents (trained afresh on the others), training
    time, suggestion latency, and acceptance rates per annotator (lead or adjudicator)."""
    st = state(ctx)
    rep = st.corpus().evaluate_recommender(name, split=split, holdout=holdout, seed=seed, criterion=criterion)

    def render() -> None:
        out.print(
            f"{rep['recommender']} ({rep['kind']}): {rep['rule']}; trained on {rep['train_documents']} "
            f"document(s) in {rep['train_seconds']:.2f} s; criterion {rep['criterion']}, types required",
            markup=False,
        )
        if rep["latency_ms"]:
            lat = rep["latency_ms"]
            out.print(
                f"suggestions per document: median {lat['median']:.2f} ms, max {lat['max']:.2f} ms",
                markup=False,
            )
        out.print("type\ttp\tfn\tfp\tP\tR\tF1", markup=False)
        for row in rep["scores"]:
            figs = [row.get(k) for k in ("precision", "recall", "f1")]
            shown = "\t".join("-" if v is None else f"{v:.3f}" for v in figs)
            out.print(f"{row['name']}\t{row['tp']}\t{row['fn']}\t{row['fp']}\t{shown}", markup=False)
        if rep["acceptance"]:
            out.print("acceptance: annotator\taccepted\trejected\topen\trate", markup=False)
            for a in rep["acceptance"]:
                rate = "-" if a["rate"] is None else f"{a['rate']:.3f}"
                out.print(
                    f"  {a['annotator']}\t{a['accepted']}\t{a['rejected']}\t{a['open']}\t{rate}", markup=False
                )
        else:
            out.print("acceptance: no decided suggestion in the sets you may read", markup=False)

    emit(st, rep, render)


@recommend_app.command("suggestions")
def suggestions(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="Your document (external id; with --as).")],
    status: Annotated[str | None, typer.Option("--status", help="open, accepted or rejected.")] = None,
    no_refresh: Annotated[bool, typer.Option("--no-refresh", help="Only what is stored.")] = False,
) -> None:
    """The suggestions on your own set of a document (refreshed from the recommenders first)."""
    st = state(ctx)
    found = st.corpus().suggestions(document, refresh=not no_refresh)
    if status is not None:
        found = [s for s in found if s.status == status]

    def render() -> None:
        out.print("id\tstatus\tkind\ttype\twhere\ttext\tscore\tfrom", markup=False)
        for s in found:
            if s.kind == "relation":  # its arguments, by role and place
                args = (s.payload or {}).get("args") or ()
                offs = " ".join(
                    f"{a['role']}:" + ";".join(f"{x}-{y}" for x, y in a["fragments"]) for a in args
                )
            else:
                offs = ";".join(f"{a}-{b}" for a, b in s.fragments)
            out.print(
                f"{s.id}\t{s.status}\t{s.kind}\t{s.type}\t{offs}\t{s.text}\t{s.score:.3f}\t{s.source}",
                markup=False,
            )
        out.print(f"{len(found)} suggestion(s)")

    emit(st, [s.to_dict() for s in found], render)


def _decide(ctx: typer.Context, document: str, ids: list[int], accept: bool, same_name: bool = False) -> None:
    st = state(ctx)
    corpus = st.corpus()
    mine = corpus.my_set(document).info
    if accept:
        res = corpus.accept_suggestions(mine.id, ids, expected_version=mine.version, same_name=same_name)
    else:
        res = corpus.reject_suggestions(mine.id, ids, expected_version=mine.version)
    made = [c for c in res.inverse if getattr(c, "kind", None) == "span"]
    emit(
        st,
        {"set": res.info.id, "version": res.info.version, "items": [c.key for c in made]},  # type: ignore[attr-defined]
        lambda: out.print(f"set {res.info.id} v{res.info.version}: {'accepted' if accept else 'rejected'}"),
    )


@recommend_app.command("accept")
def accept(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="Your document (external id; with --as).")],
    ids: Annotated[list[int], typer.Argument(help="Suggestion ids (from `recommend suggestions`).")],
    same_name: Annotated[
        bool, typer.Option("--all-of-name", help="Every open suggestion of the first one's name and type.")
    ] = False,
) -> None:
    """Accept suggestions as your own items (one undoable action; provenance kept on each item)."""
    _decide(ctx, document, ids, True, same_name)


@recommend_app.command("reject")
def reject(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="Your document (external id; with --as).")],
    ids: Annotated[list[int], typer.Argument(help="Suggestion ids.")],
) -> None:
    """Reject suggestions: they are not proposed to you again."""
    _decide(ctx, document, ids, False)


def register(app: typer.Typer) -> None:
    app.add_typer(recommend_app, name="recommend")
