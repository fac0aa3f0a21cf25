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
            aucs, points = {}, {}
            for s in body["systems"]:
                auc = (s.get("figures") or {}).get("auc_ipr")
                aucs[s["name"]] = auc.get("micro") if isinstance(auc, dict) else auc
                head = s["scores"][0] if s["scores"] else {}
                points[s["name"]] = (head.get("recall"), head.get("precision"))
            svg = figures.pr_curve_svg(curves, aucs, points)
            parts.append(f"<section><h2>Precision/recall curve</h2><figure>{svg}</figure></section>")
        if any(r.get("f1") is not None for s in body["systems"] for r in s["scores"]):
            ci = any(r.get("ci") for s in body["systems"] for r in s["scores"])
            parts.append("<section><h2>F1 per score, systems side by side</h2>"
                         f"<figure>{figures.systems_svg(body['systems'])}</figure>"
                         + ('<p class="note">whiskers: document-bootstrap CIs</p>' if ci else "")
                         + "</section>")  # fmt: skip
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
