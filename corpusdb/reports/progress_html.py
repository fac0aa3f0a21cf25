"""The progress report as one self-contained HTML page: time, throughput, progress over time and
the projection, with pictures drawn by :mod:`corpusdb.reports.figures`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from corpusdb.reports.html import CSS, SORT_JS


def hms(seconds: float) -> str:
    """Seconds as h:mm:ss (what a lead budgets in)."""
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _rate(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def render_progress_html(d: Mapping[str, Any], *, pictures: bool = True) -> str:
    from corpusdb.reports import figures

    p = d["projection"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Progress: {escape(d['project'])}</title><style>{CSS}</style></head><body>",
        f"<h1>Time and progress: {escape(d['project'])}</h1>",
        f'<p class="meta">{escape(d["rule"])}.</p>',
        "<ul>" + "".join(f'<li class="note">{escape(x)}</li>' for x in d["limits"]) + "</ul>",
        "<section><h2>Progress over time</h2>",
    ]
    proj = f"{p['done']} of {p['documents']} documents finished; at {p['pace_per_day']:g} per day " + (
        f"the rest are done by {p['date']} ({p['days_left']} days)."
        if p["date"]
        else "no completion date can be projected."
    )
    parts.append(f'<p>{escape(proj)} <span class="note">({escape(p["rule"])})</span></p>')
    if pictures and d["progress"]:
        parts.append(f"<figure>{figures.progress_svg(d['progress'], p)}</figure>")
    parts.append(_table(["day", "submitted", "adjudicated", "finished", "finished (total)"],
                        [[r["day"], r["submitted"], r["adjudicated"], r["finished"], r["finished_total"]]
                         for r in d["progress"]]))  # fmt: skip
    parts.append("</section><section><h2>Active time per annotator</h2>")
    t = d["totals"]
    parts.append(f"<p>{hms(t['active_seconds'])} active; {t['idle_gaps']} idle gaps "
                 f"({hms(t['idle_seconds_not_counted'])}) not counted.</p>")  # fmt: skip
    if pictures and d["by_day"]:
        parts.append(f"<figure>{figures.hours_svg(d['by_day'])}</figure>")
    parts.append(_table(["annotator", "active", "documents", "items", "items/hour", "documents/hour"],
                        [[r["annotator"], hms(r["active_seconds"]), r["documents"], r["items"],
                          _rate(r["items_per_hour"]), _rate(r["documents_per_hour"])] for r in d["by_annotator"]]))  # fmt: skip
    parts.append("</section><section><h2>Active time per annotator and day</h2>")
    parts.append(_table(["day", "annotator", "active", "documents", "items"],
                        [[r["day"], r["annotator"], hms(r["active_seconds"]), r["documents"], r["items"]]
                         for r in d["by_day"]]))  # fmt: skip
    parts.append("</section>")
    tva = d.get("time_vs_agreement")
    if tva and tva["rows"]:
        parts.append("<section><h2>Time against agreement per document</h2>")
        rho = tva["spearman"]
        parts.append(
            f"<p>Spearman's rho: {'–' if rho is None else f'{rho:.3f}'} ({escape(tva['note'])}).</p>"
        )
        if pictures:
            parts.append("<figure>" + figures.scatter_svg([r["active_seconds"] / 60 for r in tva["rows"]],
                         [r["agreement"] for r in tva["rows"]], "active minutes (all annotators)",
                         "mean pairwise F1 (exact)", "one point per document") + "</figure>")  # fmt: skip
        parts.append(_table(["document", "active", "agreement"],
                            [[r["document"], hms(r["active_seconds"]), f"{r['agreement']:.3f}"] for r in tva["rows"]]))  # fmt: skip
        parts.append("</section>")
    parts.append("<section><h2>Active time per document</h2>")
    parts.append(_table(["document", "active", "annotator actions", "items"],
                        [[r["document"], hms(r["active_seconds"]), r["actions"], r["items"]] for r in d["by_document"]]))  # fmt: skip
    parts.append(f"</section><script>{SORT_JS}</script></body></html>")
    return "\n".join(parts)
