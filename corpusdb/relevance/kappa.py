"""Agreement between two judgments of the same (topic, document), as TREC 2004 Genomics reported it:
Cohen's kappa over the doubly judged units, three-way (DR / PR / NR) and with DR and PR merged into
"relevant" (the binary figure; Hersh et al. 2006, *Enhancing access to the Bibliome: the TREC 2004
Genomics Track*, Journal of Biomedical Discovery and Collaboration 1:3, on the relevance judgments).
The coefficients are ``corpusdb.agreement``'s (statsmodels kappa with its standard error); this module
only builds the two tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

GRADES = ("DR", "PR", "NR")
MERGED = {"DR": "R", "PR": "R", "NR": "NR"}


def doubled_agreement(
    pairs: Sequence[tuple[str, str]], categories: Sequence[str] = GRADES, merged: Mapping[str, str] = MERGED
) -> dict[str, Any]:
    """Kappa over (first judgment, second judgment) pairs: ``three_way`` and ``merged`` (DR+PR)."""
    from corpusdb.agreement.coefficients import cohen_kappa, contingency_table

    def one(a: list[str], b: list[str], cats: list[str]) -> dict[str, Any]:
        table, _ = contingency_table(a, b, categories=cats)
        k = cohen_kappa(table)
        used = sorted({*a, *b})
        if (
            len(used) == 1
        ):  # chance agreement is 1: kappa is 0/0, not the 0.000 [-0.000, 0.000] printed before
            return {
                "categories": cats, "table": [[int(v) for v in row] for row in table],
                "observed": k.observed, "expected": 1.0, "kappa": None, "se": None, "ci": None,
                "note": f"no variation: every judgment is {used[0]}, so kappa is undefined",
            }  # fmt: skip
        return {
            "categories": cats, "table": [[int(v) for v in row] for row in table],
            "observed": k.observed, "expected": k.expected, "kappa": k.value, "se": k.se,
            "ci": [k.ci_low, k.ci_high] if k.ci_low is not None else None,
            "note": k.note or None,
        }  # fmt: skip

    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    cats = list(categories) + sorted({*a, *b} - set(categories))
    ma = [merged.get(x, x) for x in a]
    mb = [merged.get(y, y) for y in b]
    mcats = list(dict.fromkeys(merged.get(c, c) for c in cats))
    return {"units": len(pairs), "three_way": one(a, b, cats), "merged": one(ma, mb, mcats)}
