"""Entity-level agreement on BioRelEx-shaped data: relations, clusters and groundings.

Fixture: tests/fixtures/biorelex/entities.json, in the exact BioRelEx 1.0 structure, with a cluster
whose first name has no mention ({ActRIIB (no mention), IIB}), nested mentions (activin inside
"activin/IIB complex"), duplicate interactions with conflicting labels, a self-interaction and
names without mentions in several clusters. Copies are edited as JSON and read back with the real
reader, so every figure goes through the same path as an imported corpus.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpusdb.agreement.entities import align_strict, entities, keyed, mention_keys
from corpusdb.agreement.groundings import compare_groundings
from corpusdb.agreement.links import compare_links
from corpusdb.agreement.relations import compare_relations
from corpusdb.agreement.spans import compare_spans
from corpusdb.basics.records import Annotations, Link, Span
from importers.biorelex import read_biorelex
from tests.conftest import FIXTURES

ENTITIES = FIXTURES / "biorelex" / "entities.json"
RAW: list[dict[str, Any]] = json.loads(ENTITIES.read_text())


def _read(data: list[dict[str, Any]], tmp: Path, name: str) -> dict[str, Annotations]:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(data, indent=1))
    return {d.document.external_id: d.annotations for d in read_biorelex(path)}


def figures(a: dict[str, Annotations], b: dict[str, Annotations], directed: bool = False) -> dict[str, Any]:
    """Every entity-level figure of A against B, as plain values."""
    docs = {k: (a[k], b[k]) for k in a}
    spans = compare_spans({k: (x.spans, y.spans) for k, (x, y) in docs.items()}, "exact")
    out: dict[str, Any] = {}
    for mode in ("strict", "relaxed"):
        r = compare_relations(docs, spans, mode=mode, directed=directed)
        out[f"relations_{mode}"] = (r.overall.matched, r.overall.only_a, r.overall.only_b)
        out[f"labels_{mode}"] = r.label_table
    lk = compare_links(docs, spans)
    out["pairwise"] = (lk.clusters.matched, lk.clusters.only_a, lk.clusters.only_b)
    for m in ("muc", "b_cubed", "ceaf_e"):
        s = getattr(lk, m)
        out[m] = (round(s.precision, 9), round(s.recall, 9))
    g = compare_groundings(docs, spans)
    out["groundings"] = {k: (v.matched, v.only_a, v.only_b) for k, v in
                         (("span_exact", g.span_exact), ("span_overlap", g.span_overlap), ("document", g.document))}  # fmt: skip
    out["per_database"] = {db: {k: v.f1 for k, v in d.items()} for db, d in g.per_database.items()}
    return out


def _f1s(f: dict[str, Any]) -> list[float]:
    """Every F1 implied by the figures (counts and P/R pairs)."""
    vals = []
    for key in ("relations_strict", "relations_relaxed", "pairwise"):
        m, oa, ob = f[key]
        vals.append(2 * m / (2 * m + oa + ob))
    for key in ("muc", "b_cubed", "ceaf_e"):
        p, r = f[key]
        vals.append(2 * p * r / (p + r))
    vals += [2 * m / (2 * m + oa + ob) for m, oa, ob in f["groundings"].values()]
    vals += [v for d in f["per_database"].values() for v in d.values()]
    return vals


def shuffled(data: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """The same annotations listed in another order: clusters, names, mentions, interactions."""
    out = copy.deepcopy(data)
    for s in out:
        ents = s["entities"]
        order = list(range(len(ents)))
        rng.shuffle(order)
        new_index = {old: new for new, old in enumerate(order)}
        s["entities"] = [ents[i] for i in order]
        for c in s["entities"]:
            names = list(c["names"].items())
            rng.shuffle(names)
            for _, meta in names:
                rng.shuffle(meta["mentions"])
            c["names"] = dict(names)
        for inter in s["interactions"]:
            inter["participants"] = [new_index[p] for p in inter["participants"]]
        rng.shuffle(s["interactions"])
    return out


def test_identical_copies_score_one_on_every_layer(tmp_path: Path) -> None:
    a = _read(RAW, tmp_path, "a")
    f = figures(a, _read(RAW, tmp_path, "b"))
    assert f["relations_strict"] == (8, 0, 0)  # 4 + 4 interactions, duplicates and self-pair included
    assert f["relations_relaxed"] == (8, 0, 0)
    # labels: the duplicate pair [1,0]/[0,1] with labels 1 and 0, and [3,2]/[2,3] with -1 and 1
    assert f["labels_strict"] == ((1, 0, 0), (0, 1, 0), (0, 0, 6))
    # co-referring pairs: {ActRIIB, IIB, IIB} 3, {Activin, activin} 1, {ALK4, ALK4, ACVR1B} 3, {Smad3, MADH3} 1
    assert f["pairwise"] == (8, 0, 0)
    assert all(v == 1.0 for v in _f1s(f)), f
    assert f["groundings"]["document"] == (6, 0, 0)  # 3 ids in sentence 0 (one is HGNC), 3 in sentence 1
    assert f["groundings"]["span_exact"] == (12, 0, 0)  # every span of a grounded cluster: 8 + 4
    assert set(f["per_database"]) == {"uniprot", "hgnc"}


def test_a_cluster_whose_first_name_has_no_mention_still_takes_part(tmp_path: Path) -> None:
    """{ActRIIB (no mention), IIB}: the relations on it match, and so does its unmentioned name."""
    a = _read(RAW, tmp_path, "a")["entities.0"]
    c1 = a.entities[0]
    assert a.span(c1.members[0]).fragments == ()
    b = copy.deepcopy(RAW)
    del b[0]["entities"][0]["names"]["ActRIIB"]  # B does not know the unmentioned name
    f = figures(_read(RAW, tmp_path, "a"), _read(b, tmp_path, "b"))
    assert f["relations_strict"] == (8, 0, 0)  # the entity still aligns through its IIB mentions
    assert f["pairwise"] == (6, 2, 0)  # A's ActRIIB-IIB pairs (2) are not in B


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_reordering_changes_no_figure(tmp_path_factory: pytest.TempPathFactory, seed: int) -> None:
    """Names, mentions, clusters and interactions listed in any order: every figure unchanged."""
    tmp = tmp_path_factory.mktemp("shuffle")
    base = _read(RAW, tmp, "a")
    other = _read(shuffled(RAW, random.Random(seed)), tmp, "b")
    expected = figures(base, _read(RAW, tmp, "c"))
    assert figures(base, other) == expected
    assert figures(other, base) == figures(_read(RAW, tmp, "c"), base)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_reordering_both_sides_of_a_disagreement_changes_no_figure(
    tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    """With real disagreements (a moved mention, another grounding, a missing interaction), the
    figures still do not depend on the order in which either side listed things."""
    tmp = tmp_path_factory.mktemp("shuffle2")
    b = copy.deepcopy(RAW)
    b[0]["entities"][3]["names"]["ACVR1B"]["mentions"] = []
    b[1]["entities"][1]["grounding"]["link"] = "https://www.uniprot.org/uniprot/P99999"
    b[1]["interactions"].pop(2)
    b[0]["entities"][1]["names"].pop("activin")  # the nested mention leaves the Activin cluster
    b[0]["entities"].append({"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False,
                             "grounding": None, "names": {"activin": {"is_mentioned": True, "mentions": [[28, 35]]}}})  # fmt: skip
    rng = random.Random(seed)
    f = figures(_read(RAW, tmp, "a"), _read(b, tmp, "b"))
    g = figures(_read(shuffled(RAW, rng), tmp, "a2"), _read(shuffled(b, rng), tmp, "b2"))
    assert f == g
    assert f["relations_strict"][0] < 8 and f["pairwise"] == (7, 1, 0)


def test_reversed_name_order_is_agreement(tmp_path: Path) -> None:
    """The issue's case: reversing names inside every cluster used to drop strict F1 to 0.905."""
    rev = copy.deepcopy(RAW)
    for s in rev:
        for c in s["entities"]:
            c["names"] = dict(reversed(list(c["names"].items())))
    f = figures(_read(RAW, tmp_path, "a"), _read(rev, tmp_path, "b"), directed=True)
    assert all(v == 1.0 for v in _f1s(f))


def test_groundings_per_span_and_per_document(tmp_path: Path) -> None:
    b = copy.deepcopy(RAW)
    # Smad3 grounded to another UniProt entry: span and document figures drop, per database
    b[1]["entities"][1]["grounding"]["link"] = "https://www.uniprot.org/uniprot/P99999"
    f = figures(_read(RAW, tmp_path, "a"), _read(b, tmp_path, "b"))
    # sentence 1: Smad3 and its unmentioned name MADH3 carry the grounding (2 spans)
    assert f["groundings"]["span_exact"] == (10, 2, 2)
    assert f["groundings"]["span_overlap"] == (10, 2, 2)
    assert f["groundings"]["document"] == (5, 1, 1)
    assert f["per_database"]["hgnc"] == {"span_exact": 1.0, "span_overlap": 1.0, "document": 1.0}
    assert f["per_database"]["uniprot"]["document"] == pytest.approx(2 * 4 / (2 * 4 + 2))
    assert all(v == 1.0 for v in (f["relations_strict"][0] / 8, f["pairwise"][0] / 8))


def test_grounding_overlap_counts_a_shared_id() -> None:
    from corpusdb.basics.records import Grounding

    def sp(refs: tuple[str, ...]) -> Span:
        return Span("T1", "protein", ((0, 4),), "IL-2", groundings=tuple(Grounding(r) for r in refs))

    a = Annotations(spans=(sp(("uniprot:P60568", "ncbigene:3558")),))
    b = Annotations(spans=(sp(("uniprot:P60568",)),))
    g = compare_groundings({"d": (a, b)}, {"d": {"T1": "T1"}})
    assert (g.span_exact.f1, g.span_overlap.f1) == (0.0, 1.0)
    assert g.document.matched == 1 and g.document.only_a == 1
    assert g.per_database["uniprot"]["span_exact"].f1 == 1.0
    assert g.per_database["ncbigene"]["span_exact"].only_a == 1


def test_cluster_metrics_by_hand() -> None:
    """Key {a b c}{d}; response {a b}{c d}: MUC R 1/2 P 1/2, B-cubed R (5/3+1)/4 = 2/3, P 3/4... by hand."""
    spans = tuple(Span(x, "protein", ((i * 2, i * 2 + 1),), x) for i, x in enumerate("abcd"))
    a = Annotations(spans=spans, links=(Link("L1", "synonym", "a", "b"), Link("L2", "coreference", "b", "c")))
    b = Annotations(spans=spans, links=(Link("L1", "synonym", "a", "b"), Link("L2", "synonym", "c", "d")))
    lk = compare_links({"d": (a, b)}, {"d": {x: x for x in "abcd"}})
    assert (lk.clusters.matched, lk.clusters.only_a, lk.clusters.only_b) == (1, 2, 1)
    assert (lk.muc.recall, lk.muc.precision) == (0.5, 0.5)  # key: (3-2)/(3-1); response: (1+1-1... )
    # B-cubed recall: a 2/3, b 2/3, c 1/3, d 1 -> 8/3 / 4; precision: a 1, b 1, c 1/2, d 1/2 -> 3/4
    assert lk.b_cubed.recall == pytest.approx(2 / 3) and lk.b_cubed.precision == pytest.approx(3 / 4)
    # CEAF-e: {abc}~{ab} phi 4/5, {d}~{cd} phi 2/3; R over 2 key entities, P over 2 response entities
    assert lk.ceaf_e.recall == pytest.approx((4 / 5 + 2 / 3) / 2) == lk.ceaf_e.precision


def test_strict_entity_alignment_is_one_to_one(tmp_path: Path) -> None:
    """Two A clusters sharing mentions with one B cluster: only the larger overlap aligns."""
    a = _read(RAW, tmp_path, "a")["entities.0"]
    merged = copy.deepcopy(RAW)
    e = merged[0]["entities"]
    e[0]["names"].update(e[1]["names"])  # B merges {ActRIIB, IIB} and {Activin, activin}
    del e[1]
    for inter in merged[0]["interactions"]:
        inter["participants"] = [p - (p >= 1) if p != 1 else 0 for p in inter["participants"]]
    b = _read(merged, tmp_path, "b")["entities.0"]
    spans = compare_spans({"d": (a.spans, b.spans)}, "exact").alignment()["d"]
    ka = keyed(entities(a), mention_keys(a, "A", spans, b))
    kb = keyed(entities(b), mention_keys(b, "B"))
    pairs = align_strict(ka, kb)
    merged_b = next(j for j, c in enumerate(kb) if len(c) == 5)
    assert sorted(j for j in pairs.values()) == sorted(set(pairs.values()))  # one-to-one
    assert [i for i, j in pairs.items() if j == merged_b] == [
        next(i for i, c in enumerate(ka) if len(c) == 3)
    ]
