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

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import TYPES, Format, err, out, progress, state, types_mode


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
    """``-a Lisa -a Max`` (or, deprecated, ``-a Lisa,Max``) -> [Lisa, Max]."""
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

    from corpusdb.basics.terminal import SafeConsole

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
            "--annotator",
            "-a",
            help="A rater to compare (repeatable): an annotator name, 'gold', or a "
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
            help="exact, left, right, left_or_right, approximate, overlap (any character in common, full "
            "credit; 'partial' is its old name), fragment or jaccard.",
        ),
    ] = "exact",
    jaccard: Annotated[float, typer.Option("--jaccard", help="Threshold for --criterion jaccard.")] = 0.5,
    types: Annotated[str | None, TYPES] = None,
    merge: Annotated[
        list[str] | None,
        typer.Option(
            "--merge", help="Merge types into a class: 'protein,DNA,RNA=macromolecule' (repeatable)."
        ),
    ] = None,
    relation_mode: Annotated[
        str, typer.Option("--relations", help="strict or relaxed (layer relations).")
    ] = "strict",
    derived: Annotated[
        str,
        typer.Option(
            "--derived", help="include or exclude the relations the schema's rules derive (layer relations)."
        ),
    ] = "exclude",
    label: Annotated[
        str | None, typer.Option("--label", help="Document label to compare (layer labels).")
    ] = None,
    ordinal: Annotated[
        bool, typer.Option("--ordinal", help="Label values are ordered (schema order): --level ordinal.")
    ] = False,
    level: Annotated[
        str | None,
        typer.Option(
            "--level",
            help="Level of measurement of the label's values (layer labels): nominal, ordinal, interval "
            "or ratio (numeric values; Krippendorff's alpha at that level, its CI with -B).",
        ),
    ] = None,
    split: Annotated[str | None, typer.Option("--split", help="Only documents of this split.")] = None,
    documents: Annotated[
        list[str] | None,
        typer.Option("--document", "-d", help="Only this document (external id; repeatable)."),
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
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="Agreement per group: guideline (version the sets were made under), split, or time "
            "(each annotator's learning curve over windows of --window documents in submission order).",
        ),
    ] = None,
    window: Annotated[int, typer.Option("--window", help="With --by time: documents per window.")] = 10,
    measure: Annotated[
        str | None,
        typer.Option(
            "--measure",
            "-m",
            help="A unitizing measure over spans instead of the pairwise report: alpha_u (Krippendorff) "
            "or gamma (Mathet et al.; slow: see --sample-documents).",
        ),
    ] = None,
    sample_documents: Annotated[
        int | None,
        typer.Option(
            "--sample-documents", help="With -m: a sample of this many documents, seeded by --seed."
        ),
    ] = None,
    sort: Annotated[
        str,
        typer.Option(
            "--sort",
            help="With -m: the per-document table (each document's figure over every rater) by "
            "document or by value (lowest first).",
        ),
    ] = "document",
    gamma_samples: Annotated[
        int, typer.Option("--gamma-samples", help="gamma: random continua for the expected disorder.")
    ] = 30,
    gamma_alpha: Annotated[
        float, typer.Option("--gamma-alpha", help="gamma: weight of positional dissimilarity.")
    ] = 1.0,
    gamma_beta: Annotated[
        float, typer.Option("--gamma-beta", help="gamma: weight of categorical dissimilarity.")
    ] = 1.0,
    gamma_empty: Annotated[
        float, typer.Option("--gamma-empty", help="gamma: delta_empty, the cost of a unit left unaligned.")
    ] = 1.0,
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
    exclude_suggested: Annotated[
        bool,
        typer.Option(
            "--exclude-suggested",
            help="Compare the annotators' own items only: leave out items accepted from suggestions.",
        ),
    ] = False,
) -> None:
    """Agreement between annotators (and gold or predictions) with the lowest documents and types."""
    st = state(ctx)
    types = types_mode(types, merged=bool(merge))
    if fmt is None:
        fmt = SUFFIX.get(output.suffix.lower()) if output is not None else None
        fmt = fmt or (ReportFormat.json if st.format == Format.json else ReportFormat.text)
    if lowest < 0:
        raise UsageError("--lowest must be 0 or more")
    if sort != "document" and measure is None:
        raise UsageError("--sort orders the per-document table of -m alpha_u|gamma; give -m")
    corpus = st.corpus()
    if by is not None:
        res = corpus.agreement_by(
            by, window=window, layer=layer, raters=_names(annotators), gold=gold, predictions=predictions,
            criterion=criterion, jaccard=jaccard, types=types, merges=merge, relation_mode=relation_mode,
            split=split, bootstrap=bootstrap, seed=seed, confidence=confidence,
        )  # fmt: skip
        _grouped(res, fmt, output, html)
        return
    if measure is not None:
        _unitizing(corpus, measure, layer, _names(annotators), split, _names(documents), sample_documents, seed,
                   (gamma_samples, gamma_alpha, gamma_beta, gamma_empty), fmt, output, html, sort)  # fmt: skip
        return
    with progress("comparing") as bar:
        task = bar.add_task("comparing", total=None)

        def step(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what)

        report = corpus.agreement(
            layer, raters=_names(annotators), gold=gold, predictions=predictions, criterion=criterion,
            jaccard=jaccard, types=types, merges=merge, relation_mode=relation_mode, label=label, ordinal=ordinal,
            level=level, split=split, documents=_names(documents), bootstrap=bootstrap, seed=seed, confidence=confidence,
            lowest=lowest, unanswered="skipped" if answered_only else "misses", exclude_suggested=exclude_suggested,
            semantic=semantic, semantic_weight=wang_weight, derived=derived, progress=step)  # fmt: skip
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
        from corpusdb.basics.terminal import SafeConsole
        from corpusdb.reports.render import render_text

        # piped or captured: wide enough that no figure is cut; a terminal keeps its own width
        render_text(
            body,
            out if out.is_terminal else SafeConsole(file=sys.stdout, width=160, soft_wrap=True),
            matrix=matrix,
        )
    else:
        sys.stdout.write(_render(body, fmt, matrix))


def _grouped(res: dict[str, Any], fmt: ReportFormat, output: Path | None, html: Path | None) -> None:
    """``agree --by``: the table (text, Markdown), JSON, or the HTML page with its picture."""
    from corpusdb.reports.grouped_render import TITLES, lines, render_grouped_html, rows

    head, table = rows(res)

    def markdown() -> str:
        md = [f"# {TITLES[res['by']]}: {res.get('project', '')}", "", *(f"- {x}" for x in lines(res)), "",
              "| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(r) + " |" for r in table)]  # fmt: skip
        return "\n".join(md) + "\n"

    def text() -> str:
        return (
            "\n".join([f"{TITLES[res['by']]}", *lines(res), "\t".join(head), *("\t".join(r) for r in table)])
            + "\n"
        )

    render = {
        ReportFormat.json: lambda: json.dumps(res, indent=2, ensure_ascii=False, default=str) + "\n",
        ReportFormat.html: lambda: render_grouped_html(res),
        ReportFormat.markdown: markdown,
    }.get(fmt, text)
    if html is not None:
        html.write_text(render_grouped_html(res), encoding="utf-8")
        err.print(f"wrote {html.name}")
    if output is not None:
        output.write_text(render(), encoding="utf-8")
        err.print(f"wrote {output.name}")
        return
    if fmt == ReportFormat.text:
        from rich.table import Table

        t = Table(*head, title=f"{TITLES[res['by']]}: {res['measure']}")
        for r in table:
            t.add_row(*r)
        out.print(t)
        for x in lines(res)[1:-1]:
            out.print(x, markup=False)
        return
    sys.stdout.write(render())


def _unitizing(
    corpus: Any,
    measure: str,
    layer: str,
    raters: list[str] | None,
    split: str | None,
    documents: list[str] | None,
    sample: int | None,
    seed: int,
    g: tuple[int, float, float, float],
    fmt: ReportFormat,
    output: Path | None,
    html: Path | None,
    sort: str = "document",
) -> None:
    """``agree -m alpha_u|gamma``: the unitizing report (``corpusdb.reports.unitized``)."""
    from corpusdb.reports.unitized import MEASURES, GammaOptions
    from corpusdb.reports.unitized_render import SORTS, lines, render_unitizing_html, tables

    if measure not in MEASURES:
        raise UsageError(f"--measure must be one of {', '.join(MEASURES)}, not {measure!r}")
    if layer != "spans":
        raise UsageError(f"--measure {measure} compares spans; --layer {layer} is not for it")
    if sort not in SORTS:
        raise UsageError(f"--sort must be one of {', '.join(SORTS)}, not {sort!r}")
    if sample is not None and sample < 1:
        raise UsageError("--sample-documents must be 1 or more")
    if g[0] < 1:
        raise UsageError("--gamma-samples must be 1 or more")
    with progress(measure) as bar:
        task = bar.add_task(measure, total=None)
        body = corpus.unitizing_agreement(
            measure, raters=raters, split=split, documents=documents, sample_documents=sample, seed=seed,
            gamma=GammaOptions(samples=g[0], alpha=g[1], beta=g[2], delta_empty=g[3]),
            progress=lambda d, n, what: bar.update(task, completed=d, total=n, description=what),
        )  # fmt: skip

    def text() -> str:
        out = lines(body)
        for head, table in tables(body, sort):
            out += ["", "\t".join(head), *("\t".join(r) for r in table)]
        return "\n".join(out) + "\n"

    render = {ReportFormat.json: lambda: json.dumps(body, indent=2, ensure_ascii=False) + "\n",
              ReportFormat.html: lambda: render_unitizing_html(body, sort)}.get(fmt, text)  # fmt: skip
    if html is not None:
        html.write_text(render_unitizing_html(body, sort), encoding="utf-8")
        err.print(f"wrote {html.name}")
    if output is not None:
        output.write_text(render(), encoding="utf-8")
        err.print(f"wrote {output.name}")
        return
    sys.stdout.write(render())


def register(app: typer.Typer) -> None:
    app.command("agree")(agree)
