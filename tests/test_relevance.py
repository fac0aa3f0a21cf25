"""Relevance judging as TREC 2004 Genomics did it, on tests/fixtures/trec (see its README):
topics -> runs -> pool -> two judges (a subset doubled) -> kappa -> qrels -> run scores.

The expected figures are worked out by hand below and checked against the libraries (statsmodels'
kappa, ir-measures / pytrec_eval) called directly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, FormatError, InvalidInput, PermissionDenied, UsageError
from corpusdb.cli.main import main
from corpusdb.relevance.pooling import doubled_subset, pool_pairs
from corpusdb.relevance.qrels import format_qrels, inverse, parse_mapping, read_qrels
from corpusdb.relevance.records import QrelLine, RunLine, Topic
from corpusdb.relevance.runs import format_run, read_run
from corpusdb.relevance.scoring import score_run
from corpusdb.relevance.topics import read_topics

TREC = Path(__file__).resolve().parent / "fixtures" / "trec"
# a judge's primary grades (what the qrels file says) and a second judge who calls PR "DR" and p2 "PR"
TRUTH = {("1", "p1"): "DR", ("1", "p2"): "NR", ("1", "p3"): "PR", ("1", "p5"): "NR",
         ("2", "p6"): "NR", ("2", "p7"): "DR", ("2", "p8"): "PR"}  # fmt: skip


def second(topic: str, doc: str) -> str:
    g = TRUTH[(topic, doc)]
    return "PR" if doc == "p2" else {"DR": "DR", "PR": "DR", "NR": "NR"}[g]


# -- files ------------------------------------------------------------------------------------------
def test_the_three_topic_layouts_read_the_same_topics() -> None:
    xml, txt, tsv = (read_topics(TREC / f"topics.{ext}") for ext in ("xml", "txt", "tsv"))
    assert xml == txt == tsv
    assert [t.id for t in xml] == ["1", "2"]
    assert xml[0].title == "Ferroportin-1 in humans"
    assert xml[0].need == "Find articles about Ferroportin-1, an iron transporter, in humans."
    assert xml[0].context.startswith(
        "Ferroportin1 (also known as SLC40A1; Ireg1, MTP1) is an iron-regulated transporter"
    )


def test_bad_files_are_refused_with_file_and_line(tmp_path: Path) -> None:
    run = tmp_path / "bad.run"
    run.write_text("1 Q0 p1 1 2.0 r\n1 Q0 p2 x 1.0 r\n1 Q0 p1 3 0.5 r\n1 Q0 p4 4\n")
    with pytest.raises(FormatError) as exc:
        read_run(run)
    msgs = [str(p) for p in exc.value.problems]
    assert msgs == [
        f"{run}:2: error: rank 'x' is not an integer",
        f"{run}:3: error: document p1 is retrieved twice for topic 1",
        f"{run}:4: error: expected 6 columns 'topic Q0 doc rank score tag', got 4",
    ]
    two = tmp_path / "two.run"
    two.write_text("1 Q0 p1 1 2.0 a\n1 Q0 p2 2 1.0 b\n")
    with pytest.raises(FormatError, match="several tags"):
        read_run(two)
    assert {r.tag for r in read_run(two, tag="c")} == {"c"}
    q = tmp_path / "q.txt"
    q.write_text("1 0 p1 2\n1 0 p2 high\n")
    with pytest.raises(FormatError, match=rf"{q}:2: error: grade 'high' is not an integer"):
        read_qrels(q)
    t = tmp_path / "t.tsv"
    t.write_text("1\ta\tb\tc\td\n")
    with pytest.raises(FormatError, match=rf"{t}:1: error: expected at most 4"):
        read_topics(t)
    x = tmp_path / "t.xml"
    x.write_text("<TOPICS><TOPIC><ID>1</ID></TOPIC>\n<TOPIC>")
    with pytest.raises(FormatError, match="not well-formed XML"):
        read_topics(x)


def test_run_and_qrels_files_round_trip(tmp_path: Path) -> None:
    lines = read_run(TREC / "runB.run")
    assert format_run(lines) == (TREC / "runB.run").read_text()
    q = read_qrels(TREC / "qrels.txt")
    assert format_qrels(q) == (TREC / "qrels.txt").read_text()
    assert parse_mapping("DR=2, PR=1,NR=0") == {"DR": 2, "PR": 1, "NR": 0}
    with pytest.raises(InvalidInput, match="VALUE=INT"):
        parse_mapping("DR:2")
    with pytest.raises(InvalidInput, match="cannot be read back"):
        inverse(parse_mapping("DR=1,PR=1,NR=0"))


# -- pooling (pure) -----------------------------------------------------------------------------------
def test_pool_is_top_k_per_run_deduplicated_and_seeded() -> None:
    runs = {"runA": read_run(TREC / "runA.run"), "runB": read_run(TREC / "runB.run")}
    pairs = pool_pairs(runs, ["1", "2"], depth=2, seed=1)
    want = {("1", "p1"), ("1", "p2"), ("1", "p3"), ("1", "p5"), ("2", "p6"), ("2", "p7"), ("2", "p8")}
    assert len(pairs) == 7 and set(pairs) == want
    assert pool_pairs(runs, ["1", "2"], depth=2, seed=1) == pairs  # same seed, same order
    orders = {tuple(pool_pairs(runs, ["1", "2"], depth=2, seed=s)) for s in range(6)}
    assert len(orders) > 1  # the order is shuffled, not the runs' or the ranks'
    assert set(pool_pairs(runs, ["1"], depth=1)) == {("1", "p1"), ("1", "p3")}
    assert set(pool_pairs(runs, ["2"], depth=9)) == {("2", "p6"), ("2", "p7"), ("2", "p8")}
    # a budget per topic fills rank by rank: rank 1 gives p1, p3; rank 2 gives one of p2, p5 (drawn)
    for s in range(4):
        got = {d for t, d in pool_pairs(runs, ["1"], budget=3, seed=s)}
        assert {"p1", "p3"} < got and len(got) == 3 and got <= {"p1", "p2", "p3", "p5"}
    with pytest.raises(UsageError):
        pool_pairs(runs, ["1"])
    assert len(doubled_subset([str(i) for i in range(10)], 0.3, 5)) == 3


# -- the walk -----------------------------------------------------------------------------------------
def project(url: str) -> Corpus:
    c = Corpus.create("trec", "trec-relevance", url=url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.import_texts(TREC / "docs")
    assert c.add_topics(read_topics(TREC / "topics.xml")) == 2
    c.add_run(read_run(TREC / "runA.run"), source="runA.run")
    c.add_run(read_run(TREC / "runB.run"), source="runB.run")
    return c


def judge_all(c: Corpus) -> None:
    """Each judge grades every unit: the first judge of a unit (set order) the truth, the other `second`."""
    alice, bob = c.as_user("alice"), c.as_user("bob")
    first: dict[str, int] = {}
    for who in (alice, bob):
        for j in who.judgments():
            first[j.unit] = min(first.get(j.unit, j.set_id), j.set_id)
    for who in (alice, bob):
        for j in who.judgments():
            grade = TRUTH[(j.topic, j.doc)] if first[j.unit] == j.set_id else second(j.topic, j.doc)
            got = who.judge(j.topic, j.doc, grade, submit=True)
            assert (got.grade, got.status) == (grade, "submitted")


def hand_kappa(table: list[list[int]]) -> float:
    n = sum(map(sum, table))
    po = sum(table[i][i] for i in range(len(table))) / n
    pe = sum(sum(table[i]) * sum(r[i] for r in table) for i in range(len(table))) / n / n
    return (po - pe) / (1 - pe)


def merged_table(pairs: list[tuple[str, str]]) -> list[list[int]]:
    """DR and PR merged into relevant (rows: first judgment R, NR; columns: second)."""
    return [
        [sum(1 for a, b in pairs if (a != "NR", b != "NR") == (x, y)) for y in (True, False)]
        for x in (True, False)
    ]


def test_topics_runs_pool_two_judges_kappa_qrels_scores(any_url: str) -> None:
    c = project(any_url)
    calls: list[tuple[int, int, str]] = []
    res = c.pool(depth=2, per_unit=1, double=0.5, seed=7, progress=lambda d, n, w: calls.append((d, n, w)))
    assert (
        calls
        and calls[-1][:2] == (calls[-1][1], calls[-1][1])
        and [d for d, _, _ in calls] == sorted(d for d, _, _ in calls)
    )
    assert len(res.units) == 7 and res.existing == 0 and res.doubled == 4  # round(0.5 * 7)
    assert sorted(len(u.judges) for u in res.units) == [1, 1, 1, 2, 2, 2, 2]
    assert sum(res.load.values()) == 11 and set(res.load.values()) <= {5, 6}
    # a unit is the document's text, its topic and nothing else: no run, no rank, no score
    doc = c.document("1+p3")
    assert doc.text == (TREC / "docs" / "p3.txt").read_text() and dict(doc.metadata) == {
        "topic": "1",
        "doc": "p3",
    }
    # pooling again changes nothing; a deeper pool adds only the new pairs
    assert c.pool(depth=2, seed=7).units == () and c.pool(depth=2, seed=7).existing == 7
    alice = c.as_user("alice")
    before = {(j.topic, j.doc) for j in alice.judgments()}
    assert alice.topic("1").title == "Ferroportin-1 in humans"  # judges read the topic
    judge_all(c)
    assert {(j.topic, j.doc) for j in alice.judgments()} == before

    # kappa on the doubled subset: first judgment vs second, by hand and from the library
    ag = c.relevance_agreement()
    assert ag["units"] == 4
    pairs = [(TRUTH[(u.topic, u.doc)], second(u.topic, u.doc)) for u in res.units if len(u.judges) == 2]
    cats = ["DR", "PR", "NR"]
    table = [[sum(1 for a, b in pairs if (a, b) == (x, y)) for y in cats] for x in cats]
    assert ag["three_way"]["table"] == table
    from statsmodels.stats.inter_rater import cohens_kappa

    assert len({a for a, _ in pairs} | {b for _, b in pairs}) > 1  # seed 7 doubles units of several grades
    assert ag["three_way"]["kappa"] == pytest.approx(hand_kappa(table))
    assert ag["three_way"]["kappa"] == pytest.approx(cohens_kappa(table).kappa)
    assert ag["merged"]["kappa"] == pytest.approx(hand_kappa(merged_table(pairs)))
    merged = [
        [sum(1 for a, b in pairs if (a != "NR", b != "NR") == (x, y)) for y in (True, False)]
        for x in (True, False)
    ]
    assert ag["merged"]["table"] == merged and ag["merged"]["categories"] == ["R", "NR"]

    # qrels: the first (primary) judge's grade wherever judges disagree, as TREC 2004 did
    q = c.qrels("DR=2,PR=1,NR=0")
    assert format_qrels(q.lines) == (TREC / "qrels.txt").read_text()
    assert (q.from_gold, q.from_judgments, q.skipped) == (0, 7, ())
    lenient = {(x.topic, x.doc): x.grade for x in c.qrels(disagree="max").lines}
    for u in res.units:
        want = max(TRUTH[(u.topic, u.doc)], second(u.topic, u.doc), key={"NR": 0, "PR": 1, "DR": 2}.get)
        assert (
            lenient[(u.topic, u.doc)]
            == {"NR": 0, "PR": 1, "DR": 2}[want if len(u.judges) == 2 else TRUTH[(u.topic, u.doc)]]
        )

    # scores: by hand (see below) and equal to ir-measures on the files
    scores = {s.tag: s for s in c.score_runs(measures=["AP", "P@10", "Bpref"])}
    check_hand_scores(scores)
    import ir_measures

    qr = list(ir_measures.read_trec_qrels(str(TREC / "qrels.txt")))
    for tag in ("runA", "runB"):
        run = list(ir_measures.read_trec_run(str(TREC / f"{tag}.run")))
        lib = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.P @ 10, ir_measures.Bpref], qr, run)
        assert scores[tag].mean == pytest.approx({str(k): v for k, v in lib.items()})


def check_hand_scores(scores: dict) -> None:  # type: ignore[type-arg]
    """Relevant (grade >= 1): topic 1 {p1, p3}, judged non-relevant {p2, p5}; topic 2 {p7, p8}, {p6}.

    runA t1 = p1 p2 p3 p4: AP (1/1 + 2/3)/2; bpref: p1 1, p3 1 - 1/min(2,2) -> (1 + 0.5)/2.
    runA t2 = p6 p7: AP (1/2)/2 (p8 never retrieved); bpref: p7 has 1 of min(2,1) non-relevant above -> 0.
    runB t1 = p3 p5 p2 p1: AP (1 + 2/4)/2; bpref: p3 1, p1 1 - 2/2 -> 0.5.
    runB t2 = p7 p8 p6: AP 1, bpref 1. P@10: relevant retrieved / 10.
    """
    a, b = scores["runA"], scores["runB"]
    assert a.per_topic["1"] == pytest.approx({"AP": (1 + 2 / 3) / 2, "P@10": 0.2, "Bpref": 0.75})
    assert a.per_topic["2"] == pytest.approx({"AP": 0.25, "P@10": 0.1, "Bpref": 0.0})
    assert b.per_topic["1"] == pytest.approx({"AP": 0.75, "P@10": 0.2, "Bpref": 0.5})
    assert b.per_topic["2"] == pytest.approx({"AP": 1.0, "P@10": 0.2, "Bpref": 1.0})
    assert a.mean == pytest.approx({"AP": (5 / 6 + 0.25) / 2, "P@10": 0.15, "Bpref": 0.375})
    assert b.mean == pytest.approx({"AP": 0.875, "P@10": 0.2, "Bpref": 0.75})


def test_kappa_by_hand_when_every_unit_is_doubled(sqlite_url: str) -> None:
    """-n 2: alice is every unit's first judge (sets are made in name order), bob the second.

    Pairs: p1 DR/DR, p2 NR/PR, p3 PR/DR, p5 NR/NR, p6 NR/NR, p7 DR/DR, p8 PR/DR. Three-way: rows
    (alice) DR [2,0,0], PR [2,0,0], NR [0,1,2]; po 4/7, pe (2*4 + 2*1 + 3*2)/49 = 16/49, kappa 12/33.
    DR+PR merged: po 6/7, pe (4*5 + 3*2)/49 = 26/49, kappa 16/23."""
    c = project(sqlite_url)
    res = c.pool(depth=2, per_unit=2, seed=3)
    assert all(u.judges == ("alice", "bob") for u in res.units) and res.load == {"alice": 7, "bob": 7}
    judge_all(c)
    ag = c.relevance_agreement()
    assert ag["three_way"]["table"] == [[2, 0, 0], [2, 0, 0], [0, 1, 2]]
    assert ag["three_way"]["kappa"] == pytest.approx(12 / 33)
    assert ag["three_way"]["observed"] == pytest.approx(4 / 7)
    assert ag["merged"]["kappa"] == pytest.approx(16 / 23)
    with pytest.raises(UsageError, match="3 judges per document"):
        c.pool(depth=3, per_unit=2, double=0.2)


def test_qrels_import_as_gold_then_export_and_scores(sqlite_url: str, tmp_path: Path) -> None:
    c = project(sqlite_url)
    lines = read_qrels(TREC / "qrels.txt")
    assert c.import_qrels(lines, source="qrels.txt") == 7
    assert c.import_qrels(lines) == 0  # the same again: nothing changes
    q = c.qrels()
    assert format_qrels(q.lines) == (TREC / "qrels.txt").read_text() and q.from_gold == 7
    assert c.gold("2+p8").annotations.labels[0].value == "PR"
    assert [d.method for d in c.decisions("1+p1")] == ["adjudicated"]
    with pytest.raises(Conflict, match="differ from the qrels"):
        c.import_qrels([QrelLine("1", "p1", 0)])
    assert c.import_qrels([QrelLine("1", "p1", 0)], replace=True) == 1
    with pytest.raises(InvalidInput, match="topics not in the project"):
        c.import_qrels([QrelLine("9", "p1", 1)])
    with pytest.raises(InvalidInput, match="grade 5"):
        c.import_qrels([QrelLine("1", "p1", 5)])
    # a document without text in the project is still judged (scores need no text)
    assert c.import_qrels([QrelLine("2", "p99", 2)]) == 1
    assert c.document("2+p99").metadata["text"] == "missing"


def test_judges_never_see_runs_ranks_or_each_other(sqlite_url: str) -> None:
    c = project(sqlite_url)
    c.pool(depth=4, per_unit=2, seed=2)
    alice, bob = c.as_user("alice"), c.as_user("bob")
    j = bob.judgments()[0]
    bob.judge(j.topic, j.doc, "PR")  # in progress: bob's secret
    for refused in (
        lambda: alice.runs(), lambda: alice.run("runA"), lambda: alice.pool(depth=1),
        lambda: alice.add_run([RunLine("1", "p1", 1, 1.0, "mine")]), lambda: alice.qrels(),
        lambda: alice.relevance_agreement(), lambda: alice.score_runs(), lambda: alice.import_qrels([]),
        lambda: alice.add_topics([Topic("3")]),
    ):  # fmt: skip
        with pytest.raises(PermissionDenied):
            refused()
    seen = json.dumps([x.to_dict() for x in alice.judgments()] + [d.metadata for d in alice.documents()])
    for leak in ("runA", "runB", "rank", "score", "9.5", "0.9"):
        assert leak not in seen
    assert {x.grade for x in alice.judgments()} == {None}  # bob's PR is not alice's
    with pytest.raises(PermissionDenied):
        alice.read_set(j.set_id)
    # the lead sees no grade of a unit until every judge of it has submitted
    assert f"{j.topic}+{j.doc}: not every judge has submitted" in c.qrels().skipped
    with pytest.raises(InvalidInput, match="no unit has two submitted judgments"):
        c.relevance_agreement()
    # a judge judges only their own units, with the schema's grades
    with pytest.raises(InvalidInput, match="not one of DR, PR, NR"):
        alice.judge(j.topic, j.doc, "maybe")
    assert alice.judge(j.topic, j.doc, "definitely relevant").grade == "DR"  # a long name works too
    with pytest.raises(Exception, match="no unit 9\\+p1"):
        alice.judge("9", "p1", "DR")


def test_pool_refuses_documents_without_text(sqlite_url: str, tmp_path: Path) -> None:
    c = project(sqlite_url)
    c.add_run([RunLine("1", "nodoc", 1, 5.0, "runC")])
    with pytest.raises(InvalidInput, match=r"1 pooled document.*no text.*1\+nodoc"):
        c.pool(depth=1)
    assert c.count_documents() == 8  # all or nothing: no unit was made
    res = c.pool(depth=1, skip_missing=True)
    assert res.missing == ("1+nodoc",) and len(res.units) == 4
    with pytest.raises(Conflict, match="exists already"):
        c.add_run([RunLine("1", "p1", 1, 5.0, "runC")])
    c.add_run([RunLine("1", "p1", 1, 5.0, "runC")], replace=True)
    assert c.run("runC") == [RunLine("1", "p1", 1, 5.0, "runC")]
    with pytest.raises(Conflict, match="name of a annotator"):
        c.add_run([RunLine("1", "p1", 1, 5.0, "alice")])
    # several runs are stored together or not at all
    with pytest.raises(Conflict, match="run 'runA' exists already"):
        c.add_runs([([RunLine("1", "p1", 1, 5.0, "runD")], "d.run"), (read_run(TREC / "runA.run"), "a.run")])
    assert "runD" not in {r.tag for r in c.runs()}


# -- the command line -------------------------------------------------------------------------------
def test_cli_walk_and_evaluate_trec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.sqlite")

    def run(*args: str, user: str | None = None, fmt: str = "text") -> str:
        argv = ["--db", db, "-f", fmt, *(["--as", user] if user else []), *args]
        code = main(argv)
        cap = capsys.readouterr()
        assert code == 0, (args, cap.err)
        return cap.out

    run("init", "trec", "--schema", "trec-relevance")
    run("annotator", "add", "alice", "bob")
    run("import", "texts", str(TREC / "docs"))
    assert "2 topic(s) read, 2 added" in run("topics", "import", str(TREC / "topics.txt"))
    assert "Ferroportin-1 in humans" in run("topics", "show", "1", user="alice")
    assert "run runA: 6 line(s), 2 topic(s)" in run(
        "runs", "import", str(TREC / "runA.run"), str(TREC / "runB.run")
    )
    pooled = json.loads(run("pool", "-k", "2", "-n", "1", "--double", "0.5", "--seed", "7", fmt="json"))
    assert len(pooled["units"]) == 7 and pooled["doubled"] == 4
    first: dict[str, int] = {}
    mine = {who: json.loads(run("judgments", "list", user=who, fmt="json")) for who in ("alice", "bob")}
    for js in mine.values():
        for j in js:
            first[j["unit"]] = min(first.get(j["unit"], j["set_id"]), j["set_id"])
    for who, js in mine.items():
        for j in js:
            g = (
                TRUTH[(j["topic"], j["doc"])]
                if first[j["unit"]] == j["set_id"]
                else second(j["topic"], j["doc"])
            )
            assert f"{j['unit']}: {g} (submitted)" in run(
                "judge", j["topic"], j["doc"], g, "--submit", user=who
            )
    assert "4 doubly judged unit(s)" in run("judgments", "agree")
    out = tmp_path / "qrels.txt"
    run("qrels", "export", str(out), "--map", "DR=2,PR=1,NR=0")
    assert out.read_text() == (TREC / "qrels.txt").read_text()
    assert run("qrels", "export") == (TREC / "qrels.txt").read_text()
    exported = tmp_path / "runB.run"
    run("runs", "export", "runB", str(exported))
    assert exported.read_text() == (TREC / "runB.run").read_text()
    project_scores = json.loads(run("runs", "score", "-m", "AP", "-m", "P@10", "-m", "Bpref", fmt="json"))
    file_scores = json.loads(run("evaluate", "trec", str(out), str(TREC / "runA.run"), str(TREC / "runB.run"),
                                 "-m", "AP", "-m", "P@10", "-m", "Bpref", fmt="json"))  # fmt: skip
    assert project_scores == file_scores
    check_hand_scores({s["tag"]: _Scores(s) for s in file_scores})
    text = run("evaluate", "trec", str(out), str(TREC / "runA.run"), "--per-topic")
    assert "run runA (2 topic(s))" in text and "AP 0.542" in text and "1: AP 0.833" in text
    # errors: one line naming the file and the line; judges are refused what is a lead's
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 p1 1 2.0 r\n1 Q0 p2 two 1.0 r\n")
    assert main(["--db", db, "evaluate", "trec", str(out), str(bad)]) == 4
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"corpusdb: error: {bad}:2: rank 'two' is not an integer"]
    for args in (
        ["runs", "list"],
        ["pool", "-k", "1"],
        ["qrels", "export"],
        ["judgments", "agree"],
        ["runs", "score"],
    ):
        assert main(["--db", db, "--as", "alice", *args]) == 5, args
        capsys.readouterr()


class _Scores:
    def __init__(self, d: dict) -> None:  # type: ignore[type-arg]
        self.per_topic, self.mean = d["per_topic"], d["mean"]


def test_score_run_checks_measures() -> None:
    q = read_qrels(TREC / "qrels.txt")
    r = read_run(TREC / "runB.run")
    with pytest.raises(InvalidInput, match="unknown measure 'MAPP'"):
        score_run(q, r, ["MAPP"])
    # graded: only DR counts as relevant with rel=2 (topic 1: p1 at rank 4 -> AP 1/4; topic 2: p7 at 1)
    s = score_run(q, r, ["AP(rel=2)"])
    assert s.per_topic == {"1": {"AP(rel=2)": 0.25}, "2": {"AP(rel=2)": 1.0}}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_migration_0005_down_and_up(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The topic and run tables go away on downgrade (the rest of the project stays) and come back."""
    from alembic import command
    from sqlalchemy import inspect

    from corpusdb.store import db, migrate

    url = f"sqlite:///{tmp_path / 'm.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    c = project(url)
    engine = c.engine
    cfg = migrate._config()
    with db.write(engine) as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0004")
    assert not {"topic", "run", "run_entry"} & set(inspect(engine).get_table_names())
    assert migrate.upgrade(engine) == ("0004", migrate.head())
    c = Corpus.open("trec", engine=engine)
    assert c.topics() == [] and c.count_documents() == 8
    c.add_topics(read_topics(TREC / "topics.tsv"))
    assert [t.id for t in c.topics()] == ["1", "2"]


def test_pooling_in_the_database_takes_what_the_pure_pool_takes(any_url: str) -> None:
    """Odd ranks (ties, gaps, not in file order, against the scores): the stored pool equals
    ``pool_pairs`` on the lines, and both take the top by score, as trec_eval ranks them."""
    c = project(any_url)
    odd = [RunLine("1", "p4", 9, 0.1, "odd"), RunLine("1", "p8", 1, 0.5, "odd"), RunLine("1", "p6", 1, 0.7, "odd"),
           RunLine("1", "p7", 5, 0.9, "odd"), RunLine("2", "p1", 3, 1.0, "odd")]  # fmt: skip
    c.add_run(odd)
    res = c.pool(depth=2, runs=["odd"], seed=4)
    assert [(u.topic, u.doc) for u in res.units] == pool_pairs({"odd": odd}, ["1", "2"], depth=2, seed=4)
    assert {(u.topic, u.doc) for u in res.units} == {("1", "p7"), ("1", "p6"), ("2", "p1")}
    assert res.warnings == ("run odd: its rank column and its scores order the documents differently in 1 of 2 "
                            "topic(s) (topic 1, position 1: rank says p6, score says p7); pooled and scored by "
                            "score, as trec_eval does",)  # fmt: skip
