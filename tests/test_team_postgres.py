"""Team mode on the real PostgreSQL server: login roles, and blindness enforced by row-level security.

The scene: alice and bob annotate documents ``open`` (bob still working; his set holds a secret in
every content table: span grounding, relation, argument, link, note, document label) and ``done``
(both submitted, merged into gold by judy, an adjudicator, corrected and released). Connected as
alice's role with plain SQL (psycopg, no corpusdb code) she must see exactly her own rows.

Note the test server trusts every role (no password is checked locally): these tests show that the
role a connection logs in as, not ``--as`` nor ``user=``, decides what is seen.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from sqlalchemy import inspect

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, PermissionDenied, StaleVersion
from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Document,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
)
from corpusdb.cli.main import main
from corpusdb.services.edits import Put
from corpusdb.store import migrate, rls
from corpusdb.store.db import make_engine
from corpusdb.store.models import metadata
from tests.conftest import TeamRoles, role_url

TEXT = "IL-2 binds the IL-2 receptor alpha chain in zebrafish T cells."
SECRET = "SECRET-OPEN-42"
SECRET_DONE = "SECRET-DONE-77"


@dataclass
class Team:
    url: str
    owner: Corpus
    roles: TeamRoles
    ids: dict[str, int]

    def sql_url(self, person: str) -> str:
        """A libpq URL for plain psycopg as ``person``'s role."""
        return role_url(self.url, self.roles.name(person)).replace("postgresql+psycopg://", "postgresql://")

    def sql(self, person: str) -> psycopg.Connection[Any]:
        return psycopg.connect(self.sql_url(person), autocommit=True)

    def owner_sql(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def bob_open_content() -> Annotations:
    g = (Grounding(f"uniprot:{SECRET}"),)
    return Annotations(
        spans=(
            Span("T1", "protein", ((0, 4),), "IL-2", groundings=g),
            Span("T2", "protein", ((15, 28),), "IL-2 receptor", groundings=g),
        ),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=1),),
        links=(Link("L1", "synonym", "T1", "T2"),),
        notes=(Note("#1", "AnnotatorNotes", "T1", f"note {SECRET}"),),
        labels=(DocLabel("relevance", SECRET),),
    )


@pytest.fixture
def team(pg_url: str, team_roles: TeamRoles) -> Team:
    c = Corpus.create("p", "biorelex-1.0", url=pg_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("open", TEXT), Document("done", TEXT)])
    c.assign(["open", "done"], ["alice", "bob"])
    ids: dict[str, int] = {}
    for who in ("alice", "bob"):
        me = c.as_user(who)
        for doc in ("open", "done"):
            s = me.my_set(doc).info
            ids[f"{who}-{doc}"] = s.id
            if who == "bob" and doc == "open":
                me.replace_set(s.id, bob_open_content(), expected_version=s.version)
                continue
            puts = [Put(Span("T1", "protein", ((0, 4),), "IL-2"))]  # both agree: gold, with a decision
            if who == "bob":
                puts.append(Put(Span("T2", "protein", ((15, 28),), "IL-2 receptor",
                                     groundings=(Grounding(f"uniprot:{SECRET_DONE}"),))))  # fmt: skip
            me.edit_set(s.id, puts, expected_version=s.version, history="do", description="add spans")
            me.submit(s.id)
    c.as_user("bob").skip(ids["bob-open"], f"irrelevant {SECRET}")  # bob's judgement: not alice's
    judy = c.as_user("judy")
    judy.merge("done")
    c.release("v1", allow_open=True)
    judy.correct("done", action="add", item=Span("T9", "protein", ((44, 53),), "zebrafish"), reason="missed")
    c.add_recommender("names", "string")  # recommenders: suggestions and models of each annotator
    with psycopg.connect(pg_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as o:
        rid = o.execute("SELECT id FROM recommender").fetchone()[0]
        for who, text in (("bob", SECRET), ("alice", "IL-2")):
            sid = ids[f"{who}-open"]
            o.execute(
                "INSERT INTO suggestion (set_id, recommender_id, version, kind, key, type, start, stop, text, score, "
                "status, created) VALUES (%s, %s, '1', 'span', %s, 'protein', 0, 4, %s, 1.0, 'open', now())",
                (sid, rid, f"span:protein:0-4:{who}", text),
            )
            o.execute("INSERT INTO queue_position (set_id, ordering, rank, score, seed, created) "
                      "VALUES (%s, 'uncertainty', 1, 0.5, 0, now())", (sid,))  # fmt: skip
            o.execute(
                "INSERT INTO recommender_model (recommender_id, annotator_id, version, base_version, model) "
                "VALUES (%s, (SELECT id FROM annotator WHERE name = %s), 1, 0, %s)",
                (rid, who, f"{who}'s names {text}"),
            )
    for n in ("alice", "bob", "judy"):
        c.team_login(n, login=team_roles.name(n))
    return Team(pg_url, c, team_roles, ids)


def rows_as(conn: psycopg.Connection[Any], table: str) -> list[str]:
    return [r[0] for r in conn.execute(f'SELECT t::text FROM "{table}" t')]


def expected_for_alice(team: Team) -> dict[str, int]:
    """Per table, how many rows alice may see, counted by the owner with explicit joins."""
    mine = (
        "(SELECT s.id FROM annotation_set s JOIN annotator a ON a.id = s.annotator_id WHERE a.name = 'alice')"
    )
    with team.owner_sql() as o:
        count = lambda q: o.execute(q).fetchone()[0]  # noqa: E731
        out = {t: count(f"SELECT count(*) FROM {t} WHERE set_id IN {mine}")
               for t in ("span", "relation", "entity", "link", "note", "document_label", "edit_history",
                         "set_skip", "suggestion", "queue_position")}  # fmt: skip
        out["recommender_model"] = count(
            "SELECT count(*) FROM recommender_model WHERE annotator_id = (SELECT id FROM annotator WHERE name = 'alice')"
        )
        out["recommender"] = count("SELECT count(*) FROM recommender")  # the project's: every member's
        out["annotation_set"] = count(f"SELECT count(*) FROM annotation_set WHERE id IN {mine}")
        out["relation_arg"] = count(
            f"SELECT count(*) FROM relation_arg WHERE relation_id IN (SELECT id FROM relation WHERE set_id IN {mine})"
        )
        out["decision"] = out["release"] = out["correction"] = 0  # gold and releases: adjudicators and leads
        for t in ("project", "guideline", "annotator", "document", "topic"):
            out[t] = count(f"SELECT count(*) FROM {t}")
        out["run"] = out["run_entry"] = 0  # which system retrieved what: a lead's alone
        out["audit_event"] = count("SELECT count(*) FROM audit_event WHERE actor = 'alice'")
        # shared tasks: every member reads the tasks; teams and runs only of a team she is in
        out["shared_task"] = count("SELECT count(*) FROM shared_task")
        alices = "(SELECT id FROM task_team WHERE members::jsonb ? 'alice')"
        out["task_team"] = count(f"SELECT count(*) FROM task_team WHERE id IN {alices}")
        out["task_run"] = count(f"SELECT count(*) FROM task_run WHERE team_id IN {alices}")
        out["task_submission"] = count(f"SELECT count(*) FROM task_submission WHERE team_id IN {alices}")
        out["team_login"] = 1
        out["alembic_version"] = 1
        for t in ("kb", "kb_concept", "kb_name", "kb_parent"):  # knowledge bases: every member reads them
            out[t] = count(f"SELECT count(*) FROM {t}")
        for t in rls.PRIVATE:  # login secrets and counters: not granted at all (-1: refused)
            out[t] = -1
    return out


def test_plain_sql_as_alice_returns_only_what_she_may_see(team: Team) -> None:
    expected = expected_for_alice(team)
    with team.owner_sql() as o:  # the scene really has content everywhere, for the owner
        for t in ("span", "relation", "relation_arg", "link", "note", "document_label", "decision",
                  "release", "correction", "audit_event", "edit_history", "set_skip", "suggestion",
                  "queue_position", "recommender_model"):  # fmt: skip
            assert len(rows_as(o, t)) > expected[t], t
        all_tables = {
            r[0] for r in o.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        }
    assert all_tables == set(expected), "every table of the schema is checked here"
    seen: dict[str, int] = {}
    with team.sql("alice") as alice:
        assert alice.execute("SELECT current_user").fetchone()[0] == team.roles.name("alice")
        for t in sorted(all_tables):
            if t in rls.PRIVATE:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    rows_as(alice, t)
                seen[t] = -1
                continue
            rows = rows_as(alice, t)
            seen[t] = len(rows)
            assert not [r for r in rows if SECRET in r or SECRET_DONE in r], f"bob's work leaks from {t}"
        # the helper functions answer only about the asking role
        bob_role = team.roles.name("bob")
        assert (
            alice.execute(
                "SELECT corpusdb_may(%s, %s, 'content')", (team.ids["bob-open"], bob_role)
            ).fetchone()[0]
            is False
        )
        assert alice.execute("SELECT corpusdb_role_in(1, %s)", (bob_role,)).fetchone()[0] is None
        with pytest.raises(psycopg.errors.RaiseException, match="not a table of set items"):
            alice.execute("SELECT corpusdb_set_of('team_login', 1, current_user)")
    assert seen == expected
    with team.owner_sql() as o:  # the same call by the owner (not a team session) answers
        assert o.execute(
            "SELECT corpusdb_may(%s, %s, 'content')", (team.ids["bob-open"], team.roles.name("bob"))
        ).fetchone()[0]


def test_bob_and_the_adjudicator_see_what_the_api_shows_them(team: Team) -> None:
    with team.sql("bob") as bob:
        texts = rows_as(bob, "span") + rows_as(bob, "note") + rows_as(bob, "document_label")
        assert any(SECRET in r for r in texts) and any(SECRET_DONE in r for r in texts)
        assert {r[0] for r in bob.execute("SELECT annotator_id FROM annotation_set")} == {
            team.owner.annotator("bob").id
        }
    with team.sql("judy") as judy:
        headers = judy.execute("SELECT id FROM annotation_set WHERE kind = 'annotation'").fetchall()
        assert len(headers) == 4  # who has which set: all of them
        content = "".join(rows_as(judy, "span") + rows_as(judy, "note") + rows_as(judy, "document_label"))
        assert SECRET_DONE in content and SECRET not in content  # the complete document only
        assert judy.execute("SELECT count(*) FROM decision").fetchone()[0] > 0
        assert judy.execute("SELECT count(*) FROM release").fetchone()[0] == 1
        assert (
            judy.execute("SELECT count(*) FROM span WHERE set_id = %s", (team.ids["bob-open"],)).fetchone()[0]
            == 0
        )


def test_alice_cannot_write_bobs_rows(team: Team) -> None:
    bob_open, alice_open = team.ids["bob-open"], team.ids["alice-open"]
    with team.owner_sql() as o:
        before = {
            t: sorted(rows_as(o, t)) for t in ("span", "relation", "annotation_set", "annotator", "note")
        }
        bob_spans = [r[0] for r in o.execute("SELECT id FROM span WHERE set_id = %s", (bob_open,))]
    assert bob_spans
    with team.sql("alice") as alice:
        # rows she cannot see are rows she cannot touch: zero rows affected
        assert alice.execute("UPDATE span SET text = 'x' WHERE set_id = %s", (bob_open,)).rowcount == 0
        # no DELETE right (it would allow LOCK TABLE): deletes go through corpusdb_delete, which
        # deletes none of bob's rows even when given their ids
        assert (
            alice.execute(
                "SELECT corpusdb_delete('span', %s::bigint[], current_user)", (bob_spans,)
            ).fetchone()[0]
            == 0
        )
        assert (
            alice.execute(
                "UPDATE annotation_set SET status = 'submitted' WHERE id = %s", (bob_open,)
            ).rowcount
            == 0
        )
        assert alice.execute("UPDATE annotator SET role = 'lead' WHERE name = 'alice'").rowcount == 0
        assert alice.execute("UPDATE note SET text = 'x'").rowcount == 0
        assert alice.execute("SELECT count(*) FROM audit_event").fetchone()[0] > 0  # her own events
        refused = [
            ("UPDATE audit_event SET action = 'x'", ()),  # never changed
            ("DELETE FROM audit_event", ()),
            ("DELETE FROM span WHERE set_id = %s", (bob_open,)),
            ("INSERT INTO span (set_id, local_id, type, start, stop, text) VALUES (%s, 'T9', 'protein', 0, 4, 'IL-2')", (bob_open,)),
            ("UPDATE annotation_set SET annotator_id = (SELECT id FROM annotator WHERE name = 'bob') WHERE id = %s", (alice_open,)),
            ("INSERT INTO audit_event (project_id, actor, action, target, created) VALUES (1, 'bob', 'x', '', now())", ()),
            ("INSERT INTO team_login (project_id, annotator_id, role_name, created) VALUES (1, 2, 'x', now())", ()),
            ("INSERT INTO annotator (project_id, name, role, created) VALUES (1, 'mallory', 'lead', now())", ()),
            ("INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, version, created, updated) "
             "VALUES (1, (SELECT id FROM annotator WHERE name = 'bob'), 'annotation', 'assigned', 1, 1, now(), now())", ()),
            ("UPDATE span SET set_id = %s WHERE set_id = %s", (bob_open, alice_open)),
            ("CREATE TABLE mine (id integer)", ()),
            (f"SET ROLE {team.roles.name('bob')}", ()),
            ("DELETE FROM alembic_version", ()),
        ]  # fmt: skip
        for stmt, params in refused:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                alice.execute(stmt, params)
    with team.owner_sql() as o:
        after = {t: sorted(rows_as(o, t)) for t in before}
    assert after == before


def test_the_role_not_as_decides_who_acts(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    alice_url = role_url(team.url, team.roles.name("alice"))
    with pytest.raises(PermissionDenied, match="refused"):
        team.roles.open(team.url, "alice", user="bob")
    alice = team.roles.open(team.url, "alice")
    assert alice.user.name == "alice"  # type: ignore[attr-defined]
    with pytest.raises(PermissionDenied):
        alice.as_user("bob")  # type: ignore[attr-defined]
    judy = team.roles.open(team.url, "judy", user="judy")
    assert judy.user.role == "adjudicator"  # type: ignore[attr-defined]
    assert main(["--db", alice_url, "--as", "bob", "status"]) == 5
    assert "refused" in capsys.readouterr().err
    assert main(["--db", alice_url, "-f", "json", "status"]) == 0  # no --as: the role is alice
    assert '"alice"' in capsys.readouterr().out
    # even an API handle forced to claim bob's name sees only what the role may see
    forced = Corpus(alice.engine, alice.project_id, team.owner.as_user("bob").user)  # type: ignore[attr-defined]
    assert forced.sets() == []  # bob's sets are invisible to alice's connection
    with pytest.raises(PermissionDenied):  # bob's set exists but the server hides it, even its header
        forced.read_set(team.ids["bob-open"])


@pytest.mark.filterwarnings("ignore::getpass.GetPassWarning")  # the test runner has no terminal
def test_team_commands(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    url = team.url
    assert main(["--db", url, "-f", "json", "team", "list"]) == 0
    listed = capsys.readouterr().out
    for n in ("alice", "bob", "judy"):
        assert team.roles.name(n) in listed
    team.owner.add_annotator("carol")
    carol = team.roles.name("carol")
    assert main(["--db", url, "team", "login", "carol", "--login", carol, "--no-password"]) == 0
    assert carol in capsys.readouterr().out
    assert team.roles.open(url, "carol").user.name == "carol"  # type: ignore[attr-defined]
    assert main(["--db", url, "team", "login", "carol", "--login", carol, "--no-password"]) == 6
    capsys.readouterr()
    # annotators and team connections may not manage logins
    assert main(["--db", url, "--as", "alice", "team", "list"]) == 5
    assert main(["--db", role_url(url, team.roles.name("alice")), "team", "revoke", "bob"]) == 5
    capsys.readouterr()
    for e in team.roles.engines:
        e.dispose()  # type: ignore[attr-defined]
    assert main(["--db", url, "team", "revoke", "carol"]) == 0
    with team.owner_sql() as o:
        assert o.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s", (carol,)).fetchone()[0] == 0
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(team.sql_url("carol")).close()
    # the password is prompted for twice, and stored hashed (SCRAM), never in clear
    from click.testing import CliRunner
    from typer.main import get_command

    from corpusdb.cli.main import app

    team.owner.add_annotator("dan")
    dan = team.roles.name("dan")
    res = CliRunner().invoke(get_command(app), ["--db", url, "team", "login", "dan", "--login", dan],
                             input="s3cret pass\ns3cret pass\n")  # fmt: skip
    assert res.exit_code == 0, res.output
    with team.owner_sql() as o:
        stored = o.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (dan,)).fetchone()[0]
    assert stored.startswith("SCRAM-SHA-256$") and "s3cret" not in stored


def test_team_logins_need_postgresql(sqlite_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    Corpus.create("p", "biorelex-1.0", url=sqlite_url).add_annotator("alice")
    assert main(["--db", sqlite_url, "team", "login", "alice", "--no-password"]) == 4
    assert "SSH" in capsys.readouterr().err
    assert main(["--db", sqlite_url, "-f", "json", "team", "list"]) == 0


def test_every_table_has_a_policy_line() -> None:
    """A table added without a line in corpusdb.store.rls fails here (and is refused to team roles)."""
    tables = set(metadata.tables)
    assert tables - rls.covered_tables() - set(rls.READ_ONLY) - set(rls.PRIVATE) == set()
    to_sets = {
        t.name
        for t in metadata.sorted_tables
        for fk in t.foreign_keys
        if fk.column.table.name == "annotation_set"
    }
    assert to_sets - {"annotation_set"} <= set(rls.SET_OWNED)


def test_policies_go_down_and_up_with_the_migration(pg_url: str) -> None:
    engine = make_engine(pg_url)
    migrate.upgrade(engine)

    def state() -> tuple[int, int]:
        with engine.connect() as conn:
            pol = conn.exec_driver_sql(
                "SELECT count(*) FROM pg_policies WHERE schemaname = current_schema()"
            ).scalar_one()
            fun = conn.exec_driver_sql(
                "SELECT count(*) FROM pg_proc WHERE proname LIKE 'corpusdb\\_%%' AND pronamespace = current_schema()::regnamespace"
            ).scalar_one()
        return pol, fun

    from corpusdb.store import login_pgsql as pgsql

    functions = len(rls.FUNCTION_SIGNATURES) + len(pgsql.GATE_FUNCTIONS) + len(pgsql.PERSON_FUNCTIONS)
    assert state()[0] >= 4 * len(rls.SET_OWNED) and state()[1] == functions
    migrate_down(engine, "0005")
    assert state() == (0, 0) and "team_login" not in inspect(engine).get_table_names()
    migrate.upgrade(engine)
    assert state()[1] == functions
    engine.dispose()


def migrate_down(engine: Any, revision: str) -> None:
    from alembic import command

    from corpusdb.store import db

    cfg = migrate._config()
    with db.write(engine) as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


def test_32_concurrent_role_connections_lose_nothing(team: Team) -> None:
    """8 annotators x 4 connections each, all adding spans to their own set for a bounded time
    (optimistic locking: a stale writer reloads and retries); every acknowledged span is stored."""
    people = [f"ann{i}" for i in range(8)]
    for p in people:
        team.owner.add_annotator(p)
    team.owner.add_documents([Document("busy", TEXT)])
    team.owner.assign(["busy"], people)
    for p in people:
        team.owner.team_login(p, login=team.roles.name(p))
    acked: dict[str, list[str]] = {p: [] for p in people}
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + 4.0

    def work(person: str, k: int) -> None:
        try:
            me = team.roles.open(team.url, person)
            n = 0
            while time.monotonic() < deadline or n == 0:
                mine = me.my_set("busy").info  # type: ignore[attr-defined]
                local = f"T{k}_{n}"
                try:
                    me.edit_set(mine.id, [Put(Span(local, "protein", ((0, 4),), "IL-2"))],  # type: ignore[attr-defined]
                                expected_version=mine.version)  # fmt: skip
                except StaleVersion:
                    continue
                with lock:
                    acked[person].append(local)
                n += 1
                if {s.annotator for s in me.sets()} != {person}:  # type: ignore[attr-defined]
                    errors.append(f"{person} saw another's set")
        except Exception as exc:  # reported below, with the thread that failed
            errors.append(f"{person}/{k}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(p, k)) for p in people for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for p in people:
        stored = {s.id for s in team.owner.as_user(p).my_set("busy").annotations.spans}
        assert stored == set(acked[p]) and len(acked[p]) >= 4, p


def test_the_tui_opens_as_the_connections_role(team: Team) -> None:
    from tui.facade import open_facade

    alice_url = role_url(team.url, team.roles.name("alice"))
    with pytest.raises(PermissionDenied, match="refused"):
        open_facade(alice_url, None, "bob")  # `corpusdb tui --as bob` on alice's login
    alice = open_facade(alice_url, None, None)
    try:
        assert (alice.user, alice.role) == ("alice", "annotator")
        docs = alice.my_documents()
        assert sorted(d.document for d in docs) == ["done", "open"]
        session = alice.open_document("open")
        assert SECRET not in repr(session.__dict__) and SECRET not in repr(docs)
    finally:
        alice.corpus.engine.dispose()
    judy = open_facade(role_url(team.url, team.roles.name("judy")), None, "judy")
    try:
        assert judy.can_adjudicate
        progress = judy.progress()
        assert SECRET not in repr(progress)
    finally:
        judy.corpus.engine.dispose()


def test_a_lead_with_a_login_runs_the_workflow(team: Team, tmp_path: Any) -> None:
    """A lead's role writes what leads write (documents, assignments, splits, releases), yet reads
    stay blind: the in-progress document's secret is in no result."""
    team.owner.add_annotator("lena", "lead")
    team.owner.team_login("lena", login=team.roles.name("lena"))
    lena: Any = team.roles.open(team.url, "lena")
    lena.add_documents([Document("new", TEXT)])
    lena.assign(["new"], ["alice", "bob"])
    assert {h.annotator for h in lena.set_headers(document="new")} == {"alice", "bob"}
    with pytest.raises(PermissionDenied):
        lena.read_set(team.ids["bob-open"])
    got = [lena.status(), lena.agreement("spans"), lena.history(), lena.conflicts(), lena.split()]
    lena.release("v2", outdir=tmp_path / "v2", allow_open=True)
    written = "".join(f.read_text() for f in (tmp_path / "v2").rglob("*") if f.is_file())
    assert [i for i, g in enumerate(got) if SECRET in repr(g)] == []
    assert SECRET not in written and "T2\tprotein 44 53\tzebrafish" in written  # gold with its correction


def test_on_sqlite_the_migration_only_adds_the_table(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    assert "team_login" in inspect(engine).get_table_names()
    migrate_down(engine, "0005")
    assert "team_login" not in inspect(engine).get_table_names()
    migrate.upgrade(engine)
    assert migrate.current(engine) == migrate.head() and "team_login" in inspect(engine).get_table_names()
    engine.dispose()


def test_one_line_covers_a_new_table_of_set_items(team: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a later migration does for its new table (say, entity clusters and their members): one
    line each in corpusdb.store.rls, then ``install`` (run after every upgrade) protects and grants them."""
    with team.owner_sql() as o:
        o.execute(
            "CREATE TABLE entity_cluster (id serial PRIMARY KEY, set_id integer REFERENCES annotation_set(id), name text)"
        )
        o.execute(
            "CREATE TABLE cluster_member (id serial PRIMARY KEY, cluster_id integer REFERENCES entity_cluster(id), name text)"
        )
        for who in ("alice", "bob"):
            sid = team.ids[f"{who}-open"]
            cid = o.execute(
                "INSERT INTO entity_cluster (set_id, name) VALUES (%s, %s) RETURNING id",
                (sid, f"{who}'s cluster"),
            ).fetchone()[0]
            o.execute(
                "INSERT INTO cluster_member (cluster_id, name) VALUES (%s, %s)", (cid, f"{who}'s member")
            )
    with team.sql("alice") as alice, pytest.raises(psycopg.errors.InsufficientPrivilege):
        alice.execute("SELECT * FROM entity_cluster")  # no line yet: closed
    monkeypatch.setitem(rls.SET_OWNED, "entity_cluster", "set_id")
    monkeypatch.setitem(rls.SET_OWNED, "cluster_member", rls.Via("entity_cluster", "cluster_id"))
    engine = make_engine(team.url)
    with engine.begin() as conn:
        rls.install(conn)
    engine.dispose()
    with team.sql("alice") as alice:
        assert [r[0] for r in alice.execute("SELECT name FROM entity_cluster")] == ["alice's cluster"]
        assert [r[0] for r in alice.execute("SELECT name FROM cluster_member")] == ["alice's member"]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            alice.execute(f"INSERT INTO entity_cluster (set_id, name) VALUES ({team.ids['bob-open']}, 'x')")
        every_id = "SELECT corpusdb_delete('cluster_member', %s::bigint[], current_user)"
        assert alice.execute(every_id, (list(range(1, 100)),)).fetchone()[0] == 0  # hers is submitted
        team.owner.reopen(team.ids["alice-open"], reason="one more cluster")
        assert alice.execute(every_id, (list(range(1, 100)),)).fetchone()[0] == 1  # hers, of all tried
    with team.owner_sql() as o:
        assert o.execute("SELECT count(*) FROM cluster_member").fetchone()[0] == 1  # bob's is still there


def test_suggestions_and_own_models_under_row_level_security(team: Team) -> None:
    """Suggestions are as blind as the set they are on; an annotator's own model is hers alone (not
    even a lead's or an adjudicator's role reads it); through her login the API works as usual."""
    bob_open = team.ids["bob-open"]
    with team.sql("alice") as alice:
        assert [r[0] for r in alice.execute("SELECT text FROM suggestion")] == ["IL-2"]
        assert [r[0] for r in alice.execute("SELECT model FROM recommender_model")] == ["alice's names IL-2"]
        assert alice.execute("UPDATE recommender_model SET model = 'x'").rowcount == 1  # hers only
        assert (
            alice.execute("UPDATE suggestion SET status = 'accepted' WHERE set_id = %s", (bob_open,)).rowcount
            == 0
        )
        for stmt, params in (
            ("INSERT INTO suggestion (set_id, recommender_id, version, kind, key, type, start, stop, text, score, "
             "status, created) VALUES (%s, 1, '1', 'span', 'k', 'protein', 0, 4, 'x', 1, 'open', now())", (bob_open,)),
            ("INSERT INTO recommender_model (recommender_id, annotator_id, version, base_version) "
             "VALUES (1, (SELECT id FROM annotator WHERE name = 'bob'), 9, 0)", ()),
            ("UPDATE recommender SET version = 99", ()),  # a lead's
        ):  # fmt: skip
            try:
                n = alice.execute(stmt, params).rowcount
            except psycopg.errors.InsufficientPrivilege:
                continue
            assert n == 0, stmt
    with team.sql("judy") as judy:  # an adjudicator: neither open suggestions nor anyone's model
        assert judy.execute("SELECT count(*) FROM recommender_model").fetchone()[0] == 0
        assert SECRET not in "".join(r[0] for r in judy.execute("SELECT text FROM suggestion"))
    # the API through alice's login: her suggestions refreshed (written under RLS), accepted, undone
    team.owner.reopen(team.ids["alice-open"], reason="more to do")
    alice_api = team.roles.open(team.url, "alice")
    with pytest.raises(
        InvalidInput, match=r"your own part of the recommender cannot be read.*train it again"
    ):
        alice_api.suggestions("open")  # she wrote 'x' over her model above
    results = alice_api.train_recommender("names")  # her own part, as herself
    assert [r.part for r in results] == ["alice"]
    info = alice_api.my_set("open").info
    found = alice_api.suggestions("open")  # her IL-2 at 0 proposes the IL-2 of "IL-2 receptor"
    assert [(x.text, x.start, x.status) for x in found] == [("IL-2", 15, "open")]
    res = alice_api.accept_suggestions(info.id, [found[0].id], expected_version=info.version)
    assert (
        res.info.version == info.version + 1
        and res.annotations.spans[-1].extra["suggestion"]["id"] == found[0].id
    )
    with team.sql("bob") as bob:
        assert [r[0] for r in bob.execute("SELECT model FROM recommender_model")] == [f"bob's names {SECRET}"]
