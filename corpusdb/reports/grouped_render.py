"""Agreement by group (``corpusdb.agreement-by/1``, :mod:`corpusdb.reports.grouped`) as table rows and
as one self-contained HTML page with its picture (what ``agree --by ... --html`` writes)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from corpusdb.reports.html import CSS, SORT_JS

TITLES = {
    "guideline": "Agreement by guideline version",
    "split": "Agreement by split",
    "time": "Each annotator's agreement over time (learning curve)",
}


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _ci(ci: Mapping[str, Any] | None) -> str:
    if not ci or ci.get("ci_low") is None:
        return "–"
    return f"{ci['ci_low']:.3f}–{ci['ci_high']:.3f}"


def rows(res: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows as the terminal, Markdown and HTML show them."""
    if res["by"] == "time":
        return ["annotator", "window", "first", "last", "documents", "value"], [
            [str(r["annotator"]), str(r["window"]), r.get("first", ""), r.get("last", ""), str(r["documents"]),
             _num(r["value"])]
            for r in res["rows"]
        ]  # fmt: skip
    head = ["guideline version" if res["by"] == "guideline" else "split", "documents", "compared", "value",
            "pairs", "CI"]  # fmt: skip
    return head, [
        [str(r["group"]), str(r["documents"]), str(r.get("compared", "")), _num(r["value"]),
         str(r.get("n_pairs") or 0), _ci(r.get("ci")) + (f" ({r['note']})" if r.get("note") else "")]
        for r in res["rows"]
    ]  # fmt: skip


def lines(res: Mapping[str, Any]) -> list[str]:
    """What was measured and how documents were grouped, as every output states it."""
    out = [f"measure: {res['measure']}"]
    if res.get("rule"):
        out.append(f"{res['rule']}; {res['mixed_documents']} document(s) with sets under different versions")
    if res["by"] == "time":
        out.append(f"windows of {res['window']} documents, in the order each annotator submitted them")
    out.append("each row is the figure `corpusdb agree -d <its documents>` gives")
    return out


def render_grouped_html(res: Mapping[str, Any], *, pictures: bool = True) -> str:
    from corpusdb.reports import figures

    title = TITLES[res["by"]]
    project = str(res.get("project", ""))
    head, table = rows(res)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}: {escape(project)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}: {escape(project)}</h1>",
        "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines(res)) + "</ul>",
    ]
    if pictures and any(r["value"] is not None for r in res["rows"]):
        parts.append(f"<figure>{figures.grouped_svg(res)}</figure>")
    parts.append('<table class="sortable"><thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head)
                 + "</tr></thead><tbody>")  # fmt: skip
    parts += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table]
    parts.append(f"</tbody></table><script>{SORT_JS}</script></body></html>")
    return "\n".join(parts)
