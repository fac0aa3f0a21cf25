"""BB 2011 and Rename 2011 scoring: a case computed by hand from the task's published formula (Bossy et al.
2011, BioNLP Shared Task 2011 - Bacteria Biotope, evaluation section; see corpusdb.evaluation.bb2011), and
real files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpusdb.basics.records import Annotations, Argument, Link, Relation, Span
from corpusdb.evaluation.bb2011 import documents_of, score_bb, score_rename
from importers.standoff import read_directory
from tests.conftest import shared_path

TEXT = "Bacillus subtilis lives in soil and water; B. subtilis colonises the human gut."


def sp(i: str, t: str, s: str, nth: int = 0) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = TEXT.index(s, start + 1)
    return Span(i, t, ((start, start + len(s)),), s)


def ev(i: str, etype: str, a: str, b: str) -> Relation:
    roles = {"Localization": ("Bacterium", "Localization"), "PartOf": ("Host", "Part")}[etype]
    return Relation(i, etype, (Argument(roles[0], a), Argument(roles[1], b)), kind="event")


REF = Annotations(
    spans=(sp("T1", "Bacterium", "Bacillus subtilis"), sp("T2", "Soil", "soil"), sp("T3", "Water", "water"),
           sp("T4", "Bacterium", "B. subtilis"), sp("T5", "Host", "human"), sp("T6", "HostPart", "human gut")),
    links=(Link("*1", "Equiv", "T1", "T4"),),
    relations=(ev("E1", "Localization", "T1", "T2"), ev("E2", "Localization", "T1", "T3"),
               ev("E3", "PartOf", "T5", "T6"), ev("E4", "Localization", "T4", "T6")),
)  # fmt: skip
PRED = Annotations(
    spans=(sp("T1", "Bacterium", "B. subtilis"), sp("T2", "Environment", "soil"),
           sp("T3", "Bacterium", "Bacillus subtilis"), sp("T4", "Water", "and water"),
           sp("T5", "Host", "human"), sp("T6", "HostPart", "gut"), sp("T7", "Bacterium", "Bacillus"),
           sp("T8", "Soil", "soil")),
    relations=(ev("E1", "Localization", "T1", "T2"), ev("E2", "Localization", "T3", "T4"),
               ev("E3", "PartOf", "T5", "T6"), ev("E4", "Localization", "T7", "T8")),
)  # fmt: skip


def test_bb_similarity_by_hand() -> None:
    s = score_bb({"d": REF}, {"d": PRED})
    # E1: bacterium "B. subtilis" is T1's Equiv, location exact, type Environment != Soil: 1 * 1 * 0.5
    # E2: location "and water" vs "water": Jaccard 5/9, same type: 5/9
    # E4: predicted bacterium "Bacillus" is not a strict boundary match: 0 (E4 of the reference is missed)
    loc = s["Localization"]
    assert loc.tp == pytest.approx(0.5 + 5 / 9)
    assert loc.to_dict()["recall"] == pytest.approx((19 / 18) / 3)
    assert loc.to_dict()["precision"] == pytest.approx((19 / 18) / 3)
    # PartOf: host exact, part "gut" vs "human gut": 3/9
    assert s["PartOf"].to_dict()["recall"] == pytest.approx(1 / 3)
    assert s["all"].to_dict()["recall"] == pytest.approx((19 / 18 + 1 / 3) / 4)
    # unanswered documents are misses; --answered-only leaves them out
    both = score_bb({"d": REF, "e": REF}, {"d": PRED})
    assert both["all"].to_dict()["recall"] == pytest.approx((19 / 18 + 1 / 3) / 8)
    assert score_bb({"d": REF, "e": REF}, {"d": PRED}, answered_only=True)["all"].fn == s["all"].fn


@pytest.mark.shared
def test_bb_gold_against_itself_is_perfect() -> None:
    gold = documents_of(read_directory(shared_path("data", "bionlp-st-2011-bb-train")))
    assert len(gold) == 65
    s = score_bb(gold, gold)
    assert s["Localization"].tp == 855 and s["PartOf"].tp == 163
    for sc in s.values():
        d = sc.to_dict()
        assert d["precision"] == 1.0 and d["recall"] == 1.0


@pytest.mark.shared
def test_bb_perturbed_copy(tmp_path: Path) -> None:
    src = shared_path("data", "bionlp-st-2011-bb-train")
    ref = documents_of(read_directory(src))
    shutil.copy(src / "BTID-10080.txt", tmp_path / "BTID-10080.txt")
    a2 = (src / "BTID-10080.a2").read_text(encoding="utf-8")
    a2 = (a2.replace("E7\tLocalization Bacterium:T1 ", "E7\tLocalization Bacterium:T16 ")  # T1's Equiv: S 1
          .replace("E10\tLocalization Bacterium:T2 Localization:T4", "E10\tLocalization Bacterium:T2 Localization:T5")  # Equiv: S 1
          .replace("T13\tHost 1021 1033\tadult humans", "T13\tHost 1027 1033\thumans")  # Jaccard 6/12: E8, E15 S 0.5
          .replace("T14\tHost 1038", "T14\tHostPart 1038")  # type penalty: E18, E17 S 0.5
          .replace("E3\tLocalization Bacterium:T2 Localization:T3\n", ""))  # fmt: skip  # a miss
    (tmp_path / "BTID-10080.a2").write_text(a2, encoding="utf-8")
    pred = documents_of(read_directory(tmp_path))
    s = score_bb({"BTID-10080": ref["BTID-10080"]}, pred)
    # Localization: 11 reference events, 10 predicted; ΣS = 8 * 1 + 0.5 (E8) + 0.5 (E18) = 9
    assert s["Localization"].to_dict()["recall"] == pytest.approx(9 / 11)
    assert s["Localization"].to_dict()["precision"] == pytest.approx(9 / 10)
    # PartOf: 7 and 7; ΣS = 5 + 0.5 (E15) + 0.5 (E17) = 6
    assert s["PartOf"].to_dict()["recall"] == pytest.approx(6 / 7)
    assert s["all"].tp == pytest.approx(15)


RENAME_TEXT = "SecA (Div) and degU32 (sacU) are renamed."


def gene(i: str, s: str) -> Span:
    start = RENAME_TEXT.index(s)
    return Span(i, "Gene", ((start, start + len(s)),), s)


def ren(i: str, former: str, new: str) -> Relation:
    return Relation(i, "Renaming", (Argument("Former", former), Argument("New", new)))


def test_rename_strict_and_relaxed_direction() -> None:
    genes = (gene("T1", "SecA"), gene("T2", "Div"), gene("T3", "degU32"), gene("T4", "sacU"))
    ref = Annotations(spans=genes, relations=(ren("R1", "T2", "T1"), ren("R2", "T4", "T3")))
    # one right, one with the direction reversed, one wrong pair; ids differ from the reference's
    pgenes = (gene("G1", "SecA"), gene("G2", "Div"), gene("G3", "degU32"), gene("G4", "sacU"))
    pred = Annotations(
        spans=pgenes, relations=(ren("R1", "G2", "G1"), ren("R2", "G3", "G4"), ren("R3", "G1", "G3"))
    )
    s = score_rename({"d": ref}, {"d": pred})
    assert (s["strict"].tp, s["strict"].fn, s["strict"].fp) == (1, 1, 2)
    assert (s["relaxed direction"].tp, s["relaxed direction"].fn, s["relaxed direction"].fp) == (2, 0, 1)


@pytest.mark.shared
def test_rename_real_files_against_themselves_and_a_reversed_copy(tmp_path: Path) -> None:
    src = shared_path("data", "bionlp-st-2011-rename-train")
    ref = documents_of(read_directory(src))
    s = score_rename(ref, ref)
    assert s["strict"].tp == 308 and s["strict"].fn == 0 and s["strict"].fp == 0
    doc = "PMID-10074074-TIAB"
    for ext in ("txt", "a1"):
        shutil.copy(src / f"{doc}.{ext}", tmp_path / f"{doc}.{ext}")
    (tmp_path / f"{doc}.a2").write_text("R1\tRenaming Former:T1 New:T2\n", encoding="utf-8")  # reversed
    pred = documents_of(read_directory(tmp_path))
    one = score_rename({doc: ref[doc]}, pred)
    assert (one["strict"].tp, one["strict"].fn, one["strict"].fp) == (0, 1, 1)
    assert (one["relaxed direction"].tp, one["relaxed direction"].fn) == (1, 0)


def test_a_reference_event_without_its_span_is_a_clear_error() -> None:
    from corpusdb.evaluation.counts import EvaluationInputError

    broken = Annotations(spans=REF.spans[:1], relations=REF.relations[:1])
    with pytest.raises(
        EvaluationInputError, match="reference document 'd': a Localization event refers to span 'T2'"
    ):
        score_bb({"d": broken}, {"d": PRED})
