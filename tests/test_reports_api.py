"""``Corpus.agreement``: raters, documents, criteria, type merges, bootstrap and the blindness gate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpusdb.agreement import CRITERIA, compare_spans
from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, NotFound, PermissionDenied
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.demo import sample_dir
from corpusdb.reports import AgreementOptions, parse_merge
from importers.standoff import read_directory
from tests.test_reports_support import project_from_annotators, project_from_sets

ROOT = sample_dir()


@pytest.fixture(scope="module")
def files() -> dict[str, dict[str, Annotations]]:
    """The sample annotators' records straight from the files (no database)."""
    return {
        n: {p.document.external_id: p.annotations for p in read_directory(ROOT / n)}
        for n in ("Lisa", "Maria", "Max")
    }


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {p.document.external_id: p.document.text for p in read_directory(ROOT / "Lisa")}


@pytest.fixture
def sample(sqlite_url: str) -> Corpus:
    return project_from_annotators(sqlite_url, ROOT, ["Lisa", "Maria", "Max"])


def _engine(files: dict, texts: dict, a: str, b: str, **kw: object) -> float | None:
    docs = {d: (files[a][d].spans, files[b][d].spans) for d in sorted(files[a])}
    return compare_spans(docs, texts=texts, **kw).overall.f1  # type: ignore[arg-type]


def test_every_criterion_and_type_mode_equals_the_engine_on_the_files(
    sample: Corpus, files: dict, texts: dict
) -> None:
    for crit in CRITERIA:
        for types in ("required", "ignored"):
            rep = sample.agreement(criterion=crit, types=types, jaccard=0.6)
            for p in rep.to_dict()["pairs"]:
                want = _engine(files, texts, p["a"], p["b"], criterion=crit, types=types, jaccard=0.6)
                assert p["overall"]["f1"] == want, (crit, types, p["a"], p["b"])
    merged = sample.agreement(merges=["LOC,ORG=place", "MISC=other"], criterion="partial")
    assert merged.options.types == "merged"
    got = merged.pair("Lisa", "Max")
    want = compare_spans(
        {d: (files["Lisa"][d].spans, files["Max"][d].spans) for d in files["Lisa"]},
        "partial",
        types="merged",
        type_classes={"place": ["LOC", "ORG"], "other": ["MISC"]},
    )
    assert got.overall == want.overall and dict(got.per_type) == dict(want.per_type)
    body = merged.to_dict()
    assert set(body["confusion"]["labels"]) == {"place", "other", "PER"}
    assert body["settings"]["type_classes"] == {"place": ["LOC", "ORG"], "other": ["MISC"]}


def test_type_merges_parse_and_refuse_nonsense() -> None:
    assert parse_merge("protein,DNA,RNA=macromolecule") == ("macromolecule", ("protein", "DNA", "RNA"))
    assert parse_merge("cell line,cell type=cell") == ("cell", ("cell line", "cell type"))
    opts = AgreementOptions.build(merges=["protein,DNA,RNA=macromolecule", "cell line,cell type=cell"])
    assert opts.types == "merged" and opts.class_of("DNA") == "macromolecule" and opts.class_of("x") == "x"
    for bad in ("protein", "=x", "a,b="):
        with pytest.raises(InvalidInput):
            parse_merge(bad)
    with pytest.raises(InvalidInput, match="two classes"):
        AgreementOptions.build(merges=["a,b=x", "b=y"])
    with pytest.raises(InvalidInput, match="criterion"):
        AgreementOptions(criterion="fuzzy")
    with pytest.raises(InvalidInput, match="merges"):
        AgreementOptions(types="merged")
    with pytest.raises(InvalidInput, match="need types 'merged'"):
        AgreementOptions.build(merges=["a,b=x"], types="required")


def test_documents_split_gold_and_predictions(sqlite_url: str, files: dict) -> None:
    corpus = Corpus.create("iaa", "conll-ner", url=sqlite_url)
    parsed = read_directory(ROOT / "Lisa")
    corpus.add_documents(
        Document(p.document.external_id, p.document.text, split="dev" if i < 3 else "train")
        for i, p in enumerate(parsed)
    )
    for n in ("Lisa", "Max"):
        corpus.add_annotator(n)
        for d, ann in files[n].items():
            corpus.create_set(d, n, annotations=ann, status="submitted")
    corpus.add_annotator("tagger", "system")
    dev = sorted(p.document.external_id for p in parsed[:3])
    for d in dev:
        corpus.create_set(d, None, kind="gold", annotations=files["Maria"][d])
        corpus.create_set(d, "tagger", kind="prediction", annotations=files["Maria"][d], status="submitted")
    rep = corpus.agreement(split="dev")
    assert rep.to_dict()["documents"] == dev
    want = compare_spans({d: (files["Lisa"][d].spans, files["Max"][d].spans) for d in dev}).overall.f1
    assert rep.pair("Lisa", "Max").overall.f1 == want
    # gold and a system's predictions are raters too; here both are Maria's annotations
    both = corpus.agreement(raters=["gold", "tagger", "Lisa"])
    assert both.pair("gold", "tagger").overall.f1 == 1.0
    assert [r["kind"] for r in both.to_dict()["raters"]] == ["gold", "prediction", "annotation"]
    lisa_maria = compare_spans({d: (files["Lisa"][d].spans, files["Maria"][d].spans) for d in dev}).overall.f1
    assert both.pair("Lisa", "tagger").overall.f1 == lisa_maria
    assert [r["name"] for r in corpus.agreement(gold=True, predictions=True).to_dict()["raters"]] == [
        "Lisa",
        "Max",
        "gold",
        "tagger",
    ]
    # a listed document subset, and a document only one rater has is not compared
    two = corpus.agreement(documents=dev[:2], raters=["Lisa", "gold"])
    assert two.to_dict()["documents"] == dev[:2]
    allg = corpus.agreement(raters=["Lisa", "gold"]).to_dict()
    assert allg["documents"] == dev and "4 document(s) have a set of only one rater" in allg["notes"][0]
    with pytest.raises(NotFound):
        corpus.agreement(documents=["no-such-doc"])
    with pytest.raises(NotFound, match="nobody"):
        corpus.agreement(raters=["Lisa", "nobody"])


def test_an_annotator_sees_nothing_of_the_others(any_url: str, files: dict) -> None:
    docs = read_directory(ROOT / "Lisa")
    first = docs[0].document.external_id
    sets = {n: dict(files[n]) for n in ("Lisa", "Max")}
    corpus = project_from_sets(any_url, "conll-ner", [p.document for p in docs], {"Lisa": sets["Lisa"]})
    corpus.add_annotator("Max")
    for d, ann in sets["Max"].items():  # Max has not submitted the first document yet
        corpus.create_set(d, "Max", annotations=ann, status="in_progress" if d == first else "submitted")
    lead = corpus.agreement()
    assert first not in lead.to_dict()["documents"] and len(lead.to_dict()["documents"]) == 6
    lisa = corpus.as_user("Lisa")
    with pytest.raises(InvalidInput, match="at least two raters") as exc:
        lisa.agreement()
    assert "Max" not in str(exc.value)  # not even the name of who else exists
    with pytest.raises(PermissionDenied, match="double-blind"):
        lisa.agreement(raters=["Lisa", "Max"])
    with pytest.raises(PermissionDenied):
        corpus.as_user("Max").agreement(raters=["Max", "Lisa"], documents=[first])


def test_bootstrap_is_seeded_and_reported(sample: Corpus) -> None:
    calls: list[tuple[int, int, str]] = []
    a = sample.agreement(bootstrap=300, seed=7, progress=lambda d, t, w: calls.append((d, t, w))).to_dict()
    b = sample.agreement(bootstrap=300, seed=7).to_dict()
    c = sample.agreement(bootstrap=300, seed=8).to_dict()
    assert a["summary"]["ci"] == b["summary"]["ci"] and a["pairs"] == b["pairs"]
    assert a["summary"]["ci"] != c["summary"]["ci"]
    ci = a["summary"]["ci"]
    assert ci["ci_low"] < a["summary"]["value"] < ci["ci_high"] and ci["n_clusters"] == 7 and ci["seed"] == 7
    for p in a["pairs"]:
        assert p["ci"]["f1"]["ci_low"] <= p["overall"]["f1"] <= p["ci"]["f1"]["ci_high"]
        assert p["ci"]["type_kappa"]["n_resamples"] == 300
    assert set(a["multirater"]["bootstrap"]) == {"fleiss_kappa", "krippendorff_alpha", "gwet_ac1"}
    assert calls[-1][0] == calls[-1][1] == 4 and "Lisa vs Maria" in calls[0][2]  # 3 pairs + units
    assert a["settings"]["bootstrap"] == {"resamples": 300, "seed": 7, "confidence": 0.95}


def _span(i: int, t: str, s: int) -> Span:
    return Span(f"T{i}", t, ((s, s + 4),), "xxxx")


def test_multirater_units_over_matched_spans(sqlite_url: str) -> None:
    """Units are spans several raters matched; a rater without a span is a missing rating."""
    import krippendorff

    text = "aaaa bbbb cccc dddd eeee"
    plan = {  # position -> type per rater (None: no span)
        0: ("PER", "PER", "PER"),
        5: ("LOC", "ORG", None),
        10: ("ORG", None, None),
        15: ("LOC", "LOC", "ORG"),
        20: ("MISC", None, "MISC"),
    }
    sets = {
        n: {
            "d1": Annotations(
                spans=tuple(_span(i, ts[k], s) for i, (s, ts) in enumerate(plan.items()) if ts[k] is not None)
            )
        }
        for k, n in enumerate(("A", "B", "C"))
    }
    corpus = project_from_sets(sqlite_url, "conll-ner", [Document("d1", text)], sets)
    mr = corpus.agreement().to_dict()["multirater"]
    assert mr["by_raters"] == {"1": 1, "2": 2, "3": 2} and mr["units"] == 4 and mr["ambiguous"] == 0
    units = [ts for ts in plan.values() if sum(t is not None for t in ts) >= 2]
    cats = sorted({t for ts in units for t in ts if t})
    data = np.array([[np.nan if u[k] is None else cats.index(u[k]) for u in units] for k in range(3)])
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert mr["coefficients"]["krippendorff_alpha"]["value"] == pytest.approx(want, abs=1e-12)
    # Fleiss' kappa with missing ratings (Gwet's generalisation) by hand: pa over units, pe from margins
    counts = np.array([[sum(1 for t in u if t == c) for c in cats] for u in units], dtype=float)
    r = counts.sum(axis=1)
    pa = np.mean((counts * (counts - 1)).sum(axis=1) / (r * (r - 1)))
    pi = (counts / r[:, None]).mean(axis=0)
    pe = (pi**2).sum()
    assert mr["coefficients"]["fleiss_kappa"]["value"] == pytest.approx((pa - pe) / (1 - pe), abs=1e-12)
    assert mr["categories"] == cats


def test_two_raters_have_no_units_but_a_directed_confusion(sample: Corpus, tmp_path: Path) -> None:
    body = sample.agreement(raters=["Lisa", "Max"]).to_dict()
    assert body["multirater"] is None
    cf = body["confusion"]
    assert cf["orientation"] == "a_by_b" and (cf["a"], cf["b"]) == ("Lisa", "Max")
    p = body["pairs"][0]
    ign = sample.agreement(raters=["Lisa", "Max"], types="ignored").to_dict()["pairs"][0]
    assert sum(map(sum, cf["table"])) == ign["overall"]["matched"]
    assert (
        sum(cf["unmatched_a"]) == ign["overall"]["only_a"]
        and sum(cf["unmatched_b"]) == ign["overall"]["only_b"]
    )
    assert p["type_agreement"]["cohen_kappa"]["value"] == ign["type_agreement"]["cohen_kappa"]["value"]
    misses = sample.agreement(raters=["Lisa", "Max"]).pairwise(lambda q: q.overall.only_a, "misses")
    assert (
        misses.names == ("Lisa", "Max")
        and misses.values[0][1] == p["overall"]["only_a"] == misses.values[1][0]
    )
    prec = body["matrices"]["precision"]["values"]
    assert prec[0][1] == p["overall"]["precision"] and prec[1][0] == p["overall"]["recall"]


def test_raters_sharing_no_document_or_no_span(sqlite_url: str) -> None:
    """Degenerate data gives undefined figures with notes, never a crash (bootstrap included)."""
    docs = [Document(d, "abc abc") for d in ("d1", "d2", "d3")]
    sets = {
        "A": {"d1": Annotations(spans=(_span(1, "PER", 0),)), "d2": Annotations()},
        "B": {"d2": Annotations(), "d3": Annotations(spans=(_span(1, "PER", 0),))},
        "C": {"d3": Annotations()},
    }
    body = project_from_sets(sqlite_url, "conll-ner", docs, sets).agreement(bootstrap=50).to_dict()
    ac = next(p for p in body["pairs"] if (p["a"], p["b"]) == ("A", "C"))
    assert ac["documents"] == 0 and ac["overall"]["f1"] is None and ac["ci"]["f1"]["ci_low"] is None
    assert "A and C share no document: not compared" in body["notes"]
    assert body["matrices"]["f1"]["values"][0][2] is None and body["multirater"]["coefficients"] == {}
