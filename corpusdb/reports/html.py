"""A self-contained HTML agreement report: tables plus inline SVG pictures and a few lines of inline
script to sort tables (no external files, scripts or fonts), so it can be mailed or archived as one file.
Beyond the shared sections it lists every document and the one-sided items."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from corpusdb.reports.tables import (
    NAMES,
    Section,
    describe,
    documents_section,
    headline_matrix,
    one_sided_section,
    sections,
)

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:70rem;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}.note{color:#555;font-size:.9rem}
figure{margin:.5rem 0}figure svg{max-width:100%;height:auto}.meta{color:#555}
table.sortable th{cursor:pointer}table.sortable th[aria-sort]::after{content:" \\2195"}
"""
# Sorting by a header click: a few lines of inline script, no library or external file, so the
# report stays one self-contained page. Numbers sort as numbers, an en dash (undefined) last.
SORT_JS = """
document.querySelectorAll("table.sortable th").forEach(function(th, i){th.addEventListener("click", function(){
 var t=th.closest("table"), b=t.tBodies[0], up=th.getAttribute("aria-sort")!=="ascending";
 t.querySelectorAll("th").forEach(function(h){h.removeAttribute("aria-sort")});
 th.setAttribute("aria-sort", up?"ascending":"descending");
 var key=function(r){var s=r.cells[i].textContent, n=parseFloat(s); return isNaN(n)?(s==="–"?null:s):n};
 Array.from(b.rows).sort(function(x,y){var a=key(x), c=key(y); if(a===c)return 0; if(a===null)return 1;
  if(c===null)return -1; var r=(typeof a===typeof c)?(a<c?-1:1):(typeof a==="number"?-1:1); return up?r:-r})
  .forEach(function(r){b.appendChild(r)});});});
"""


def _figure(sec: Section, body: Mapping[str, Any], matrix: str | None) -> str:
    from corpusdb.reports import figures

    if sec.key == "matrix":
        measure = headline_matrix(body, matrix)
        if len(body["matrices"][measure]["names"]) < figures.MATRIX_MIN_RATERS:
            return ""  # two raters: the one number in the table says it all
        return figures.heatmap_svg(body["matrices"][measure], f"pairwise {NAMES.get(measure, measure)}")
    if sec.key == "confusion":
        cf = body["confusion"]
        if cf["orientation"] == "a_by_b":
            return figures.confusion_svg(cf, f"{cf['a']} (A)", f"{cf['b']} (B)")
        return figures.confusion_svg(cf, "rater", "other rater (pooled, symmetric)")
    if sec.key == "per_type":
        rows = body["per_type"]["rows"]
        label = (
            "Fleiss' kappa per category"
            if body["layer"] == "labels"
            else "F1 (mean over pairs; bar: min–max)"
        )
        return figures.bars_svg(rows, label)
    return ""


def render_html(body: Mapping[str, Any], *, pictures: bool = True, matrix: str | None = None) -> str:
    """The whole report as one HTML page."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Agreement: {escape(body['project'])}</title><style>{CSS}</style></head><body>",
        f"<h1>Inter-annotator agreement: {escape(body['project'])}</h1>",
        f"<p>{escape(describe(body))}.</p>",
        f'<p class="meta">Run as {escape(body["actor"])} at {escape(body["generated"])} · '
        f"<code>{escape(body['schema'])}</code></p>",
    ]
    extra = [x for x in (documents_section(body), one_sided_section(body)) if x is not None]
    for sec in [*sections(body, matrix), *extra]:
        parts.append(f"<section><h2>{escape(sec.title)}</h2>")
        if not sec.headers:
            parts.append("<ul>" + "".join(f"<li>{escape(line)}</li>" for line in sec.lines) + "</ul>")
        else:
            picture = _figure(sec, body, matrix) if pictures and sec.key else ""
            if picture:
                parts.append(f"<figure>{picture}</figure>")
            parts.append(
                '<table class="sortable"><thead><tr>'
                + "".join(f"<th>{escape(h)}</th>" for h in sec.headers)
                + "</tr></thead><tbody>"
            )
            parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in sec.rows]
            parts.append("</tbody></table>")
            if sec.note:
                parts.append(f'<p class="note">{escape(sec.note)}</p>')
        parts.append("</section>")
    parts.append(f"<script>{SORT_JS}</script></body></html>")
    return "\n".join(parts)
