"""The relation recommender: relations between an annotator's spans, learned from gold relations.

Real SQLite projects on the BB 2011 schema (``Localization``: Bacterium -> a place), built through
the API; blindness as an attacker would try it: bob's relation never reaches alice before
adjudication, however the models are trained.
"""

from __future__ import annotations

import re

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from corpusdb.cli.main import main
from corpusdb.recommend.cooccur import Mention, RelationModel, RelationOptions, RelExample, learn
from corpusdb.services.edits import Put

TEXTS = {
    "p1": "Listeria monocytogenes was found in soil samples.",
    "b1": "Listeria monocytogenes persists in soil. The gut was sampled later.",
}


def span(doc: str, sid: str, typ: str, needle: str) -> Span:
    a = TEXTS[doc].index(needle)
    return Span(sid, typ, ((a, a + len(needle)),), needle)


def localization(rid: str = "R1") -> Relation:
    return Relation(rid, "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2")))


@pytest.fixture
def owner(any_url: str) -> Corpus:
    """The project on SQLite and on PostgreSQL."""
    return build(any_url)


@pytest.fixture
def sqlite_owner(sqlite_url: str) -> Corpus:
    return build(sqlite_url)


def build(url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document(k, v) for k, v in TEXTS.items()])
    c.assign(["p1"], ["alice", "bob"])
    c.assign(["b1"], ["alice"])
    bob = c.as_user("bob")  # bob relates the bacterium to the soil in p1 (his, unadjudicated)
    s = bob.my_set("p1").info
    ann = [
        span("p1", "T1", "Bacterium", "Listeria monocytogenes"),
        span("p1", "T2", "Soil", "soil"),
        localization(),
    ]
    bob.edit_set(s.id, [Put(x) for x in ann], expected_version=s.version)
    alice = c.as_user("alice")  # alice's b1: the same two names, and a gut in another sentence
    s = alice.my_set("b1").info
    spans = [span("b1", "T1", "Bacterium", "Listeria monocytogenes"), span("b1", "T2", "Soil", "soil"),
             span("b1", "T3", "HostPart", "gut")]  # fmt: skip
    alice.edit_set(s.id, [Put(x) for x in spans], expected_version=s.version)
    c.add_recommender("rels", "relation")
    return c


def relation_suggestions(c: Corpus, doc: str = "b1") -> list:  # type: ignore[type-arg]
    return [s for s in c.suggestions(doc) if s.kind == "relation"]


def adjudicate_p1(owner: Corpus) -> None:
    for who in ("alice", "bob"):
        me = owner.as_user(who)
        me.submit(me.my_set("p1").info.id)
    judy = owner.as_user("judy")
    judy.merge("p1")
    judy.resolve_bulk("p1", take="bob")
    judy.finish_gold("p1")


def test_counts_propose_the_relation_seen_between_these_types_in_one_sentence() -> None:
    text = "B1 lives in S1. B2 is in S2 and S3. H1 is elsewhere."
    m = {n: Mention(n, t, ((text.index(n), text.index(n) + 2),), n) for n, t in
         [("B1", "Bacterium"), ("S1", "Soil"), ("B2", "Bacterium"), ("S2", "Soil"), ("S3", "Soil"), ("H1", "Host")]}  # fmt: skip
    gold = RelExample("g", text, tuple(m.values()),
                      (("Localization", (("Bacterium", "B1"), ("Localization", "S1")), None),))  # fmt: skip
    counts = learn([gold], RelationOptions())
    # B1-S1 together and related; B2-S2, B2-S3 together, not related: P(Localization | Bacterium, Soil) = 1/3
    assert counts.related[("Localization", "Bacterium", "Localization", "Bacterium", "Soil")] == 1
    assert counts.together[("Bacterium", "Soil")] == 3
    model = RelationModel(counts, RelationOptions(min_score=0.3))
    props = model.propose(text, list(m.values()))
    got = {(p["args"][0]["text"], p["args"][1]["text"], p["score"]) for p in props}
    # the pair of names seen related scores by names (1.0), those seen together unrelated 0: not proposed
    assert got == {("B1", "S1", 1.0)}
    assert props[0]["args"][0]["role"] == "Bacterium" and props[0]["type"] == "Localization"
    assert model.propose(text, list(m.values()), existing=[("Localization", "B1", "S1")]) == []
    # new names: by types, 1/3; never across sentences (H1 is a Host, never related anyway)
    new = "B7 sits in S7 here. S8 is in another sentence."
    n = [Mention(x, t, ((new.index(x), new.index(x) + 2),), x) for x, t in [("B7", "Bacterium"), ("S7", "Soil"),
                                                                         ("S8", "Soil")]]  # fmt: skip
    assert [(p["args"][0]["text"], p["args"][1]["text"], p["score"]) for p in model.propose(new, n)] == [
        ("B7", "S7", 0.3333)
    ]
    assert RelationModel(counts, RelationOptions(min_score=0.5)).propose(new, n) == []
    with pytest.raises(InvalidInput, match="window must be one of"):
        RelationOptions.from_dict({"window": "paragraph"})


def test_bobs_relation_never_reaches_alice_before_adjudication_then_gold_teaches_it(owner: Corpus) -> None:
    alice = owner.as_user("alice")
    # every way a model could learn before adjudication: the shared part, alice's own part
    owner.train_recommender("rels")
    owner.train_recommender("rels", annotator="alice")
    url = owner.engine.url.render_as_string(hide_password=False)
    assert main(["--db", url, "--as", "alice", "recommend", "train", "rels"]) == 0
    assert relation_suggestions(alice) == []
    for who in ("alice", "bob"):  # complete, not yet adjudicated: still nothing
        me = owner.as_user(who)
        me.submit(me.my_set("p1").info.id)
    owner.train_recommender("rels")
    assert relation_suggestions(alice) == []
    judy = owner.as_user("judy")
    judy.merge("p1")
    judy.resolve_bulk("p1", take="bob")
    judy.finish_gold("p1")
    (res,) = owner.train_recommender("rels")
    assert res.examples == 1 and res.detail["relations"] == 1
    (sug,) = relation_suggestions(alice)  # the soil, in the same sentence; never the gut
    assert (sug.type, sug.text, sug.score) == ("Localization", "Listeria monocytogenes → soil", 1.0)
    assert [a["role"] for a in sug.payload["args"]] == ["Bacterium", "Localization"]  # type: ignore[index]


def test_accept_makes_the_relation_between_my_spans_reject_keeps_it_away(owner: Corpus) -> None:
    adjudicate_p1(owner)
    owner.train_recommender("rels")
    alice = owner.as_user("alice")
    (sug,) = relation_suggestions(alice)
    info = alice.my_set("b1").info
    res = alice.accept_suggestions(info.id, [sug.id], expected_version=info.version)
    (rel,) = res.annotations.relations
    ann = res.annotations
    assert [(a.role, ann.span(a.ref).text) for a in rel.args] == [
        ("Bacterium", "Listeria monocytogenes"), ("Localization", "soil")
    ]  # fmt: skip
    assert rel.extra["suggestion"]["recommender"] == "rels"
    assert [s.status for s in relation_suggestions(alice)] == ["accepted"]  # not proposed again: it exists
    hist = alice.edit_history(info.id)
    back = alice.edit_set(info.id, hist.undo[-1].changes, expected_version=res.info.version, history="undo")
    assert back.annotations.relations == ()
    (again,) = relation_suggestions(alice)
    assert again.status == "open"
    alice.reject_suggestions(info.id, [again.id], expected_version=back.info.version)
    owner.train_recommender("rels")  # retrained: a rejected suggestion stays rejected
    assert [s.status for s in relation_suggestions(alice)] == ["rejected"]


def test_relation_recommenders_are_managed_like_the_others(
    sqlite_owner: Corpus, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    owner = sqlite_owner
    with pytest.raises(InvalidInput, match="not binary relation types of the schema"):
        owner.add_recommender("x", "relation", types=["Bacterium"])
    with pytest.raises(InvalidInput, match="relation recommenders have no option case"):
        owner.add_recommender("y", "relation", options={"case": "auto"})
    info = owner.add_recommender("only-loc", "relation", types=["Localization"], options={"min_score": 0.5})
    assert info.layer == "relations" and info.types == ("Localization",)
    assert (
        main(["--db", sqlite_url, "recommend", "add", "z", "--kind", "relation", "-o", "window=document"])
        == 0
    )
    adjudicate_p1(owner)
    capsys.readouterr()
    # held out: the only adjudicated document; trained on nothing, it misses its one relation
    assert main(["--db", sqlite_url, "recommend", "evaluate", "rels", "--holdout", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "rels (relation): held out: 1 of 1" in out and re.search(r"Localization\s+0\s+1\s+0\s", out)


def test_evaluate_scores_held_out_relations(owner: Corpus) -> None:
    """Two adjudicated documents: trained on one, the other's relation is found (P = R = 1)."""
    text = "Listeria monocytogenes was found in soil again."
    owner.add_documents([Document("p2", text)])
    gold = Annotations(
        spans=(
            Span("T1", "Bacterium", ((0, 22),), "Listeria monocytogenes"),
            Span("T2", "Soil", ((36, 40),), "soil"),
        ),
        relations=(localization(),),
    )
    owner.create_set("p2", None, kind="gold", status="submitted", annotations=gold)
    adjudicate_p1(owner)
    rep = owner.evaluate_recommender("rels", holdout=0.5, seed=1)
    assert rep["train_documents"] == 1 and rep["test_documents"] == 1
    assert rep["scores"][0] == {
        "name": "all",
        "tp": 1,
        "fn": 0,
        "fp": 0,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
    }


# -- in the TUI (Pilot: real keystrokes on the real SQLite project) ---------------------------------


def test_relation_suggestions_are_shown_accepted_undone_and_rejected_in_the_tui(sqlite_owner: Corpus) -> None:
    owner = sqlite_owner
    from tui.app import build_app
    from tui.facade import open_facade
    from tui.screens.annotate import AnnotateScreen
    from tui.testing import press, run_async, screen_text, settle, wait_until

    adjudicate_p1(owner)
    owner.train_recommender("rels")
    url = owner.engine.url.render_as_string(hide_password=False)
    alice = owner.as_user("alice")

    def relations() -> list[tuple[str, list[str]]]:
        ann = alice.my_set("b1").annotations
        return [(r.type, [ann.span(a.ref).text for a in r.args]) for r in ann.relations]

    @run_async
    async def run() -> None:
        app = build_app(open_facade(url, "p", "alice"), start="b1")
        app.facade.train_in_background = lambda: None  # type: ignore[method-assign]
        async with app.run_test(size=(100, 24)) as pilot:
            await settle(pilot)
            scr = app.screen
            assert isinstance(scr, AnnotateScreen)
            await wait_until(
                pilot, lambda: len(scr.shown_relation_suggestions()) == 1, "a relation suggestion"
            )
            text = screen_text(app)
            assert "1 relation suggestion(s) (]/[ y X)" in text
            await press(pilot, "end", "[")  # [ back to the suggestion's first argument (the bacterium)
            assert scr.view.cursor == 0
            text = screen_text(app)
            assert (
                "suggested Localization: Bacterium «Listeria" in text
                and "Localization «soil» by rels v1 (1.00)" in text
            )
            soil = TEXTS["b1"].index("soil")
            assert scr.view.partners == [(soil, soil + 4)]  # the suggested partner lights up as partners do
            await press(pilot, "y")
            assert relations() == [("Localization", ["Listeria monocytogenes", "soil"])]
            assert scr.shown_relation_suggestions() == []
            await press(pilot, "u")  # one undo: the relation goes, the suggestion is open again
            assert relations() == []
            await wait_until(pilot, lambda: len(scr.shown_relation_suggestions()) == 1, "reopened")
            scr.view.move_to(TEXTS["b1"].index("soil"))  # the other argument: the same suggestion
            await settle(pilot)
            assert "suggested Localization" in screen_text(app)
            await press(pilot, "X")
            assert relations() == []
            assert [s.status for s in relation_suggestions(alice)] == ["rejected"]
            assert scr.shown_relation_suggestions() == []

    run()
