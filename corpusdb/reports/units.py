"""Multi-rater agreement on span types over *units*: spans that several raters matched together.

Why units: Fleiss' kappa, Krippendorff's alpha and Gwet's AC1 need items that several raters
judged. For spans the items are not given; they come from the pairwise alignments (types ignored,
the report's criterion): spans linked by a match are one unit, the connected components of the
match graph over every rater's spans. A unit where one rater has two spans (A1~B1~A2 through
different pairs) is ambiguous and left out (counted). A rater without a span in a unit is a
*missing* rating, not a category: chance-corrected agreement on "is there a span at all" is
undefined without a fixed set of candidate items. Units marked by a single rater are counted in
``by_raters`` but carry no agreement information, so the coefficients use units of two or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from corpusdb.agreement.alpha import krippendorff_alpha_counts
from corpusdb.agreement.bootstrap import bootstrap_alpha, bootstrap_units
from corpusdb.agreement.multirater import fleiss_kappa, gwet_ac
from corpusdb.agreement.results import BootstrapCI, Coefficient, _ToDict
from corpusdb.reports.options import AgreementOptions
from corpusdb.reports.pairs import PairResult

POLICY = (
    "units are connected components of the pairwise matches (types ignored, same criterion); a rater "
    "without a span in a unit is a missing rating; units with a single rater or with two spans of one "
    "rater (ambiguous) are left out of the coefficients"
)
_SLOT = 1 << 22  # spans per document per rater in the integer unit key


@dataclass(frozen=True, slots=True)
class UnitAgreement(_ToDict):
    coefficients: dict[str, Coefficient]
    categories: tuple[str, ...]
    units: int
    """Units with two or more raters (the coefficients' items)."""
    by_raters: dict[str, int]
    """How many units k raters marked, k = 1..n (what the coefficients hide: spans few saw)."""
    ambiguous: int
    policy: str
    bootstrap: dict[str, BootstrapCI] = field(default_factory=dict)
    per_document: dict[str, float | None] = field(default_factory=dict, metadata={"json": False})
    """Document -> Krippendorff's (nominal) alpha over that document's units, every rater at once;
    None where undefined (a single type among its units). Shown in the report's ``per_document``."""


def span_units(
    names: Sequence[str], pairs: Sequence[PairResult], opts: AgreementOptions
) -> UnitAgreement | None:
    """Fleiss, alpha and AC1 on the (merged) types of multi-rater units; None for fewer than 3 raters
    (two raters: the pairwise kappa/pi/alpha say the same)."""
    if len(names) < 3:
        return None
    rindex = {n: i for i, n in enumerate(names)}
    docs: dict[str, int] = {}
    cats: dict[str, int] = {}
    keys, tcodes, edges_a, edges_b = [], [], [], []
    for p in pairs:
        comp = p.types_ignored
        if comp is None:
            continue
        prep = comp._alignment[0]
        dg = np.array([docs.setdefault(d, len(docs)) for d in prep.doc_ids] or [0], dtype=np.int64)
        tg = np.array([cats.setdefault(opts.class_of(t), len(cats)) for t in prep.type_names] or [0])
        side_keys = []
        for side, r in ((prep.a, rindex[p.a]), (prep.b, rindex[p.b])):
            d = side.doc.astype(np.int64)
            pos = np.arange(len(d)) - np.searchsorted(d, d, side="left")
            k = (dg[d] * len(names) + r) * _SLOT + pos  # (document, rater, position in document)
            side_keys.append(k)
            keys.append(k)
            tcodes.append(tg[side.type])
        ma, mb = comp.matched_indices()
        edges_a.append(side_keys[0][ma])
        edges_b.append(side_keys[1][mb])
    if not keys:
        return None
    all_keys = np.concatenate(keys)
    uniq, first = np.unique(all_keys, return_index=True)
    types = np.concatenate(tcodes)[first]
    rater = (uniq // _SLOT) % len(names)
    doc = uniq // _SLOT // len(names)
    ea = np.searchsorted(uniq, np.concatenate(edges_a))
    eb = np.searchsorted(uniq, np.concatenate(edges_b))
    from scipy.sparse import coo_matrix  # heavy: lazily
    from scipy.sparse.csgraph import connected_components

    n = len(uniq)
    _, comp_of = connected_components(coo_matrix((np.ones(len(ea)), (ea, eb)), shape=(n, n)), directed=False)
    ncomp = int(comp_of.max()) + 1 if n else 0
    per = np.zeros((ncomp, len(names)), dtype=np.int64)
    np.add.at(per, (comp_of, rater), 1)
    ambiguous = (per > 1).any(axis=1)
    size = (per > 0).sum(axis=1)
    by_raters = {str(k): int(((size == k) & ~ambiguous).sum()) for k in range(1, len(names) + 1)}
    keep = ~ambiguous & (size >= 2)
    counts = np.zeros((ncomp, len(cats)))
    np.add.at(counts, (comp_of, types), 1.0)
    counts = counts[keep]
    unit_doc = np.zeros(ncomp, dtype=np.int64)
    unit_doc[comp_of] = doc
    unit_doc = unit_doc[keep]
    names_all = list(cats)
    order = [c for c in sorted(range(len(names_all)), key=lambda c: names_all[c]) if counts[:, c].sum() > 0]
    counts = counts[:, order]
    cat_names = tuple(names_all[c] for c in order)
    coeffs: dict[str, Coefficient] = {}
    boot: dict[str, BootstrapCI] = {}
    if len(counts):
        coeffs = {
            "fleiss_kappa": fleiss_kappa(counts, categories=list(cat_names)),
            "krippendorff_alpha": krippendorff_alpha_counts(counts, "nominal", value_domain=list(cat_names)),
            "gwet_ac1": gwet_ac(counts, categories=list(cat_names)),
        }
        if opts.bootstrap:
            kw: dict[str, Any] = {
                "n_resamples": opts.bootstrap,
                "seed": opts.seed,
                "confidence": opts.confidence,
            }
            boot = {
                "fleiss_kappa": bootstrap_units(counts, "fleiss_kappa", clusters=unit_doc, **kw),
                "krippendorff_alpha": bootstrap_alpha(counts, 1 - np.eye(counts.shape[1]), unit_doc, **kw),
                "gwet_ac1": bootstrap_units(counts, "gwet_ac1", clusters=unit_doc, **kw),
            }
    doc_names = {i: d for d, i in docs.items()}
    per_doc = {doc_names[int(d)]: a for d, a in document_alpha(counts, unit_doc).items()}
    return UnitAgreement(
        coeffs, cat_names, int(keep.sum()), by_raters, int(ambiguous.sum()), POLICY, boot, per_doc
    )


def document_alpha(counts: np.ndarray, unit_doc: np.ndarray) -> dict[int, float | None]:
    """Krippendorff's nominal alpha per document from units x categories counts (units of two or
    more ratings) and each unit's document, all documents at once: per document, the coincidences
    sum to n (values), their diagonal to sum_u sum_c n_uc(n_uc - 1)/(m_u - 1), each category's margin
    to its count, and alpha = 1 - (n - 1)(n - diagonal) / (n^2 - sum_c n_c^2) (None when every
    value is one category: no expected disagreement)."""
    if not len(counts):
        return {}
    m = counts.sum(axis=1)
    docs, inv = np.unique(unit_doc, return_inverse=True)
    n = np.bincount(inv, weights=m, minlength=len(docs))
    diag = np.bincount(inv, weights=(counts * (counts - 1)).sum(axis=1) / (m - 1), minlength=len(docs))
    margins = np.zeros((len(docs), counts.shape[1]))
    np.add.at(margins, inv, counts)
    expected = n**2 - (margins**2).sum(axis=1)
    out: dict[int, float | None] = {}
    for i, d in enumerate(docs):
        out[int(d)] = None if expected[i] <= 1e-12 else float(1 - (n[i] - 1) * (n[i] - diag[i]) / expected[i])
    return out
