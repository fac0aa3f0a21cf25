"""``corpusdb demo``: build a sample project and show what a lead looks at first, then what to try."""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.cli.common import emit, out, state

DEMO_SECTIONS = (
    "Summary",
    "Pairwise F1",
    "Per type",
    "Documents with the lowest agreement",
    "Types with the lowest agreement",
)


def next_steps(sample: str) -> list[str]:
    """The three commands the first screen suggests: a report, the TUI, the browser (when installed)."""
    from importlib.util import find_spec

    lead_look = (
        "corpusdb agree -l relations" if sample == "biomed" else "corpusdb agree --html agreement.html"
    )
    who = "judy" if sample == "biomed" else "Ana"
    browser = (
        f"corpusdb team login {who} && corpusdb serve   # the same in a browser: a password, then log in"
        if find_spec("corpusdb.cli.serve") is not None
        else "corpusdb releases show v1          # the release and its change log"
        if sample == "biomed"
        else "corpusdb status"
    )
    return [
        f"{lead_look:<34} # agreement on another layer"
        if sample == "biomed"
        else f"{lead_look:<34} # the report with pictures",
        f"{'corpusdb tui --as ' + who:<34} # adjudicate in the terminal UI",
        browser,
    ]


def demo(
    ctx: typer.Context,
    sample: Annotated[
        str,
        typer.Option(
            "--sample",
            help="biomed: binding interactions from gold to a release (CC0 text written for corpusdb); "
            "news: CoNLL-2002 Spanish news, four annotators (bratiaa's example, MIT).",
        ),
    ] = "biomed",
    fresh: Annotated[bool, typer.Option(help="Refuse to reuse an existing sample project.")] = False,
) -> None:
    """Build a sample project (biomedical by default) and print its status, agreement and what to try next."""
    from rich.table import Table

    from corpusdb.demo import build_demo, demo_agreement
    from corpusdb.reports.render import render_text

    st = state(ctx)
    res = build_demo(st.url, fresh=fresh, sample=sample)
    corpus = res.corpus
    rep = corpus.status()
    agreement = (
        corpus.agreement("spans", criterion="exact", types="required")  # alice and bob; not gold, not tagger
        if sample == "biomed"
        else demo_agreement(corpus)
    ).to_dict()
    steps = next_steps(sample)
    data = {
        "url": st.url,
        "created": res.created,
        "status": rep.to_dict(),
        "agreement": agreement,
        "next": steps,
    }

    def render() -> None:
        verb = "built" if res.created else "reusing"
        out.print(f"{verb} the sample project {rep.project!r} in {st.url}", markup=False)
        extra = (
            "; gold finished and released as v1 (corpusdb releases)"
            if sample == "biomed"
            else f"; {rep.documents_ready} ready for adjudication"
        )
        out.print(
            f"{rep.documents} documents, schema {rep.schema}, guidelines v{rep.guideline_version}{extra}"
        )
        t = Table("annotator", "role", "assigned", "in progress", "submitted", title="Progress")
        for a in rep.annotators:
            t.add_row(a.name, a.role, str(a.assigned), str(a.in_progress), str(a.submitted))
        out.print(t)
        render_text(agreement, out, only=DEMO_SECTIONS)
        out.print("Try next:", markup=False)
        for step in steps:
            out.print(f"  {step}", markup=False)

    emit(st, data, render)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
