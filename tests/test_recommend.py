"""Recommenders and suggestions through the API and the CLI (issue #24), on real SQLite files.

The scene: alice and bob annotate p1-p3 (BioRelEx schema). bob alone has tagged the made-up protein
``Zorblaxin`` on p1, a name that also occurs in p2 and p3. Until p1 is adjudicated, nothing that
serves alice may learn it; afterwards the shared part (gold) does.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from corpusdb.basics.records import Document, Span
from corpusdb.cli.main import main
from corpusdb.recommend.matcher import MatcherOptions, StringMatcher, count_names, propose
from corpusdb.recommend.sources import read_dictionary
from corpusdb.services.edits import Mark, Put

TEXTS = {
    "p1": "Zorblaxin binds IL-2 in T cells. IL-2 is secreted.",
    "p2": "IL-2 and Zorblaxin were both detected. STAT5 binds IL-2.",
    "p3": "STAT5 and IL-2 again; Zorblaxin too, with IL-2R.",
}
SECRET = "Zorblaxin"


def sp(doc: str, sid: str, needle: str, nth: int = 0, type_: str = "protein") -> Span:
    start = -1
    for _ in range(nth + 1):
        start = TEXTS[doc].index(needle, start + 1)
    return Span(sid, type_, ((start, start + len(needle)),), needle)


def put(c: Corpus, doc: str, spans: list[Span]) -> None:
    s = c.my_set(doc).info
    c.edit_set(s.id, [Put(x) for x in spans], expected_version=s.version, history="do", description="add")


@pytest.fixture
def scene(sqlite_url: str) -> Corpus:
    owner = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    for n in ("alice", "bob"):
        owner.add_annotator(n)
    owner.add_annotator("judy", "adjudicator")
    owner.add_documents([Document(k, v) for k, v in TEXTS.items()])
    owner.assign(list(TEXTS), ["alice", "bob"])
    put(owner.as_user("bob"), "p1", [sp("p1", "T1", SECRET), sp("p1", "T2", "IL-2")])
    put(owner.as_user("alice"), "p1", [sp("p1", "T1", "IL-2")])
    owner.add_recommender("names", "string")
    return owner


def texts_of(found: list) -> set[str]:  # type: ignore[type-arg]
    return {s.text for s in found}


# -- the string matcher alone -------------------------------------------------------------------------


def test_matcher_respects_token_boundaries_and_case_rules() -> None:
    names = count_names(
        [("IL-2", "protein"), ("IL-2", "protein"), ("IL-2", "gene"), ("Bacillus subtilis", "bact")]
    )
    text = "IL-2 binds; il-2 no; IL-2R no; xIL-2 no; bacillus subtilis yes; IL-2."
    auto = propose(text, [StringMatcher(names, MatcherOptions())])
    # auto: IL-2 (4 characters) only as written, on token boundaries; the long name in any case
    assert [(p.text, p.start, p.type) for p in auto] == [
        ("IL-2", 0, "protein"),
        ("bacillus subtilis", text.index("bacillus"), "bact"),
        ("IL-2", text.rindex("IL-2"), "protein"),
    ]
    assert auto[0].score == pytest.approx(2 / 3, abs=1e-4)  # seen twice as protein, once as gene
    insensitive = propose(text, [StringMatcher(names, MatcherOptions(case="insensitive"))])
    assert "il-2" in {p.text for p in insensitive}
    anywhere = propose(text, [StringMatcher(names, MatcherOptions(boundaries="none"))])
    assert {text[p.start : p.end] for p in anywhere} >= {"IL-2"} and len(anywhere) == len(
        auto
    ) + 2  # IL-2R, xIL-2
    strict = propose(text, [StringMatcher(names, MatcherOptions(min_score=0.7))])
    assert {p.text for p in strict} == {"bacillus subtilis"}
    with pytest.raises(InvalidInput, match="case must be one of"):
        MatcherOptions(case="maybe")


def test_longest_match_wins_and_several_matchers_add_up() -> None:
    text = "the IL-2 receptor alpha chain"
    a = StringMatcher(count_names([("IL-2", "protein")]), MatcherOptions())
    b = StringMatcher(count_names([("IL-2 receptor", "protein-complex")]), MatcherOptions())
    got = propose(text, [a, b])
    assert [(p.text, p.type) for p in got] == [("IL-2 receptor", "protein-complex")]


def test_dictionary_is_read_all_or_nothing_with_its_line(tmp_path: Path) -> None:
    good = tmp_path / "names.tsv"
    good.write_text(
        "name\ttype\n# comment\nZorblaxin\tprotein\n\nIL-2  receptor\tprotein-complex\n", encoding="utf-8"
    )
    assert read_dictionary(good, {"protein", "protein-complex"}) == [
        ("Zorblaxin", "protein"),
        ("IL-2 receptor", "protein-complex"),
    ]
    bad = tmp_path / "bad.tsv"
    bad.write_text("Zorblaxin\tprotein\nFooase\tenzyme\nno tab here\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=rf"{bad}:2: type 'enzyme' is not an entity type.*\(and 1 more\)"):
        read_dictionary(bad, {"protein"})


def test_a_dictionary_teaches_the_shared_part(
    scene: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tsv = tmp_path / "names.tsv"
    tsv.write_text("STAT5\tprotein\nZorblaxin\tprotein-family\n", encoding="utf-8")
    url = str(scene.engine.url)
    assert (
        main(["--db", url, "recommend", "add", "dict", "--dictionary", str(tsv), "-o", "case=sensitive"]) == 0
    )
    assert "added string recommender dict, 2 dictionary names" in capsys.readouterr().out
    assert scene.dictionary_names("dict") == [("STAT5", "protein"), ("Zorblaxin", "protein-family")]
    assert main(["--db", url, "-f", "json", "recommend", "list"]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["dict"]["dictionary_names"] == 2 and listed["dict"]["options"] == {"case": "sensitive"}
    scene.train_recommender("dict")
    got = {(s.text, s.type, s.recommender) for s in scene.as_user("alice").suggestions("p2")}
    assert {("STAT5", "protein", "dict"), ("Zorblaxin", "protein-family", "dict")} <= got
    from corpusdb.recommend import models

    models.clear()
    alice = scene.as_user("alice")
    assert alice.warm_recommenders() == 2 and len(models._CACHE) == 1  # dict's automaton (names has none yet)
    alice.suggestions("p3")
    assert len(models._CACHE) == 1  # the document used the model built beforehand
    assert main(["--db", url, "recommend", "add", "bad", "-k", "tagger", "--dictionary", str(tsv)]) == 4
    assert "only a string matcher learns from a dictionary" in capsys.readouterr().err
    assert main(["--db", url, "recommend", "add", "bad2", "-o", "dictionary_names=9"]) == 4


# -- suggestions, accept, reject, undo ------------------------------------------------------------------


def test_accept_reject_accept_all_and_undo_through_the_api(scene: Corpus) -> None:
    alice = scene.as_user("alice")
    found = alice.suggestions("p1")  # her own IL-2 proposes the other occurrence, not the one she has
    assert [(s.text, s.start, s.status) for s in found] == [("IL-2", TEXTS["p1"].rindex("IL-2"), "open")]
    info = alice.my_set("p1").info
    res = alice.accept_suggestions(info.id, [found[0].id], expected_version=info.version)
    made = res.annotations.span("T2")
    assert made.fragments == found[0].fragments and made.text == "IL-2"
    assert made.extra["suggestion"] == {
        "id": found[0].id,
        "recommender": "names",
        "version": "0",
        "score": 1.0,
    }
    from corpusdb.recommend.actions import provenance

    assert provenance(made) == "accepted from names v0 (score 1.00)"
    assert [s.status for s in alice.suggestions("p1")] == ["accepted"]
    # one undo takes back the item and reopens the suggestion, in the store (it survives a restart)
    hist = alice.edit_history(info.id)
    assert hist.undo[-1].description == "accept protein «IL-2» from names v0"
    undo = alice.edit_set(info.id, hist.undo[-1].changes, expected_version=res.info.version, history="undo")
    assert [s.id for s in undo.annotations.spans] == ["T1"]
    assert [s.status for s in alice.suggestions("p1")] == ["open"]
    # reject: kept, and not proposed again, even when the models are retrained
    rej = alice.reject_suggestions(info.id, [found[0].id], expected_version=undo.info.version)
    assert rej.annotations == undo.annotations
    scene.train_recommender("names")
    alice.train_recommender("names")
    assert [(s.status, s.id) for s in alice.suggestions("p1")] == [("rejected", found[0].id)]
    # accept-all of one name is one action: one undo step
    put(alice, "p2", [sp("p2", "T1", "STAT5")])
    s2 = alice.my_set("p2").info
    open_ = [s for s in alice.suggestions("p2") if s.text == "IL-2"]
    assert len(open_) == 2
    all_ = alice.accept_suggestions(s2.id, [open_[0].id], expected_version=s2.version, same_name=True)
    assert sorted(s.text for s in all_.annotations.spans) == ["IL-2", "IL-2", "STAT5"]
    assert len(all_.inverse) == 4  # two items out, two suggestions reopened
    # the audit trail keeps accepts, rejects and reopenings, without the text (a lead reads it)
    trail = [e for e in scene.history() if "suggestion" in e.action]
    assert [e.action for e in trail].count("accept_suggestion") == 3
    assert {"reject_suggestion", "reopen_suggestion"} <= {e.action for e in trail}
    assert all("IL-2" not in json.dumps(e.detail) for e in trail)


def test_a_stale_accept_is_refused_and_nothing_changes(scene: Corpus) -> None:
    alice = scene.as_user("alice")
    (x,) = alice.suggestions("p1")
    info = alice.my_set("p1").info
    alice.reject_suggestions(info.id, [x.id], expected_version=info.version)
    now = alice.my_set("p1").info
    with pytest.raises(Conflict, match="is rejected now, not open"):  # a second window's old view
        alice.edit_set(now.id, [Mark(x.id, "accepted", "open")], expected_version=now.version, history="do")
    assert alice.my_set("p1").info.version == now.version
    bob = scene.as_user("bob")
    with pytest.raises(PermissionDenied):
        bob.accept_suggestions(info.id, [x.id], expected_version=now.version)
    with pytest.raises(NotFound):
        bob.reject_suggestions(bob.my_set("p1").info.id, [x.id], expected_version=1)


# -- blindness for learning ------------------------------------------------------------------------------


def adjudicate_p1(owner: Corpus) -> None:
    for who in ("alice", "bob"):
        me = owner.as_user(who)
        me.submit(me.my_set("p1").info.id)
    judy = owner.as_user("judy")
    judy.merge("p1")
    judy.resolve_bulk("p1", take="bob")
    judy.finish_gold("p1")


def cli_suggestions(url: str, capsys: pytest.CaptureFixture[str], doc: str) -> str:
    assert main(["--db", url, "--as", "alice", "-f", "json", "recommend", "suggestions", doc]) == 0
    return capsys.readouterr().out


def test_bobs_unique_name_never_reaches_alice_before_adjudication(
    scene: Corpus, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = scene.as_user("alice")
    put(alice, "p3", [sp("p3", "T1", "STAT5")])
    scene.add_recommender("tagger", "tagger")

    def alice_sees_secret() -> bool:
        found = {t for d in ("p2", "p3") for t in texts_of(alice.suggestions(d))}
        return SECRET in found or SECRET in cli_suggestions(sqlite_url, capsys, "p2")

    # every way a model could learn: the lead's shared part, alice's own part (by her and by the owner)
    assert main(["--db", sqlite_url, "recommend", "train", "names"]) == 0
    assert main(["--db", sqlite_url, "--as", "alice", "recommend", "train"]) == 0
    scene.train_recommender("names", annotator="alice")
    assert "IL-2" in texts_of(alice.suggestions("p2"))  # her own name is proposed...
    assert not alice_sees_secret()  # ...bob's is not
    # bob submits, alice submits: complete, not yet adjudicated: still nothing
    for who in ("alice", "bob"):
        me = scene.as_user(who)
        me.submit(me.my_set("p1").info.id)
    scene.train_recommender("names")
    assert not alice_sees_secret()
    with pytest.raises(InvalidInput, match="no adjudicated gold"):
        scene.train_recommender("tagger")  # nothing adjudicated: no tagger either
    # adjudicated (gold finished): the shared part learns it, and alice gets it
    judy = scene.as_user("judy")
    judy.merge("p1")
    judy.resolve_bulk("p1", take="bob")
    judy.finish_gold("p1")
    assert main(["--db", sqlite_url, "recommend", "train", "names"]) == 0
    got = [s for s in alice.suggestions("p2") if s.text == SECRET]
    assert [(s.type, s.version) for s in got] == [("protein", "3.2")]  # shared v3, her own part v2
    assert SECRET in cli_suggestions(sqlite_url, capsys, "p2")
    # alice may not train bob's part, nor read his suggestions
    with pytest.raises(PermissionDenied, match="may not train bob's own model"):
        alice.train_recommender("names", annotator="bob")
    assert main(["--db", sqlite_url, "--as", "alice", "recommend", "train", "--for", "bob"]) == 5
    with pytest.raises(PermissionDenied):
        alice.set_suggestions(scene.as_user("bob").my_set("p2").info.id)


def test_what_a_model_learns_does_not_depend_on_colleagues_open_work(sqlite_url: str, tmp_path: Path) -> None:
    """The same project with and without bob's unadjudicated sets trains byte-identical models for
    alice (shared and own parts, string matcher and tagger): his work cannot leak through them."""
    from corpusdb.recommend import models

    payloads = []
    for with_bob in (False, True):
        url = f"sqlite:///{tmp_path / f'b{with_bob}.sqlite'}"
        owner = Corpus.create("p", "biorelex-1.0", url=url)
        for n in ("alice", "bob"):
            owner.add_annotator(n)
        owner.add_documents([Document(k, v) for k, v in TEXTS.items()])
        owner.assign(list(TEXTS), ["alice", "bob"])
        gold = Corpus.open("p", url=url)
        from corpusdb.basics.records import Annotations

        gold.add_documents([Document("g1", "STAT5 binds IL-2 and IL-4. IL-4 is a cytokine.")])
        gold.create_set("g1", None, kind="gold", status="submitted",
                        annotations=Annotations(spans=(Span("T1", "protein", ((0, 5),), "STAT5"),
                                                       Span("T2", "protein", ((12, 16),), "IL-2"))))  # fmt: skip
        put(owner.as_user("alice"), "p1", [sp("p1", "T1", "IL-2")])
        owner.as_user("alice").submit(owner.as_user("alice").my_set("p1").info.id)
        if with_bob:
            bob = owner.as_user("bob")
            put(bob, "p2", [sp("p2", "T1", SECRET), sp("p2", "T2", "STAT5")])
            bob.submit(bob.my_set("p2").info.id)
            put(bob, "p3", [sp("p3", "T1", SECRET)])
        owner.add_recommender("names", "string")
        owner.add_recommender("tagger", "tagger", options={"max_iterations": 20})
        owner.train_recommender()
        owner.as_user("alice").train_recommender()
        with owner._read() as conn:
            from sqlalchemy import select

            from corpusdb.store import tables

            rows = conn.execute(select(tables.recommender.c.name, tables.recommender.c.model)).all()
            own = conn.execute(select(tables.recommender_model.c.model)).scalars().all()
        payloads.append(([(n, models.unpack(m)) for n, m in rows], [models.unpack(m) for m in own]))
        assert SECRET not in json.dumps(payloads[-1])
    assert payloads[0] == payloads[1]


# -- pre-annotation as suggestions, active learning -----------------------------------------------------


def test_assign_pre_annotates_as_suggestions_not_items(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from corpusdb.basics.records import Annotations

    owner = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    owner.add_annotator("alice")
    owner.add_annotator("tagger", "system")
    owner.add_documents([Document(k, v) for k, v in TEXTS.items()])
    owner.create_set("p2", "tagger", kind="prediction", status="submitted",
                     annotations=Annotations(spans=(sp("p2", "T1", "IL-2"), sp("p2", "T2", SECRET))))  # fmt: skip
    code = main(["--db", sqlite_url, "assign", "-d", "p2", "-d", "p3", "-a", "alice", "--pre-annotate", "tagger",
                 "--as-suggestions"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "2 suggestion(s) from tagger (not items" in out
    alice = owner.as_user("alice")
    assert alice.my_set("p2").annotations.spans == ()  # nothing of the system's is hers
    assert alice.my_set("p2").info.seeded_from is None
    found = alice.suggestions("p2")
    assert {(s.text, s.recommender) for s in found} == {("IL-2", "tagger"), (SECRET, "tagger")}
    assert [r.kind for r in owner.recommenders()] == ["external"]
    assert alice.suggestion_counts([alice.my_set("p2").info.id, alice.my_set("p3").info.id]) == {
        alice.my_set("p2").info.id: {"open": 2, "accepted": 0, "rejected": 0}
    }
    with pytest.raises(Exception, match="--as-suggestions needs --pre-annotate"):
        owner.assign(["p1"], ["alice"], as_suggestions=True)


@pytest.mark.slow
def test_assign_orders_by_uncertainty_and_disagreement_seeded(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from corpusdb.basics.records import Annotations

    owner = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    owner.add_annotator("alice")
    docs = {
        "g1": "STAT5 binds IL-2 and IL-4. IL-4 is a cytokine.",
        "g2": "IL-2 activates STAT5 in T cells.",
        "u1": "STAT5 binds IL-2.",  # like the gold: sure
        "u2": "Qwertase frobnicates the zylophore complex quickly.",  # nothing like it
        "u3": "IL-4 and IL-2.",
    }
    owner.add_documents([Document(k, v) for k, v in docs.items()])
    for g in ("g1", "g2"):
        t = docs[g]
        spans = tuple(Span(f"T{i}", "protein", ((t.index(n), t.index(n) + len(n)),), n)
                      for i, n in enumerate(("STAT5", "IL-2"), 1))  # fmt: skip
        owner.create_set(g, None, kind="gold", status="submitted", annotations=Annotations(spans=spans))
    owner.add_recommender("tagger", "tagger", options={"max_iterations": 30, "min_score": 0.3})
    owner.add_recommender("names", "string")
    owner.train_recommender()
    pool = ["u1", "u2", "u3"]
    code = main(["--db", sqlite_url, "assign", "-d", "u1", "-d", "u2", "-d", "u3", "-a", "alice",
                 "--order", "uncertainty", "--limit", "2", "--seed", "3"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "order uncertainty by tagger (seed 3): most uncertain first" in out
    from corpusdb.recommend import models
    from corpusdb.recommend.ordering import order_documents
    from corpusdb.recommend.tagger import Tagger

    # the scores are the tagger's own uncertainty (mean 1 - marginal of the chosen label), recomputed here
    with owner._read() as conn:
        tagger = Tagger(
            models.decode_bytes(owner._shared_payload(conn, owner.recommender("tagger").id)["crf"])
        )
    want = {d: round(tagger.uncertainty(docs[d]), 6) for d in pool}
    assert len(set(want.values())) == 3
    first_two = sorted(pool, key=lambda d: -want[d])[:2]
    alice = owner.as_user("alice")
    handed = [s.document_external_id for s in alice.sets()]
    assert sorted(handed) == sorted(first_two)  # the most certain one waits for the next batch
    pos = alice.queue_positions([s.id for s in alice.sets()])
    by_doc = {s.document_external_id: pos[s.id] for s in alice.sets()}
    assert [by_doc[d][1] for d in first_two] == [1, 2] and by_doc[first_two[0]][2] == pytest.approx(
        want[first_two[0]]
    )
    from tui.facade import open_facade

    rows = open_facade(sqlite_url, "p", "alice").my_documents()  # the TUI lists them in that order
    assert [(r.document, r.rank) for r in rows] == [(first_two[0], 1), (first_two[1], 2)]
    a = order_documents(owner, pool, "disagreement", seed=1)
    b = order_documents(owner, pool, "disagreement", seed=1)
    assert a == b and a.recommenders == ("names", "tagger")
    assert set(a.ranked) == set(pool) and all(0.0 <= v <= 1.0 for v in a.scores.values())
    with pytest.raises(InvalidInput, match="needs a trained tagger"):
        order_documents(owner, pool, "uncertainty", recommender="names")


# -- agreement says how much came from suggestions -------------------------------------------------------


def test_agreement_counts_suggested_items_and_can_leave_them_out(
    scene: Corpus, sqlite_url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    alice = scene.as_user("alice")
    (x,) = alice.suggestions("p1")
    info = alice.my_set("p1").info
    alice.accept_suggestions(info.id, [x.id], expected_version=info.version)
    bob = scene.as_user("bob")  # bob tags the same second IL-2 by hand
    put(bob, "p1", [sp("p1", "T3", "IL-2", 1)])
    for c in (alice, bob):
        c.submit(c.my_set("p1").info.id)
    assert main(["--db", sqlite_url, "-f", "json", "agree", "--html", str(tmp_path / "a.html")]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["suggestions"] == {"excluded": False, "per_rater": {"alice": 1, "bob": 0}, "total": 1}
    rows = {r["name"]: r for r in body["per_rater"]["rows"]}
    assert (rows["alice"]["items"], rows["alice"]["from_suggestions"]) == (2, 1)
    assert body["summary"]["value"] == pytest.approx(0.8)  # IL-2, IL-2 agreed; Zorblaxin bob's alone
    assert any("accepted from suggestions" in n and "alice 1" in n for n in body["notes"])
    html = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert "from suggestions" in html
    assert main(["--db", sqlite_url, "-f", "json", "agree", "--exclude-suggested"]) == 0
    own = json.loads(capsys.readouterr().out)
    assert own["settings"]["exclude_suggested"] is True and own["suggestions"]["excluded"] is True
    rows = {r["name"]: r for r in own["per_rater"]["rows"]}
    assert rows["alice"]["items"] == 1  # her own IL-2 only
    assert own["summary"]["value"] == pytest.approx(0.5)  # 2·1 / (1 + 3)
    assert main(["--db", sqlite_url, "agree"]) == 0
    assert "from suggestions" in capsys.readouterr().out


# -- evaluation, background training -----------------------------------------------------------------


@pytest.mark.shared
@pytest.mark.slow
def test_evaluate_on_genia_proteins(
    tmp_path: Path, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """GENIA 2011 (real text, real gold): 120 training documents as adjudicated gold, evaluated on a
    seeded 25% held out. Both recommenders find most proteins; the tagger generalises past names."""
    from tests.conftest import shared_path

    src = shared_path("data", "bionlp-st-2011-ge", "train")
    sub = tmp_path / "ge"
    sub.mkdir()
    for txt in sorted(src.glob("*.txt"))[:120]:
        for f in src.glob(txt.stem + ".*"):
            (sub / f.name).write_bytes(f.read_bytes())
    assert main(["--db", sqlite_url, "init", "ge", "--schema", "ge-2011"]) == 0
    assert main(["--db", sqlite_url, "import", "brat", str(sub), "--kind", "gold"]) == 0
    assert main(["--db", sqlite_url, "recommend", "add", "names", "-t", "Protein"]) == 0
    assert main(["--db", sqlite_url, "recommend", "add", "crf", "-k", "tagger", "-t", "Protein",
                 "-o", "max_iterations=60"]) == 0  # fmt: skip
    capsys.readouterr()
    scores = {}
    for name in ("names", "crf"):
        assert main(["--db", sqlite_url, "-f", "json", "recommend", "evaluate", name, "--holdout", "0.25",
                     "--seed", "1"]) == 0  # fmt: skip
        rep = json.loads(capsys.readouterr().out)
        assert rep["test_documents"] == 30 and rep["train_documents"] == 90
        assert "seed 1" in rep["rule"]
        scores[name] = {r["name"]: r for r in rep["scores"]}
    names, crf = scores["names"]["Protein"], scores["crf"]["Protein"]
    assert names["tp"] + names["fn"] == crf["tp"] + crf["fn"] > 300  # the same held-out proteins
    assert crf["f1"] > 0.6
    # the string matcher's counts, recomputed from the files by hand: the held-out documents are the
    # first 30 of the sorted ids shuffled with Random(1); names are the training documents' proteins
    import random
    import re

    def proteins(stem: str) -> set[tuple[int, int, str]]:
        out = set()
        for line in (sub / f"{stem}.a1").read_text(encoding="utf-8").splitlines():
            m = re.match(r"T\d+\tProtein (\d+) (\d+)\t(.*)$", line)
            if m:
                out.add((int(m[1]), int(m[2]), m[3]))
        return out

    stems = sorted(f.stem for f in sub.glob("*.txt"))
    order = list(stems)
    random.Random(1).shuffle(order)
    test = set(order[:30])
    known = {t for st in stems if st not in test for _a, _b, t in proteins(st)}
    tp = fp = fn = 0
    for st in test:
        text = (sub / f"{st}.txt").read_text(encoding="utf-8")
        gold = {(a, b) for a, b, _t in proteins(st)}
        found = {(p.start, p.end) for p in propose(text, [StringMatcher(count_names((n, "Protein") for n in known),
                                                                        MatcherOptions())])}  # fmt: skip
        tp, fp, fn = tp + len(gold & found), fp + len(found - gold), fn + len(gold - found)
    assert (names["tp"], names["fp"], names["fn"]) == (tp, fp, fn)


def test_training_runs_in_a_background_corpusdb_process(scene: Corpus, sqlite_url: str) -> None:
    from corpusdb.recommend.background import command

    alice = scene.as_user("alice")
    before = alice.recommender("names")
    proc = alice.train_in_background("names", url=sqlite_url)
    assert isinstance(proc, subprocess.Popen) and proc.args[: len(command())] == command()  # type: ignore[index]
    assert "recommend" in proc.args and "--as" in proc.args  # type: ignore[operator]
    assert proc.wait(timeout=120) == 0
    with scene._read() as conn:
        from sqlalchemy import select

        from corpusdb.store import tables

        rm = tables.recommender_model
        own = conn.execute(select(rm.c.version, rm.c.stats)).all()
    assert len(own) == 1 and own[0].version == 1 and own[0].stats["own_sets"] == 3
    assert alice.recommender("names").version == before.version  # the shared part is a lead's
    deadline = time.time() + 1
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)


def test_a_systems_relations_are_suggested_and_accepted_with_their_arguments(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """External recommenders offer relations too (arguments named by place and type); accepting one
    accepts the span suggestions it needs in the same action (one undo), or is refused."""
    from corpusdb.basics.records import Annotations, Argument, Relation

    text = "Bacillus subtilis lives in soil and in the gut of mice."
    owner = Corpus.create("p", "bb-2011", url=sqlite_url)
    owner.add_annotator("alice")
    owner.add_annotator("tagger", "system")
    owner.add_documents([Document("b1", text)])
    b, soil = (
        Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
        Span("T2", "Soil", ((27, 31),), "soil"),
    )
    pred = Annotations(
        spans=(b, soil),
        relations=(
            Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2"))),
        ),
    )
    owner.create_set("b1", "tagger", kind="prediction", status="submitted", annotations=pred)
    owner.assign(["b1"], ["alice"], seed_from="tagger", as_suggestions=True)
    alice = owner.as_user("alice")
    found = alice.suggestions("b1")
    assert sorted((s.kind, s.type) for s in found) == [
        ("relation", "Localization"), ("span", "Bacterium"), ("span", "Soil")
    ]  # fmt: skip
    rel = next(s for s in found if s.kind == "relation")
    assert rel.text == "Bacillus subtilis → soil" and rel.payload["args"][1]["role"] == "Localization"
    assert main(["--db", sqlite_url, "--as", "alice", "recommend", "suggestions", "b1"]) == 0
    assert "Bacterium:0-17 Localization:27-31" in capsys.readouterr().out
    info = alice.my_set("b1").info
    res = alice.accept_suggestions(info.id, [rel.id], expected_version=info.version)
    ann = res.annotations
    assert [(s.type, s.text) for s in ann.spans] == [("Bacterium", "Bacillus subtilis"), ("Soil", "soil")]
    (r,) = ann.relations
    assert [(a.role, ann.span(a.ref).text) for a in r.args] == [
        ("Bacterium", "Bacillus subtilis"),
        ("Localization", "soil"),
    ]
    assert r.extra["suggestion"]["id"] == rel.id
    assert {s.status for s in alice.suggestions("b1")} == {"accepted"}
    hist = alice.edit_history(info.id)  # one undo step takes all three back
    back = alice.edit_set(info.id, hist.undo[-1].changes, expected_version=res.info.version, history="undo")
    assert back.annotations.spans == () and back.annotations.relations == ()
    assert {s.status for s in alice.suggestions("b1")} == {"open"}
    # accepted by hand's way: alice keeps the bacterium, rejects the soil; the relation then cannot be made
    spans = {s.type: s for s in alice.suggestions("b1") if s.kind == "span"}
    v = alice.reject_suggestions(info.id, [spans["Soil"].id], expected_version=back.info.version).info.version
    with pytest.raises(
        InvalidInput, match="its Localization Soil «soil» is neither one of your items nor a suggestion"
    ):
        alice.accept_suggestions(info.id, [rel.id], expected_version=v)
    assert alice.my_set("b1").info.version == v


def test_knowledge_base_names_come_through_the_hook(scene: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the project has knowledge bases, their module registers a name source; a matcher naming
    it learns its names and synonyms (refused while none is registered)."""
    from corpusdb.recommend import sources

    scene.add_recommender("kbnames", "string", options={"kb": ["uniprot"]})
    with pytest.raises(InvalidInput, match="option 'kb': this corpusdb has no kb names"):
        scene.train_recommender("kbnames")
    asked = []

    def kb_names(corpus, kbs, types):  # type: ignore[no-untyped-def]
        asked.append((kbs, types))
        return [("STAT5", "protein"), ("signal transducer 5", "protein")]

    monkeypatch.setitem(sources.NAME_SOURCES, "kb", kb_names)
    (res,) = scene.train_recommender("kbnames")
    assert asked == [(["uniprot"], None)] and res.detail["dictionary_names"] == 2
    assert ("STAT5", "kbnames") in {(s.text, s.recommender) for s in scene.as_user("alice").suggestions("p2")}
