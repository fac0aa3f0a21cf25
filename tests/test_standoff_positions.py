"""Line positions (``extra["file"]``/``extra["line"]``) are kept only where the writer needs them.

Why: a document whose lines are in the writer's canonical order is written back byte for byte without
positions, so the reader drops them (a dict per item, a JSON value per stored row). The decision must
be exact: dropped when (and only when) writing without them gives the same files. Small fixtures
written here; the real corpora are checked in test_standoff_corpora.py.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from corpusdb.basics.records import Annotations, Span
from importers.standoff import format_annotations, read_document

WORDS = ["IL-2", "binds", "the", "receptor", "in", "T-cells", "and", "p53", "kinase", "activates", "NF-kB"]
TEXT = " ".join(WORDS)
STARTS = [sum(len(w) + 1 for w in WORDS[:k]) for k in range(len(WORDS))]


def _t(ident: str, type_: str, word: int) -> str:
    s = STARTS[word]
    return f"{ident}\t{type_} {s} {s + len(WORDS[word])}\t{WORDS[word]}"


SPANS = {
    "T1": _t("T1", "Protein", 0),
    "T2": _t("T2", "Binding", 1),
    "T3": _t("T3", "Protein", 3),
    "T4": _t("T4", "Cell", 5),
    "T5": _t("T5", "Protein", 7),
    "T6": _t("T6", "Activation", 9),
}
TRIGGERS = {"T2", "T6"}
OTHERS = [
    "E1\tBinding:T2 Theme:T1 Theme2:T3",
    "R1\tLocated Arg1:T3 Arg2:T4\t",
    "E2\tActivation:T6 Theme:E1 Cause:T5",
    "A1\tMutant T1",
    "M1\tConfidence T3 High",
    "A2\tNegation E1",
    "A3\tSpeculation E2",
    "N1\tReference T1 uniprot:P60568",
    "N2\tReference T3 uniprot:P01589",
    "N3\tReference T3 wiki:Receptor",
    "*\tEquiv T1 T3 T5",
    "#1\tAnnotatorNotes T1\tcheck",
    "#2\tAnnotatorNotes E2\tagain",
]
CANONICAL = [*SPANS.values(), *OTHERS]
"""Every line type in the writer's canonical order: T, R/E, A/M (spans' by span, then the relations'),
N by span, ``*``, ``#``."""


def _write(folder: Path, files: Mapping[str, list[str]], name: str = "doc") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    txt = folder / f"{name}.txt"
    txt.write_text(TEXT, encoding="utf-8")
    for ext, lines in files.items():
        (folder / f"{name}.{ext}").write_bytes("".join(f"{ln}\n" for ln in lines).encode("utf-8"))
    return txt


def _extras(a: Annotations) -> list[Mapping[str, Any]]:
    """Every extra that may hold a position: items, A/M entries, groundings, links."""
    out: list[Mapping[str, Any]] = []
    for item in (*a.spans, *a.relations):
        out.append(item.extra)
        out.extend((item.extra.get("attrs") or {}).values())
    out += [g.extra for s in a.spans for g in s.groundings]
    out += [lk.extra for lk in a.links] + [n.extra for n in a.notes]
    return out


def _positions(a: Annotations) -> bool:
    return any("file" in x or "line" in x for x in _extras(a))


def without_positions(a: Annotations) -> Annotations:
    """A copy of ``a`` with every ``file``/``line`` key removed (what the reader drops)."""

    def strip(x: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in x.items() if k not in ("file", "line")}
        if "attrs" in out:
            out["attrs"] = {n: strip(e) for n, e in out["attrs"].items()}
        return out

    def span(s: Span) -> Span:
        grounds = tuple(dataclasses.replace(g, extra=strip(g.extra)) for g in s.groundings)
        return dataclasses.replace(s, extra=strip(s.extra), groundings=grounds)

    return dataclasses.replace(
        a,
        spans=tuple(span(s) for s in a.spans),
        relations=tuple(dataclasses.replace(r, extra=strip(r.extra)) for r in a.relations),
        links=tuple(dataclasses.replace(lk, extra=strip(lk.extra)) for lk in a.links),
        notes=tuple(dataclasses.replace(n, extra=strip(n.extra)) for n in a.notes),
    )


def _read_back(txt: Path) -> tuple[Annotations, dict[str, str]]:
    """The annotations read, after checking that writing them gives the files' bytes back."""
    ann = read_document(txt).annotations
    written = format_annotations(ann)
    for ext, body in written.items():
        assert body.encode("utf-8") == txt.with_suffix(f".{ext}").read_bytes(), ext
    return ann, written


# --------------------------------------------------------------------------------------------
# canonical order: no positions
# --------------------------------------------------------------------------------------------


def test_canonical_ann_has_no_positions(tmp_path: Path) -> None:
    ann, _ = _read_back(_write(tmp_path, {"ann": CANONICAL}))
    assert not _positions(ann)
    assert [s.extra for s in ann.spans] == [
        {"attrs": {"Mutant": {"id": "A1"}}},
        {},
        {"attrs": {"Confidence": {"id": "M1"}}},
        {},
        {},
        {},
    ]
    rel = {r.id: r for r in ann.relations}
    assert rel["R1"].extra == {"tail": ""}  # the other extras stay
    assert rel["E1"].extra == {"attrs": {"Negation": {"id": "A2"}}}
    assert [g.extra for g in ann.span("T3").groundings] == [{}, {}]
    assert [lk.extra for lk in ann.links] == [{}, {}]  # a star of three members: two links
    assert all(n.extra == {} for n in ann.notes)


def test_canonical_bionlp_pair_has_no_positions(tmp_path: Path) -> None:
    """GENIA layout: entities in .a1; triggers, events, M, ``*`` and notes in .a2."""
    a1 = [SPANS[t] for t in SPANS if t not in TRIGGERS]
    a2 = [SPANS[t] for t in SPANS if t in TRIGGERS] + OTHERS
    ann, _ = _read_back(_write(tmp_path, {"a1": a1, "a2": a2}))
    assert not _positions(ann)


def test_other_extras_survive(tmp_path: Path) -> None:
    lines = [
        "T1\tProtein  0 4\tIL-2",
        "T2\tBinding 5 10",
        "E1\tBinding:T2 Theme:T1 ",
        "#1\tAnnotatorNotes T1",
    ]
    ann, _ = _read_back(_write(tmp_path, {"ann": lines}))
    assert not _positions(ann)
    assert ann.span("T1").extra == {"ws": "Protein  0 4"}
    assert ann.span("T2").extra == {"notext": True}
    assert ann.relations[0].extra == {"ws": "Binding:T2 Theme:T1 "}
    assert ann.notes[0].extra == {"notext": True}


def test_bb2011_triggerless_events(tmp_path: Path) -> None:
    """A trigger-less binary E line is a relation written back as an E line: its prefix stays."""
    lines = [SPANS["T1"], SPANS["T3"], "E1\tPartOf Host:T1 Part:T3"]
    ann, _ = _read_back(_write(tmp_path, {"a2": lines}))
    assert not _positions(ann)
    assert ann.relations[0].extra == {"prefix": "E"}


# --------------------------------------------------------------------------------------------
# any other order: every position kept
# --------------------------------------------------------------------------------------------

T, NON_TRIGGERS = SPANS, [SPANS[t] for t in SPANS if t not in TRIGGERS]
NOT_CANONICAL: dict[str, dict[str, list[str]]] = {
    "relation between spans": {
        "ann": [T["T1"], T["T2"], T["T3"], OTHERS[0], T["T4"], T["T5"], T["T6"], *OTHERS[1:]]
    },
    "attribute lines out of span order": {
        "ann": [*T.values(), *OTHERS[:3], OTHERS[4], OTHERS[3], *OTHERS[5:]]
    },
    "relation attribute before span attribute": {
        "ann": [*T.values(), *OTHERS[:3], OTHERS[5], OTHERS[3], OTHERS[4], *OTHERS[6:]]
    },
    "N lines out of span order": {"ann": [*T.values(), *OTHERS[:7], OTHERS[8], OTHERS[7], *OTHERS[9:]]},
    "note before the star": {"ann": [*T.values(), *OTHERS[:10], OTHERS[11], OTHERS[10], OTHERS[12]]},
    "notes before attributes": {"ann": [*T.values(), *OTHERS[:3], *OTHERS[11:], *OTHERS[3:11]]},
    "blank line": {"ann": [*CANONICAL, ""]},
    "non-trigger span in .a2": {
        "a1": [T["T1"], T["T3"], T["T5"]],
        "a2": [T["T2"], T["T4"], T["T6"], *OTHERS],
    },
    "trigger span in .a1": {"a1": [*NON_TRIGGERS, T["T2"]], "a2": [T["T6"], *OTHERS]},
    "a trigger and a non-trigger swapped": {
        "a1": [T["T1"], T["T2"], T["T3"], T["T5"]],
        "a2": [T["T4"], T["T6"], *OTHERS],
    },
    "relation in .a1": {"a1": [*NON_TRIGGERS, OTHERS[1]], "a2": [T["T2"], T["T6"], OTHERS[0], *OTHERS[2:]]},
}


@pytest.mark.parametrize("case", NOT_CANONICAL)
def test_other_orders_keep_every_position(tmp_path: Path, case: str) -> None:
    ann, _ = _read_back(_write(tmp_path, NOT_CANONICAL[case]))
    assert all("file" in x and "line" in x for x in _extras(ann) if x)  # (a star's other links: {})
    assert all("line" in s.extra for s in ann.spans)
    assert all("line" in lk.extra for lk in ann.links if lk.id.endswith(".1"))
    # and they were needed
    assert format_annotations(without_positions(ann)) != format_annotations(ann)


def test_interleaved_keeps_original_extras(tmp_path: Path) -> None:
    lines = [T["T1"], "R1\tLocated Arg1:T1 Arg2:T2\t", T["T2"]]
    ann, _ = _read_back(_write(tmp_path, {"ann": lines}))
    assert ann.span("T1").extra == {"file": "ann", "line": 1}
    assert ann.span("T2").extra == {"file": "ann", "line": 3}
    assert ann.relations[0].extra == {"file": "ann", "line": 2, "tail": ""}


# --------------------------------------------------------------------------------------------
# edits after reading
# --------------------------------------------------------------------------------------------


def test_edits_in_a_canonical_document_take_their_canonical_place(tmp_path: Path) -> None:
    lines = [
        T["T1"],
        T["T3"],
        "R1\tLocated Arg1:T1 Arg2:T3\t",
        "R2\tLocated Arg1:T3 Arg2:T1\t",
        "A1\tMutant T1",
    ]
    ann, _ = _read_back(_write(tmp_path, {"ann": lines}))
    assert not _positions(ann)
    added = Span("T9", "Cell", ((STARTS[5], STARTS[5] + 7),), "T-cells")
    edited = dataclasses.replace(ann, spans=(*ann.spans, added), relations=ann.relations[1:])
    assert format_annotations(edited) == {
        "ann": f"{T['T1']}\n{T['T3']}\nT9\tCell 27 34\tT-cells\nR2\tLocated Arg1:T3 Arg2:T1\t\nA1\tMutant T1\n"
    }


def test_edits_in_a_document_with_positions_go_after_its_lines(tmp_path: Path) -> None:
    lines = [
        T["T1"],
        "R1\tLocated Arg1:T1 Arg2:T3\t",
        T["T3"],
        "R2\tLocated Arg1:T3 Arg2:T1\t",
        "A1\tMutant T1",
    ]
    ann, _ = _read_back(_write(tmp_path, {"ann": lines}))
    assert _positions(ann)
    added = Span("T9", "Cell", ((STARTS[5], STARTS[5] + 7),), "T-cells")
    edited = dataclasses.replace(ann, spans=(*ann.spans, added), relations=ann.relations[1:])
    assert format_annotations(edited) == {
        "ann": f"{T['T1']}\n{T['T3']}\nR2\tLocated Arg1:T3 Arg2:T1\t\nA1\tMutant T1\nT9\tCell 27 34\tT-cells\n"
    }


# --------------------------------------------------------------------------------------------
# the decision against the writer itself
# --------------------------------------------------------------------------------------------


def _shuffled(rnd: random.Random) -> dict[str, list[str]]:
    """The lines of CANONICAL in a random layout: as they are, with a line or two moved, sorted by
    letter but with the T and N lines in random order, or all shuffled; in one .ann or spread over
    .a1/.a2 (mostly as BioNLP does, triggers in .a2)."""
    lines = list(CANONICAL)
    rank = {"T": 0, "R": 1, "E": 1, "A": 2, "M": 2, "N": 3, "*": 4, "#": 5}
    mode = rnd.randrange(4)
    if mode == 1:
        for _ in range(rnd.choice((1, 2))):
            line = lines.pop(rnd.randrange(len(lines)))
            lines.insert(rnd.randrange(len(lines) + 1), line)
    elif mode == 2:
        lines.sort(key=lambda ln: (rank[ln[0]], rnd.random() if ln[0] in "TN" else 0))
    elif mode == 3:
        rnd.shuffle(lines)
    if rnd.random() < 0.5:
        return {"ann": lines}
    a1 = [ln for ln in lines if ln[0] == "T" and (ln.split("\t")[0] not in TRIGGERS) != (rnd.random() < 0.05)]
    a1 += [ln for ln in lines if ln[0] == "#" and rnd.random() < 0.05]
    return {"a1": a1, "a2": [ln for ln in lines if ln not in a1]}


def test_positions_are_dropped_exactly_when_the_writer_does_not_need_them(tmp_path: Path) -> None:
    rnd = random.Random(20240611)
    dropped = kept = 0
    for k in range(400):
        folder = tmp_path / str(k)
        ann, written = _read_back(_write(folder, _shuffled(rnd)))
        needed = format_annotations(without_positions(ann)) != written
        assert _positions(ann) == needed, sorted(folder.iterdir())
        dropped += not needed
        kept += needed
    assert dropped > 80 and kept > 80  # both sides were tried
