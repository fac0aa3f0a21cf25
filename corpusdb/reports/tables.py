"""The report as titled tables of strings: one layout shared by the terminal, Markdown and HTML.

Why one layout: the three outputs must never disagree, so they format the same JSON body through
the same functions; only the final markup differs. Numbers are rounded here (3 decimals), never
in the JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

NAMES = {
    "fleiss_kappa": "Fleiss' kappa",
    "krippendorff_alpha": "Krippendorff's alpha",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "brennan_prediger": "Brennan-Prediger",
    "conger_kappa": "Conger's kappa",
    "cohen_kappa": "Cohen's kappa",
    "scott_pi": "Scott's pi",
    "bennett_s": "Bennett's S",
    "percent_agreement": "percent agreement",
    "mean_pairwise_f1": "mean pairwise F1",
    "f1": "F1",
    "precision": "precision",
    "recall": "recall",
    "type_kappa": "Cohen's kappa on matched types",
    "label_kappa": "Cohen's kappa on relation labels",
}


def num(x: Any, digits: int = 3) -> str:
    """A figure as the report prints it; an undefined one is an en dash."""
    if x is None:
        return "–"
    if isinstance(x, int):  # bool too
        return str(x)
    return f"{x:.{digits}f}"


def ci_text(ci: Mapping[str, Any] | None) -> str:
    if not ci or ci.get("ci_low") is None:
        return ""
    return f"[{num(ci['ci_low'])}, {num(ci['ci_high'])}]"


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    key: str = ""
    """Which picture (if any) belongs to this section in HTML: matrix, confusion, per_type."""
    lines: tuple[str, ...] = field(default=())
    """Free text instead of a table (headers empty)."""


def describe(body: Mapping[str, Any]) -> str:
    """One line: what was compared, how."""
    s = body["settings"]
    raters = ", ".join(r["name"] for r in body["raters"])
    if body["layer"] == "labels":
        level = s.get("level") or ("ordinal" if s.get("ordinal") else "nominal")
        how = f"document label {s['label']!r}" + (f" ({level})" if level != "nominal" else "")
    else:
        how = f"{body['layer']}, criterion {s['criterion']}"
        if s.get("jaccard") is not None:
            how += f" >= {s['jaccard']}"
        how += f", types {s['types']}"
        if s.get("type_classes"):
            how += " (" + "; ".join(f"{'+'.join(v)} -> {k}" for k, v in s["type_classes"].items()) + ")"
        if s.get("relation_mode"):
            how += f", {s['relation_mode']} relations"
        if s.get("derived_relations"):  # the schema's derived relations: in or out, always said
            how += f", derived relations {s['derived_relations']}d"
    docs = s["documents"]
    scope = f"split {docs['split']!r}" if docs.get("split") else ""
    if docs.get("ids"):
        scope = (scope + ", " if scope else "") + f"{len(docs['ids'])} listed documents"
    scope = scope or "all documents"
    s_un = s.get("unanswered")
    gold = any(r.get("kind") == "gold" for r in body["raters"])
    if body["layer"] == "labels":
        rule = "each pair on the documents both judged"
    elif gold and s_un == "misses":
        rule = "a document gold has and a rater has no set for counts as misses"
    else:
        rule = "each pair on the documents both answered"
    return f"{how}; raters {raters}; {len(body['documents'])} documents compared ({scope}; {rule})"


def _summary(body: Mapping[str, Any]) -> Section:
    sm = body["summary"]
    level = f" ({sm['level']})" if sm.get("level") not in (None, "nominal") else ""
    lines = [
        f"{NAMES.get(sm['measure'], sm['measure'])}{level}: {num(sm['value'])}"
        + (
            f"  {int(sm['ci']['confidence'] * 100)}% CI {ci_text(sm['ci'])} (document bootstrap, "
            f"{sm['ci']['n_resamples']} resamples, seed {sm['ci']['seed']})"
            if sm.get("ci")
            else ""
        )
    ]
    pm = NAMES.get(sm.get("pair_measure") or "cohen_kappa", "")
    if sm.get("lowest_pair"):
        lo, hi = sm["lowest_pair"], sm["highest_pair"]
        lines.append(
            f"lowest pair {lo['a']}–{lo['b']} {num(lo['value'])}, highest {hi['a']}–{hi['b']} "
            f"{num(hi['value'])} ({pm})"
        )
    return Section("Summary", (), (), lines=tuple(lines))


def _matrix(body: Mapping[str, Any], measure: str) -> Section:
    m = body["matrices"][measure]
    rows = tuple((n, *(num(v) for v in vals)) for n, vals in zip(m["names"], m["values"], strict=True))
    note = "row = A (reference), column = B" if measure in ("precision", "recall") else ""
    return Section(f"Pairwise {NAMES.get(measure, measure)}", ("", *m["names"]), rows, note, key="matrix")


def _pairs(body: Mapping[str, Any]) -> Section:
    if body["layer"] == "labels":
        rows = []
        for p in body["pairs"]:
            c = p["coefficients"]
            rows.append(
                (
                    p["a"],
                    p["b"],
                    str(p["documents"]),
                    num(c["percent_agreement"]["value"]),
                    num(c["cohen_kappa"]["value"]),
                    ci_text((p.get("ci") or {}).get("cohen_kappa")),
                    num(c["scott_pi"]["value"]),
                    num(c["gwet_ac1"]["value"]),
                    num(c["krippendorff_alpha"]["value"]),
                )
            )
        return _drop_empty(
            Section(
                "Pairs",
                ("A", "B", "documents", "agreement", "kappa", "kappa CI", "pi", "AC1", "alpha"),
                tuple(rows),
            )
        )
    rows = []
    semantic = (body.get("settings") or {}).get("semantic")
    for p in body["pairs"]:
        o = p["overall"]
        ta = (p.get("type_agreement") or p.get("label_agreement") or {}).get("cohen_kappa")
        row = [
            p["a"],
            p["b"],
            str(p["documents"]),
            str(o["matched"]),
            str(o["only_a"]),
            str(o["only_b"]),
            num(o["precision"]),
            num(o["recall"]),
            num(o["f1"]),
            ci_text((p.get("ci") or {}).get("f1")),
        ]
        if body["layer"] == "relations":
            row.append(
                num(
                    p["modes"]["relaxed"]["f1"]
                    if body["settings"]["relation_mode"] == "strict"
                    else p["modes"]["strict"]["f1"]
                )
            )
        if body["layer"] in ("spans", "relations"):
            row.append(num(ta["value"]) if ta else "–")
        if body["layer"] == "links":
            row += [num(p["clusters"][m]["f1"]) for m in ("muc", "b_cubed", "ceaf_e")]
        if body["layer"] == "groundings":
            row += [num(p["groundings"][m]["f1"]) for m in ("span_exact", "span_overlap")]
            if semantic:
                row.append(num(p["groundings"]["span_semantic"]["f1"]))
        rows.append(tuple(row))
    headers = ["A", "B", "documents", "matched", "only A", "only B", "P", "R", "F1", "F1 CI"]
    if body["layer"] == "relations":
        headers.append("relaxed F1" if body["settings"]["relation_mode"] == "strict" else "strict F1")
    if body["layer"] == "spans":
        headers.append("type kappa")
    if body["layer"] == "relations":
        headers.append("label kappa")
    note = "A is the reference: P = matched / B's, R = matched / A's"
    if body["layer"] == "links":
        headers += ["MUC F1", "B3 F1", "CEAF-e F1"]
        note += "; matched = co-referring pairs of mentions (entities: explicit clusters and symmetric links)"
    if body["layer"] == "groundings":
        headers += ["span exact F1", "span overlap F1"] + (["span Wang F1"] if semantic else [])
        note += "; matched = grounded ids per document (BioCreative II.5); per type = per database"
        if semantic:
            note += (f"; span Wang F1: near concepts credited with Wang et al. (2007) similarity on "
                     f"{semantic['kb']}'s is_a graph (edge weight {semantic['weight']:g})")  # fmt: skip
    return _drop_empty(Section("Pairs", tuple(headers), tuple(rows), note))


def _drop_empty(sec: Section) -> Section:
    """Leave out CI columns when no bootstrap was asked for (every cell empty)."""
    keep = [i for i, h in enumerate(sec.headers) if "CI" not in h or any(r[i] for r in sec.rows)]
    return Section(
        sec.title,
        tuple(sec.headers[i] for i in keep),
        tuple(tuple(r[i] for i in keep) for r in sec.rows),
        sec.note,
        sec.key,
        sec.lines,
    )


def _multirater(body: Mapping[str, Any]) -> Section | None:
    mr = body.get("multirater")
    if not mr or not mr.get("coefficients"):
        return None
    boot = mr.get("bootstrap") or {}
    rows = tuple(
        (NAMES.get(k, k), num(c["value"]), ci_text(c), ci_text(boot.get(k)), str(c["n"]), c["note"])
        for k, c in mr["coefficients"].items()
    )
    if body["layer"] == "labels":
        note = f"{mr['units']} documents"
    else:
        by = ", ".join(f"{k}: {v}" for k, v in mr["by_raters"].items())
        note = (
            f"types of {mr['units']} units marked by two or more raters; units by number of raters {by}; "
            f"{mr['ambiguous']} ambiguous"
        )
    return _drop_empty(
        Section(
            "Multi-rater agreement",
            ("coefficient", "value", "CI (analytic)", "CI (bootstrap)", "n", "note"),
            rows,
            note,
        )
    )


def _per_type(body: Mapping[str, Any]) -> Section | None:
    pt = body["per_type"]
    if not pt.get("rows"):  # no type on this layer (links nobody drew): no empty table (issue #26)
        return None
    if body["layer"] == "labels":
        rows = tuple(
            (r["name"], num(r["value"]), num(r["krippendorff_alpha"]), str(r["ratings"])) for r in pt["rows"]
        )
        return Section(
            "Per category", ("category", "Fleiss' kappa", "alpha", "ratings"), rows, key="per_type"
        )
    rows = tuple(
        (
            r["name"],
            num(r["value"]),
            num(r["min"]),
            num(r["max"]),
            str(r["matched"]),
            str(r["only_a"]),
            str(r["only_b"]),
            num(r["pooled_f1"]),
            num(r.get("n")),
        )
        for r in pt["rows"]
    )
    return Section(
        "Per type",
        ("type", "mean F1", "min", "max", "matched", "only A", "only B", "pooled F1", "n"),
        rows,
        "mean, min and max over pairs; counts pooled over pairs; n: items of the type over every rater",
        key="per_type",
    )


def _lowest(body: Mapping[str, Any]) -> list[Section]:
    low = body["lowest"]
    if body["layer"] == "labels":
        docs = tuple(
            (
                r["document"],
                num(r["value"]),
                ", ".join(f"{k}={v}" for k, v in r["ratings"].items() if v is not None),
            )
            for r in low["documents"]
        )
        return [
            Section("Documents with the lowest agreement", ("document", "agreeing pairs", "ratings"), docs)
        ]
    docs = tuple(
        (
            r["document"],
            num(r["value"]),
            num(r["min"]),
            f"{r['lowest_pair']['a']}–{r['lowest_pair']['b']}" if r.get("lowest_pair") else "",
            str(r["matched"]),
            str(r["only_a"] + r["only_b"]),
        )
        for r in low["documents"]
    )
    types = tuple(
        (r["name"], num(r["value"]), num(r["min"]), str(r["matched"] + r["only_a"] + r["only_b"]))
        for r in low["types"]
    )
    return [
        Section(
            "Documents with the lowest agreement",
            ("document", "mean F1", "min F1", "worst pair", "matched", "one-sided"),
            docs,
        ),
        Section("Types with the lowest agreement", ("type", "mean F1", "min F1", "items"), types),
    ]


def _confusion(body: Mapping[str, Any]) -> Section | None:
    cf = body.get("confusion")
    if not cf or not cf["labels"]:
        return None
    labels = cf["labels"]
    rows = [
        (lab, *map(str, row), str(ua))
        for lab, row, ua in zip(labels, cf["table"], cf["unmatched_a"], strict=True)
    ]
    rows.append(("(none)", *map(str, cf["unmatched_b"]), ""))
    if cf["orientation"] == "a_by_b":
        note = f"rows: {cf['a']}'s type, columns: {cf['b']}'s type; (none): a span the other did not match"
    else:
        note = "pooled over pairs, each pair counted both ways; (none): spans without a partner"
    if body["layer"] == "labels":
        note = (
            note.replace("type", "label")
            .replace("a span the other did not match", "judged by one only")
            .replace("spans without a partner", "judged by one of the pair only")
        )
    # the table also counts unmatched spans under "(none)": the title says so (it said "matched spans")
    title = (
        "Confusion of labels"
        if body["layer"] == "labels"
        else "Confusion of types: matched spans, and unmatched ones under (none)"
    )
    return Section(title, ("", *labels, "(none)"), tuple(rows), note, key="confusion")


def _policy(body: Mapping[str, Any]) -> Section:
    pol = body["policy"]
    lines = [f"one-sided items: {pol['one_sided']}", f"documents: {pol['documents']}"]
    if pol.get("units"):
        lines.append(f"multi-rater units: {pol['units']}")
    lines.append(pol["reference"])
    lines += [f"note: {n}" for n in body.get("notes", ())]
    return Section("Policy", (), (), lines=tuple(lines))


def headline_matrix(body: Mapping[str, Any], matrix: str | None = None) -> str:
    """The matrix shown (``matrix`` if given and present, else the layer's first)."""
    if matrix is not None and matrix not in body["matrices"]:
        from corpusdb.basics.errors import InvalidInput

        raise InvalidInput(
            f"no matrix {matrix!r} for layer {body['layer']}; choose {', '.join(body['matrices'])}"
        )
    return matrix or next(iter(body["matrices"]))


def sections(body: Mapping[str, Any], matrix: str | None = None) -> list[Section]:
    """Every section of the report, in reading order (``matrix``: which pairwise matrix to show)."""
    out: list[Section | None] = [
        _summary(body),
        _matrix(body, headline_matrix(body, matrix)),
        _pairs(body),
        _multirater(body),
        _per_rater(body),
        _per_type(body),
        *_lowest(body),
        _confusion(body),
        _policy(body),
    ]
    return [s for s in out if s is not None]


def _per_rater(body: Mapping[str, Any]) -> Section | None:
    """Who is the outlier: each rater's mean F1 against every other rater, items, one-sided items."""
    pr = body.get("per_rater")
    if not pr or not pr.get("rows"):
        return None
    # one-sided spans are counted on the spans layer only: elsewhere the column and its note go
    # (they read "one-sided: spans" under a links report before; issue #26)
    spans = any(r.get("one_sided") is not None for r in pr["rows"])
    rows = tuple(
        (
            r["name"] + (" (lowest)" if r.get("outlier") else ""),
            num(r["mean_f1"]),
            num(r["min_f1"]),
            str(r["n_pairs"]),
            str(r["items"]),
            *((num(r.get("one_sided")),) if spans else ()),
            str(r.get("from_suggestions", 0)),
        )
        for r in sorted(pr["rows"], key=lambda r: (r["mean_f1"] is None, r["mean_f1"] or 0.0))
    )
    excluded = (body.get("suggestions") or {}).get("excluded")
    last = "suggested (left out)" if excluded else "from suggestions"
    said = (
        "suggested: items accepted from suggestions, left out of the comparison; "
        if excluded
        else "from suggestions: compared items accepted from suggestions; "
    )
    return Section(
        "Per rater",
        ("rater", "mean F1", "min F1", "pairs", "items", *(("one-sided",) if spans else ()), last),
        rows,
        "mean and min F1 against every other rater; items on the compared documents; "
        + ("one-sided: spans no other rater marked (types ignored); " if spans else "")
        + said
        + "lowest mean first",
    )


def documents_section(body: Mapping[str, Any]) -> Section | None:
    """Every compared document (the HTML report's sortable table; the others show the lowest)."""
    pd = body.get("per_document")
    if not pd or body["layer"] == "labels":
        return None
    every = any("krippendorff_alpha" in r for r in pd["rows"])  # 3+ raters: alpha over all of them
    rows = tuple(
        (
            r["document"],
            num(r["value"]),
            num(r["min"]),
            f"{r['lowest_pair']['a']}–{r['lowest_pair']['b']}" if r.get("lowest_pair") else "",
            str(r["n_pairs"]),
            str(r["matched"]),
            str(r["only_a"] + r["only_b"]),
            *([num(r.get("krippendorff_alpha"))] if every else []),
        )
        for r in pd["rows"]
    )
    return Section(
        f"Every document ({len(rows)})",
        ("document", "mean F1", "min F1", "worst pair", "pairs", "matched", "one-sided",
         *(["alpha (all raters)"] if every else [])),
        rows,
        "click a column header to sort"
        + ("; alpha (all raters): Krippendorff's alpha on the types of the document's multi-rater units, "
           "every rater at once" if every else ""),
    )  # fmt: skip


def one_sided_section(body: Mapping[str, Any]) -> Section | None:
    """The spans only one rater marked, capped (the total is in the title)."""
    one = body.get("one_sided")
    if not one:
        return None
    rows = tuple(
        (r["document"], r["rater"], r["type"], r["text"], ",".join(f"{a}-{b}" for a, b in r["fragments"]))
        for r in one["rows"]
    )
    shown = f"the first {len(rows)} of {one['total']}" if one["total"] > len(rows) else f"all {one['total']}"
    return Section(
        f"One-sided items ({one['total']})",
        ("document", "rater", "type", "text", "offsets"),
        rows,
        f"spans no other rater marked (types ignored, the report's criterion); {shown}",
    )
