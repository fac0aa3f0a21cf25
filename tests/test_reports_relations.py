"""Relation and link agreement on a real BioNLP corpus (BB 2016 dev): gold vs a perturbed copy whose
differences are known, so every count is predicted by hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from corpusdb.basics.records import Annotations, Argument
from tests.conftest import shared_path
from tests.test_reports_support import project_from_sets

pytestmark = pytest.mark.shared


def _label_a(i: int) -> int:
    return 0 if i % 4 == 1 else 1


def _label_b(i: int) -> int:
    return -1 if i % 5 == 2 else _label_a(i)


@pytest.fixture(scope="module")
def bb() -> tuple[list, dict, dict, dict[str, int]]:
    """Gold (with labels 1/0 added) and a copy where relation i is dropped (i % 7 == 0), has its
    roles swapped (3), its type changed (5) or its label changed (i % 5 == 2); the copy also lost
    every link of the first document that has links."""
    from importers.standoff import read_directory

    parsed = read_directory(shared_path("data", "bionlp-st-2016-bb-event", "BioNLP-ST-2016_BB-event_dev"))
    gold: dict[str, Annotations] = {}
    copy: dict[str, Annotations] = {}
    n = {"total": 0, "drop": 0, "swap": 0, "retype": 0, "links_lost": 0}
    pairs: list[tuple[int, int]] = []  # labels of relations that stay strictly matched
    i = 0
    linked = next(p.document.external_id for p in parsed if p.annotations.links)
    for p in parsed:
        ann = p.annotations
        ga, gb = [], []
        for r in ann.relations:
            a = replace(r, label=_label_a(i))
            ga.append(a)
            n["total"] += 1
            if i % 7 == 0:
                n["drop"] += 1
            elif i % 7 == 3:
                n["swap"] += 1
                roles = [x.role for x in r.args][::-1]
                gb.append(
                    replace(
                        a, args=tuple(Argument(role, x.ref) for role, x in zip(roles, r.args, strict=True))
                    )
                )
            elif i % 7 == 5:
                n["retype"] += 1
                gb.append(replace(a, type="Exhibits"))
            else:
                gb.append(replace(a, label=_label_b(i)))
                pairs.append((_label_a(i), _label_b(i)))
            i += 1
        d = p.document.external_id
        gold[d] = replace(ann, relations=tuple(ga))
        links = () if d == linked else ann.links
        n["links_lost"] += len(ann.links) if d == linked else 0
        copy[d] = replace(ann, relations=tuple(gb), links=links)
    return [p.document for p in parsed], gold, copy, {**n, "pairs": pairs}  # type: ignore[dict-item]


def test_strict_and_relaxed_relations_with_label_agreement(any_url: str, bb: tuple) -> None:
    docs, gold, copy, n = bb
    corpus = project_from_sets(any_url, "bb-2019", docs, {"a_gold": gold, "b_copy": copy})
    strict = corpus.agreement("relations", relation_mode="strict").to_dict()
    p = strict["pairs"][0]
    changed = n["drop"] + n["swap"] + n["retype"]
    assert p["overall"]["matched"] == n["total"] - changed
    assert p["overall"]["only_a"] == changed and p["overall"]["only_b"] == n["swap"] + n["retype"]
    # relaxed: direction ignored, so swapped roles match; a changed type still does not
    assert p["modes"]["relaxed"]["matched"] == n["total"] - n["drop"] - n["retype"]
    assert p["modes"]["relaxed"]["only_b"] == n["retype"]
    relaxed = corpus.agreement("relations", relation_mode="relaxed").to_dict()["pairs"][0]
    assert relaxed["overall"] == p["modes"]["relaxed"]
    assert p["per_type"]["Exhibits"]["only_b"] == n["retype"]
    # label agreement over strictly matched pairs: Cohen's kappa as statsmodels computes it
    vals = [-1, 0, 1]
    table = np.zeros((3, 3))
    for x, y in n["pairs"]:
        table[vals.index(x), vals.index(y)] += 1
    assert p["label_table"] == {"values": vals, "table": table.astype(int).tolist()}
    assert p["label_agreement"]["cohen_kappa"]["value"] == pytest.approx(
        cohens_kappa(table, return_results=False), abs=1e-12
    )
    assert strict["matrices"]["label_kappa"]["values"][0][1] == p["label_agreement"]["cohen_kappa"]["value"]
    assert strict["policy"]["one_sided"].startswith("one-to-one by equal key")
    lowest = strict["lowest"]["types"]
    assert lowest[0]["name"] == "Exhibits" and lowest[0]["value"] == 0.0


def test_links_and_spans_on_the_same_copy(sqlite_url: str, bb: tuple) -> None:
    docs, gold, copy, n = bb
    corpus = project_from_sets(sqlite_url, "bb-2019", docs, {"a_gold": gold, "b_copy": copy})
    spans = corpus.agreement("spans").to_dict()["pairs"][0]["overall"]
    total = sum(len(a.spans) for a in gold.values())
    assert spans == {"matched": total, "only_a": 0, "only_b": 0, "precision": 1.0, "recall": 1.0, "f1": 1.0}
    links = corpus.agreement("links").to_dict()
    o = links["pairs"][0]["overall"]
    assert o["only_b"] == 0 and o["only_a"] >= n["links_lost"] > 0
    assert links["lowest"]["documents"][0]["value"] == 0.0  # the document whose links were dropped
