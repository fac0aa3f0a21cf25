"""Plain-text and Markdown renderings of a ``corpusdb.evaluation/1`` body (HTML: corpusdb.reports.evaluation_html).

Why hand-made tables: a few aligned columns need no library, and the CLI must start fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""
    key: str = ""


def fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def _ci(row: Mapping[str, Any], key: str) -> str:
    ci = (row.get("ci") or {}).get(key)
    if not ci or ci.get("low") is None:
        return ""
    return f" [{ci['low']:.3f}, {ci['high']:.3f}]"


def describe(body: Mapping[str, Any]) -> str:
    names = ", ".join(s["name"] for s in body["systems"])
    derived = (body.get("options") or {}).get("derived_relations")
    return (f"{body['task']} evaluation of {names} against {body['reference']['name']} "
            f"({body['reference']['documents']} documents); {body['unanswered_policy']['text']}"
            + (f"; derived relations {derived}" if derived else ""))  # fmt: skip


def tables(body: Mapping[str, Any]) -> list[Table]:
    out = []
    several = len(body["systems"]) > 1
    if several:
        t = Table(f"Ranking by {body['headline']} F1", ["rank", "system", "F1"], key="ranking")
        t.rows = [[str(r["rank"]), r["system"], fmt(r["f1"])] for r in body["ranking"]]
        out.append(t)
    for s in body["systems"]:
        title = f"{s['name']}: {s['documents']} documents scored, {s['unanswered']} unanswered"
        t = Table(title, ["score", "tp", "fn", "fp", "precision (micro)", "recall (micro)", "F1 (micro)", "F1 (macro)"],
                  key="scores")  # fmt: skip
        for row in s["scores"]:
            official = " *" if row["name"] in body.get("official", ()) else ""
            t.rows.append([row["name"] + official, fmt(row["tp"]), fmt(row["fn"]), fmt(row["fp"]),
                           fmt(row["precision"]) + _ci(row, "precision"), fmt(row["recall"]) + _ci(row, "recall"),
                           fmt(row["f1"]) + _ci(row, "f1"), fmt((row.get("macro") or {}).get("f1"))])  # fmt: skip
        notes = []
        if body.get("official"):
            notes.append("* the shared task's official score")
        if body.get("bootstrap"):
            b = body["bootstrap"]
            notes.append(
                f"[low, high]: {b['confidence']:.0%} {b['method']} ({b['resamples']} resamples, seed {b['seed']})"
            )
        t.note = "; ".join(notes)
        out.append(t)
        if s.get("figures"):
            f = Table(f"{s['name']}: document-level figures", ["figure", "value"], key="figures")
            for k, v in s["figures"].items():
                if isinstance(v, Mapping):
                    for kk, vv in v.items():
                        ci = (s.get("figures_ci") or {}).get(f"{k}_{kk}")
                        f.rows.append(
                            [f"{k} ({kk})", fmt(vv) + (f" [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else "")]
                        )
                else:
                    ci = (s.get("figures_ci") or {}).get(k)
                    f.rows.append([k, fmt(v) + (f" [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else "")])
            out.append(f)
    if body["paired_tests"]:
        t = Table(f"Paired tests on {body['headline']} F1", ["A", "B", "F1 A", "F1 B", "difference", "p", "method"],
                  key="tests")  # fmt: skip
        for x in body["paired_tests"]:
            t.rows.append([x["a"], x["b"], fmt(x["value_a"]), fmt(x["value_b"]), fmt(x["difference"]),
                           fmt(x["p_value"]), f"{x['method']} ({x['resamples']} resamples, {x['documents']} documents)"])  # fmt: skip
        out.append(t)
    return out


def _aligned(t: Table) -> list[str]:
    widths = [
        max(len(h), *(len(r[i]) for r in t.rows)) if t.rows else len(h) for i, h in enumerate(t.headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(t.headers, widths, strict=True))
    rows = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in t.rows]
    return [line, "  ".join("-" * w for w in widths), *rows]


def render_text(body: Mapping[str, Any]) -> str:
    parts = [describe(body) + ".", ""]
    for t in tables(body):
        parts += [t.title, *_aligned(t)]
        if t.note:
            parts.append(t.note)
        parts.append("")
    parts += [f"note: {n}" for n in body.get("notes", ())]
    return "\n".join(parts).rstrip() + "\n"


def render_markdown(body: Mapping[str, Any]) -> str:
    parts = [f"# Evaluation: {body['task']}", "", describe(body) + ".", ""]
    for t in tables(body):
        parts += [f"## {t.title}", "", "| " + " | ".join(t.headers) + " |", "|" + "---|" * len(t.headers)]
        parts += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in t.rows]
        parts.append("")
        if t.note:
            parts += [t.note, ""]
    parts += [f"- {n}" for n in body.get("notes", ())]
    return "\n".join(parts).rstrip() + "\n"
