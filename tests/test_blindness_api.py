"""Blindness as a security property of every public entry point of the Python API.

The scene: document ``open`` has alice's set (submitted) and bob's set (still in progress, holding a
secret); document ``done`` has both sets submitted (bob's holds another secret). Nobody but bob may
see the first secret by any path, and no annotator but bob may see either: not by reading, listing,
counting, conflicts, agreement, review, exports or releases. Adjudicators and leads see ``done`` (every
set submitted) and never ``open``.

``test_every_public_method_is_covered`` fails when a method is added to ``Corpus`` without a line here
saying how it keeps the secret: add one.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import CorpusError, PermissionDenied
from corpusdb.basics.records import Annotations, Document, Grounding, Span
from corpusdb.relevance.records import QrelLine, RunLine, Topic
from corpusdb.services.edits import Put

TEXT = "IL-2 binds the IL-2 receptor alpha chain in zebrafish T cells."
SECRET_OPEN = "uniprot:SECRET-OPEN-42"
SECRET_DONE = "uniprot:SECRET-DONE-77"


def bob_span(secret: str) -> Span:
    return Span("T1", "protein", ((15, 28),), "IL-2 receptor", groundings=(Grounding(secret, "bob's note"),))


@dataclass
class Scene:
    owner: Corpus
    alice: Corpus
    bob: Corpus
    judy: Corpus
    bob_open: int
    bob_done: int
    alice_open: int
    tmp: Path


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("postgres-login-roles", marks=pytest.mark.postgres),
    ]
)
def scene(request: pytest.FixtureRequest, tmp_path: Path) -> Scene:
    """The scene on SQLite, on PostgreSQL (``as_user``), and on PostgreSQL through each person's own
    login role (team mode: the server's row-level security applies under the API's rules)."""
    any_url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    c = Corpus.create("p", "biorelex-1.0", url=any_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("open", TEXT, group_key="g1"), Document("done", TEXT, group_key="g2")])
    c.assign(["open", "done"], ["alice", "bob"])
    alice, bob, judy = (c.as_user(n) for n in ("alice", "bob", "judy"))
    ids: dict[tuple[str, str], int] = {}
    for who, me in (("alice", alice), ("bob", bob)):
        for doc in ("open", "done"):
            s = me.my_set(doc).info
            ids[(who, doc)] = s.id
            span = bob_span(SECRET_OPEN if doc == "open" else SECRET_DONE) if who == "bob" else Span(
                "T1", "protein", ((0, 4),), "IL-2")  # fmt: skip
            me.edit_set(s.id, [Put(span)], expected_version=s.version, history="do", description="add")
            if not (who == "bob" and doc == "open"):
                me.submit(s.id)
    bob.skip(ids[("bob", "open")], f"irrelevant, says bob: {SECRET_OPEN}")  # his judgement is his too
    judy.merge("done")
    if request.param == "postgres-login-roles":
        roles = request.getfixturevalue("team_roles")
        for n in ("alice", "bob", "judy"):
            c.team_login(n, login=roles.name(n))
        alice, bob, judy = (roles.open(any_url, n) for n in ("alice", "bob", "judy"))
        assert alice.bound_role == roles.name("alice")
    out = tmp_path / "out"  # not tmp_path itself: the SQLite file lives there
    out.mkdir()
    return Scene(c, alice, bob, judy, ids[("bob", "open")], ids[("bob", "done")], ids[("alice", "open")], out)


def leaks(value: Any, *secrets: str) -> list[str]:
    """The secrets found in anything a call returned (records, reports, files it wrote)."""
    text = repr(value)
    with contextlib.suppress(TypeError, ValueError):
        text += json.dumps(value.to_dict() if hasattr(value, "to_dict") else value, default=str)
    return [s for s in secrets if s in text]


def files_under(p: Path) -> str:
    return "".join(f.read_text(encoding="utf-8", errors="replace") for f in p.rglob("*") if f.is_file())


# how each entry point is tried by an annotator (alice) against bob's work: a call, or why it needs none
Probe = Callable[[Scene], Any]
ANNOTATOR_PROBES: dict[str, Probe | str] = {
    "evaluation_data": lambda s: s.alice.evaluation_data(systems=["bob"]),
    "triage_data": lambda s: s.alice.triage_data("relevance", "DR,PR", systems=["bob"]),
    "evaluate_triage": lambda s: s.alice.evaluate_triage("relevance", "DR,PR", systems=["bob"]),
    "read_set": lambda s: s.alice.read_set(s.bob_open),
    "read_sets": lambda s: s.alice.read_sets([s.alice_open, s.bob_done]),
    "sets": lambda s: s.alice.sets(),
    "set_headers": lambda s: s.alice.set_headers(),
    "my_set": lambda s: s.alice.my_set("open"),
    "replace_set": lambda s: s.alice.replace_set(s.bob_open, Annotations()),
    "edit_set": lambda s: s.alice.edit_set(
        s.bob_open, [Put(Span("T9", "protein", ((0, 4),), "IL-2"))], expected_version=2
    ),
    "create_set": lambda s: s.alice.create_set("open", "alice", kind="gold"),
    "validate_set": lambda s: s.alice.validate_set(s.bob_open),
    "derived_in_set": lambda s: s.alice.derived_in_set(s.bob_open),
    "submit": lambda s: s.alice.submit(s.bob_open),
    "reopen": lambda s: s.alice.reopen(s.bob_done, reason="peek"),
    "status": lambda s: s.alice.status(),
    "documents": lambda s: s.alice.documents(),
    "document": lambda s: s.alice.document("done"),
    "count_documents": lambda s: s.alice.count_documents(),
    "conflicts": lambda s: s.alice.conflicts("done"),
    "adjudication_queue": lambda s: s.alice.adjudication_queue(),
    "merge": lambda s: s.alice.merge("done"),
    "resolve": lambda s: s.alice.resolve("done", "span:15-28", take="bob"),
    "resolve_bulk": lambda s: s.alice.resolve_bulk("done", take="bob"),
    "undo_decision": lambda s: s.alice.undo_decision("done", "span:15-28"),
    "edit_gold": lambda s: s.alice.edit_gold("done", "T1", Span("x", "Soil", ((0, 4),), "IL-2")),
    "add_gold": lambda s: s.alice.add_gold("done", Span("x", "Soil", ((0, 4),), "IL-2")),
    "remove_gold": lambda s: s.alice.remove_gold("done", "T1"),
    "check_gold": lambda s: s.alice.check_gold("done"),
    "finish_gold": lambda s: s.alice.finish_gold("done"),
    "finish_golds": lambda s: s.alice.finish_golds(dry_run=True),
    "decisions": lambda s: s.alice.decisions(),
    "gold": lambda s: s.alice.gold("done"),
    "correct": lambda s: s.alice.correct("done", action="delete", key="T1", reason="peek"),
    "corrections": lambda s: s.alice.corrections(),
    "review": lambda s: s.alice.review(min_sources=1),
    "split": lambda s: s.alice.split(),
    "release": lambda s: s.alice.release("v-peek"),
    "releases": lambda s: s.alice.releases(),
    "export_release": lambda s: s.alice.export_release("v1", s.tmp / "rel"),
    "assign": lambda s: s.alice.assign(["open"], ["alice"]),
    "agreement": lambda s: s.alice.agreement("spans"),
    "export_brat": lambda s: s.alice.export_brat(s.tmp / "brat", "bob"),
    "export_biorelex": lambda s: s.alice.export_biorelex(s.tmp / "bx.json", "bob"),
    "import_brat": lambda s: s.alice.import_brat(s.tmp, "bob"),
    "import_biorelex": lambda s: s.alice.import_biorelex(s.tmp / "x.json", "bob"),
    "import_texts": lambda s: s.alice.import_texts(s.tmp),
    "import_file": lambda s: s.alice.import_file(s.tmp / "x.xml", "bioc", "bob"),
    "import_judgments": lambda s: s.alice.import_judgments(s.tmp / "j.tsv", "bob"),
    "export_file": lambda s: s.alice.export_file(s.tmp / "bob.xml", "bioc", "bob"),
    "export_judgments": lambda s: s.alice.export_judgments(s.tmp / "j-out.tsv"),
    "delete_document": lambda s: s.alice.delete_document("open", reason="peek"),
    "delete_set": lambda s: s.alice.delete_set(s.bob_open, reason="peek"),
    "delete_project": lambda s: s.alice.delete_project(
        confirm="p", reason="peek", archive=s.tmp / "trail.json"
    ),
    "delete_annotator": lambda s: s.alice.delete_annotator("bob", reason="peek", with_sets=True),
    "set_group_keys": lambda s: s.alice.set_group_keys("re:^(o)"),
    "keep_source_splits": lambda s: s.alice.keep_source_splits(),
    "export_network": lambda s: s.alice.export_network(s.tmp / "n.graphml", "graphml", "bob"),
    "add_documents": lambda s: s.alice.add_documents([Document("x", "y")]),
    "add_document": lambda s: s.alice.add_document(Document("x", "y")),
    "add_annotator": lambda s: s.alice.add_annotator("mallory", "lead"),
    "ensure_annotator": lambda s: s.alice.ensure_annotator("mallory", "lead"),
    "amend_guidelines": lambda s: s.alice.amend_guidelines(note="x", text="y"),
    "annotators": lambda s: s.alice.annotators(),
    "annotator": lambda s: s.alice.annotator("bob"),
    "info": lambda s: s.alice.info(),
    "guideline": lambda s: s.alice.guideline(),
    "guidelines": lambda s: s.alice.guidelines(),
    "schema": lambda s: s.alice.schema(),
    "as_user": lambda s: s.alice.as_user("bob"),
    "history": lambda s: s.alice.history(),
    # relevance judging (tests/test_relevance.py also probes these on a judging project)
    "add_topics": lambda s: s.alice.add_topics([Topic("1", "peek")]),
    "topics": lambda s: s.alice.topics(),  # a judge's instructions: no annotation content
    "topic": lambda s: s.alice.topic("1"),
    "add_run": lambda s: s.alice.add_run([RunLine("1", "open", 1, 1.0, "peek")]),
    "add_runs": lambda s: s.alice.add_runs([([RunLine("1", "open", 1, 1.0, "peek")], "x.run")]),
    "runs": lambda s: s.alice.runs(),
    "run": lambda s: s.alice.run("peek"),
    "pool": lambda s: s.alice.pool(depth=1),
    "judge": lambda s: s.alice.judge("1", "open", "DR"),
    "judgments": lambda s: s.alice.judgments(),
    "relevance_agreement": lambda s: s.alice.relevance_agreement(),
    "agreements": lambda s: s.alice.agreements(["spans", "relations", "links"], raters=["alice", "bob"]),
    "agreement_items": lambda s: s.alice.agreement_items(),
    "qrels": lambda s: s.alice.qrels(),
    "import_qrels": lambda s: s.alice.import_qrels([QrelLine("1", "done", 2)]),
    "score_runs": lambda s: s.alice.score_runs(),
    "team_login": lambda s: s.alice.team_login("alice", login="alice_peek"),
    "team_revoke": lambda s: s.alice.team_revoke("bob"),
    "team_logins": lambda s: s.alice.team_logins(),
    "require_team_admin": lambda s: s.alice.require_team_admin(),
    "bound_role": "the login role of this handle's connection (its own, in team mode)",
    "user": "the acting user's own name and role",
    "create": "creates a new project as its owner",
    "open": "opens a project; the user's rights then apply to every call above",
    "edit_history": lambda s: s.alice.edit_history(s.bob_open),
    "skip": lambda s: s.alice.skip(s.bob_open, "peek"),
    "unskip": lambda s: s.alice.unskip(s.bob_open),
    "skips": lambda s: s.alice.skips(),
    # logins (corpusdb serve): a lead's or the owner's; an annotator is refused
    "set_password": lambda s: s.alice.set_password("bob", "peek-peek-peek"),
    "revoke_password": lambda s: s.alice.revoke_password("bob"),
    "passwords": lambda s: s.alice.passwords(),
    "team_gatekeeper": lambda s: s.alice.team_gatekeeper("peek_gate"),
    # the lead's reports: time from her own edit history only; agreement on what she may read
    "time_report": lambda s: s.alice.time_report(),
    "unitizing_agreement": lambda s: s.alice.unitizing_agreement("alpha_u", raters=["alice", "bob"]),
    "agreement_by": lambda s: s.alice.agreement_by("guideline"),
    # shared tasks: an organizer's (leads); an annotator is refused or finds nothing
    "tasks": lambda s: s.alice.tasks(),
    "task": lambda s: s.alice.task("t"),
    "create_task": lambda s: s.alice.create_task("t", release="v1", split="test", metric="bb"),
    "add_team": lambda s: s.alice.add_team("t", "x", ["alice"]),
    "end_phase": lambda s: s.alice.end_phase("t"),
    "check_run": lambda s: s.alice.check_run("t", [], s.tmp),
    "submit_run": lambda s: s.alice.submit_run("t", "x", []),
    "task_runs": lambda s: s.alice.task_runs("t"),
    "score_task": lambda s: s.alice.score_task("t", bootstrap=0),
    "leaderboard": lambda s: s.alice.leaderboard("t", bootstrap=0),
    "feedback": lambda s: s.alice.feedback("t", "x"),
    "hand_in_run": lambda s: s.alice.hand_in_run("t", "x", []),
    "task_submissions": lambda s: s.alice.task_submissions("t"),
    "intake_runs": lambda s: s.alice.intake_runs("t"),
    # knowledge bases: shared vocabularies, no annotation content; loading is the owner's
    "kb_add": lambda s: s.alice.kb_add("peek", s.tmp / "x.obo", "obo"),
    "kb_update": lambda s: s.alice.kb_update("peek", s.tmp / "x.obo"),
    "kb_remove": lambda s: s.alice.kb_remove("peek"),
    "kb_list": lambda s: s.alice.kb_list(),
    "kb_show": lambda s: s.alice.kb_show("peek"),
    "kb_search": lambda s: s.alice.kb_search("peek", "IL-2"),
    "kb_concept": lambda s: s.alice.kb_concept("peek", "x"),
    "kb_parents": lambda s: s.alice.kb_parents("peek"),
    "kb_for": lambda s: s.alice.kb_for("protein"),
    "grounding_labels": lambda s: s.alice.grounding_labels([SECRET_OPEN, SECRET_DONE]),
    "grounding_violations": lambda s: s.alice.grounding_violations(Annotations()),
    # recommenders and suggestions (tests/test_recommend.py probes what models learn from)
    "add_recommender": lambda s: s.alice.add_recommender("peek", "string"),
    "recommenders": lambda s: s.alice.recommenders(),
    "recommender": lambda s: s.alice.recommender("peek"),
    "dictionary_names": lambda s: s.alice.dictionary_names("peek"),
    "remove_recommender": lambda s: s.alice.remove_recommender("peek"),
    "train_recommender": lambda s: s.alice.train_recommender(annotator="bob"),
    "train_in_background": "runs `corpusdb recommend train` as the same user: train_recommender's rights",
    "suggestions": lambda s: s.alice.suggestions("open"),
    "warm_recommenders": lambda s: s.alice.warm_recommenders(),
    "set_suggestions": lambda s: s.alice.set_suggestions(s.bob_open),
    "suggestion_counts": lambda s: s.alice.suggestion_counts([s.bob_open, s.bob_done]),
    "queue_positions": lambda s: s.alice.queue_positions([s.bob_open, s.bob_done]),
    "accept_suggestions": lambda s: s.alice.accept_suggestions(s.bob_open, [1], expected_version=2),
    "reject_suggestions": lambda s: s.alice.reject_suggestions(s.bob_open, [1], expected_version=2),
    "evaluate_recommender": lambda s: s.alice.evaluate_recommender("peek"),
    "acceptance": lambda s: s.alice.acceptance(),
    # search: texts, and her own sets only (test_search_shows_an_annotator_texts_and_her_own_sets_only)
    "search": lambda s: s.alice.search("grounding:*"),
    "search_counts": lambda s: s.alice.search_counts("type:*"),
    "search_annotate": lambda s: s.alice.search_annotate("receptor", "protein"),
    "search_undo": lambda s: s.alice.search_undo("peek"),
    "search_correct": lambda s: s.alice.search_correct("grounding:*", reason="peek", delete=True),
}


def test_every_public_method_is_covered() -> None:
    public = {m for m in dir(Corpus) if not m.startswith("_")}
    missing = sorted(public - set(ANNOTATOR_PROBES))
    assert not missing, f"add blindness probes for these new Corpus methods: {missing}"


def probe_once(scene: Scene, method: str) -> str | None:
    """None when the entry point keeps bob's work from alice, else what went wrong."""
    probe = ANNOTATOR_PROBES[method]
    assert callable(probe)
    before = files_under(scene.tmp)
    try:
        got = probe(scene)
    except CorpusError as exc:  # refused (PermissionDenied, or NotFound/UsageError first): no content
        return (
            f"{method}: the refusal names bob's work: {exc}"
            if leaks(str(exc), SECRET_OPEN, SECRET_DONE)
            else None
        )
    if leaks(got, SECRET_OPEN, SECRET_DONE):
        return f"{method} returned bob's annotations to alice"
    if leaks(files_under(scene.tmp).replace(before, ""), SECRET_OPEN, SECRET_DONE):
        return f"{method} wrote bob's annotations for alice"
    if method in ("sets", "set_headers") and {x.annotator for x in got} != {"alice"}:
        return f"{method} lists other annotators' sets to alice"
    if method == "agreement_items":  # counts, not content: they must be of her own sets only
        own = [scene.alice.my_set(d).annotations for d in ("open", "done")]
        if got["spans"] != sum(len(a.spans) for a in own) or got["relations"] or got["links"]:
            return f"agreement_items counts other annotators' items for alice: {got}"
    if method == "status" and [a.name for a in got.annotators] != ["alice"]:
        return "status shows other annotators' progress to alice"
    return None


def test_an_annotator_never_sees_another_annotators_work(scene: Scene) -> None:
    """Every entry point, one after the other on one scene (refusals change nothing)."""
    problems = [
        p
        for m in sorted(k for k, v in ANNOTATOR_PROBES.items() if callable(v))
        if (p := probe_once(scene, m))
    ]
    assert problems == []


def test_adjudicators_see_a_document_only_once_every_set_is_submitted(scene: Scene) -> None:
    judy = scene.judy
    with pytest.raises(PermissionDenied, match="hidden until"):
        judy.read_set(scene.bob_open)
    with pytest.raises(PermissionDenied, match="not ready"):
        judy.conflicts("open")
    with pytest.raises(PermissionDenied, match="not ready"):
        judy.merge("open")
    with pytest.raises(PermissionDenied, match="not ready"):
        judy.resolve("open", "span:15-28", take="bob")
    with pytest.raises(PermissionDenied, match="not ready"):
        judy.resolve_bulk("open", take="bob")
    listings = [
        judy.sets(), judy.conflicts(), judy.adjudication_queue(), judy.merge(), judy.decisions(),
        judy.review(min_sources=1), judy.agreement("spans"), judy.export_brat(scene.tmp / "j", "bob"),
    ]  # fmt: skip
    for got in listings:
        assert not leaks(got, SECRET_OPEN), got
    assert not leaks(files_under(scene.tmp), SECRET_OPEN)
    assert [q.document for q in judy.adjudication_queue()] == ["done"]
    assert {h.annotator for h in judy.set_headers(document="open")} == {"alice", "bob"}  # who, not what
    # the complete document is fully visible to her, including bob's grounding
    assert leaks(judy.read_set(scene.bob_done), SECRET_DONE)
    assert leaks(judy.conflicts("done"), SECRET_DONE)
    assert [b.document for b in judy.resolve_bulk(None, take="bob")] == ["done"]  # never the open one
    # the owner (a lead) follows the same rule, and a release carries only complete documents
    with pytest.raises(PermissionDenied):
        scene.owner.read_set(scene.bob_open)
    scene.owner.release("v1", outdir=scene.tmp / "v1", allow_open=True)
    assert not leaks(files_under(scene.tmp / "v1"), SECRET_OPEN)
    # once bob submits, the document opens up to the adjudicator
    scene.bob.submit(scene.bob_open)
    assert leaks(judy.read_set(scene.bob_open), SECRET_OPEN)


def test_refusals_are_clear_and_bob_sees_only_his_own(scene: Scene) -> None:
    with pytest.raises(PermissionDenied, match=r"not yours.*double-blind"):
        scene.alice.read_set(scene.bob_done)
    with pytest.raises(PermissionDenied, match="not yours"):
        scene.alice.read_sets([scene.bob_open])
    assert leaks(scene.bob.read_set(scene.bob_open), SECRET_OPEN)
    assert {s.annotator for s in scene.bob.sets()} == {"bob"}
    with pytest.raises(PermissionDenied):
        scene.bob.read_set(scene.alice_open)


SEARCHES = [
    "grounding:*", "type:*", "grounding:uniprot:SECRET*", "IL-2 receptor", '"IL-2 receptor"', "/SECRET/",
    "text:receptor", "-type:gene", "rel:*", "status:in_progress", "kind:annotation", "doc:open type:*",
]  # fmt: skip


def test_search_shows_an_annotator_texts_and_her_own_sets_only(scene: Scene) -> None:
    """Every kind of query, hits and counts: alice sees the texts and her own spans, never bob's or
    gold; naming bob or gold is refused; her bulk annotation writes only her own sets."""
    alice, bob, judy = scene.alice, scene.bob, scene.judy
    for q in SEARCHES:
        res, counts = alice.search(q, limit=None), alice.search_counts(q)
        assert not leaks(res, SECRET_OPEN, SECRET_DONE) and not leaks(counts, SECRET_OPEN, SECRET_DONE), q
        assert {h.annotator for h in res.hits if h.item is not None} <= {"alice"}, q
        assert {h.set_id for h in res.hits if h.set_id is not None} <= {scene.alice_open, *(
            i.id for i in alice.sets())}, q  # fmt: skip
    assert [h.text for h in alice.search("receptor").hits] == [
        "receptor",
        "receptor",
    ]  # texts: both documents
    assert [(h.document, h.item) for h in alice.search("type:protein", limit=None).hits] == [
        ("done", "T1"),
        ("open", "T1"),
    ]
    for q in (
        "annotator:bob",
        "annotator:gold",
        "disagree:alice,bob",
        "agree:bob,gold",
        "only:alice,bob type:*",
    ):
        with pytest.raises(PermissionDenied, match="only their own sets"):
            alice.search(q)
        with pytest.raises(PermissionDenied):
            alice.search_counts(q)
    # her bulk annotation: her sets only (her submitted one is skipped), bob's untouched
    before = bob.read_set(scene.bob_open).annotations
    with contextlib.suppress(CorpusError):
        got = alice.search_annotate("receptor", "protein")
        assert {sid for _, sid, _ in got.added} <= {i.id for i in alice.sets()}
    assert bob.read_set(scene.bob_open).annotations == before
    # bob sees his own secrets; the adjudicator the complete document's, never the open one's
    assert leaks(bob.search("grounding:*", limit=None), SECRET_OPEN, SECRET_DONE) == [
        SECRET_OPEN,
        SECRET_DONE,
    ]
    for q in [*SEARCHES, "annotator:bob", "agree:alice,bob", "disagree:alice,bob"]:
        got = judy.search(q, limit=None)
        assert not leaks(got, SECRET_OPEN), q
        assert "open" not in {
            h.document for h in got.hits if h.item is not None and h.set_kind == "annotation"
        }, q
        assert not leaks(judy.search_counts(q), SECRET_OPEN), q
    assert leaks(judy.search("grounding:*", limit=None), SECRET_DONE)
    assert judy.search_counts("disagree:alice,bob").total == 2  # on "done": IL-2 vs IL-2 receptor
