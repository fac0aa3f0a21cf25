"""The unitizing report (``corpusdb.unitizing/1``) as text lines and as one HTML page."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from corpusdb.reports.html import CSS, SORT_JS

TITLES = {"alpha_u": "Krippendorff's unitizing alpha (alpha_u)", "gamma": "Mathet et al.'s gamma"}


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.4f}"


def rows(body: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The table under the headline: per category (alpha_u) or per document (gamma)."""
    if body["measure"] == "alpha_u":
        return ["category", "alpha_c", "units", "D_o", "D_e"], [
            [r["category"], _num(r["value"]), str(r["n_units"]), f"{r['do']:.3g}", f"{r['de']:.3g}"]
            for r in body["per_category"]
        ]
    return ["document", "gamma", "units", "best-alignment disorder", "expected disorder"], [
        [r["document"], _num(r["value"]), str(r["units"]), _num(r.get("best_alignment_disorder")),
         _num(r.get("expected_disorder"))]
        for r in body["per_document"]
    ]  # fmt: skip


def lines(body: Mapping[str, Any]) -> list[str]:
    """Headline, raters, documents and every option, as the text and HTML outputs state them."""
    out = [
        f"{TITLES[body['measure']]}: {_num(body['value'])}",
        f"raters: {', '.join(body['raters'])}; {len(body['documents'])} shared document(s)",
        *(f"{k}: {v}" for k, v in body["options"].items()),
        *body["notes"],
    ]
    return out


def render_unitizing_html(body: Mapping[str, Any]) -> str:
    head, table = rows(body)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(TITLES[body['measure']])}: {escape(body['project'])}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(TITLES[body['measure']])}: {escape(body['project'])}</h1>",
        "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines(body)) + "</ul>",
    ]
    if body["measure"] == "gamma" and len(table) > 1:
        from corpusdb.reports import figures

        bars = [{"name": r["document"], "value": r["value"]} for r in body["per_document"]]
        parts.append(f"<figure>{figures.bars_svg(bars, 'gamma per document')}</figure>")
    parts.append('<table class="sortable"><thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head)
                 + "</tr></thead><tbody>")  # fmt: skip
    parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table]
    parts.append(f"</tbody></table><script>{SORT_JS}</script></body></html>")
    return "\n".join(parts)
