"""A whole shared task with the CLI alone (issue 28): a blind release, three teams' runs made by seeded
perturbations of the gold, a leaderboard whose scores equal ``corpusdb evaluate bb`` on the same files,
late, over-limit and malformed runs refused, and teams that see only their own runs until the phase
ends. On real BB 2011 (skipped without ../shared) and on a small fixture; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpusdb.cli.main import main
from tests.conftest import PG_URL, pg_available, shared_path

Cap = pytest.CaptureFixture[str]
MINI = Path(__file__).resolve().parent / "fixtures" / "bb2011-mini"
TEAMS = {"alpha": (1, 0.0), "beta": (2, 0.3), "gamma": (3, 0.6)}
"""team -> (seed, share of gold events dropped): three runs of different quality."""


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "task.sqlite")
        return
    reason = pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg

    name = f"task_{uuid.uuid4().hex[:12]}"  # a database of its own, prefixed task_, dropped afterwards
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield PG_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _perturbed(gold_a2: str, seed: int, drop: float) -> str:
    """The gold's lines with a seeded share of its events (E lines) dropped."""
    rng = random.Random(seed)
    return "".join(
        ln for ln in gold_a2.splitlines(keepends=True) if not (ln.startswith("E") and rng.random() < drop)
    )


def _whole_task(capsys: Cap, url: str, data: Path, tmp: Path, ratios: str) -> None:
    base = ["--db", url]
    for args in (["init", "bb", "--schema", "bb-2011"], ["import", "brat", str(data), "--kind", "gold"],
                 ["split", "--ratios", ratios, "--names", "train/test"],
                 ["release", "v1", "--blind", "test", "--out", str(tmp / "rel")]):  # fmt: skip
        code, out, err = run(capsys, *base, *args)
        assert code == 0, (args, out, err)
    pkg = tmp / "rel" / "participants"
    docs = sorted(p.stem for p in (pkg / "texts").glob("*.txt"))
    assert docs and not list((pkg / "texts").glob("*.a1"))  # texts only: nothing given
    assert run(capsys, *base, "task", "create", "st", "--release", "v1", "--split", "test", "--metric", "bb",
               "--runs-per-team", "1", "--deadline", "2999-01-01T00:00:00+00:00")[0] == 0  # fmt: skip
    for team in TEAMS:
        assert run(capsys, *base, "task", "team", "add", team, "--member", f"{team}-1")[0] == 0
    runs: dict[str, Path] = {}
    for team, (seed, drop) in TEAMS.items():  # the participants' side: their files, validated at home
        folder = tmp / "runs" / team
        folder.mkdir(parents=True)
        for d in docs:
            (folder / f"{d}.a2").write_text(
                _perturbed((data / f"{d}.a2").read_text("utf-8"), seed, drop), "utf-8"
            )
        assert run(capsys, "validate", str(folder), "--task", str(pkg))[0] == 0
        runs[team] = folder
    # a malformed run is refused with its file and line, and does not use up the team's one run
    bad = tmp / "runs" / "bad"
    shutil.copytree(runs["gamma"], bad)
    first = bad / f"{docs[0]}.a2"
    n = len(first.read_text("utf-8").splitlines())
    with open(first, "a", encoding="utf-8") as fh:
        fh.write("" if first.read_text("utf-8").endswith("\n") or n == 0 else "\n")
        fh.write("E999\tLocalization Bacterium:T1 Nowhere:T2\n")
    code, out, err = run(capsys, *base, "task", "submit", "gamma", str(bad))
    assert (
        code == 4 and f"{first}:{n + 1}: error: relation E999: Localization has no role 'Nowhere'" in out
    ), out
    assert "run refused" in err
    for team, folder in runs.items():
        code, out, err = run(capsys, *base, "task", "submit", team, str(folder))
        assert code == 0, out + err
    # over the limit: one line, exit 6
    code, out, err = run(capsys, *base, "task", "submit", "alpha", str(runs["alpha"]), "--run", "again")
    assert code == 6 and out == "" and len(err.strip().splitlines()) == 1 and "used its 1 run(s)" in err
    # late: a task whose deadline has passed refuses every run with one line
    assert run(capsys, *base, "task", "create", "late", "--release", "v1", "--split", "test", "--metric", "bb",
               "--deadline", "2000-01-01T00:00:00+00:00")[0] == 0  # fmt: skip
    assert run(capsys, *base, "task", "team", "add", "alpha", "--task", "late")[0] == 0
    code, _, err = run(capsys, *base, "task", "submit", "alpha", str(runs["alpha"]), "--task", "late")
    assert code == 6 and "deadline 2000-01-01T00:00:00+00:00 has passed; run refused" in err
    # the leaderboard: scores equal `corpusdb evaluate bb` on the same files
    code, out, err = run(capsys, *base, "task", "leaderboard", "--task", "st", "-B", "200", "-f", "json")
    assert code == 0, err
    board = json.loads(out)
    got = {
        e["name"]: {s["name"]: (s["tp"], s["fn"], s["fp"], s["f1"]) for s in e["scores"]}
        for e in board["systems"]
    }
    for team, folder in runs.items():
        with_texts = tmp / "eval" / team
        shutil.copytree(folder, with_texts)
        for d in docs:
            shutil.copy(pkg / "texts" / f"{d}.txt", with_texts / f"{d}.txt")
        code, out, err = run(capsys, *base, "-f", "json", "evaluate", "bb", "--release", "v1", "--split", "test",
                             str(with_texts))  # fmt: skip
        assert code == 0, err
        ref = {
            s["name"]: (s["tp"], s["fn"], s["fp"], s["f1"]) for s in json.loads(out)["systems"][0]["scores"]
        }
        assert got[f"{team}/run1"] == ref, team
    order = [r["system"] for r in board["ranking"]]
    assert order == ["alpha/run1", "beta/run1", "gamma/run1"]  # fewer events dropped ranks higher
    groups = [r["group"] for r in board["ranking"]]
    assert groups[0] == 1 and groups == sorted(groups)
    for e in board["systems"]:  # document-bootstrap CIs around each run's F1
        row = next(s for s in e["scores"] if s["name"] == "all")
        assert row["ci"]["f1"]["resamples"] == 200
        if row["f1"] is not None and row["ci"]["f1"]["low"] is not None:
            assert row["ci"]["f1"]["low"] <= row["f1"] <= row["ci"]["f1"]["high"]
    for fmt in ("text", "markdown", "html"):
        code, out, _ = run(capsys, *base, "task", "leaderboard", "--task", "st", "-B", "50", "-f", fmt)
        assert code == 0 and "alpha/run1" in out and "gamma/run1" in out
        if fmt == "html":
            assert "<svg" in out and "<line" in out  # CI whiskers
    # teams: hidden until the phase ends, then visible; feedback only for one's own team
    code, _, err = run(capsys, *base, "--as", "beta-1", "task", "leaderboard", "--task", "st")
    assert code == 5 and "hidden from teams until the phase ends" in err
    code, _, err = run(capsys, *base, "--as", "beta-1", "task", "feedback", "alpha", "--task", "st")
    assert code == 5
    code, out, _ = run(
        capsys, *base, "--as", "beta-1", "-f", "json", "task", "feedback", "beta", "--task", "st"
    )
    mine = json.loads(out)
    assert code == 0 and [r["run"] for r in mine] == ["run1"] and "alpha" not in out and "gamma" not in out
    assert run(capsys, *base, "task", "end-phase", "--task", "st")[0] == 0
    code, out, _ = run(
        capsys, *base, "--as", "beta-1", "-f", "json", "task", "leaderboard", "--task", "st", "-f", "json"
    )
    assert code == 0 and [r["system"] for r in json.loads(out)["ranking"]] == order
    # after the phase, no more runs
    code, _, err = run(
        capsys, *base, "task", "submit", "beta", str(runs["beta"]), "--run", "late", "--task", "st"
    )
    assert code == 6 and "every phase has ended" in err


def test_a_whole_task_on_the_small_fixture(capsys: Cap, db_url: str, tmp_path: Path) -> None:
    _whole_task(capsys, db_url, MINI, tmp_path, "50/50")
    # whether derived relations count is said in every report (bb-2011 has no derive rule)
    code, out, _ = run(capsys, "--db", db_url, "task", "score", "--task", "st", "-B", "10", "--derived", "include",
                       "-f", "json")  # fmt: skip
    assert (
        code == 0 and json.loads(out)["options"]["derived_relations"] == "included (the schema has no rule)"
    )
    code, _, err = run(capsys, "--db", db_url, "task", "score", "--task", "st", "--derived", "maybe")
    assert code == 4 and "--derived must be include or exclude" in err
    # the leaderboard says it too: the organizers' (scored now) and the teams' (the stored scoring)
    for derived in ("include", "exclude"):
        code, out, err = run(capsys, "--db", db_url, "task", "leaderboard", "--task", "st", "-B", "10",
                             "--derived", derived)  # fmt: skip
        assert code == 0 and f"derived relations: {derived}d (the schema has no rule)" in out, err
        code, out, err = run(capsys, "--db", db_url, "--as", "beta-1", "task", "leaderboard", "--task", "st")
        assert code == 0 and f"derived relations: {derived}d (the schema has no rule)" in out, err


@pytest.mark.slow
def test_a_whole_task_on_real_bb_2011(capsys: Cap, db_url: str, tmp_path: Path) -> None:
    _whole_task(capsys, db_url, shared_path("data", "bionlp-st-2011-bb-train"), tmp_path, "60/40")


def test_rank_groups_open_a_group_only_on_a_significant_difference() -> None:
    from corpusdb.workflow.tasks import rank_groups

    ranking = [{"system": s} for s in ("a", "b", "c", "d")]
    tests = [{"a": "a", "b": "b", "p_value": 0.4}, {"a": "a", "b": "c", "p_value": 0.01},
             {"a": "b", "b": "c", "p_value": 0.3}, {"a": "c", "b": "d", "p_value": 0.2},
             {"a": "a", "b": "d", "p_value": 0.001}, {"a": "b", "b": "d", "p_value": 0.01}]  # fmt: skip
    # c differs from a (the group's first) though not from b: it opens group 2; d joins c
    assert rank_groups(ranking, tests) == {"a": 1, "b": 1, "c": 2, "d": 2}


# -- team mode: plain SQL and the library as a team member's login -----------------------------------


@pytest.mark.postgres
def test_team_logins_see_only_their_own_teams_runs(tmp_path: Path) -> None:
    from sqlalchemy.engine import make_url

    from corpusdb.api import Corpus
    from corpusdb.basics.errors import NotFound, PermissionDenied
    from tests.conftest import TeamRoles, role_url

    reason = pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg

    name = f"task_{uuid.uuid4().hex[:12]}"
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    roles = TeamRoles()
    owner = None
    try:
        url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
        assert main(["--db", url, "init", "bb", "--schema", "bb-2011"]) == 0
        assert main(["--db", url, "import", "brat", str(MINI), "--kind", "gold"]) == 0
        assert main(["--db", url, "split", "--ratios", "50/50", "--names", "train/test"]) == 0
        assert main(["--db", url, "release", "v1", "--blind", "test", "--out", str(tmp_path / "rel")]) == 0
        owner = Corpus.open(url=url)
        owner.create_task("st", release="v1", split="test", metric="bb")
        docs = [p.stem for p in (tmp_path / "rel" / "participants" / "texts").glob("*.txt")]
        for team in ("alpha", "beta"):
            owner.add_team("st", team, [f"{team}1"])
            folder = tmp_path / team
            folder.mkdir()
            for d in docs:
                shutil.copy(MINI / f"{d}.a2", folder / f"{d}.a2")
            owner.submit_run("st", team, [folder])
            owner.team_login(f"{team}1", login=roles.name(f"{team}1"))
        owner.score_task("st", bootstrap=20, test_resamples=20)
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as o:
            assert o.execute("SELECT count(*) FROM task_run WHERE scores IS NOT NULL").fetchone() == (2,)
        with psycopg.connect(
            role_url(url, roles.name("beta1")).replace("+psycopg", ""), autocommit=True
        ) as b:
            assert [r[0] for r in b.execute("SELECT name FROM task_team")] == ["beta"]
            runs = b.execute(
                "SELECT t.name, r.name FROM task_run r JOIN task_team t ON t.id = r.team_id"
            ).fetchall()
            assert runs == [("beta", "run1")]
            assert b.execute("SELECT count(*) FROM task_run").fetchone() == (1,)  # alpha's run is not there
            assert [r[0] for r in b.execute("SELECT name FROM shared_task")] == ["st"]
            assert b.execute("UPDATE task_run SET scores = NULL").rowcount == 0  # RLS: no row to write
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                b.execute(
                    "INSERT INTO task_team (task_id, name, members, created) VALUES (1, 'x', '[]', now())"
                )
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as o:  # the UPDATE changed nothing
            assert o.execute("SELECT count(*) FROM task_run WHERE scores IS NOT NULL").fetchone() == (2,)
        beta = roles.open(url, "beta1")
        assert [(r.team, r.name) for r in beta.task_runs("st")] == [("beta", "run1")]  # type: ignore[attr-defined]
        assert [r["run"] for r in beta.feedback("st", "beta")] == ["run1"]  # type: ignore[attr-defined]
        with pytest.raises(NotFound):  # the server hides alpha's team row from beta's login altogether
            beta.feedback("st", "alpha")  # type: ignore[attr-defined]
        with pytest.raises(PermissionDenied):
            beta.leaderboard("st")  # type: ignore[attr-defined]
    finally:
        if owner is not None:
            owner.engine.dispose()  # type: ignore[attr-defined]
        for e in roles.engines:
            e.dispose()  # type: ignore[attr-defined]
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        roles.drop()  # after the database: the roles' rights there went with it


# -- intake: all or nothing ----------------------------------------------------------------------------


def _small_task(tmp: Path) -> tuple[object, list[str]]:
    from corpusdb.api import Corpus

    db = str(tmp / "t.sqlite")
    for args in (["init", "bb", "--schema", "bb-2011"], ["import", "brat", str(MINI), "--kind", "gold"],
                 ["split", "--ratios", "50/50", "--names", "train/test"],
                 ["release", "v1", "--blind", "test", "--out", str(tmp / "rel")]):  # fmt: skip
        assert main(["--db", db, *args]) == 0, args
    c = Corpus.open(url=f"sqlite:///{db}")
    c.create_task("st", release="v1", split="test", metric="bb", runs_per_team=2)
    c.add_team("st", "alpha", ["alpha-1"])
    return c, sorted(p.stem for p in (tmp / "rel" / "participants" / "texts").glob("*.txt"))


def _stored(c: object) -> tuple[int, int, int]:
    from sqlalchemy import text

    with c._read() as conn:  # type: ignore[attr-defined]
        return tuple(  # type: ignore[return-value]
            conn.execute(text(q)).scalar_one()
            for q in ("SELECT count(*) FROM annotation_set WHERE kind = 'prediction'",
                      "SELECT count(*) FROM annotator WHERE name LIKE 'task:%'", "SELECT count(*) FROM task_run")
        )  # fmt: skip


def test_a_run_whose_task_run_row_fails_leaves_no_prediction_set(tmp_path: Path, capsys: Cap) -> None:
    """The run's sets and its task_run row are one transaction: a failing row write (here a real
    SQLite trigger refusing it, as a full disk or a concurrent submission would) undoes the import."""
    from sqlalchemy import text

    c, docs = _small_task(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    for d in docs:
        shutil.copy(MINI / f"{d}.a2", folder / f"{d}.a2")
    with c._write() as conn:  # type: ignore[attr-defined]
        conn.execute(
            text("CREATE TRIGGER no_runs BEFORE INSERT ON task_run BEGIN SELECT RAISE(ABORT, 'no room'); END")
        )
    with pytest.raises(Exception, match="no room"):
        c.submit_run("st", "alpha", [folder])  # type: ignore[attr-defined]
    assert _stored(c) == (0, 0, 0)  # no prediction set, no system annotator, no run
    with c._write() as conn:  # type: ignore[attr-defined]
        conn.execute(text("DROP TRIGGER no_runs"))
    info = c.submit_run("st", "alpha", [folder])  # type: ignore[attr-defined]
    assert info.name == "run1" and _stored(c) == (len(docs), 1, 1)


@pytest.mark.postgres
def test_a_team_login_hands_in_a_run_and_reads_nothing_of_others_nor_the_gold(tmp_path: Path) -> None:
    """On the real PostgreSQL server, connected as a team member's login: ``task submit`` hands the
    run in (the login may not create prediction sets: row-level security keeps that a lead's), the
    organizer's ``task intake`` stores it, and the login reads its own team's submissions and runs
    only, never another team's, never the gold, the release or the task's reference."""
    from sqlalchemy.engine import make_url

    from corpusdb.api import Corpus
    from tests.conftest import TeamRoles, role_url

    reason = pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg

    name = f"task_{uuid.uuid4().hex[:12]}"
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    roles = TeamRoles()
    owner = None
    try:
        url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
        for args in (["init", "bb", "--schema", "bb-2011"], ["import", "brat", str(MINI), "--kind", "gold"],
                     ["split", "--ratios", "50/50", "--names", "train/test"],
                     ["release", "v1", "--blind", "test", "--out", str(tmp_path / "rel")]):  # fmt: skip
            assert main(["--db", url, *args]) == 0, args
        owner = Corpus.open(url=url)
        owner.create_task("st", release="v1", split="test", metric="bb", runs_per_team=2)
        docs = [p.stem for p in (tmp_path / "rel" / "participants" / "texts").glob("*.txt")]
        folders = {}
        for team in ("alpha", "beta"):
            owner.add_team("st", team, [f"{team}1"])
            owner.team_login(f"{team}1", login=roles.name(f"{team}1"))
            folders[team] = tmp_path / team
            folders[team].mkdir()
            for d in docs:
                shutil.copy(MINI / f"{d}.a2", folders[team] / f"{d}.a2")
        owner.submit_run("st", "alpha", [folders["alpha"]])  # alpha's run, stored by the organizer
        beta = roles.open(url, "beta1")
        with pytest.raises(Exception, match=r"not a member of team alpha|no team 'alpha'"):
            beta.hand_in_run("st", "alpha", [folders["beta"]])  # type: ignore[attr-defined]
        sid = beta.hand_in_run("st", "beta", [folders["beta"]], run="mine")  # type: ignore[attr-defined]
        bad = tmp_path / "bad"
        shutil.copytree(folders["beta"], bad)
        with open(bad / f"{docs[0]}.a2", "a", encoding="utf-8") as fh:
            fh.write("\nE999\tLocalization Bacterium:T1 Nowhere:T2\n")
        n = len((bad / f"{docs[0]}.a2").read_text("utf-8").splitlines())
        beta.hand_in_run("st", "beta", [bad], run="bad")  # type: ignore[attr-defined]
        assert [s["status"] for s in beta.task_submissions("st")] == ["queued", "queued"]  # type: ignore[attr-defined]
        taken = {r["run"]: r for r in owner.intake_runs("st")}
        assert taken["mine"]["status"] == "stored" and taken["bad"]["status"] == "refused"
        assert taken["bad"]["problems"][0].startswith(
            f"{docs[0]}.a2:{n}: error: relation E999: Localization has no role 'Nowhere'"
        )  # the file as handed in, its line, what is wrong
        assert sorted((r.team, r.name) for r in owner.task_runs("st")) == [
            ("alpha", "run1"),
            ("beta", "mine"),
        ]
        assert [(r.team, r.name) for r in beta.task_runs("st")] == [("beta", "mine")]  # type: ignore[attr-defined]
        assert {s["id"] for s in beta.task_submissions("st")} >= {sid}  # type: ignore[attr-defined]
        sql = role_url(url, roles.name("beta1")).replace("+psycopg", "")
        with psycopg.connect(sql, autocommit=True) as b:  # plain SQL as beta's login
            one = lambda q: b.execute(q).fetchone()[0]  # noqa: E731
            assert one("SELECT count(*) FROM task_run") == 1  # its own run only
            assert one("SELECT count(*) FROM task_submission WHERE team_id <> "
                       "(SELECT id FROM task_team WHERE name = 'beta')") == 0  # fmt: skip
            assert one("SELECT count(*) FROM release") == 0  # the release (and its gold snapshot)
            assert one("SELECT count(*) FROM annotation_set WHERE kind = 'gold'") == 0  # the gold
            assert one("SELECT count(*) FROM span") == 0  # no span of anyone's: gold, alpha's run, its own
            team_ids = dict(b.execute("SELECT name, id FROM shared_task").fetchall())
            assert list(team_ids) == ["st"]
            alpha_team = one("SELECT count(*) FROM task_team WHERE name = 'alpha'")
            assert alpha_team == 0
            task_id = team_ids["st"]
            for values in (  # for another team, as someone else, or already stored: refused
                f"({task_id}, (SELECT min(id) FROM task_team), 'x', '{{}}', 'beta1', 'stored', now())",
                f"({task_id}, (SELECT min(id) FROM task_team), 'x', '{{}}', 'alpha1', 'queued', now())",
            ):
                with pytest.raises(psycopg.Error):
                    b.execute("INSERT INTO task_submission (task_id, team_id, run, files, submitted_by, status,"
                              f" created) VALUES {values}")  # fmt: skip
            assert b.execute("UPDATE task_submission SET status = 'stored'").rowcount == 0
    finally:
        if owner is not None:
            owner.engine.dispose()  # type: ignore[attr-defined]
        for e in roles.engines:
            e.dispose()  # type: ignore[attr-defined]
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        roles.drop()


def test_a_member_hands_a_run_in_with_the_cli_and_the_organizer_takes_it_in(
    tmp_path: Path, capsys: Cap
) -> None:
    c, docs = _small_task(tmp_path)
    db = ["--db", str(tmp_path / "t.sqlite")]
    folder = tmp_path / "run"
    folder.mkdir()
    for d in docs:
        shutil.copy(MINI / f"{d}.a2", folder / f"{d}.a2")
    capsys.readouterr()
    code, out, err = run(
        capsys, *db, "--as", "alpha-1", "task", "submit", "alpha", str(folder), "--run", "best"
    )
    assert code == 0 and "run handed in (submission 1)" in out, out + err
    assert _stored(c) == (0, 0, 0)  # nothing stored before the intake
    code, out, err = run(capsys, *db, "--as", "alpha-1", "task", "intake")
    assert code == 5  # the organizers' (leads') step
    code, out, _ = run(capsys, *db, "task", "intake")
    assert code == 0 and "submission 1 of alpha: stored as best" in out
    assert _stored(c) == (len(docs), 1, 1)
    code, out, _ = run(capsys, *db, "--as", "alpha-1", "-f", "json", "task", "submissions")
    assert code == 0 and [(s["run"], s["status"]) for s in json.loads(out)] == [("best", "stored")]
    code, out, _ = run(
        capsys, *db, "--as", "alpha-1", "task", "submit", "alpha", str(folder), "--run", "best"
    )
    code, out, _ = run(capsys, *db, "task", "intake")  # the same name again: refused, said why
    assert code == 0 and "submission 2 of alpha: refused" in out and "already has a run 'best'" in out
