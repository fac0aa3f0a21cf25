"""Span matching, relations, links, the document bootstrap, and checks against nervaluate and bratiaa."""

from __future__ import annotations

import importlib.util
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpusdb.agreement import (
    AgreementInputError,
    bootstrap_prf,
    bootstrap_table,
    cluster_bootstrap,
    compare_links,
    compare_relations,
    compare_spans,
    pairwise_matrix,
    semeval_counts,
    span_report,
    token_codes,
)
from corpusdb.agreement.bootstrap import f1_statistic
from corpusdb.agreement.spans import _token_bounds, match_pairs
from corpusdb.agreement.tokens import tokenize
from corpusdb.basics.records import Annotations, Argument, Link, Relation, Span
from tests.conftest import shared_path


def sp(sid: str, typ: str, *frags: tuple[int, int]) -> Span:
    return Span(sid, typ, tuple(frags), "")


TEXT = "IL-2 gene expression in human T cells requires NF-kappa B and AP-1 binding."


# --- criteria ------------------------------------------------------------------------------------------


def test_each_criterion_on_a_hand_example() -> None:
    a = [
        sp("A1", "Protein", (0, 4)),
        sp("A2", "Cell", (24, 37)),
        sp("A3", "Protein", (48, 59)),
        sp("A4", "Protein", (64, 68)),
    ]
    b = [
        sp("B1", "Protein", (0, 9)),
        sp("B2", "Cell", (30, 37)),
        sp("B3", "DNA", (48, 59)),
        sp("B4", "Protein", (64, 76)),
    ]
    docs = {"d": (a, b)}
    m = {
        c: compare_spans(docs, c, types="ignored", texts={"d": TEXT}, jaccard=0.5).overall.matched
        for c in ("exact", "left", "right", "left_or_right", "approximate", "partial", "fragment", "jaccard")
    }
    # A3/B3 exact; A1/B1 and A4/B4 share the start; A2/B2 the end; every pair is nested
    assert m == {
        "exact": 1,
        "left": 3,
        "right": 2,
        "left_or_right": 4,
        "approximate": 4,
        "partial": 4,
        "fragment": 1,
        "jaccard": 2,
    }
    strict = compare_spans(docs, "exact")
    assert strict.overall.matched == 0 and strict.overall.f1 == 0.0
    assert (
        compare_spans(
            docs, "exact", types="merged", type_classes={"macro": ["Protein", "DNA"]}
        ).overall.matched
        == 1
    )


def test_fragment_criterion_uses_tokens() -> None:
    text = "the IL-2 receptor"
    a = [sp("A1", "P", (4, 8))]  # IL-2
    b = [sp("B1", "P", (4, 7))]  # IL- : same tokens? IL, -, but not 2
    c = [sp("C1", "P", (5, 8))]  # L-2 covers tokens IL, -, 2
    assert compare_spans({"d": (a, b)}, "fragment", texts={"d": text}).overall.matched == 0
    assert compare_spans({"d": (a, c)}, "fragment", texts={"d": text}).overall.matched == 1
    with pytest.raises(AgreementInputError, match="texts"):
        compare_spans({"d": (a, c)}, "fragment")


def test_discontinuous_spans_compare_by_fragments() -> None:
    a = [sp("A1", "Habitat", (633, 638), (649, 662))]
    same = [sp("B1", "Habitat", (649, 662), (633, 638))]
    joined = [sp("B1", "Habitat", (633, 662))]
    assert compare_spans({"d": (a, same)}, "exact").overall.matched == 1
    assert compare_spans({"d": (a, joined)}, "exact").overall.matched == 0
    assert compare_spans({"d": (a, joined)}, "approximate").overall.matched == 1
    # covered characters: 5 + 13 = 18 of 29
    assert compare_spans({"d": (a, joined)}, "jaccard", jaccard=0.62).overall.matched == 1
    assert compare_spans({"d": (a, joined)}, "jaccard", jaccard=0.63).overall.matched == 0
    gap = [sp("B1", "Habitat", (640, 645))]  # inside the gap: extents overlap, characters do not
    assert compare_spans({"d": (a, gap)}, "partial").overall.matched == 0


def test_names_without_mentions_are_excluded_and_counted() -> None:
    a = [sp("A1", "Protein", (0, 4)), Span("A2", "Protein", (), "p53")]
    res = compare_spans({"d": (a, [sp("B1", "Protein", (0, 4))])}, "exact")
    assert res.overall.f1 == 1.0 and res.excluded_a == 1 and "one-to-one" in res.policy


def test_matching_is_one_to_one_and_maximal() -> None:
    # greedy by overlap would pair A1 with B1 (IoU .9) and leave A2, B2 unmatched
    a = [sp("A1", "T", (0, 10)), sp("A2", "T", (8, 20))]
    b = [sp("B1", "T", (0, 9)), sp("B2", "T", (0, 3))]
    res = compare_spans({"d": (a, b)}, "partial")
    assert res.overall.matched == 2
    assert res.alignment() == {"d": {"A1": "B2", "A2": "B1"}}


def test_match_pairs_against_brute_force() -> None:
    rng = np.random.default_rng(0)
    for _ in range(60):
        na, nb = rng.integers(1, 6, size=2)
        pairs = [(i, j) for i in range(na) for j in range(nb) if rng.random() < 0.4]
        if not pairs:
            continue
        pa = np.array([p[0] for p in pairs])
        pb = np.array([p[1] for p in pairs])
        got = match_pairs(pa, pb, rng.random(len(pairs)))
        assert len(set(pa[got])) == len(got) == len(set(pb[got]))
        best = 0
        for k in range(min(na, nb), 0, -1):
            if any(
                len({pairs[i][0] for i in c}) == k == len({pairs[i][1] for i in c})
                for c in itertools.combinations(range(len(pairs)), k)
            ):
                best = k
                break
        assert len(got) == best


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12), st.sampled_from("PQ")), max_size=15))
def test_identical_annotators_and_swap_symmetry(raw: list[tuple[int, int, str]]) -> None:
    a = [sp(f"T{i}", t, (s, s + n)) for i, (s, n, t) in enumerate(raw)]
    b = [sp(f"U{i}", t, (s + (i % 3), s + n)) for i, (s, n, t) in enumerate(raw)]
    for crit in ("exact", "partial", "left_or_right", "jaccard"):
        same = compare_spans({"d": (a, a)}, crit)
        assert same.overall.only_a == same.overall.only_b == 0
        ab, ba = compare_spans({"d": (a, b)}, crit), compare_spans({"d": (b, a)}, crit)
        assert ab.overall.matched == ba.overall.matched
        assert (ab.overall.precision, ab.overall.recall) == (ba.overall.recall, ba.overall.precision)


def test_type_agreement_and_per_type() -> None:
    a = [
        sp("A1", "Protein", (0, 4)),
        sp("A2", "DNA", (10, 14)),
        sp("A3", "Protein", (20, 24)),
        sp("A4", "DNA", (30, 34)),
    ]
    b = [
        sp("B1", "Protein", (0, 4)),
        sp("B2", "DNA", (10, 14)),
        sp("B3", "DNA", (20, 24)),
        sp("B4", "DNA", (30, 34)),
    ]
    res = compare_spans({"d": (a, b)}, "exact", types="ignored")
    assert res.type_table == ((1, 1), (0, 2)) and res.type_labels == ("Protein", "DNA")
    assert res.type_agreement is not None
    assert res.type_agreement["cohen_kappa"].value == pytest.approx(0.5)
    req = compare_spans({"d": (a, b)}, "exact")
    assert req.per_type["Protein"].matched == 1 and req.per_type["Protein"].only_a == 1
    assert req.per_type["DNA"].only_b == 1 and req.type_agreement is None
    d = req.to_dict()
    assert d["overall"]["f1"] == pytest.approx(0.75) and "per_document" not in d


def test_report_covers_all_criteria_and_semeval() -> None:
    a = [sp("A1", "P", (0, 4)), sp("A2", "C", (24, 37))]
    b = [sp("B1", "P", (0, 4)), sp("B2", "C", (30, 37))]
    rep = span_report({"d": (a, b)}, texts={"d": TEXT})
    assert len(rep.comparisons) == 16
    assert rep.semeval is not None and rep.semeval["partial"]["PAR"] == 1
    assert set(rep.to_dict()) == {"comparisons", "semeval"}


# --- oracles -------------------------------------------------------------------------------------------


def _to_nervaluate(spans: list[Span]) -> list[dict[str, object]]:
    return [{"label": s.type, "start": s.start, "end": s.end - 1} for s in spans]


def test_semeval_scenarios_match_nervaluate() -> None:
    """The six SemEval-2013 scenarios (nervaluate README): strict .2, exact .4, partial .6, type .4."""
    from nervaluate import Evaluator

    gold = [
        sp("G1", "DRUG", (0, 1)),
        sp("G2", "BRAND", (4, 5)),
        sp("G3", "DRUG", (6, 7)),
        sp("G4", "DRUG", (9, 10)),
        sp("G5", "GROUP", (12, 13)),
    ]
    pred = [
        sp("P1", "DRUG", (0, 1)),
        sp("P2", "BRAND", (2, 3)),
        sp("P3", "BRAND", (6, 7)),
        sp("P4", "DRUG", (8, 10)),
        sp("P5", "DRUG", (11, 13)),
    ]
    ours = semeval_counts({"d": (gold, pred)})
    ev = Evaluator(
        [_to_nervaluate(gold)], [_to_nervaluate(pred)], tags=["DRUG", "BRAND", "GROUP"], loader="dict"
    ).evaluate()["overall"]
    for scheme in ("strict", "exact", "partial", "ent_type"):
        r = ev[scheme]
        assert (
            ours[scheme]["COR"],
            ours[scheme]["INC"],
            ours[scheme]["PAR"],
            ours[scheme]["MIS"],
            ours[scheme]["SPU"],
        ) == (r.correct, r.incorrect, r.partial, r.missed, r.spurious)
        assert ours[scheme]["f1"] == pytest.approx(r.f1)
    assert [round(ours[s]["f1"], 3) for s in ("strict", "exact", "partial", "ent_type")] == [
        0.2,
        0.4,
        0.6,
        0.4,
    ]


def _read_t_lines(path: Path) -> list[Span]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("T"):
            sid, middle, text = line.split("\t")
            typ, offsets = middle.split(" ", 1)
            frags = tuple((int(x), int(y)) for x, y in (f.split() for f in offsets.split(";")))
            out.append(Span(sid, typ, frags, text))
    return out


BRATIAA_F1 = {
    ("Lisa", "Maria"): 0.946,
    ("Lisa", "Max"): 0.874,
    ("Lisa", "Peter"): 0.959,
    ("Maria", "Max"): 0.816,
    ("Maria", "Peter"): 0.909,
    ("Max", "Peter"): 0.838,
}


@pytest.mark.shared
def test_bratiaa_example_project_pairwise_f1() -> None:
    """Exact span+type F1 on bratiaa's example project equals bratiaa's figures (mean 0.890)."""
    root = shared_path("data", "bratiaa-example-project")
    names = ["Lisa", "Maria", "Max", "Peter"]
    docs = sorted(p.name for p in (root / "Lisa").glob("*.ann"))
    sets = {n: {d: _read_t_lines(root / n / d) for d in docs} for n in names}
    matrix = pairwise_matrix(
        sets, lambda x, y: compare_spans({d: (x[d], y[d]) for d in docs}, "exact").overall.f1, name="f1"
    )
    for (x, y), want in BRATIAA_F1.items():
        assert matrix.values[names.index(x)][names.index(y)] == pytest.approx(want, abs=5e-4)
    assert matrix.mean() == pytest.approx(0.890, abs=5e-4)
    if importlib.util.find_spec("bratiaa") is not None:  # the real tool, when installed
        import bratiaa

        ref = bratiaa.compute_f1_agreement(str(root))
        ref_m = ref.compute_total_f1_matrix()
        for i, x in enumerate(ref.annotators):
            for j, y in enumerate(ref.annotators):
                assert matrix.values[names.index(x)][names.index(y)] == pytest.approx(ref_m[i][j], abs=1e-12)


# --- relations and links ----------------------------------------------------------------------------------


def _rel(
    rid: str,
    typ: str,
    x: str,
    y: str,
    label: int | None = None,
    tags: tuple[str, ...] = (),
    roles: tuple[str, str] = ("Arg1", "Arg2"),
) -> Relation:
    return Relation(rid, typ, (Argument(roles[0], x), Argument(roles[1], y)), label=label, tags=tags)


def test_relations_strict_relaxed_and_labels() -> None:
    spans_a = (
        sp("T1", "Protein", (0, 4)),
        sp("T2", "Protein", (10, 14)),
        sp("T3", "Protein", (20, 24)),
        sp("T4", "Protein", (30, 34)),
    )
    spans_b = (
        sp("S1", "Protein", (0, 4)),
        sp("S2", "Protein", (10, 14)),
        sp("S3", "Protein", (20, 24)),
        sp("S4", "Protein", (30, 34)),
    )
    a = Annotations(
        spans=spans_a,
        links=(Link("L1", "synonym", "T2", "T3"),),
        relations=(_rel("R1", "bind", "T1", "T2", 1, ("hypothesis",)), _rel("R2", "bind", "T4", "T1", -1)),
    )
    # B: R1 uses the other mention (T3 ~ S3) of the same entity; R2 has its direction reversed
    b = Annotations(
        spans=spans_b, relations=(_rel("Q1", "bind", "S1", "S3", 1), _rel("Q2", "bind", "S1", "S4", 1))
    )
    docs = {"d": (a, b)}
    spans = compare_spans({"d": (spans_a, spans_b)}, "exact")
    strict = compare_relations(docs, spans, mode="strict", directed=True)
    assert strict.overall.matched == 0
    undirected = compare_relations(docs, spans, mode="strict", directed=False)
    assert undirected.overall.matched == 1  # R2 ~ Q2 when direction does not count
    assert undirected.label_table is not None and undirected.label_values == (-1, 1)
    relaxed = compare_relations(docs, spans, mode="relaxed")
    assert relaxed.overall.matched == 2 and relaxed.pairs["d"] == (("R1", "Q1"), ("R2", "Q2"))
    assert relaxed.label_agreement is not None
    assert relaxed.label_agreement["percent_agreement"].value == pytest.approx(0.5)
    assert relaxed.per_tag["hypothesis"].matched == 1
    assert relaxed.to_dict()["overall"]["f1"] == 1.0


def test_nested_events_match_through_their_arguments() -> None:
    spans = (sp("T1", "Protein", (0, 4)), sp("T2", "Protein", (10, 14)))
    inner = Relation("E1", "Binding", (Argument("Theme", "T1"), Argument("Theme2", "T2")), kind="event")
    outer = Relation("E2", "Regulation", (Argument("Theme", "E1"),), kind="event")
    inner_b = Relation("F1", "Binding", (Argument("Theme", "T1"), Argument("Theme2", "T2")), kind="event")
    outer_b = Relation("F2", "Regulation", (Argument("Theme", "F1"),), kind="event")
    a = Annotations(spans=spans, relations=(outer, inner))
    b = Annotations(spans=spans, relations=(outer_b, inner_b))
    res = compare_relations({"d": (a, b)}, {"d": {"T1": "T1", "T2": "T2"}})
    assert res.overall.matched == 2


def test_links_closure_edges() -> None:
    spans = tuple(sp(f"T{i}", "P", (i * 10, i * 10 + 4)) for i in range(1, 5))
    # A chains T1-T2-T3, B draws a star from T1: the same cluster, so the same closure edges
    a = Annotations(
        spans=spans,
        links=(
            Link("L1", "synonym", "T1", "T2"),
            Link("L2", "abbreviation", "T2", "T3"),
            Link("L3", "part_of", "T4", "T1"),
        ),
    )
    b = Annotations(
        spans=spans,
        links=(
            Link("M1", "synonym", "T1", "T2"),
            Link("M2", "synonym", "T1", "T3"),
            Link("M3", "part_of", "T1", "T4"),
        ),
    )
    align = {"d": {s.id: s.id for s in spans}}
    res = compare_links({"d": (a, b)}, align)
    assert res.clusters.f1 == 1.0 and res.clusters.matched == 3
    assert res.per_type["part_of"].matched == 0  # direction counts
    assert res.per_type["synonym"].matched == 1


# --- tokens and bootstrap ----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab1_ -,.αβ\t\n()ü", max_size=40))
def test_vectorised_tokens_equal_the_regex(text: str) -> None:
    s, e = _token_bounds(text)
    assert list(zip(s.tolist(), e.tolist(), strict=True)) == [
        m.span() for m in re.finditer(r"\w+|[^\w\s]", text)
    ]
    assert tokenize(text).tolist() == [list(m.span()) for m in re.finditer(r"\w+|[^\w\s]", text)]


def test_token_codes_innermost_span_wins() -> None:
    text = "IL-2 binds the IL-2 receptor alpha"
    codes = token_codes(
        [sp("T1", "P", (0, 4)), sp("T2", "C", (15, 34)), sp("T3", "P", (15, 19))],
        tokenize(text),
        {"P": 1, "C": 2},
    )
    assert codes.tolist() == [1, 1, 1, 0, 0, 1, 1, 1, 2, 2]


def test_bootstrap_is_seeded_and_resamples_documents() -> None:
    rng = np.random.default_rng(5)
    per_doc = rng.integers(0, 30, size=(80, 3))
    one = bootstrap_prf(per_doc, n_resamples=500, seed=11)
    two = bootstrap_prf(per_doc, n_resamples=500, seed=11)
    assert one == two and one.n_clusters == 80
    assert one.ci_low < one.estimate < one.ci_high
    assert one.estimate == pytest.approx(f1_statistic(per_doc.sum(axis=0)[None])[0])
    bca = bootstrap_prf(per_doc, n_resamples=500, seed=11, method="bca")
    assert abs(bca.ci_low - one.ci_low) < 0.02
    # width shrinks like 1/sqrt(documents)
    big = np.concatenate([per_doc] * 4)
    wide = one.ci_high - one.ci_low
    narrow = bootstrap_prf(big, n_resamples=500, seed=11)
    assert (narrow.ci_high - narrow.ci_low) == pytest.approx(wide / 2, rel=0.3)


def test_bootstrap_coverage_is_about_95_percent() -> None:
    """Simulated documents with a known F1: the percentile interval covers it in ~95% of studies."""
    rng = np.random.default_rng(1)
    covered = 0
    studies = 150
    p_match = 0.8  # per span: matched w.p. .8, else a miss; spurious spans at rate .1 -> F1 known
    true_f1 = 2 * 0.8 / (2 * 0.8 + 0.2 + 0.1)
    for s in range(studies):
        n = rng.integers(5, 40, size=60)
        m = rng.binomial(n, p_match)
        per = np.stack([m, n - m, rng.poisson(0.1 * n)], axis=1)
        ci = bootstrap_prf(per, n_resamples=300, seed=s)
        covered += ci.ci_low <= true_f1 <= ci.ci_high
    assert 0.88 <= covered / studies <= 0.99


def test_bootstrap_type_kappa_and_undefined_replicates() -> None:
    a = [sp(f"A{i}", "P" if i % 3 else "D", (i * 10, i * 10 + 4)) for i in range(60)]
    b = [sp(f"B{i}", "P" if i % 4 else "D", (i * 10, i * 10 + 4)) for i in range(60)]
    docs = {f"d{k}": (a[k * 6 : k * 6 + 6], b[k * 6 : k * 6 + 6]) for k in range(10)}
    res = compare_spans(docs, "exact", types="ignored")
    ci = bootstrap_table(res.per_document_type_tables, "cohen_kappa", n_resamples=300, seed=0)
    assert ci.estimate == pytest.approx(res.type_agreement["cohen_kappa"].value)  # type: ignore[index]
    # a statistic that is undefined on some resamples: they are dropped and counted
    const = cluster_bootstrap(
        np.array([[1.0], [0.0]]), lambda t: np.where(t[:, 0] > 0, t[:, 0], np.nan), n_resamples=100, seed=0
    )
    assert const.n_valid < 100 and "dropped" in const.note
    with pytest.raises(AgreementInputError, match="method"):
        bootstrap_prf(np.ones((3, 3)), method="studentized")  # type: ignore[arg-type]
