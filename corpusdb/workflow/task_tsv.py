"""Shared-task runs that are tab-separated files: ``triage``, ``ranked`` and ``trec`` tasks.

Why apart from the annotation runs: these runs are one file of document-level answers, not
standoff annotations, so they are not prediction sets. The intake reads the file with the very
readers ``corpusdb evaluate triage|ranked`` and ``corpusdb runs`` use (``corpusdb.evaluation.tsv``,
``corpusdb.relevance.runs``), all or nothing, every problem with the file and its line, and refuses
a document outside the task's split; the file is kept as sent (``task_submission``, status
``stored``) and scored from it with the same scorers those commands use, so a task's score equals
the command's on the same run.

Formats: triage ``DOC<TAB>1|0<TAB>CONFIDENCE``; ranked ``DOC<TAB>ITEM<TAB>CONFIDENCE``; trec
``topic Q0 docid rank score tag`` (whitespace-separated). References (given to ``task score``):
triage ``DOC<TAB>1|0``, ranked ``DOC<TAB>ITEM``, trec a qrels file (default: the project's qrels).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from corpusdb.basics.errors import FormatError, InvalidInput, Problem

TSV_METRICS = ("triage", "ranked", "trec")
HEADLINE = {"triage": "triage", "ranked": "items", "trec": "AP"}
_AT = re.compile(r"^(?P<file>.*?): line (?P<line>\d+): (?P<msg>.*)$", re.S)


def _problem(exc: Exception, path: Path) -> Problem:
    """A reader's one-line error as a problem with file and line."""
    m = _AT.match(str(exc))
    if m:
        return Problem(str(path), int(m["line"]), m["msg"])
    return Problem(str(path), None, str(exc).removeprefix(f"{path}: "))


def parse_run(metric: str, path: Path, trec: Any, text: str | None = None) -> Any:
    """The run in ``path`` (or ``text``, named ``path``) read as ``metric``'s run; a
    :class:`FormatError` lists the problems with file and line. ``trec``: the relevance package's
    readers and scorer (``RelevanceMixin._trec_tools``; the workflow may not import it)."""
    import tempfile

    from corpusdb.evaluation.counts import EvaluationInputError

    if text is not None:  # a stored run: read through the same reader, from a scratch copy
        with tempfile.TemporaryDirectory(prefix="corpusdb-run-") as tmp:
            p = Path(tmp) / path.name
            p.write_text(text, encoding="utf-8")
            try:
                return parse_run(metric, p, trec)
            except FormatError as exc:
                raise FormatError([Problem(str(path), q.line, q.message) for q in exc.problems]) from None
    try:
        if metric == "triage":
            from corpusdb.evaluation.tsv import read_triage_run

            return read_triage_run(path)
        if metric == "ranked":
            from corpusdb.evaluation.tsv import read_ranked_run

            return read_ranked_run(path)
        return trec.read_run(path)
    except FormatError:
        raise
    except EvaluationInputError as exc:
        raise FormatError([_problem(exc, path)]) from None
    except InvalidInput as exc:
        raise FormatError([_problem(exc, path)]) from None


def run_documents(metric: str, path: Path) -> list[tuple[int, str]]:
    """(line, document id) of each answer line: the column that names a document."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t") if metric != "trec" else line.split()
        col = 2 if metric == "trec" else 0
        if len(parts) > col:
            out.append((n, parts[col].strip()))
    return out


def check_run_file(metric: str, files: Sequence[Path], split_docs: set[str], where: str,
                   trec: Any) -> tuple[Path, Any]:  # fmt: skip
    """The one run file, read and checked (well formed; every document in the task's split)."""
    paths = [p for f in files for p in (sorted(x for x in f.iterdir() if x.is_file()) if f.is_dir() else [f])]
    if len(paths) != 1:
        raise InvalidInput(f"a {metric} run is one tab-separated file; got {len(paths)}")
    path = paths[0]
    try:
        path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError.single(path, None, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise FormatError.single(path, None, f"cannot read: {exc.strerror or exc}") from None
    parsed = parse_run(metric, path, trec)
    if metric == "trec":  # a relevance release's documents are judging units "topic+doc"
        split_docs = split_docs | {d.partition("+")[2] for d in split_docs if "+" in d}
    outside = [
        Problem(str(path), n, f"document {d} is not in {where}")
        for n, d in run_documents(metric, path)
        if d not in split_docs
    ]
    if outside:
        raise FormatError(outside)
    if not parsed:
        raise FormatError.single(path, None, "no answer in the run")
    return path, parsed


def read_reference(metric: str, path: Path, trec: Any) -> Any:
    """The organizer's reference for ``metric`` (triage or ranked TSV, trec qrels)."""
    from corpusdb.evaluation.counts import EvaluationInputError

    try:
        if metric == "triage":
            from corpusdb.evaluation.tsv import read_triage_reference

            return read_triage_reference(path)
        if metric == "ranked":
            from corpusdb.evaluation.tsv import read_ranked_reference

            return read_ranked_reference(path)
        return trec.read_qrels(path)
    except FormatError:
        raise
    except EvaluationInputError as exc:
        raise FormatError([_problem(exc, path)]) from None


def tsv_report(metric: str, reference_name: str, reference: Any, runs: Mapping[str, Any], *,
               bootstrap: int, seed: int, test_resamples: int, options: Mapping[str, Any], trec: Any) -> dict[str, Any]:  # fmt: skip
    """The ``corpusdb.evaluation/1`` body, as ``corpusdb evaluate triage|ranked`` builds it with its
    defaults (triage: ``triage_report``; ranked: ``score_ranked``), and for trec the mean of each
    measure of ``corpusdb runs score`` (ir-measures) with the topics as the rows resampled."""
    from corpusdb.evaluation.report import build_report, system_entry

    if metric == "triage":
        from corpusdb.evaluation.triage import triage_report

        return triage_report(reference_name, reference, runs, bootstrap=bootstrap, seed=seed,
                             test_resamples=test_resamples, options=options)  # fmt: skip
    if metric == "ranked":
        from corpusdb.evaluation.documents import score_ranked

        entries = []
        for name, run in runs.items():
            r = score_ranked(reference, run)
            figures = {k: v for k, v in r.figures.items() if k == "auc_ipr" or (k.startswith("f") and k not in ("fn", "fp"))}  # fmt: skip
            entries.append(system_entry(name, {"items": r.score}, documents=list(reference), unanswered=r.unanswered,
                                        figures=figures, curve=r.curve, figure_bootstrap=r.bootstrap))  # fmt: skip
        return build_report("ranked", reference_name, list(reference), entries, headline="items",
                            bootstrap=bootstrap, seed=seed, test_resamples=test_resamples, options=options)  # fmt: skip
    return trec_report(reference_name, reference, runs, options=options, trec=trec)


def trec_report(reference_name: str, qrels: Sequence[Any], runs: Mapping[str, Any], *,
                options: Mapping[str, Any], trec: Any) -> dict[str, Any]:  # fmt: skip
    """TREC runs scored with ``trec.score_run`` (``corpusdb.relevance.scoring.score_run``: the measures of ``corpusdb runs
    score``), ranked by mean AP; a paired test per pair of runs on their per-topic AP (randomization,
    as the trec_eval tradition compares runs), so the task's rank groups apply."""
    scored = {name: trec.score_run(qrels, lines, trec.measures, tag=name) for name, lines in runs.items()}
    systems = [
        {"name": name, "topics": s.topics, "mean": s.mean, "per_topic": s.per_topic,
         "scores": [{"name": m, "f1": s.mean.get(m)} for m in s.measures]}
        for name, s in scored.items()
    ]  # fmt: skip
    order = sorted(systems, key=lambda e: (-(e["mean"].get("AP") or 0.0), e["name"]))
    ranking = [{"rank": i + 1, "system": e["name"], "f1": e["mean"].get("AP")} for i, e in enumerate(order)]
    tests = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            tests.append(
                {"a": a["name"], "b": b["name"], "p_value": _paired_p(a["per_topic"], b["per_topic"])}
            )
    return {"task": "trec", "reference": reference_name, "headline": "AP", "options": dict(options),
            "measures": list(trec.measures), "systems": systems, "ranking": ranking, "paired_tests": tests}  # fmt: skip


def _paired_p(
    a: Mapping[str, Mapping[str, float]], b: Mapping[str, Mapping[str, float]], n: int = 2000
) -> float:
    """Two-sided paired randomization test on per-topic AP (topics scored in either run; 0 where
    one run has none), seeded."""
    import random

    topics = sorted(set(a) | set(b))
    d = [(a.get(t, {}).get("AP", 0.0)) - (b.get(t, {}).get("AP", 0.0)) for t in topics]
    if not d:
        return 1.0
    obs = abs(sum(d))
    rng = random.Random(0)
    hits = sum(abs(sum(x if rng.random() < 0.5 else -x for x in d)) >= obs - 1e-12 for _ in range(n))
    return (hits + 1) / (n + 1)
