"""A self-contained HTML evaluation report: the text report's tables, a P/R curve for ranked tasks and
bars of each score's F1 per system (inline SVG drawn by :mod:`corpusdb.reports.figures`, lazily)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from corpusdb.evaluation.render import describe, tables
from corpusdb.reports.html import CSS


def render_evaluation_html(body: Mapping[str, Any], *, pictures: bool = True) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Evaluation: {escape(body['task'])}</title><style>{CSS}</style></head><body>",
        f"<h1>Evaluation: {escape(body['task'])}</h1>",
        f"<p>{escape(describe(body))}.</p>",
        f'<p class="meta">Generated {escape(body["generated"])} · <code>{escape(body["schema"])}</code></p>',
    ]
    if pictures:
        from corpusdb.reports import figures

        curves = {
            s["name"]: s["curve"] for s in body["systems"] if s.get("curve") and s["curve"].get("recall")
        }
        if curves:
            parts.append(
                f"<section><h2>Precision/recall curve</h2><figure>{figures.pr_curve_svg(curves)}</figure></section>"
            )
        for s in body["systems"]:
            rows = [{"name": r["name"], "value": r["f1"]} for r in s["scores"] if r.get("f1") is not None]
            if rows:
                parts.append(f"<section><h2>{escape(s['name'])}: F1 per score</h2>"
                             f"<figure>{figures.bars_svg(rows, 'F1')}</figure></section>")  # fmt: skip
    for t in tables(body):
        parts.append(f"<section><h2>{escape(t.title)}</h2><table><thead><tr>")
        parts.append("".join(f"<th>{escape(h)}</th>" for h in t.headers) + "</tr></thead><tbody>")
        parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in t.rows]
        parts.append("</tbody></table>")
        if t.note:
            parts.append(f'<p class="note">{escape(t.note)}</p>')
        parts.append("</section>")
    if body.get("notes"):
        parts.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in body["notes"]) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)
