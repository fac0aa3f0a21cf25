"""From pairwise results to what a lead reads: matrices, per-type and per-document rows, the
lowest documents and types, the pooled confusion of types, and the summary with its CI.

Why means over pairs: a per-type or per-document figure for n raters is the mean of the pairwise
F1 (as bratiaa reports it), with the minimum beside it so one bad pair is not averaged away;
pooled counts are there too. Every value is a plain float (full precision; renderers round).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from corpusdb.agreement.bootstrap import cluster_bootstrap
from corpusdb.agreement.results import PRF, BootstrapCI, clean_float
from corpusdb.reports.options import AgreementOptions
from corpusdb.reports.pairs import PairResult


def _f1(counts: np.ndarray) -> np.ndarray:
    """F1 of (..., 3) matched/only_a/only_b counts; NaN where nothing was annotated."""
    m, a, b = counts[..., 0], counts[..., 1], counts[..., 2]
    den = 2 * m + a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 2 * m / den, np.nan)


def _mean(vals: Sequence[float | None]) -> float | None:
    ok = [v for v in vals if v is not None]
    return sum(ok) / len(ok) if ok else None


def pair_entry(p: PairResult, layer: str) -> dict[str, Any]:
    """One pair in the JSON report."""
    out: dict[str, Any] = {
        "a": p.a,
        "b": p.b,
        "documents": len(p.documents),
        "overall": p.overall.to_dict(),
        "per_type": {k: v.to_dict() for k, v in sorted(p.per_type.items())},
        "ci": {k: v.to_dict() for k, v in p.ci.items()} or None,
    }
    # Relations compare their labels (1/0/-1) over the relations both found, not types.
    key = "label_agreement" if layer == "relations" else "type_agreement"
    out[key] = {k: v.to_dict() for k, v in p.type_agreement.items()} or None
    if p.spans is not None:
        out["excluded"] = {"a": p.spans.excluded_a, "b": p.spans.excluded_b}
    if layer == "links":
        out["clusters"] = {m: getattr(p.headline, m).to_dict() for m in ("muc", "b_cubed", "ceaf_e")}
    if layer == "groundings":
        g = p.headline
        out["groundings"] = {"span_exact": g.span_exact.to_dict(), "span_overlap": g.span_overlap.to_dict(),
                             "document": g.document.to_dict(),
                             "per_database": {k: {m: v.to_dict() for m, v in d.items()}
                                              for k, d in g.per_database.items()}}  # fmt: skip
        if g.span_semantic is not None:
            out["groundings"]["span_semantic"] = g.span_semantic.to_dict()
    if layer == "relations":
        out["modes"] = {m: c.overall.to_dict() for m, c in p.modes.items()}
        out["per_tag"] = {k: v.to_dict() for k, v in p.headline.per_tag.items()}
        out["label_table"] = {
            "values": list(p.headline.label_values),
            "table": [list(r) for r in p.headline.label_table or ()],
        }
    return out


def matrices(names: Sequence[str], pairs: Sequence[PairResult], layer: str) -> dict[str, Any]:
    """Annotator x annotator matrices, row = A (the reference), column = B. F1 and the
    chance-corrected coefficient are symmetric; precision(A, B) = recall(B, A). The diagonal is
    1.0 for F1/precision/recall (a rater agrees with itself) and None for coefficients."""
    k = len(names)
    idx = {n: i for i, n in enumerate(names)}
    measures = ["f1", "precision", "recall"]
    coef = {"spans": "type_kappa", "relations": "label_kappa"}.get(layer)
    if coef:
        measures.append(coef)
    out: dict[str, Any] = {}
    for m in measures:
        vals: list[list[float | None]] = [
            [1.0 if m != coef and i == j else None for j in range(k)] for i in range(k)
        ]
        for p in pairs:
            i, j = idx[p.a], idx[p.b]
            if m == coef:
                c = p.type_agreement.get("cohen_kappa")
                vals[i][j] = vals[j][i] = c.value if c is not None else None
            elif m == "f1":
                vals[i][j] = vals[j][i] = p.overall.f1
            else:
                pr, rc = p.overall.precision, p.overall.recall
                vals[i][j], vals[j][i] = (pr, rc) if m == "precision" else (rc, pr)
        out[m] = {"names": list(names), "values": vals}
    return out


def per_type_rows(pairs: Sequence[PairResult]) -> list[dict[str, Any]]:
    """Per (merged) type: mean/min/max pairwise F1 and pooled counts, sorted by name."""
    types = sorted({t for p in pairs for t in p.per_type})
    rows = []
    for t in types:
        prfs = [p.per_type[t] for p in pairs if t in p.per_type]
        f1s = [x.f1 for x in prfs if x.f1 is not None]
        pooled = PRF.from_counts(
            sum(x.matched for x in prfs), sum(x.only_a for x in prfs), sum(x.only_b for x in prfs)
        )
        rows.append(
            {
                "name": t,
                "value": _mean(f1s),
                "min": min(f1s) if f1s else None,
                "max": max(f1s) if f1s else None,
                "n_pairs": len(f1s),
                "matched": pooled.matched,
                "only_a": pooled.only_a,
                "only_b": pooled.only_b,
                "pooled_f1": pooled.f1,
            }
        )
    return rows


def _doc_counts(pairs: Sequence[PairResult]) -> tuple[list[str], np.ndarray]:
    """(documents, pairs, 3) counts over the union of the pairs' documents (zeros where absent)."""
    docs = sorted({d for p in pairs for d in p.documents})
    idx = {d: i for i, d in enumerate(docs)}
    arr = np.zeros((len(docs), len(pairs), 3))
    for j, p in enumerate(pairs):
        rows = np.fromiter((idx[d] for d in p.documents), dtype=np.int64, count=len(p.documents))
        if len(rows):
            arr[rows, j] = p.per_document
    return docs, arr


def per_document_rows(pairs: Sequence[PairResult]) -> list[dict[str, Any]]:
    """Per document: mean/min pairwise F1 (pairs that both saw it and annotated something)."""
    docs, arr = _doc_counts(pairs)
    f1 = _f1(arr)
    idx = {d: i for i, d in enumerate(docs)}
    present = np.zeros(arr.shape[:2], dtype=bool)
    for j, p in enumerate(pairs):
        present[[idx[d] for d in p.documents], j] = True
    # vectorised over documents (10^4 and more): a loop of small numpy calls per document cost more
    # than the matching; means of several values keep numpy's own summation, so figures are unchanged
    valid = present & np.isfinite(f1)
    n_valid = valid.sum(axis=1)
    low = np.where(valid, f1, np.inf).min(axis=1, initial=np.inf)
    worst_j = np.argmin(np.where(valid, f1, np.inf), axis=1)
    mean = np.where(valid, f1, 0.0).max(axis=1, initial=0.0)  # the one value where there is one
    for i in np.flatnonzero(n_valid > 1).tolist():
        mean[i] = f1[i][valid[i]].mean()
    tot = (arr * present[:, :, None]).sum(axis=1).astype(np.int64).tolist()
    n_pairs = present.sum(axis=1).tolist()
    has = (n_valid > 0).tolist()
    mean_l, low_l, worst_l = mean.tolist(), low.tolist(), worst_j.tolist()
    rows = []
    for i, d in enumerate(docs):
        ok = has[i]
        rows.append(
            {
                "document": d,
                "value": clean_float(mean_l[i]) if ok else None,
                "min": clean_float(low_l[i]) if ok else None,
                "lowest_pair": {"a": pairs[worst_l[i]].a, "b": pairs[worst_l[i]].b} if ok else None,
                "n_pairs": int(n_pairs[i]),
                "matched": int(tot[i][0]),
                "only_a": int(tot[i][1]),
                "only_b": int(tot[i][2]),
            }
        )
    return rows


def lowest(rows: Sequence[dict[str, Any]], k: int, key: str = "value") -> list[dict[str, Any]]:
    """The k rows with the lowest defined value (ties: name order), lowest first."""
    ok = [r for r in rows if r.get(key) is not None]
    return sorted(ok, key=lambda r: (r[key], str(r.get("name", r.get("document")))))[:k]


def summary(pairs: Sequence[PairResult], opts: AgreementOptions) -> dict[str, Any]:
    """Mean pairwise F1, the lowest and highest pair, and a joint document-bootstrap CI: one
    resampling of documents shared by all pairs, so the CI of the mean is not a mean of CIs."""
    f1s = [(p.overall.f1, p) for p in pairs if p.overall.f1 is not None]
    lo = min(f1s, key=lambda x: x[0], default=None)
    hi = max(f1s, key=lambda x: x[0], default=None)
    ci: BootstrapCI | None = None
    if opts.bootstrap and pairs:
        _, arr = _doc_counts(pairs)

        def stat(t: np.ndarray) -> np.ndarray:
            vals = _f1(t)
            with warnings.catch_warnings():  # a replicate where no pair annotated anything is NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(vals, axis=1)

        ci = cluster_bootstrap(
            arr, stat, n_resamples=opts.bootstrap, seed=opts.seed, confidence=opts.confidence
        )
    return {
        "measure": "mean_pairwise_f1",
        "value": _mean([v for v, _ in f1s]),
        "n_pairs": len(pairs),
        "ci": ci.to_dict() if ci else None,
        "lowest_pair": {"a": lo[1].a, "b": lo[1].b, "value": lo[0]} if lo else None,
        "highest_pair": {"a": hi[1].a, "b": hi[1].b, "value": hi[0]} if hi else None,
    }


def confusion(pairs: Sequence[PairResult]) -> dict[str, Any] | None:
    """Types of matched spans (types ignored in the matching), with one-sided spans per type.

    One pair: rows = A's type, columns = B's. More: pooled over pairs and symmetrised (each pair
    counted both ways), so the table does not depend on who is called A; ``unmatched`` then sums
    both sides' one-sided spans."""
    with_types = [p for p in pairs if p.type_table is not None]
    if not with_types:
        return None
    labels = sorted({t for p in with_types for t in p.type_labels})
    idx = {t: i for i, t in enumerate(labels)}
    q = len(labels)
    table = np.zeros((q, q))
    ua = np.zeros(q)
    ub = np.zeros(q)
    for p in with_types:
        ix = [idx[t] for t in p.type_labels]
        table[np.ix_(ix, ix)] += p.type_table  # type: ignore[arg-type]
        ua[ix] += p.unmatched_a  # type: ignore[arg-type]
        ub[ix] += p.unmatched_b  # type: ignore[arg-type]
    single = len(with_types) == 1
    if not single:
        table = table + table.T
        ua = ub = ua + ub
    return {
        "orientation": "a_by_b" if single else "pooled_symmetric",
        "a": with_types[0].a if single else None,
        "b": with_types[0].b if single else None,
        "labels": labels,
        "table": [[int(x) for x in r] for r in table],
        "unmatched_a": [int(x) for x in ua],
        "unmatched_b": [int(x) for x in ub],
    }
