"""Benchmark of the agreement engine (run by hand; prints figures, asserts nothing about time).

    .venv/bin/python bench/bench_agreement.py            # all parts, each in its own process
    .venv/bin/python bench/bench_agreement.py --part spans --spans 1000000

Parts (each runs in a fresh subprocess so that its peak RSS is its own):

* ``spans``: two annotators' versions of a synthetic corpus (10^6 spans each by default): the full
  span report (8 criteria x types required/ignored, per type, SemEval counts, no bootstrap),
  then a document bootstrap of F1 and type kappa. Target: < 10 s and < 1 GB.
* ``tokens``: token-level nominal alpha over 10^7 units (2 coders, 10 values) with the chunked
  coincidence engine; ``krippendorff`` 0.9 would allocate (N, V, V) arrays (~25 GB here).
* ``oracles``: the same computations against ``nervaluate`` and ``bratiaa`` (if installed) on the
  sizes they handle, printing the speed ratio, and ``krippendorff`` vs our engine on 10^5 units.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpusdb.basics.records import Span

TYPES = ("Protein", "DNA", "RNA", "Cell_line", "Cell_type", "Chemical", "Species", "Disease")
DOC_LEN = 2000
WORDS = ("the", "IL-2", "receptor", "binds", "alpha", "T", "cells", "of", "NF-kB", "in", "(", ")", ",", ".")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_text(rng: np.random.Generator) -> str:
    words: list[str] = []
    n = 0
    while n < DOC_LEN:
        w = WORDS[int(rng.integers(len(WORDS)))]
        words.append(w)
        n += len(w) + 1
    return " ".join(words)[:DOC_LEN]


def make_corpus(
    n_spans: int, per_doc: int = 100, seed: int = 1, texts: bool = True
) -> tuple[dict[str, tuple[list[Span], list[Span]]], dict[str, str]]:
    """A and B: B copies A with boundary shifts, type changes, deletions and insertions."""
    rng = np.random.default_rng(seed)
    n_docs = max(1, n_spans // per_doc)
    ids = [f"T{i}" for i in range(per_doc * 2 + 10)]
    docs: dict[str, tuple[list[Span], list[Span]]] = {}
    text_of: dict[str, str] = {}
    base_text = make_text(rng) if texts else ""
    for d in range(n_docs):
        starts = np.sort(rng.choice(DOC_LEN - 30, size=per_doc, replace=False))
        lens = rng.integers(2, 25, size=per_doc)
        types = rng.integers(len(TYPES), size=per_doc)
        action = rng.random(per_doc)
        shift = rng.integers(-3, 4, size=per_doc)
        a: list[Span] = []
        b: list[Span] = []
        for i in range(per_doc):
            s, e, t = int(starts[i]), int(starts[i] + lens[i]), TYPES[types[i]]
            a.append(Span(ids[i], t, ((s, e),), ""))
            x = action[i]
            if x < 0.80:
                b.append(Span(ids[i], t, ((s, e),), ""))
            elif x < 0.88:
                b.append(Span(ids[i], t, ((max(0, s + int(shift[i])), e),), ""))
            elif x < 0.92:
                b.append(Span(ids[i], TYPES[(types[i] + 1) % len(TYPES)], ((s, e),), ""))
            elif x < 0.96:
                pass  # B missed it
            else:
                b.append(Span(ids[i], t, ((s, e),), ""))
                b.append(Span(ids[per_doc + i], TYPES[0], ((s + 1, e + 2),), ""))  # extra, overlapping
        docs[f"doc{d}"] = (a, b)
        if texts:
            text_of[f"doc{d}"] = base_text
    return docs, text_of


def part_spans(n_spans: int) -> None:
    from corpusdb.agreement import bootstrap_prf, bootstrap_table, span_report
    from corpusdb.agreement.spans import PreparedSpans

    t0 = time.perf_counter()
    docs, texts = make_corpus(n_spans)
    n_a = sum(len(a) for a, _ in docs.values())
    n_b = sum(len(b) for _, b in docs.values())
    t1 = time.perf_counter()
    print(
        f"[spans] corpus: {len(docs)} documents, {n_a} spans (A), {n_b} spans (B); built in {t1 - t0:.1f} s "
        f"(not timed below); RSS so far {peak_rss_mb():.0f} MB"
    )
    t1 = time.perf_counter()
    prep = PreparedSpans(docs, texts)
    rss_input = peak_rss_mb()
    t2 = time.perf_counter()
    rep = span_report(prep)  # 8 criteria x types required/ignored, per type, SemEval
    t3 = time.perf_counter()
    print(f"[spans] flatten + candidate join: {t2 - t1:.2f} s ({len(prep.pa)} candidate pairs)")
    print(
        f"[spans] full report, {len(rep.comparisons)} criterion/type combinations + SemEval: {t3 - t2:.2f} s"
    )
    print(
        f"[spans] TOTAL engine time: {t3 - t1:.2f} s   peak RSS: {peak_rss_mb():.0f} MB, of which about "
        f"{rss_input:.0f} MB before the report: the 2*10^6 Span records themselves plus the prepared arrays "
        "(target < 10 s, < 1024 MB)"
    )
    t2 = time.perf_counter()
    merged = span_report(
        prep,
        types=("merged",),
        semeval=False,
        type_classes={"macromolecule": ["Protein", "DNA", "RNA"], "cell": ["Cell_line", "Cell_type"]},
    )
    rep.comparisons.update(merged.comparisons)  # type: ignore[attr-defined]
    print(
        f"[spans] + 8 criteria with merged types: {time.perf_counter() - t2:.2f} s; peak RSS {peak_rss_mb():.0f} MB"
    )
    for key in ("exact/required", "partial/ignored", "fragment/required", "jaccard/merged"):
        c = rep.comparisons[key]
        print(f"         {key:<18} F1={c.overall.f1:.4f}  matched={c.overall.matched}")
    c = rep.comparisons["exact/ignored"]
    t4 = time.perf_counter()
    f1 = bootstrap_prf(c.per_document, n_resamples=1000, seed=0)
    kap = bootstrap_table(c.per_document_type_tables, "cohen_kappa", n_resamples=1000, seed=0)
    t5 = time.perf_counter()
    print(
        f"[spans] document bootstrap, B=1000, {c.n_documents} documents: F1 [{f1.ci_low:.4f}, {f1.ci_high:.4f}], "
        f"type kappa [{kap.ci_low:.4f}, {kap.ci_high:.4f}] in {t5 - t4:.2f} s; peak RSS {peak_rss_mb():.0f} MB"
    )


def part_tokens(n_units: int) -> None:
    from corpusdb.agreement import krippendorff_alpha

    rng = np.random.default_rng(2)
    v = 10
    a = rng.choice(v, size=n_units, p=[0.82] + [0.02] * (v - 1)).astype(np.int8)
    b = a.copy()
    flip = rng.random(n_units) < 0.05
    b[flip] = rng.integers(0, v, size=int(flip.sum()))
    data = np.stack([a, b])
    t0 = time.perf_counter()
    res = krippendorff_alpha(data, "nominal", value_domain=list(range(v)), engine="coincidence", se=None)
    t1 = time.perf_counter()
    print(
        f"[tokens] nominal alpha over {n_units:.0e} token units x 2 coders, {v} values: {res.value:.5f} in "
        f"{t1 - t0:.2f} s; peak RSS {peak_rss_mb():.0f} MB (target < 1024 MB)"
    )
    print(
        "[tokens] how: codes are counted per chunk of 500,000 units into a (chunk, V) matrix with numpy "
        "bincount, the coincidence matrix is accumulated as C^T C / (m-1) - diag (BLAS), and alpha = "
        "1 - Do/De is computed from the V x V coincidences; krippendorff 0.9 would build (N, V, V) arrays "
        f"(~{n_units * v * v * 8 * 3 / 1e9:.0f} GB)."
    )


def part_oracles() -> None:
    import importlib.util

    # nervaluate: SemEval-2013 counts
    from nervaluate import Evaluator

    from corpusdb.agreement import compare_spans, krippendorff_alpha, semeval_counts

    docs, _ = make_corpus(20_000, texts=False)
    true = [[{"label": s.type, "start": s.start, "end": s.end - 1} for s in a] for a, _ in docs.values()]
    pred = [[{"label": s.type, "start": s.start, "end": s.end - 1} for s in b] for _, b in docs.values()]
    t0 = time.perf_counter()
    ours = semeval_counts(docs)
    t1 = time.perf_counter()
    ev = Evaluator(true, pred, tags=list(TYPES), loader="dict").evaluate()["overall"]
    t2 = time.perf_counter()
    print(
        f"[oracles] nervaluate on 20,000 spans: ours {t1 - t0:.3f} s, nervaluate {t2 - t1:.2f} s, "
        f"ratio {(t2 - t1) / (t1 - t0):.0f}x; strict F1 ours {ours['strict']['f1']:.4f} "
        f"nervaluate {ev['strict'].f1:.4f} (they differ where spans overlap several partners: nervaluate "
        "pairs each prediction with the first overlapping gold span, ours is a maximum one-to-one matching)"
    )
    # bratiaa: exact span+type F1 over a brat project on disk
    if importlib.util.find_spec("bratiaa") is None:
        print("[oracles] bratiaa is not installed (pip install bratiaa): no comparison")
    else:
        import bratiaa

        docs, texts = make_corpus(100_000, texts=True)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "annotation.conf").write_text(
                "[entities]\n" + "\n".join(TYPES) + "\n[relations]\n[events]\n[attributes]\n"
            )
            for who, side in (("A", 0), ("B", 1)):
                (root / who).mkdir()
                for d, pair in docs.items():
                    (root / who / f"{d}.txt").write_text(texts[d])
                    (root / who / f"{d}.ann").write_text(
                        "".join(
                            f"T{i + 1}\t{s.type} {s.start} {s.end}\t{texts[d][s.start : s.end]}\n"
                            for i, s in enumerate(pair[side])
                        )
                    )
            t0 = time.perf_counter()
            f1 = bratiaa.compute_f1_agreement(str(root)).mean_sd_total()[0]
            t1 = time.perf_counter()
            ours_c = compare_spans(docs, "exact")
            t2 = time.perf_counter()
        print(
            f"[oracles] bratiaa on 100,000 spans (reads its files): {t1 - t0:.2f} s; ours (records in memory) "
            f"{t2 - t1:.3f} s, ratio {(t1 - t0) / (t2 - t1):.0f}x; F1 bratiaa {f1:.5f} ours {ours_c.overall.f1:.5f}"
        )
    # krippendorff package vs our coincidence engine
    rng = np.random.default_rng(3)
    n = 100_000
    x = rng.integers(0, 5, size=n).astype(float)
    y = np.where(rng.random(n) < 0.8, x, rng.integers(0, 5, size=n)).astype(float)
    data = np.stack([x, y])
    import krippendorff

    t0 = time.perf_counter()
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    t1 = time.perf_counter()
    ours_a = krippendorff_alpha(data, "ordinal", engine="coincidence", se=None).value
    t2 = time.perf_counter()
    print(
        f"[oracles] krippendorff 0.9 ordinal alpha, 10^5 units: {t1 - t0:.3f} s; ours {t2 - t1:.3f} s, "
        f"ratio {(t1 - t0) / (t2 - t1):.0f}x; values {ref:.6f} / {ours_a:.6f}"
    )
    print(f"[oracles] peak RSS {peak_rss_mb():.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("spans", "tokens", "oracles", "all"), default="all")
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--tokens", type=int, default=10_000_000)
    args = ap.parse_args()
    if args.part == "spans":
        part_spans(args.spans)
    elif args.part == "tokens":
        part_tokens(args.tokens)
    elif args.part == "oracles":
        part_oracles()
    else:
        for part in ("spans", "tokens", "oracles"):
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--part",
                    part,
                    "--spans",
                    str(args.spans),
                    "--tokens",
                    str(args.tokens),
                ],
                check=False,
            )


if __name__ == "__main__":
    main()
