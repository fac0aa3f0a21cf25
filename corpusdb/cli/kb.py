"""``corpusdb kb``: knowledge bases (ontologies, the NCBI Taxonomy, TSV vocabularies) in the database."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.cli.common import emit, err, out, progress_callback, state

kb_app = typer.Typer(
    help="Knowledge bases for groundings: load, update, list, search (shared by the database's projects).",
    no_args_is_help=True,
)

FormatOpt = Annotated[
    str,
    typer.Option(
        "--format", "-F", help="obo, ncbi-taxonomy (names.dmp + nodes.dmp: give the folder) or tsv."
    ),
]


def _line(text: str) -> None:
    """One line as is (tab-separated tables stay tab-separated: the console would expand tabs)."""
    sys.stdout.write(text + "\n")


def _info(x: Any) -> dict[str, Any]:
    d = asdict(x)
    d["created"], d["updated"] = x.created.isoformat(), x.updated.isoformat()
    return d


@kb_app.command("add")
def kb_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The knowledge base's name (the schema's `kb = ...`).")],
    file: Annotated[Path, typer.Argument(help="The file (OBO, TSV) or the NCBI dump's folder.")],
    fmt: FormatOpt = "obo",
) -> None:
    """Load FILE as the knowledge base NAME: all or nothing (every problem with its file and line)."""
    st = state(ctx)
    with progress_callback(f"loading {name}") as step:
        got = st.corpus().kb_add(name, file, fmt, progress=step)
    emit(st, _info(got), lambda: out.print(
        f"{got.name}: {got.concepts:,} concepts, {got.names:,} names ({got.format}, search index: {got.index})",
        markup=False))  # fmt: skip


@kb_app.command("update")
def kb_update(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The knowledge base to replace.")],
    file: Annotated[Path, typer.Argument(help="Its new version.")],
    fmt: Annotated[
        str | None, typer.Option("--format", "-F", help="Default: the format it was loaded from.")
    ] = None,
) -> None:
    """Replace NAME with FILE; list the ids that disappeared and the groundings that point at them."""
    st = state(ctx)
    with progress_callback(f"updating {name}") as step:
        got = st.corpus().kb_update(name, file, fmt, progress=step)
    data = {
        "info": _info(got.info),
        "disappeared": list(got.disappeared),
        "affected": [asdict(a) for a in got.affected],
    }

    def render() -> None:
        i = got.info
        out.print(f"{i.name} version {i.version}: {i.concepts:,} concepts, {i.names:,} names", markup=False)
        out.print(f"{len(got.disappeared)} id(s) disappeared" + (": " + ", ".join(got.disappeared[:20]) if got.disappeared else ""),
                  markup=False)  # fmt: skip
        if got.affected:
            _line("set\tdocument\tannotator\titem\tgrounding")
            for a in got.affected:
                _line(f"{a.set_id}\t{a.document}\t{a.annotator or 'gold'}\t{a.item}\t{a.ref}")
            err.print(f"{len(got.affected)} grounding(s) of this project point at ids that disappeared")

    emit(st, data, render)


@kb_app.command("remove")
def kb_remove(
    ctx: typer.Context, name: Annotated[str, typer.Argument(help="The knowledge base to remove.")]
) -> None:
    """Remove a knowledge base (groundings keep their ids; they are no longer checked or labelled)."""
    st = state(ctx)
    st.corpus().kb_remove(name)
    emit(st, {"removed": name}, lambda: out.print(f"removed {name}", markup=False))


@kb_app.command("list")
def kb_list(ctx: typer.Context) -> None:
    """Every knowledge base: name, format, concepts, names, version, source."""
    st = state(ctx)
    rows = [_info(x) for x in st.corpus().kb_list()]

    def render() -> None:
        _line("name\tformat\tconcepts\tnames\tversion\tsource")
        for r in rows:
            _line(f"{r['name']}\t{r['format']}\t{r['concepts']}\t{r['names']}\t{r['version']}\t{r['source']}")
        _line(f"total\t\t{sum(r['concepts'] for r in rows)}\t{sum(r['names'] for r in rows)}\t\t")

    emit(st, rows, render)


@kb_app.command("show")
def kb_show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The knowledge base.")],
    concept: Annotated[str | None, typer.Argument(help="A concept id: its label, names, parents.")] = None,
) -> None:
    """A knowledge base's figures (or one of its concepts)."""
    st = state(ctx)
    corpus = st.corpus()
    if concept is not None:
        c = corpus.kb_concept(name, concept)

        def render_concept() -> None:
            flag = (
                " (obsolete" + (f"; use {', '.join(c.replaced_by)}" if c.replaced_by else "") + ")"
                if c.obsolete
                else ""
            )
            _line(f"{c.id}\t{c.label}{flag}")
            for n, k in c.names:
                _line(f"  name\t{n}\t{k}")
            for p in c.parents:
                _line(f"  is_a\t{p}")

        emit(st, asdict(c), render_concept)
        return
    i = corpus.kb_show(name)

    def render() -> None:
        out.print(
            f"{i.name}: {i.format} from {i.source}, version {i.version}, updated {i.updated:%Y-%m-%d %H:%M}",
            markup=False,
        )
        out.print(f"{i.concepts:,} concepts ({i.obsolete:,} obsolete), {i.names:,} names; roots: "
                  f"{', '.join(i.roots) or '-'}; search index: {i.index}", markup=False)  # fmt: skip

    emit(st, _info(i), render)


@kb_app.command("search")
def kb_search(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The knowledge base.")],
    text: Annotated[str, typer.Argument(help="What to look up (typos tolerated).")],
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many candidates.")] = 10,
    branch: Annotated[
        str | None, typer.Option("--branch", help="Only concepts under this id (is_a).")
    ] = None,
) -> None:
    """The best candidates for TEXT: id, label, the name that matched, how, and a score (0-100)."""
    st = state(ctx)
    rows = st.corpus().kb_search(name, text, limit=limit, branch=branch)

    def render() -> None:
        _line("id\tlabel\tmatched name\tmatch\tscore")
        for c in rows:
            _line(f"{c.id}\t{c.label}\t{c.name}\t{c.match}\t{c.score:g}")

    emit(st, [asdict(c) for c in rows], render)


def register(app: typer.Typer) -> None:
    app.add_typer(kb_app, name="kb")
