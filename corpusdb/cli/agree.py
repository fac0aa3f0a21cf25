"""``corpusdb agree``: inter-annotator agreement reports (terminal, JSON, Markdown, HTML).

A thin layer over ``Corpus.agreement``; the layout lives in ``corpusdb.reports``. The global
``--format json`` works here as everywhere; ``agree --format`` also takes ``markdown`` and ``html``.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.cli.common import Format, err, out, progress, state
from corpusdb.errors import UsageError


class ReportFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


SUFFIX = {
    ".json": ReportFormat.json,
    ".md": ReportFormat.markdown,
    ".markdown": ReportFormat.markdown,
    ".html": ReportFormat.html,
    ".htm": ReportFormat.html,
    ".txt": ReportFormat.text,
}


def _names(values: list[str] | None) -> list[str] | None:
    """``--annotators Lisa,Max --annotators Peter`` -> [Lisa, Max, Peter]."""
    if not values:
        return None
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def _render(body: dict[str, Any], fmt: ReportFormat, matrix: str | None = None) -> str:
    from corpusdb.reports.html import render_html
    from corpusdb.reports.render import render_markdown, render_text

    if fmt == ReportFormat.json:
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    if fmt == ReportFormat.markdown:
        return render_markdown(body, matrix=matrix)
    if fmt == ReportFormat.html:
        return render_html(body, matrix=matrix)
    from io import StringIO

    from corpusdb.terminal import SafeConsole

    buf = StringIO()
    render_text(body, SafeConsole(file=buf, width=120, soft_wrap=True), matrix=matrix)
    return buf.getvalue()


def agree(
    ctx: typer.Context,
    layer: Annotated[
        str, typer.Option("--layer", "-l", help="spans, relations, links, groundings or labels.")
    ] = "spans",
    annotators: Annotated[
        list[str] | None,
        typer.Option(
            "--annotators",
            "-a",
            help="Raters to compare, comma-separated or repeated: annotator names, 'gold', or a "
            "system's name (its predictions). Default: every annotator whose sets you may read.",
        ),
    ] = None,
    gold: Annotated[bool, typer.Option("--gold", help="Add the gold sets as a rater named 'gold'.")] = False,
    predictions: Annotated[
        bool, typer.Option("--predictions", help="Add every system's prediction sets.")
    ] = False,
    criterion: Annotated[
        str,
        typer.Option(
            "--criterion",
            "-c",
            help="exact, left, right, left_or_right, approximate, partial, fragment or jaccard.",
        ),
    ] = "exact",
    jaccard: Annotated[float, typer.Option("--jaccard", help="Threshold for --criterion jaccard.")] = 0.5,
    types: Annotated[
        str | None,
        typer.Option(
            "--types",
            "-t",
            help="required, ignored or merged (default: required; merged when --merge is given).",
        ),
    ] = None,
    merge: Annotated[
        list[str] | None,
        typer.Option(
            "--merge", help="Merge types into a class: 'protein,DNA,RNA=macromolecule' (repeatable)."
        ),
    ] = None,
    relation_mode: Annotated[
        str, typer.Option("--relations", help="strict or relaxed (layer relations).")
    ] = "strict",
    label: Annotated[
        str | None, typer.Option("--label", help="Document label to compare (layer labels).")
    ] = None,
    ordinal: Annotated[
        bool, typer.Option("--ordinal", help="Label values are ordered (schema order).")
    ] = False,
    split: Annotated[str | None, typer.Option("--split", help="Only documents of this split.")] = None,
    documents: Annotated[
        list[str] | None,
        typer.Option(
            "--documents", "-d", help="Only these documents (external ids, comma-separated or repeated)."
        ),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", "-B", help="Document-bootstrap resamples for CIs (0: none).")
    ] = 0,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed (results are reproducible).")] = 0,
    confidence: Annotated[float, typer.Option("--confidence", help="CI level.")] = 0.95,
    lowest: Annotated[int, typer.Option("--lowest", help="How many lowest documents/types to list.")] = 5,
    matrix: Annotated[
        str | None,
        typer.Option(
            "--matrix",
            help="Pairwise matrix to show: f1, precision, recall, "
            "type_kappa (spans), label_kappa (relations); labels: cohen_kappa, "
            "percent_agreement, krippendorff_alpha. JSON has them all.",
        ),
    ] = None,
    fmt: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="text, json, markdown or html (default: the global --format, or the --output suffix).",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the report to this file (.md, .json, .html, .txt) instead of stdout.",
        ),
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report with pictures.")
    ] = None,
    semantic: Annotated[
        str | None,
        typer.Option(
            "--semantic",
            help="Layer groundings: also credit near concepts, Wang et al. (2007) similarity on this "
            "knowledge base's is_a graph (a loaded ontology, e.g. ontobiotope), as BB-cat 2016 scored.",
        ),
    ] = None,
    wang_weight: Annotated[
        float, typer.Option("--wang-weight", help="Wang's edge weight for --semantic (BB-cat 2016: 0.65).")
    ] = 0.65,
    answered_only: Annotated[
        bool,
        typer.Option(
            "--answered-only",
            help="Against gold, compare each rater on the documents it has a set for only (default: a "
            "document gold has and the rater has not counts as misses).",
        ),
    ] = False,
) -> None:
    """Agreement between annotators (and gold or predictions) with the lowest documents and types."""
    st = state(ctx)
    if fmt is None:
        fmt = SUFFIX.get(output.suffix.lower()) if output is not None else None
        fmt = fmt or (ReportFormat.json if st.format == Format.json else ReportFormat.text)
    if lowest < 0:
        raise UsageError("--lowest must be 0 or more")
    corpus = st.corpus()
    with progress("comparing") as bar:
        task = bar.add_task("comparing", total=None)

        def step(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what)

        report = corpus.agreement(
            layer, raters=_names(annotators), gold=gold, predictions=predictions, criterion=criterion,
            jaccard=jaccard, types=types, merges=merge, relation_mode=relation_mode, label=label, ordinal=ordinal,
            split=split, documents=_names(documents), bootstrap=bootstrap, seed=seed, confidence=confidence,
            lowest=lowest, unanswered="skipped" if answered_only else "misses", semantic=semantic,
            semantic_weight=wang_weight, progress=step)  # fmt: skip
    body = report.body  # not ``to_dict()``'s deep copy (0.1 s at 10^6 spans): the report goes no further
    if matrix is not None:
        from corpusdb.reports.tables import headline_matrix

        headline_matrix(body, matrix)  # refuse an unknown name before writing anything
    if html is not None:
        html.write_text(_render(body, ReportFormat.html, matrix), encoding="utf-8")
        err.print(f"wrote {html}")
    if output is not None:
        output.write_text(_render(body, fmt, matrix), encoding="utf-8")
        err.print(f"wrote {output}")
        return
    if fmt == ReportFormat.text:
        from corpusdb.reports.render import render_text
        from corpusdb.terminal import SafeConsole

        # piped or captured: wide enough that no figure is cut; a terminal keeps its own width
        render_text(
            body,
            out if out.is_terminal else SafeConsole(file=sys.stdout, width=160, soft_wrap=True),
            matrix=matrix,
        )
    else:
        sys.stdout.write(_render(body, fmt, matrix))


def register(app: typer.Typer) -> None:
    app.command("agree")(agree)
