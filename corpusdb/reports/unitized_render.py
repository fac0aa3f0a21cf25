"""The unitizing report (``corpusdb.unitizing/1``) as text lines and as one HTML page."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from corpusdb.reports.html import CSS, SORT_JS

TITLES = {"alpha_u": "Krippendorff's unitizing alpha (alpha_u)", "gamma": "Mathet et al.'s gamma"}


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.4f}"


SORTS = ("document", "value")
"""Orders of the per-document table: by document id, or by value (lowest first, undefined last)."""


def sorted_documents(body: Mapping[str, Any], sort: str = "document") -> list[dict[str, Any]]:
    """The per-document rows in the order asked (``SORTS``)."""
    rows_ = list(body.get("per_document") or [])
    if sort == "value":
        rows_.sort(
            key=lambda r: (r["value"] is None, r["value"] if r["value"] is not None else 0.0, r["document"])
        )
    return rows_


def rows(body: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The table under the headline: per category (alpha_u) or per document (gamma)."""
    if body["measure"] == "alpha_u":
        return ["category", "alpha_c", "units", "D_o", "D_e"], [
            [r["category"], _num(r["value"]), str(r["n_units"]), f"{r['do']:.3g}", f"{r['de']:.3g}"]
            for r in body["per_category"]
        ]
    return document_rows(body)


def document_rows(body: Mapping[str, Any], sort: str = "document") -> tuple[list[str], list[list[str]]]:
    """Each document's figure over every rater (alpha_u: the document's own continuum; gamma)."""
    if body["measure"] == "alpha_u":
        return ["document", "alpha_u (all raters)", "units", "D_o", "D_e"], [
            [r["document"], _num(r["value"]), str(r["units"]), _g(r.get("do")), _g(r.get("de"))]
            for r in sorted_documents(body, sort)
        ]
    return ["document", "gamma", "units", "best-alignment disorder", "expected disorder"], [
        [r["document"], _num(r["value"]), str(r["units"]), _num(r.get("best_alignment_disorder")),
         _num(r.get("expected_disorder"))]
        for r in sorted_documents(body, sort)
    ]  # fmt: skip


def _g(x: float | None) -> str:
    return "–" if x is None else f"{x:.3g}"


def tables(body: Mapping[str, Any], sort: str = "document") -> list[tuple[list[str], list[list[str]]]]:
    """Every table of the report: alpha_u's per category and per document; gamma's per document."""
    if body["measure"] == "alpha_u" and body.get("per_document") is not None:
        return [rows(body), document_rows(body, sort)]
    return [document_rows(body, sort) if body["measure"] == "gamma" else rows(body)]


def lines(body: Mapping[str, Any]) -> list[str]:
    """Headline, raters, documents and every option, as the text and HTML outputs state them."""
    out = [
        f"{TITLES[body['measure']]}: {_num(body['value'])}",
        f"raters: {', '.join(body['raters'])}; {len(body['documents'])} shared document(s)",
        *(f"{k}: {v}" for k, v in body["options"].items()),
        *body["notes"],
    ]
    return out


def render_unitizing_html(body: Mapping[str, Any], sort: str = "document") -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(TITLES[body['measure']])}: {escape(body['project'])}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(TITLES[body['measure']])}: {escape(body['project'])}</h1>",
        "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines(body)) + "</ul>",
    ]
    per_doc = sorted_documents(body, sort)
    if len(per_doc) > 1:
        from corpusdb.reports import figures

        bars = [{"name": r["document"], "value": r["value"]} for r in per_doc]
        what = "alpha_u per document (all raters)" if body["measure"] == "alpha_u" else "gamma per document"
        parts.append(f"<figure>{figures.bars_svg(bars, what)}</figure>")
    for head, table in tables(body, sort):
        parts.append('<table class="sortable"><thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head)
                     + "</tr></thead><tbody>")  # fmt: skip
        parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table]
        parts.append("</tbody></table>")
    parts.append(f"<script>{SORT_JS}</script></body></html>")
    return "\n".join(parts)
