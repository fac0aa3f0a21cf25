"""The evaluation report: one JSON-able body, schema ``corpusdb.evaluation/1`` (documented in
``corpusdb/evaluation/README.md``), built from the scorers' :class:`Score` objects.

Why one body: the terminal, Markdown, HTML and JSON outputs all render the same dictionary, so they
never disagree, and the JSON is what scripts keep.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from itertools import combinations
from typing import Any

from corpusdb.evaluation.counts import Score
from corpusdb.evaluation.significance import bootstrap_ci, paired_test, rows_of

SCHEMA_ID = "corpusdb.evaluation/1"
MISSES = "unanswered documents count as misses (every reference item in them is a false negative)"
ANSWERED = "only documents the system answered are scored (--answered-only); unanswered ones are left out"

Progress = Callable[[int, int, str], None]


def system_entry(
    name: str, scores: Mapping[str, Score], *, documents: Sequence[str], unanswered: Sequence[str],
    figures: Mapping[str, Any] | None = None, curve: Mapping[str, Any] | None = None,
    figure_bootstrap: Callable[[int, int, float], dict[str, Any]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """One system's part of the body (before CIs and tests are added)."""
    return {
        "name": name,
        "documents": len(documents),
        "unanswered": len(unanswered),
        "unanswered_ids": list(unanswered)[:20],
        "scores": [s.to_dict() for s in scores.values()],
        "figures": dict(figures or {}),
        "curve": dict(curve) if curve else None,
        "_scores": scores,
        "_figure_bootstrap": figure_bootstrap,
    }


def build_report(
    task: str, reference: str, reference_documents: Sequence[str], systems: Sequence[dict[str, Any]], *,
    headline: str, options: Mapping[str, Any] | None = None, answered_only: bool = False,
    bootstrap: int = 0, seed: int = 0, confidence: float = 0.95, test: str = "approximate_randomization",
    test_resamples: int = 10000, official: Sequence[str] = (), notes: Sequence[str] = (),
    progress: Progress | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The whole report: systems with their scores (and document-bootstrap CIs when ``bootstrap``),
    a ranking by the headline score's F1 and, for two or more systems, paired tests on it."""
    docs = list(reference_documents)
    total = len(systems) * (2 if bootstrap else 1) + (len(systems) * (len(systems) - 1)) // 2
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total, what)

    out_systems = []
    for sys_ in systems:
        scores: Mapping[str, Score] = sys_["_scores"]
        entry = {k: v for k, v in sys_.items() if not k.startswith("_")}
        if bootstrap:
            for row, sc in zip(entry["scores"], scores.values(), strict=True):
                rows = rows_of(sc.per_document, docs)
                row["ci"] = {f: bootstrap_ci(rows, f, resamples=bootstrap, seed=seed, confidence=confidence).to_dict()
                             for f in ("precision", "recall", "f1")}  # fmt: skip
            if sys_.get("_figure_bootstrap") is not None:
                entry["figures_ci"] = sys_["_figure_bootstrap"](bootstrap, seed, confidence)
            step(f"bootstrap {entry['name']}")
        out_systems.append(entry)
        step(f"scored {entry['name']}")

    def head(entry: Mapping[str, Any]) -> float | None:
        return next((s.get("f1") for s in entry["scores"] if s["name"] == headline), None)

    order = sorted(out_systems, key=lambda e: (-(head(e) if head(e) is not None else -1.0), e["name"]))
    ranking = [{"rank": i + 1, "system": e["name"], "f1": head(e)} for i, e in enumerate(order)]
    tests = []
    for a, b in combinations(systems, 2):
        ra = rows_of(a["_scores"][headline].per_document, docs)
        rb = rows_of(b["_scores"][headline].per_document, docs)
        t = paired_test(ra, rb, "f1", method=test, resamples=test_resamples, seed=seed).to_dict()
        tests.append({"a": a["name"], "b": b["name"], "score": headline, **t})
        step(f"test {a['name']} vs {b['name']}")
    return {
        "schema": SCHEMA_ID,
        "generated": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "task": task,
        "reference": {"name": reference, "documents": len(docs)},
        "options": dict(options or {}),
        "unanswered_policy": {"answered_only": answered_only, "text": ANSWERED if answered_only else MISSES},
        "headline": headline,
        "official": list(official),
        "systems": out_systems,
        "ranking": ranking,
        "paired_tests": tests,
        "bootstrap": {
            "resamples": bootstrap,
            "seed": seed,
            "confidence": confidence,
            "method": "document bootstrap, percentile interval",
        }
        if bootstrap
        else None,
        "notes": list(notes),
    }
