"""The report's pictures as inline SVG, drawn by matplotlib (imported only here, only for HTML).

Why matplotlib: a well-kept library that draws heatmaps and bar charts correctly (colour maps,
colour bars, text contrast); its SVG backend needs no display and no files. ``Figure`` is used
directly, never ``pyplot``, so no global backend or figure state is touched in the caller.
Output is deterministic (fixed hash salt, no date) so reports can be diffed.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def _svg(fig: Any) -> str:
    import matplotlib as mpl

    buf = io.StringIO()
    with mpl.rc_context({"svg.hashsalt": "corpusdb", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return re.sub(r"^.*?(<svg)", r"\1", text, count=1, flags=re.S)  # drop the XML prolog and DOCTYPE


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100)


def _annotate(ax: Any, values: np.ndarray, shown: Sequence[Sequence[str]], norm: np.ndarray) -> None:
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if shown[i][j]:
                dark = not np.isnan(norm[i, j]) and norm[i, j] < 0.6
                ax.text(
                    j,
                    i,
                    shown[i][j],
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if dark else "black",
                )


MATRIX_MIN_RATERS = 3
"""A matrix picture needs three raters: with two it is one number beside a diagonal of 1.000."""


def heatmap_svg(matrix: Mapping[str, Any], title: str) -> str:
    """Annotator x annotator heatmap (row = A, column = B); undefined cells are left blank.

    The diagonal (a rater against itself, 1 by definition) is drawn grey and left out of the colour
    scale, so the scale spans the pairs' own values and their differences show."""
    names = list(matrix["names"])
    vals = np.array([[np.nan if v is None else v for v in row] for row in matrix["values"]], dtype=float)
    k = len(names)
    off = vals.copy()
    np.fill_diagonal(off, np.nan)
    fig = _figure(1.6 + 0.9 * k, 1.2 + 0.8 * k)
    ax = fig.add_subplot()
    finite = off[np.isfinite(off)]
    lo = float(finite.min()) if finite.size else 0.0
    hi = float(finite.max()) if finite.size else 1.0
    if hi - lo < 1e-9:  # every pair equal: a scale around the one value
        lo, hi = lo - 0.05, hi + 0.05
    ax.imshow(np.where(np.eye(k, dtype=bool), 1.0, np.nan), cmap="Greys", vmin=0, vmax=4)
    im = ax.imshow(np.ma.masked_invalid(off), cmap="viridis", vmin=lo, vmax=hi)
    ax.set_xticks(range(k), labels=names, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(k), labels=names)
    norm = (off - lo) / (hi - lo)
    shown = [
        ["" if (i == j or np.isnan(v)) else f"{v:.3f}" for j, v in enumerate(row)]
        for i, row in enumerate(off)
    ]
    _annotate(ax, off, shown, norm)
    ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return _svg(fig)


def confusion_svg(confusion: Mapping[str, Any], row_label: str, col_label: str) -> str:
    """Counts of (row type, column type) on matched items, plus a (none) row and column for
    one-sided items; colour is the share of the row, so rare types are as readable as common ones."""
    labels = [*confusion["labels"], "(none)"]
    q = len(confusion["labels"])
    t = np.zeros((q + 1, q + 1))
    t[:q, :q] = np.array(confusion["table"], dtype=float).reshape(q, q)
    t[:q, q] = confusion["unmatched_a"]
    t[q, :q] = confusion["unmatched_b"]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = t / t.sum(axis=1, keepdims=True)
    fig = _figure(1.8 + 0.75 * (q + 1), 1.4 + 0.6 * (q + 1))
    ax = fig.add_subplot()
    im = ax.imshow(np.nan_to_num(share), cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(q + 1), labels=labels, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(q + 1), labels=labels)
    ax.set_xlabel(col_label)
    ax.set_ylabel(row_label)
    shown = [
        [("" if (i == q and j == q) else str(int(v))) for j, v in enumerate(row)] for i, row in enumerate(t)
    ]
    _annotate(ax, t, shown, 1 - np.nan_to_num(share))
    ax.axhline(q - 0.5, color="grey", lw=0.8)
    ax.axvline(q - 0.5, color="grey", lw=0.8)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="share of the row")
    return _svg(fig)


SMALL_N = 10
"""Below this many items a per-type bar is drawn grey and says how few it rests on."""


def bars_svg(rows: Sequence[Mapping[str, Any]], xlabel: str) -> str:
    """Horizontal bars of each type's value, with the range over pairs (min–max) as whiskers."""
    rows = [r for r in rows if r.get("value") is not None]
    names = [str(r["name"]) for r in rows]
    vals = np.array([r["value"] for r in rows], dtype=float)
    fig = _figure(6.0, 0.8 + 0.35 * max(len(rows), 1))
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    err = None
    if rows and all(r.get("min") is not None for r in rows):
        lo = vals - np.array([r["min"] for r in rows], dtype=float)
        hi = np.array([r["max"] for r in rows], dtype=float) - vals
        err = np.vstack([lo, hi])
    small = [r.get("n") is not None and r["n"] < SMALL_N for r in rows]
    ax.barh(
        y, vals, xerr=err, color=["#b0b0b0" if s else "#4c72b0" for s in small], ecolor="#333333", capsize=3
    )
    for yi, v, r, s in zip(y, vals, rows, small, strict=True):  # inside the bar, clear of the whiskers
        label = f"{v:.3f}" + (f"  (n = {r['n']}: too few to compare)" if s else "")
        ax.text(0.01, yi, label, va="center", fontsize=8, color="white" if v > 0.12 and not s else "black")
    ax.set_yticks(y, labels=names)
    ax.invert_yaxis()
    ax.set_xlim(min(0.0, float(vals.min()) if len(vals) else 0.0), 1.1)
    ax.set_xlabel(xlabel)
    return _svg(fig)


def systems_svg(systems: Sequence[Mapping[str, Any]], key: str = "f1") -> str:
    """Every system's ``key`` per score side by side in one figure (grouped horizontal bars), with
    the document-bootstrap CI as whiskers where the report has one (evaluation reports)."""
    names: list[str] = []
    for s_ in systems:
        for r in s_["scores"]:
            if r.get(key) is not None and r["name"] not in names:
                names.append(str(r["name"]))
    k = max(len(systems), 1)
    h = 0.8 / k
    fig = _figure(6.5, 1.0 + 0.3 * max(len(names), 1) * k)
    ax = fig.add_subplot()
    y = np.arange(len(names))
    for i, s_ in enumerate(systems):
        rows = {str(r["name"]): r for r in s_["scores"]}
        vals = np.array(
            [rows[n][key] if n in rows and rows[n].get(key) is not None else np.nan for n in names]
        )
        lo, hi = [], []
        for n, v in zip(names, vals, strict=True):
            ci = (rows.get(n, {}).get("ci") or {}).get(key) or {}
            ok = ci.get("low") is not None and np.isfinite(v)
            lo.append(v - ci["low"] if ok else 0.0)
            hi.append(ci["high"] - v if ok else 0.0)
        has_ci = any(lo) or any(hi)
        ax.barh(y + (i - (k - 1) / 2) * h, np.nan_to_num(vals), height=h, label=str(s_["name"]),
                xerr=np.vstack([lo, hi]) if has_ci else None, ecolor="#333333", capsize=2)  # fmt: skip
    ax.set_yticks(y, labels=names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel(key.upper() if key == "f1" else key)
    ax.legend(fontsize=8, loc="lower right")
    return _svg(fig)


def pr_curve_svg(
    curves: Mapping[str, Mapping[str, Sequence[float]]],
    aucs: Mapping[str, float | None] | None = None,
    points: Mapping[str, tuple[float, float] | None] | None = None,
) -> str:
    """Interpolated precision against recall, one step line per system (evaluation reports), its
    AUC in the legend and the system's operating point (its reported recall, precision) marked."""
    fig = _figure(5.5, 4.0)
    ax = fig.add_subplot()
    for name, c in curves.items():
        rec = [0.0, *c["recall"]]
        ip = [
            c["interpolated_precision"][0] if c["interpolated_precision"] else 0.0,
            *c["interpolated_precision"],
        ]
        auc = (aucs or {}).get(name)
        (line,) = ax.step(
            rec, ip, where="post", label=name + (f" (AUC {auc:.3f})" if auc is not None else "")
        )
        pt = (points or {}).get(name)
        if pt is not None and None not in pt:
            ax.plot([pt[0]], [pt[1]], "o", color=line.get_color(), label=f"{name}: operating point")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.legend(fontsize=8, loc="lower left")
    return _svg(fig)


def progress_svg(days: Sequence[Mapping[str, Any]], projection: Mapping[str, Any] | None = None) -> str:
    """Documents submitted, adjudicated and finished over time (running totals, one line each), with
    the projected completion date as a dashed line from the last day to the total (progress report)."""
    from datetime import date

    fig = _figure(6.5, 3.4)
    ax = fig.add_subplot()
    x = [date.fromisoformat(d["day"]) for d in days]
    for stage, colour in (("submitted", "#4c72b0"), ("adjudicated", "#dd8452"), ("finished", "#55a868")):
        ax.step(x, [d[f"{stage}_total"] for d in days], where="post", label=stage, color=colour)
    if projection and projection.get("date") and days:
        end = date.fromisoformat(projection["date"])
        ax.plot([x[-1], end], [projection["done"], projection["documents"]], ls="--", color="#55a868",
                label=f"projected: {projection['date']}")  # fmt: skip
    if projection:
        ax.axhline(projection["documents"], color="grey", lw=0.8)
    ax.set_ylabel("documents (running total)")
    ax.legend(fontsize=8, loc="upper left")
    fig.autofmt_xdate()
    return _svg(fig)


def hours_svg(rows: Sequence[Mapping[str, Any]]) -> str:
    """Active hours per annotator and day, as stacked bars (one colour per annotator)."""
    from datetime import date

    days = sorted({r["day"] for r in rows})
    people = sorted({r["annotator"] for r in rows})
    fig = _figure(6.5, 3.2)
    ax = fig.add_subplot()
    x = np.arange(len(days))
    bottom = np.zeros(len(days))
    for p in people:
        h = (
            np.array(
                [
                    sum(r["active_seconds"] for r in rows if r["annotator"] == p and r["day"] == d)
                    for d in days
                ]
            )
            / 3600
        )
        ax.bar(x, h, bottom=bottom, label=p)
        bottom += h
    ax.set_xticks(x, labels=[date.fromisoformat(d).strftime("%d %b") for d in days], rotation=45, ha="right")
    ax.set_ylabel("active hours")
    ax.legend(fontsize=8)
    return _svg(fig)


def scatter_svg(xs: Sequence[float], ys: Sequence[float], xlabel: str, ylabel: str, title: str) -> str:
    """One point per document (e.g. active minutes against agreement)."""
    fig = _figure(5.0, 3.6)
    ax = fig.add_subplot()
    ax.scatter(xs, ys, s=16, color="#4c72b0")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    return _svg(fig)


def grouped_svg(res: Mapping[str, Any]) -> str:
    """Agreement per group (``agree --by``): per guideline version or split, the value with its
    bootstrap CI as whiskers when there is one (did it rise after each amendment?); over time, one
    line per annotator across windows of documents (a learning curve)."""
    fig = _figure(6.5, 3.2)
    ax = fig.add_subplot()
    if res["by"] == "time":
        for who in sorted({r["annotator"] for r in res["rows"]}):
            pts = [
                (r["window"], r["value"])
                for r in res["rows"]
                if r["annotator"] == who and r["value"] is not None
            ]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=who)
        ax.set_xlabel(f"window of {res.get('window', '?')} documents, in submission order")
        ax.set_ylabel("mean F1 against the others")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="lower right")
    else:
        rows = [r for r in res["rows"] if r["value"] is not None]
        x = np.arange(len(rows))
        vals = np.array([r["value"] for r in rows], dtype=float)
        err = None
        if rows and all((r.get("ci") or {}).get("ci_low") is not None for r in rows):
            lo = vals - np.array([r["ci"]["ci_low"] for r in rows], dtype=float)
            hi = np.array([r["ci"]["ci_high"] for r in rows], dtype=float) - vals
            err = np.vstack([np.clip(lo, 0, None), np.clip(hi, 0, None)])
        if res["by"] == "guideline":
            ax.errorbar(x, vals, yerr=err, marker="o", capsize=4, color="#4c72b0")
            ax.set_xlabel("guideline version")
        else:
            ax.bar(x, vals, yerr=err, capsize=4, color="#4c72b0", ecolor="#333333")
            ax.set_xlabel("split")
        prefix = "v" if res["by"] == "guideline" else ""
        ax.set_xticks(x, labels=[f"{prefix}{r['group']}" for r in rows])
        for xi, v in zip(x, vals, strict=True):
            ax.annotate(
                f"{v:.3f}", (xi, v), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8
            )
        ax.set_ylabel("mean pairwise F1")
    ax.set_ylim(0.0, 1.1)
    return _svg(fig)
