"""``corpusdb demo``: build the bundled sample project and show what a lead looks at first."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from corpusdb.cli.common import emit, out, state

DEMO_SECTIONS = (
    "Summary",
    "Pairwise F1",
    "Per type",
    "Documents with the lowest agreement",
    "Types with the lowest agreement",
)


def demo(
    ctx: typer.Context,
    fresh: Annotated[bool, typer.Option(help="Refuse to reuse an existing sample project.")] = False,
) -> None:
    """Build a sample project (real news text, four annotators) and print its status and agreement."""
    from corpusdb.demo import build_demo, demo_agreement
    from corpusdb.reports.render import render_text

    st = state(ctx)
    res = build_demo(st.url, fresh=fresh)
    corpus = res.corpus
    rep = corpus.status()
    agreement = demo_agreement(corpus).to_dict()
    data = {"url": st.url, "created": res.created, "status": rep.to_dict(), "agreement": agreement}

    def render() -> None:
        verb = "built" if res.created else "reusing"
        out.print(f"{verb} the sample project {rep.project!r} in {st.url}")
        out.print(
            f"{rep.documents} documents, schema {rep.schema}, guidelines v{rep.guideline_version}; "
            f"{rep.documents_ready} ready for adjudication"
        )
        t = Table("annotator", "role", "assigned", "in progress", "submitted", title="Progress")
        for a in rep.annotators:
            t.add_row(a.name, a.role, str(a.assigned), str(a.in_progress), str(a.submitted))
        out.print(t)
        render_text(agreement, out, only=DEMO_SECTIONS)
        out.print("next: corpusdb agree --html agreement.html | corpusdb status | corpusdb tui --as Ana")

    emit(st, data, render)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
