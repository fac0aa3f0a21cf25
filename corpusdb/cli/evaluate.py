"""``corpusdb evaluate``: score systems against a reference with the shared tasks' own metrics.

A thin layer: references and predictions come from files (no database needed) or from the store
(``--gold``, ``--release v1 --split test``, ``--system NAME`` prediction sets, through
``Corpus.evaluation_data``); scoring is :mod:`corpusdb.evaluation`; the report is one
``corpusdb.evaluation/1`` body rendered as text, JSON, Markdown or HTML. ``evaluate_app`` is a
``typer.Typer`` group so other scorers (``evaluate trec``) can be mounted on it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import TYPES, Format, err, progress, state, types_mode

evaluate_app = typer.Typer(
    help="Score systems against gold, a release split or files with the shared tasks' own metrics.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


class OutFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


SUFFIX = {".json": OutFormat.json, ".md": OutFormat.markdown, ".html": OutFormat.html, ".htm": OutFormat.html,
          ".txt": OutFormat.text}  # fmt: skip

Files = Annotated[
    list[Path] | None,
    typer.Argument(
        help="REFERENCE then PREDICTION... (files or folders); only predictions with --gold/--release."
    ),
]
Release = Annotated[
    str | None, typer.Option("--release", help="Reference: this release's gold (needs a database).")
]
Split = Annotated[str | None, typer.Option("--split", help="Only this split of the release or of gold.")]
Gold = Annotated[bool, typer.Option("--gold", help="Reference: the project's current gold.")]
Systems = Annotated[
    list[str] | None,
    typer.Option("--system", "-s", help="A system's prediction sets in the store (repeatable)."),
]
AnsweredOnly = Annotated[
    bool, typer.Option("--answered-only", help="Score only documents a system answered (default: misses).")
]
Bootstrap = Annotated[
    int, typer.Option("--bootstrap", "-B", help="Document-bootstrap resamples for CIs (0: none).")
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and the paired test.")]
Confidence = Annotated[float, typer.Option("--confidence", help="CI level.")]
Test = Annotated[
    str,
    typer.Option(
        "--test", help="Paired test between systems: approximate_randomization or paired_bootstrap."
    ),
]
Resamples = Annotated[int, typer.Option("--test-resamples", help="Shuffles or resamples of the paired test.")]
Fmt = Annotated[
    OutFormat | None,
    typer.Option("--format", "-f", help="text, json, markdown or html (default: global / suffix)."),
]
Output = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the report here instead of stdout.")
]
Derived = Annotated[
    str,
    typer.Option("--derived", help="include or exclude the relations the schema's rules derive (stated in the report): "
                 "files count those they mark derived; gold and runs in the store get them from the project's schema."),
]  # fmt: skip
ANNOTATED_ONLY = "excluded (brat files and stored gold hold annotated relations only)"
"""What the standoff tasks' reports say of derived relations: brat cannot mark one, gold never stores one."""
Html = Annotated[
    Path | None,
    typer.Option("--html", help="Also write a self-contained HTML report with pictures (as agree --html)."),
]


def _render(body: Mapping[str, Any], fmt: OutFormat) -> str:
    if fmt == OutFormat.json:
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    if fmt == OutFormat.markdown:
        from corpusdb.evaluation.render import render_markdown

        return render_markdown(body)
    if fmt == OutFormat.html:
        from corpusdb.reports.evaluation_html import render_evaluation_html

        return render_evaluation_html(body)
    from corpusdb.evaluation.render import render_text

    return render_text(body)


class _Run:
    """What every subcommand shares: where the reference and predictions come from, and the output."""

    def __init__(self, ctx: typer.Context, files: list[Path] | None, release: str | None, split: str | None,
                 gold: bool, systems: list[str] | None, *, load: bool = True) -> None:  # fmt: skip
        self.st = state(ctx)
        self.html: Path | None = ctx.params.get("html")
        self.files = list(files or [])
        self.release, self.split, self.gold = release, split, gold
        self.systems = [n.strip() for v in systems or [] for n in v.split(",") if n.strip()]
        self.from_store = release is not None or gold
        if release is not None and gold:
            raise UsageError("give --release or --gold, not both")
        if split is not None and not self.from_store:
            raise UsageError("--split needs --release or --gold (a reference in the store)")
        if self.systems and not self.from_store:
            raise UsageError(
                "--system reads prediction sets from the store: give --gold or --release as the reference"
            )
        self.prediction_files = self.files if self.from_store else self.files[1:]
        if not self.from_store and not self.files:
            raise UsageError("give a REFERENCE file or folder, or --gold / --release")
        if not self.prediction_files and not self.systems:
            raise UsageError("nothing to evaluate: give PREDICTION files or folders, or --system NAME")
        self.data: Any = None
        if self.from_store and load:
            self.data = self.st.corpus().evaluation_data(release=release, split=split, systems=self.systems)

    @staticmethod
    def system_name(path: Path, taken: Mapping[str, Any]) -> str:
        name = path.stem if path.is_file() else path.name
        return name if name not in taken else f"{path.parent.name}/{name}"  # no local path in reports

    def finish(self, body: dict[str, Any], fmt: OutFormat | None, output: Path | None) -> None:
        _finish(self.st, body, fmt, output, self.html)


def _finish(
    st: Any, body: dict[str, Any], fmt: OutFormat | None, output: Path | None, html: Path | None
) -> None:
    """The report to ``output`` (format from ``--format``, else its suffix) or stdout."""
    if fmt is None:
        fmt = SUFFIX.get(output.suffix.lower()) if output is not None else None
        fmt = fmt or (OutFormat.json if st.format == Format.json else OutFormat.text)
    if html is not None:
        html.write_text(_render(body, OutFormat.html), encoding="utf-8")
        err.print(f"wrote {html.name}")
    text = _render(body, fmt)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output.name}")
    else:
        sys.stdout.write(text)


@contextmanager
def _stepper() -> Iterator[Callable[[int, int, str], None]]:
    """A progress callback ``(done, total, what)`` drawing on stderr (on a terminal) while it is open."""
    with progress("evaluating") as bar:
        task_id = bar.add_task("evaluating", total=None)

        def step(done: int, total: int, what: str) -> None:
            bar.update(task_id, completed=done, total=total, description=what)

        yield step


def _report(task: str, reference: str, docs: list[str], entries: list[dict[str, Any]], headline: str,
            answered_only: bool, bootstrap: int, seed: int, confidence: float, test: str, resamples: int,
            **kw: Any) -> dict[str, Any]:  # fmt: skip
    from corpusdb.evaluation.report import build_report

    with _stepper() as step:
        return build_report(task, reference, docs, entries, headline=headline, answered_only=answered_only,
                            bootstrap=bootstrap, seed=seed, confidence=confidence, test=test,
                            test_resamples=resamples, progress=step, **kw)  # fmt: skip


def _check_common(bootstrap: int, confidence: float, test: str, resamples: int) -> None:
    from corpusdb.evaluation.significance import METHODS

    if bootstrap < 0 or resamples < 1:
        raise UsageError("--bootstrap must be 0 or more and --test-resamples 1 or more")
    if not 0 < confidence < 1:
        raise UsageError("--confidence must be between 0 and 1")
    if test not in METHODS:
        raise UsageError(f"--test must be one of {', '.join(METHODS)}")


@evaluate_app.command("biorelex")
def biorelex(
    ctx: typer.Context, files: Files = None, release: Release = None, split: Split = None, gold: Gold = False,
    system: Systems = None, match_by: Annotated[str, typer.Option("--match-by", help="Match sentences by id or text.")] = "id",
    answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0, confidence: Confidence = 0.95,
    test: Test = "approximate_randomization", test_resamples: Resamples = 10000, fmt: Fmt = None, output: Output = None, html: Html = None,
    derived: Derived = "exclude",
) -> None:  # fmt: skip
    """BioRelEx 1.0: entity mentions, entities, coreferences, relation extraction (official scores plus
    label-aware, positive-only, non-implicit and a correct flat-mentions score), tp/fn/fp each."""
    from corpusdb.evaluation import biorelex as bx
    from corpusdb.evaluation.adapters import sentence_from_records

    _check_common(bootstrap, confidence, test, test_resamples)
    if match_by not in ("id", "text"):
        raise UsageError("--match-by must be id or text")
    if derived not in ("include", "exclude"):
        raise UsageError(f"--derived must be include or exclude, not {derived!r}")
    run = _Run(ctx, files, release, split, gold, system)
    if run.from_store:
        from guidelines.derive import with_derived, without_derived

        d = run.data
        schema = run.st.corpus().schema()
        rules = ", ".join(r.name for r in schema.derive) or "the schema has no rule"

        def rel(a: Any) -> Any:  # the rules applied to reference and runs alike, or none at all
            return with_derived(schema, without_derived(a)) if derived == "include" else without_derived(a)

        truth = [sentence_from_records(doc, d.texts[doc], rel(ann)) for doc, ann in d.reference.items()]
        ref_name = d.reference_name
        preds = {n: [sentence_from_records(doc, d.texts.get(doc, ""), rel(a)) for doc, a in sets.items()]
                 for n, sets in d.systems.items()}  # fmt: skip
    else:
        rules = "as the files mark them"
        truth, ref_name, preds = bx.read_biorelex(run.files[0]), run.files[0].name, {}
        truth = bx.keep_derived(truth, derived == "include")
    for p in run.prediction_files:
        preds[run.system_name(p, preds)] = bx.keep_derived(bx.read_biorelex(p), derived == "include")
    entries = []
    from corpusdb.evaluation.report import system_entry

    for name, sentences in preds.items():
        scores = bx.score_biorelex(truth, sentences, match_by=match_by, answered_only=answered_only)
        missing = bx.unanswered(truth, sentences, match_by)
        docs = [t.id for t in truth if not (answered_only and t.id in missing)]
        entries.append(system_entry(name, scores, documents=docs, unanswered=missing))
    body = _report("biorelex", ref_name, [t.id for t in truth], entries, bx.RE_ANY, answered_only, bootstrap,
                   seed, confidence, test, test_resamples, official=bx.OFFICIAL,
                   options={"match_by": match_by,
                            "derived_relations": f"{derived}d" + (f" ({rules})" if derived == "include" and rules else "")},
                   notes=["scores marked * are the official evaluate.py's, as it computes them: its Entities "
                          "come from mention sets its flat score has reduced in place; 'Entities (corrected)' "
                          "is the same score from the full sets; the others are additions (see "
                          "corpusdb.evaluation.biorelex)"])  # fmt: skip
    run.finish(body, fmt, output)


def _standoff(run: _Run) -> tuple[str, dict[str, Any], dict[str, str], dict[str, dict[str, Any]]]:
    """Reference name, reference {doc: Annotations}, texts, systems {name: {doc: Annotations}}."""
    from importers.standoff import read_directory

    def folder(p: Path) -> tuple[dict[str, Any], dict[str, str]]:
        if not p.is_dir():
            raise UsageError(f"{p}: not a folder of brat/BioNLP standoff files")
        parsed = read_directory(p)
        return {x.document.external_id: x.annotations for x in parsed}, {
            x.document.external_id: x.document.text for x in parsed
        }

    if run.from_store:
        d = run.data
        ref_name, ref, texts, systems = d.reference_name, dict(d.reference), dict(d.texts), dict(d.systems)
    else:
        ref, texts = folder(run.files[0])
        ref_name, systems = run.files[0].name, {}  # its name: no local path in a report header
    for p in run.prediction_files:
        systems[run.system_name(p, systems)] = folder(p)[0]
    return ref_name, ref, texts, systems


def _span_task(
    ctx: typer.Context, task: str, files: list[Path] | None, release: str | None, split: str | None, gold: bool,
    system: list[str] | None, answered_only: bool, bootstrap: int, seed: int, confidence: float, test: str,
    resamples: int, fmt: OutFormat | None, output: Path | None,
    score: Callable[[dict[str, Any], dict[str, Any], dict[str, str]], dict[str, Any]], headline: str,
    options: Mapping[str, Any],
) -> None:  # fmt: skip
    from corpusdb.evaluation.report import system_entry

    _check_common(bootstrap, confidence, test, resamples)
    run = _Run(ctx, files, release, split, gold, system)
    ref_name, ref, texts, systems = _standoff(run)
    entries = []
    for name, pred in systems.items():
        missing = [d for d in ref if d not in pred]
        docs = [d for d in ref if not (answered_only and d in missing)]
        scored = score(ref, {d: a for d, a in pred.items() if d in ref}, texts)
        entries.append(system_entry(name, scored, documents=docs, unanswered=missing))
    body = _report(task, ref_name, list(ref), entries, headline, answered_only, bootstrap, seed, confidence,
                   test, resamples, options=options)  # fmt: skip
    run.finish(body, fmt, output)


@evaluate_app.command("bb")
def bb(
    ctx: typer.Context, files: Files = None, release: Release = None, split: Split = None, gold: Gold = False,
    system: Systems = None, answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0,
    confidence: Confidence = 0.95, test: Test = "approximate_randomization", test_resamples: Resamples = 10000,
    fmt: Fmt = None, output: Output = None, html: Html = None,
) -> None:  # fmt: skip
    """BioNLP-ST 2011 Bacteria Biotope: Localization and PartOf with the task's similarity (strict
    bacterium, location Jaccard, type penalty 0.5, Equiv sets); recall = ΣS/|reference|."""
    from corpusdb.evaluation.bb2011 import score_bb

    _span_task(ctx, "bb2011", files, release, split, gold, system, answered_only, bootstrap, seed, confidence, test,
               test_resamples, fmt, output, lambda r, p, t: score_bb(r, p, answered_only=answered_only), "all",
               {"similarity": "strict bacterium, location Jaccard, type penalty 0.5, Equiv sets",
                "derived_relations": ANNOTATED_ONLY})  # fmt: skip


@evaluate_app.command("bb-norm")
def bb_norm(
    ctx: typer.Context, files: Files = None, release: Release = None, split: Split = None, gold: Gold = False,
    system: Systems = None, answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0,
    confidence: Confidence = 0.95, test: Test = "approximate_randomization", test_resamples: Resamples = 10000,
    fmt: Fmt = None, output: Output = None,
    kb: Annotated[str | None, typer.Option("--kb", help="OntoBiotope as a loaded knowledge base (its is_a edges).")] = None,
    ontology: Annotated[Path | None, typer.Option("--ontology", help="... or as an OBO file (no database needed).")] = None,
    weight: Annotated[float, typer.Option("--weight", help="Wang's is_a edge weight (the task: 0.65).")] = 0.65,
) -> None:  # fmt: skip
    """BioNLP-ST 2016 BB-cat normalisation: Habitat -> OntoBiotope with Wang et al. 2007 similarity
    (is_a, w=0.65), Bacteria -> NCBI Taxonomy exact; precision = ΣS / entities (the task's score)."""
    from corpusdb.evaluation.bb2016_norm import Wang, score_bb_norm

    if (kb is None) == (ontology is None):
        raise UsageError(
            "give OntoBiotope as --kb NAME (loaded with `corpusdb kb add`) or --ontology FILE.obo"
        )
    if ontology is not None:
        from importers.kb_obo import read_obo

        parents = {c.id: c.parents for c in read_obo(ontology)}
    else:
        parents = state(ctx).corpus().kb_parents(kb)
    wang = Wang(parents, weight)
    _span_task(ctx, "bb2016-norm", files, release, split, gold, system, answered_only, bootstrap, seed, confidence,
               test, test_resamples, fmt, output,
               lambda r, p, t: score_bb_norm(r, p, wang, answered_only=answered_only), "all",
               {"similarity": f"Habitat: Wang et al. 2007 (is_a, w={weight}); Bacteria: exact taxon",
                "ontology": str(ontology or kb)})  # fmt: skip


@evaluate_app.command("rename")
def rename(
    ctx: typer.Context, files: Files = None, release: Release = None, split: Split = None, gold: Gold = False,
    system: Systems = None, answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0,
    confidence: Confidence = 0.95, test: Test = "approximate_randomization", test_resamples: Resamples = 10000,
    fmt: Fmt = None, output: Output = None, html: Html = None,
) -> None:  # fmt: skip
    """BioNLP-ST 2011 Gene Renaming: Renaming(Former, New) pairs, strict and relaxed direction."""
    from corpusdb.evaluation.bb2011 import score_rename

    _span_task(ctx, "rename2011", files, release, split, gold, system, answered_only, bootstrap, seed, confidence,
               test, test_resamples, fmt, output, lambda r, p, t: score_rename(r, p, answered_only=answered_only),
               "strict", {"derived_relations": ANNOTATED_ONLY})  # fmt: skip


@evaluate_app.command("ner")
def ner(
    ctx: typer.Context, files: Files = None, release: Release = None, split: Split = None, gold: Gold = False,
    system: Systems = None,
    criterion: Annotated[str, typer.Option("--criterion", "-c", help="exact left right left_or_right approximate overlap (any overlap, full credit; 'partial' is its old name) fragment jaccard core, or semeval: SemEval-2013's strict, exact, partial (half credit) and type schemes side by side.")] = "exact",
    jaccard: Annotated[float, typer.Option("--jaccard", help="Threshold for --criterion jaccard.")] = 0.5,
    types: Annotated[str | None, TYPES] = None,
    merge: Annotated[list[str] | None, typer.Option("--merge", help="'protein,DNA,RNA=macromolecule' (repeatable).")] = None,
    answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0, confidence: Confidence = 0.95,
    test: Test = "approximate_randomization", test_resamples: Resamples = 10000, fmt: Fmt = None, output: Output = None, html: Html = None,
) -> None:  # fmt: skip
    """Named entities under the bio-NER matching criteria (per-token credit for fragment; core terms).
    In the reference, a span with attribute AlternativeOf=T1 is an acceptable alternative boundary of T1
    (GENETAG), one with CoreOf=T1 is T1's core term."""
    from corpusdb.evaluation.ner import reference_spans, score_ner, score_semeval
    from corpusdb.reports.options import type_classes_from

    classes = type_classes_from(merge)
    mode = types_mode(types, merged=bool(classes))
    if criterion == "semeval":
        if classes or types:
            raise UsageError(
                "--criterion semeval has its own type rules (strict and type need the same type)"
            )
        _span_task(ctx, "ner", files, release, split, gold, system, answered_only, bootstrap, seed, confidence, test,
                   test_resamples, fmt, output,
                   lambda r, p, t: score_semeval({d: a.spans for d, a in r.items()}, {d: a.spans for d, a in p.items()},
                                                 answered_only=answered_only),
                   "strict", {"criterion": "semeval-2013 (strict, exact, partial with half credit, type; as nervaluate)"})  # fmt: skip
        return
    if criterion == "partial":
        criterion = "overlap"  # the old name: reported under the one that cannot be mistaken for SemEval's

    def score(r: dict[str, Any], p: dict[str, Any], texts: dict[str, str]) -> dict[str, Any]:
        return score_ner({d: reference_spans(a) for d, a in r.items()}, {d: a.spans for d, a in p.items()}, criterion=criterion,
                         types=mode, classes=classes, jaccard=jaccard, texts=texts, answered_only=answered_only)  # fmt: skip

    _span_task(ctx, "ner", files, release, split, gold, system, answered_only, bootstrap, seed, confidence, test,
               test_resamples, fmt, output, score, "all",
               {"criterion": criterion, "types": mode, "type_classes": classes, "jaccard": jaccard})  # fmt: skip


def _doc_task_files(files: list[Path] | None) -> list[Path]:
    fs = list(files or [])
    if len(fs) < 2:
        raise UsageError("give a REFERENCE file and at least one RUN file (tab-separated, see --help)")
    return fs


@evaluate_app.command("triage")
def triage(
    ctx: typer.Context, files: Files = None, release: Release = None, split: Split = None, gold: Gold = False,
    system: Systems = None,
    label: Annotated[str, typer.Option("--label", help="With --gold/--release: the document label judged (e.g. relevance).")] = "relevance",
    positive: Annotated[str | None, typer.Option("--positive", help="With --gold/--release: the label values that mean relevant, e.g. DR,PR.")] = None,
    beta: Annotated[float, typer.Option("--beta", help="F-beta's beta (besides F1).")] = 1.0,
    ur: Annotated[float, typer.Option("--ur", help="Utility weight of a true positive (TREC 2004: 20).")] = 20.0,
    answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0, confidence: Confidence = 0.95,
    test: Test = "approximate_randomization", test_resamples: Resamples = 10000, fmt: Fmt = None, output: Output = None, html: Html = None,
) -> None:  # fmt: skip
    """Article triage (BioCreative II.5 ACT, TREC 2004): P/R/F, F-beta, accuracy, MCC, sensitivity,
    specificity, AUC iP/R, normalised utility. Files: REFERENCE DOC<TAB>1|0, RUN DOC<TAB>1|0<TAB>CONFIDENCE.
    Store: --gold or --release V [--split S] with --system NAME: the reference's document label --label
    against each system's (confidence from the label's extra), --positive naming the relevant values."""
    from corpusdb.evaluation.tsv import read_triage_reference, read_triage_run

    _check_common(bootstrap, confidence, test, test_resamples)
    if release is None and not gold:
        if system or positive is not None:
            raise UsageError(
                "--system and --positive read document labels in the store: give --gold or --release"
            )
        fs = _doc_task_files(files)
        ref_name, ref = fs[0].name, read_triage_reference(fs[0])
        run_files = fs[1:]
    else:
        run = _Run(ctx, files, release, split, gold, system, load=False)
        if positive is None:
            raise UsageError("give --positive, the label values that mean relevant (e.g. --positive DR,PR)")
        run_files = run.prediction_files
    store = release is not None or gold
    runs: dict[str, Any] = {}
    taken: dict[str, Any] = dict.fromkeys(run.systems) if store else {}
    for p in run_files:
        name = _Run.system_name(p, taken)
        taken[name] = True
        runs[name] = read_triage_run(p)
    with _stepper() as step:
        if store:
            body = run.st.corpus().evaluate_triage(
                label, positive or "", systems=run.systems, release=release, split=split,
                answered_only=answered_only, beta=beta, ur=ur, bootstrap=bootstrap, seed=seed,
                confidence=confidence, test=test, test_resamples=test_resamples, runs=runs, progress=step)  # fmt: skip
        else:
            from corpusdb.evaluation.triage import triage_report

            body = triage_report(ref_name, ref, runs, beta=beta, ur=ur, answered_only=answered_only,
                                 bootstrap=bootstrap, seed=seed, confidence=confidence, test=test,
                                 test_resamples=test_resamples, progress=step)  # fmt: skip
    _finish(state(ctx), body, fmt, output, ctx.params.get("html"))


@evaluate_app.command("ranked")
def ranked(
    ctx: typer.Context, files: Files = None,
    cutoff: Annotated[int | None, typer.Option("--cutoff", "-n", help="Keep the top N predictions per document.")] = None,
    beta: Annotated[float, typer.Option("--beta", help="F-beta's beta (besides F1).")] = 1.0,
    answered_only: AnsweredOnly = False, bootstrap: Bootstrap = 0, seed: Seed = 0, confidence: Confidence = 0.95,
    test: Test = "approximate_randomization", test_resamples: Resamples = 10000, fmt: Fmt = None, output: Output = None, html: Html = None,
) -> None:  # fmt: skip
    """Ranked items per document (BioCreative II.5 INT: ids, IPT: pairs 'ID1,ID2'): micro/macro P/R/F,
    AUC iP/R macro and micro, cut-off. REFERENCE: DOC<TAB>ITEM; RUN: DOC<TAB>ITEM<TAB>CONFIDENCE."""
    from corpusdb.evaluation.documents import score_ranked
    from corpusdb.evaluation.report import system_entry
    from corpusdb.evaluation.tsv import read_ranked_reference, read_ranked_run

    _check_common(bootstrap, confidence, test, test_resamples)
    fs = _doc_task_files(files)
    ref = read_ranked_reference(fs[0])
    entries: list[dict[str, Any]] = []
    taken: dict[str, Any] = {}
    for p in fs[1:]:
        name = _Run.system_name(p, taken)
        taken[name] = True
        r = score_ranked(ref, read_ranked_run(p), cutoff=cutoff, beta=beta, answered_only=answered_only)
        docs = [d for d in ref if not (answered_only and d in r.unanswered)]
        entries.append(system_entry(name, {"items": r.score}, documents=docs, unanswered=r.unanswered,
                                    figures={k: v for k, v in r.figures.items() if k == "auc_ipr" or (k.startswith("f") and k not in ("fn", "fp"))},
                                    curve=r.curve, figure_bootstrap=r.bootstrap))  # fmt: skip
    body = _report("ranked", str(fs[0]), list(ref), entries, "items", answered_only, bootstrap, seed,
                   confidence, test, test_resamples, options={"cutoff": cutoff, "beta": beta})  # fmt: skip
    _finish(state(ctx), body, fmt, output, ctx.params.get("html"))


def register(app: typer.Typer) -> None:
    app.add_typer(evaluate_app, name="evaluate")
