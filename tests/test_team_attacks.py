"""Team mode attacked in plain SQL, as an annotator's own login (issue #22, items 1-4).

The scene, in a database of its own (``t22rls_*``, dropped afterwards): alice and bob annotate
``open`` (both still working; bob's set holds a secret in every content table) and ``done`` (both
submitted, merged into gold by judy, an adjudicator). alice then attacks with psycopg and nothing of
corpusdb: reads, writes, DDL, the server's functions, side channels (statistics, sequences, ids,
foreign keys, EXPLAIN, activity), locks. Each attack must be refused or reveal nothing; the owner's
own views (``status``, ``sets --kind gold``, ``export brat --gold``) must never show gold she
forged; and adjudicators, leads and alice herself keep working through their logins.

What the server cannot close (``EXPLAIN ANALYZE``'s "Rows Removed by Filter", ``pg_stat_*``,
``reltuples``, the gap between two ids she takes, ``pg_locks``) is listed in the README's "Not
enforced by the server"; the last test checks that the list names each.

The test server trusts every role (no password is checked locally): the role a connection logs in
as is what these tests vary.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import errors as pgerr
from sqlalchemy.engine import make_url

from corpusdb.api import Corpus
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
from corpusdb.services.edits import Put, Remove
from corpusdb.store import login_pgsql, rls
from tests.conftest import PG_URL, TeamRoles, pg_available, role_url

pytestmark = pytest.mark.postgres

TEXT = "IL-2 binds the IL-2 receptor alpha chain in zebrafish T cells."
SECRET = "SECRET-BOB-31"
NOTES = 12  # bob's notes all say the same secret: a most common value, were statistics kept
README = Path(__file__).resolve().parent.parent / "docs" / "security.md"  # the README points there


def bob_open() -> Annotations:
    g = (Grounding(f"uniprot:{SECRET}"),)
    return Annotations(
        spans=(
            Span("T1", "protein", ((0, 4),), "IL-2", groundings=g),
            Span("T2", "protein", ((15, 28),), "IL-2 receptor", groundings=g),
        ),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=1),),
        links=(Link("L1", "synonym", "T1", "T2"),),
        notes=tuple(Note(f"#{k}", "AnnotatorNotes", "T1", f"note {SECRET}") for k in range(1, NOTES + 1)),
        labels=(DocLabel("relevance", SECRET),),
    )


def alice_open() -> Annotations:
    return Annotations(
        spans=(Span("T1", "protein", ((0, 4),), "IL-2"), Span("T2", "protein", ((44, 53),), "zebrafish")),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=0),),
        notes=tuple(Note(f"#{k}", "AnnotatorNotes", "T1", f"alice's note {k}") for k in range(1, 4)),
    )


@dataclass
class Scene:
    url: str  # the owner's
    roles: TeamRoles
    owner: Corpus
    ids: dict[str, int]

    def libpq(self, role: str | None = None) -> str:
        url = self.url if role is None else role_url(self.url, role)
        return url.replace("postgresql+psycopg://", "postgresql://")

    def sql(self, person: str) -> psycopg.Connection[Any]:
        return psycopg.connect(self.libpq(self.roles.name(person)), autocommit=True)

    def owner_sql(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.libpq(), autocommit=True)

    def login(self, person: str) -> Any:
        """``Corpus.open`` through ``person``'s login role."""
        return self.roles.open(self.url, person)

    def one(self, sql: str, *params: Any) -> Any:
        with self.owner_sql() as o:
            return o.execute(sql, params).fetchone()[0]  # type: ignore[index]

    def snapshot(self) -> dict[str, list[str]]:
        """Every row of every table, as the owner sees them (to show that an attack changed nothing)."""
        with self.owner_sql() as o:
            names = [r[0] for r in o.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
            return {t: sorted(r[0] for r in o.execute(f'SELECT x::text FROM "{t}" x')) for t in names}


def _build(url: str, roles: TeamRoles) -> Scene:
    c = Corpus.create("p", "biorelex-1.0", url=url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("lena", "lead")
    c.add_recommender("names", "string")  # suggestions hang off a recommender
    c.add_documents([Document("open", TEXT), Document("done", TEXT), Document("spare", TEXT)])
    c.assign(["open", "done"], ["alice", "bob"])
    ids: dict[str, int] = {}
    for who, content in (("alice", alice_open()), ("bob", bob_open())):
        me = c.as_user(who)
        s = me.my_set("open").info
        ids[f"{who}-open"] = s.id
        me.replace_set(s.id, content, expected_version=s.version)
        s = me.my_set("done").info
        ids[f"{who}-done"] = s.id
        me.replace_set(s.id, Annotations(spans=(Span("T1", "protein", ((0, 4),), "IL-2"),)),
                       expected_version=s.version)  # fmt: skip
        me.submit(s.id)
    c.as_user("bob").skip(ids["bob-open"], f"irrelevant {SECRET}")
    c.as_user("judy").merge("done")
    ids["gold-done"] = next(s.id for s in c.sets(kind="gold"))
    for n in ("alice", "bob", "judy", "lena"):
        c.team_login(n, login=roles.name(n))
    scene = Scene(url, roles, c, ids)
    with scene.owner_sql() as o:
        o.execute(f'CREATE ROLE "{roles.name("mallory")}" LOGIN')  # a login of the server, not of the team
        o.execute("ANALYZE")
        for key, sql in (("spare", "SELECT id FROM document WHERE external_id = 'spare'"),
                         ("alice", "SELECT id FROM annotator WHERE name = 'alice'")):  # fmt: skip
            ids[key] = o.execute(sql).fetchone()[0]  # type: ignore[index]
    return scene


@pytest.fixture(scope="module")
def scene() -> Iterator[Scene]:
    """The scene in a database of its own (roles are cluster-wide: unique names, dropped after it)."""
    reason = pg_available()
    if reason:
        pytest.skip(reason)
    name = f"t22rls_{uuid.uuid4().hex[:12]}"
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    roles = TeamRoles()
    built: Scene | None = None
    try:
        built = _build(make_url(PG_URL).set(database=name).render_as_string(hide_password=False), roles)
        yield built
    finally:
        for e in roles.engines:
            e.dispose()  # type: ignore[attr-defined]
        if built is not None:
            built.owner.engine.dispose()  # type: ignore[attr-defined]
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        roles.drop()  # after the database: the roles' rights there went with it


def refused(conn: psycopg.Connection[Any], sql: str, params: Any = ()) -> str:
    """The statement fails for lack of rights (SQLSTATE 42501, row-level security included); run in a
    transaction (a savepoint inside one) so that the connection goes on."""
    with pytest.raises(pgerr.InsufficientPrivilege) as exc, conn.transaction():
        conn.execute(sql, params)
    return str(exc.value).split("\n")[0]


# One row of each table of set items, in set {s} ({span}, {rel}: a span, a relation of that set).
ROWS = {
    "span": "INSERT INTO span (set_id, local_id, type, start, stop, text) VALUES ({s}, 'X9', 'protein', 0, 4, 'IL-2')",
    "relation": "INSERT INTO relation (set_id, local_id, type, kind) VALUES ({s}, 'X9', 'bind', 'relation')",
    "relation_arg": "INSERT INTO relation_arg (relation_id, position, role, span_id) VALUES ({rel}, 9, 'Arg1', {span})",
    "entity": "INSERT INTO entity (set_id, local_id, type) VALUES ({s}, 'X9', 'protein')",
    "link": "INSERT INTO link (set_id, local_id, type, source_id, target_id) VALUES ({s}, 'X9', 'synonym', {span}, {span})",
    "note": "INSERT INTO note (set_id, local_id, type, target, text) VALUES ({s}, 'X9', 'AnnotatorNotes', 'T1', 'x')",
    "document_label": "INSERT INTO document_label (set_id, name, value) VALUES ({s}, 'x9', 'y')",
    "edit_history": "INSERT INTO edit_history (set_id, stack, position, description, version, created) "
                    "VALUES ({s}, 'redo', 99, 'x', 1, now())",
    "set_skip": "INSERT INTO set_skip (set_id, reason, created) VALUES ({s}, 'x', now())",
    "decision": "INSERT INTO decision (gold_set_id, item_kind, item_local_id, method, created) "
                "VALUES ({s}, 'span', 'T1', 'adjudicated', now())",
    "suggestion": "INSERT INTO suggestion (set_id, recommender_id, version, kind, key, type, start, stop, text, "
                  "score, status, created) VALUES ({s}, (SELECT min(id) FROM recommender), '1', 'span', "
                  "'span:protein:0-4', 'protein', 0, 4, 'IL-2', 0.5, 'open', now())",
    "queue_position": "INSERT INTO queue_position (set_id, ordering, rank, score, seed, created) "
                      "VALUES ({s}, 'uncertainty', 1, 0, 0, now())",
}  # fmt: skip


UPDATABLE = {"span": "type", "relation": "type", "relation_arg": "role", "entity": "type", "link": "type",
             "note": "text", "document_label": "value", "edit_history": "description", "set_skip": "reason",
             "decision": "reason", "suggestion": "status", "queue_position": "rank"}  # fmt: skip
"""A column of each that team logins may update."""


def _row(scene: Scene, table: str, set_id: int) -> str:
    span = scene.one("SELECT min(id) FROM span WHERE set_id = %s", set_id)
    rel = scene.one("SELECT min(id) FROM relation WHERE set_id = %s", set_id)
    return ROWS[table].format(s=set_id, span=span or "NULL", rel=rel or "NULL")


def test_every_table_of_set_items_is_attacked_here() -> None:
    assert set(ROWS) == set(UPDATABLE) == set(rls.SET_OWNED)


def test_every_delete_goes_through_rls_delete_rows() -> None:
    """Team logins have no DELETE right (it would allow ``LOCK TABLE``): a ``delete()`` of
    SQLAlchemy's, or raw ``DELETE FROM``, anywhere in corpusdb would fail for them in team mode."""
    import ast

    root = Path(rls.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if "migrations" in path.parts or path.name == "rls.py":
            continue
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
                found += [f"{path.name}: imports delete" for a in node.names if a.name == "delete"]
            if isinstance(node, ast.Attribute) and node.attr == "delete" and isinstance(node.value, ast.Name):
                found.append(f"{path.name}:{node.lineno}: {node.value.id}.delete")
        found += [f"{path.name}: raw DELETE" for line in source.splitlines() if "DELETE FROM" in line.upper()]
    assert found == []


def test_every_reference_between_set_items_stays_in_its_set() -> None:
    """A foreign key from one table of set items to another (a link's span...) needs its line in
    ``rls.REFERENCES``, or a login could point at anyone's row (and learn that it exists)."""
    from corpusdb.store.models import metadata

    owned = set(rls.SET_OWNED)
    found = {
        (t.name, fk.parent.name, fk.column.table.name)
        for t in metadata.sorted_tables
        if t.name in owned
        for fk in t.foreign_keys
        if fk.column.table.name in owned
        and not (
            isinstance(rls.SET_OWNED[t.name], rls.Via) and rls.SET_OWNED[t.name].column == fk.parent.name
        )  # type: ignore[union-attr]
    }
    assert found == {(t, col, to) for t, cols in rls.REFERENCES.items() for col, to in cols.items()}


# -- reads ------------------------------------------------------------------------------------------


def test_reads_show_alice_only_her_own_rows(scene: Scene) -> None:
    with scene.owner_sql() as o:
        tables = [r[0] for r in o.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        secret_tables = {
            t for t in tables if any(SECRET in r[0] for r in o.execute(f'SELECT x::text FROM "{t}" x'))
        }
    assert {"span", "note", "document_label", "set_skip"} <= secret_tables  # the secret is there
    with scene.sql("alice") as a:
        for t in tables:
            if t in rls.PRIVATE:  # login secrets and counters: not granted to any team role
                refused(a, f'SELECT x::text FROM "{t}" x')
                continue
            rows = [r[0] for r in a.execute(f'SELECT x::text FROM "{t}" x')]
            assert not [r for r in rows if SECRET in r], t
        # gold and decisions: the adjudication's, not hers
        assert (
            a.execute("SELECT count(*) FROM span WHERE set_id = %s", (scene.ids["gold-done"],)).fetchone()[0]
            == 0
        )
        assert a.execute("SELECT count(*) FROM decision").fetchone()[0] == 0
        with a.cursor().copy("COPY span TO STDOUT") as cp:
            copied = b"".join(bytes(b) for b in cp)
        assert copied and SECRET.encode() not in copied
        a.execute("SET row_security = off")  # asks to see past the policies: refused, not widened
        refused(a, "SELECT count(*) FROM span")


# -- writes ----------------------------------------------------------------------------------------


def test_alice_cannot_forge_gold_nor_move_or_reassign_her_set(scene: Scene) -> None:
    mine, spare = scene.ids["alice-open"], scene.ids["spare"]
    before = scene.snapshot()
    insert_set = ("INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, "
                  "version, created, updated) VALUES (%s, %s, %s, 'in_progress', 1, 1, now(), now())")  # fmt: skip
    with scene.sql("alice") as a:
        for stmt, params in (
            ("UPDATE annotation_set SET kind = 'gold' WHERE id = %s", (mine,)),
            (
                "UPDATE annotation_set SET document_id = %s WHERE id = %s",
                (spare, mine),
            ),  # "not all submitted" elsewhere
            ("UPDATE annotation_set SET annotator_id = NULL WHERE id = %s", (mine,)),
            ("UPDATE annotation_set SET seeded_from = %s WHERE id = %s", (scene.ids["bob-open"], mine)),
            ("UPDATE annotation_set SET id = id + 1000 WHERE id = %s", (mine,)),
            (insert_set, (spare, scene.ids["alice"], "gold")),
            (insert_set, (spare, None, "gold")),
            (insert_set, (spare, scene.ids["alice"], "annotation")),
            (insert_set, (spare, scene.ids["alice"], "prediction")),
        ):
            refused(a, stmt, params)
        refused(a, "DELETE FROM annotation_set WHERE id = %s", (mine,))
        assert (
            a.execute(
                "SELECT corpusdb_delete('annotation_set', %s::bigint[], current_user)", ([mine],)
            ).fetchone()[0]
            == 0
        )
    assert scene.snapshot() == before


def test_alice_writes_no_gold_no_decision_and_nothing_of_bobs(scene: Scene) -> None:
    """Every table of set items: what alice may insert into her own open set (rolled back) she may
    not insert into the gold set nor into bob's; what she cannot see she cannot change or delete."""
    gold, bob, mine = scene.ids["gold-done"], scene.ids["bob-open"], scene.ids["alice-open"]
    before = scene.snapshot()
    with scene.sql("alice") as a, scene.sql("judy") as judy:
        for table in ROWS:
            if table == "decision":  # decisions only in gold, by adjudicators: judy may
                with judy.transaction(force_rollback=True):
                    judy.execute(_row(scene, table, gold))
                refused(a, _row(scene, table, mine))
            else:
                with a.transaction(force_rollback=True):
                    a.execute(_row(scene, table, mine))
            for target in (gold, bob):
                if (
                    table == "relation_arg"
                    and scene.one("SELECT count(*) FROM relation WHERE set_id = %s", target) == 0
                ):
                    continue  # (the gold set has no relation to hang an argument on)
                refused(a, _row(scene, table, target))
        refused(a, ROWS["span"].format(s=bob) + " ON CONFLICT DO NOTHING")
        for table, how in rls.SET_OWNED.items():
            other = (f"{how.column} IN (SELECT id FROM {how.parent} WHERE set_id IN (%s, %s))"
                     if isinstance(how, rls.Via) else f"{how} IN (%s, %s)")  # fmt: skip
            col = UPDATABLE[table]
            assert a.execute(f"UPDATE {table} SET {col} = {col} WHERE {other}", (gold, bob)).rowcount == 0, (
                table
            )
            with scene.owner_sql() as o:
                theirs = [r[0] for r in o.execute(f"SELECT id FROM {table} WHERE {other}", (gold, bob))]
            assert (
                a.execute(
                    "SELECT corpusdb_delete(%s, %s::bigint[], current_user)", (table, theirs)
                ).fetchone()[0]
                == 0
            )
            refused(a, f"DELETE FROM {table} WHERE {other}", (gold, bob))
            refused(a, f"TRUNCATE {table}")
        copy_in = "COPY span (set_id, local_id, type, start, stop, text) FROM STDIN"
        with (
            pytest.raises(pgerr.FeatureNotSupported),
            a.cursor().copy(copy_in) as cp,
        ):  # RLS refuses COPY FROM
            cp.write_row((bob, "X8", "protein", 0, 4, "IL-2"))
    assert scene.snapshot() == before


def test_references_stay_inside_the_rows_set(scene: Scene) -> None:
    """A foreign key is checked past row-level security: pointing at bob's span would tell alice it
    exists (and keep bob from deleting it). Refused, with the same answer as for no span at all."""
    mine = scene.ids["alice-open"]
    bobs = scene.one("SELECT min(id) FROM span WHERE set_id = %s", scene.ids["bob-open"])
    nowhere = scene.one("SELECT max(id) + 1000 FROM span")
    her_span = scene.one("SELECT min(id) FROM span WHERE set_id = %s", mine)
    her_rel = scene.one("SELECT min(id) FROM relation WHERE set_id = %s", mine)
    her_link = ROWS["link"].replace("{span}, {span}", "{span}, {other}")
    before = scene.snapshot()
    with scene.sql("alice") as a:
        answers = set()
        for other in (bobs, nowhere):
            for stmt in (
                her_link.format(s=mine, span=her_span, other=other),
                f"INSERT INTO relation (set_id, local_id, type, kind, trigger_id) VALUES ({mine}, 'X7', 'bind', 'relation', {other})",
                f"INSERT INTO relation_arg (relation_id, position, role, span_id) VALUES ({her_rel}, 8, 'Arg1', {other})",
            ):
                answers.add(refused(a, stmt).replace(str(other), "N"))
        assert len(answers) == 3  # one per table: the same whether bob's span exists or not
        with a.transaction(force_rollback=True):
            a.execute(her_link.format(s=mine, span=her_span, other=her_span))
            refused(a, "UPDATE link SET target_id = %s WHERE local_id = 'X9' AND set_id = %s", (bobs, mine))
    assert scene.snapshot() == before


def test_a_submitted_set_is_read_only_to_its_annotator(scene: Scene) -> None:
    done = scene.ids["alice-done"]
    before = scene.snapshot()
    with scene.sql("alice") as a:
        assert (
            a.execute("UPDATE annotation_set SET status = 'in_progress' WHERE id = %s", (done,)).rowcount == 0
        )
        assert a.execute("UPDATE span SET type = 'x' WHERE set_id = %s", (done,)).rowcount == 0
        refused(a, _row(scene, "span", done))
        assert (
            a.execute("SELECT count(*) FROM span WHERE set_id = %s", (done,)).fetchone()[0] > 0
        )  # still hers to read
    assert scene.snapshot() == before


# -- ids and sequences ---------------------------------------------------------------------------------


def test_ids_come_from_the_server_and_tell_nothing(scene: Scene) -> None:
    mine = scene.ids["alice-open"]
    bobs = scene.one("SELECT min(id) FROM span WHERE set_id = %s", scene.ids["bob-open"])
    free = scene.one("SELECT max(id) + 10 FROM span")
    before = scene.snapshot()
    with scene.sql("alice") as a:
        for stmt in ("SELECT last_value FROM span_id_seq", "SELECT nextval('span_id_seq')",
                     "SELECT setval('span_id_seq', 1)", "SELECT currval('span_id_seq')"):  # fmt: skip
            refused(a, stmt)
        assert {r[0] for r in a.execute("SELECT last_value FROM pg_sequences")} <= {None}
        # choosing an id: bob's (a unique violation would say it exists) or a free one (taken ahead of
        # the sequence, it would fail someone's insert later): the same refusal
        row = ROWS["span"].replace("(set_id,", "(id, set_id,").replace("VALUES ({s},", "VALUES ({i}, {s},")
        assert refused(a, row.format(i=bobs, s=mine)) == refused(a, row.format(i=free, s=mine))
        with a.transaction(force_rollback=True):  # ids the server leased to this transaction: fine
            i = a.execute("SELECT corpusdb_next_ids('span', 2)").fetchall()[1][0]
            a.execute(row.format(i=i, s=mine))
            a.execute(ROWS["note"].format(s=mine))  # no id: the column's default leases one
        leased = a.execute("SELECT corpusdb_next_ids('span', 1)").fetchone()[0]
        refused(a, row.format(i=leased, s=mine))  # ... to that transaction only
    # a new session: a lease table of her own making is refused
    with scene.sql("alice") as a, a.transaction(force_rollback=True):
        a.execute("CREATE TEMP TABLE corpusdb_id_lease (tbl text, id bigint)")
        a.execute("INSERT INTO corpusdb_id_lease VALUES ('span', %s)", (free + 1,))
        refused(a, row.format(i=free + 1, s=mine))
        with pytest.raises(pgerr.RaiseException, match="in the way"), a.transaction():
            a.execute("SELECT corpusdb_next_ids('span', 1)")
    assert scene.snapshot() == before


# -- functions ---------------------------------------------------------------------------------------


def test_definer_functions_answer_no_one_about_anyone_else(scene: Scene) -> None:
    bob_role, mallory = scene.roles.name("bob"), scene.roles.name("mallory")
    with scene.owner_sql() as o:
        definers = o.execute(
            "SELECT p.oid::regprocedure::text, has_function_privilege(%s, p.oid, 'EXECUTE'), "
            "coalesce(array_to_string(p.proconfig, ','), '') FROM pg_proc p "
            "WHERE p.prosecdef AND p.pronamespace = 'public'::regnamespace",
            (mallory,),
        ).fetchall()
        spans = {k: [r[0] for r in o.execute("SELECT id FROM span WHERE set_id = %s", (scene.ids[k],))]
                 for k in ("bob-open", "gold-done", "alice-open")}  # fmt: skip
    assert len(definers) == len(rls.FUNCTION_SIGNATURES) + len(
        login_pgsql.GATE_FUNCTIONS + login_pgsql.PERSON_FUNCTIONS
    )
    for name, public, config in definers:
        assert not public, f"{name}: executable by any role of the server"
        assert "search_path=" in config, f"{name}: no pinned search_path"
    with psycopg.connect(scene.libpq(mallory), autocommit=True) as m:  # not a team login
        for stmt in ("SELECT corpusdb_sets(%s, 'content')", "SELECT corpusdb_set_of('span', 1, %s)",
                     "SELECT corpusdb_role_in(1, %s)"):  # fmt: skip
            refused(m, stmt, (scene.roles.name("alice"),))
        refused(m, "SELECT corpusdb_set_project(1)")
    everything = list(range(1, scene.one("SELECT max(id) FROM span") + 1))
    count_in = "SELECT count(*) FROM unnest(%s::int[]) i WHERE corpusdb_set_of('span', i, current_user) = %s"
    with scene.sql("alice") as a:
        with pytest.raises(pgerr.UndefinedFunction):  # the unguarded two-argument form is gone
            a.execute("SELECT corpusdb_set_of('span', 1)")
        assert a.execute(count_in, (everything, scene.ids["bob-open"])).fetchone()[0] == 0
        assert a.execute(count_in, (everything, scene.ids["gold-done"])).fetchone()[0] == 0
        assert a.execute(count_in, (everything, scene.ids["alice-open"])).fetchone()[0] == len(
            spans["alice-open"]
        )
        assert a.execute("SELECT count(*) FROM corpusdb_sets(%s, 'content')", (bob_role,)).fetchone()[0] == 0
        for who in ("current_user", f"'{bob_role}'"):
            assert a.execute(f"SELECT corpusdb_in_set('span', %s, %s, {who})",
                             (spans["bob-open"][0], scene.ids["bob-open"])).fetchone()[0] is False  # fmt: skip
            assert (
                a.execute(f"SELECT corpusdb_may(%s, {who}, 'content')", (scene.ids["bob-open"],)).fetchone()[
                    0
                ]
                is False
            )
        with pytest.raises(pgerr.RaiseException, match="as itself"):
            a.execute("SELECT corpusdb_delete('span', %s::bigint[], %s)", (spans["bob-open"], bob_role))


# -- side channels -------------------------------------------------------------------------------------


def test_statistics_reveal_no_value(scene: Scene) -> None:
    """The planner estimates rows from statistics over everyone's rows: with them, EXPLAIN's estimate
    for bob's twelve identical notes stood out from a value no one wrote."""
    with scene.owner_sql() as o:
        o.execute("ANALYZE")
        kept = o.execute(
            "SELECT s.tablename || '.' || s.attname FROM pg_stats s "
            "JOIN pg_attribute a ON a.attrelid = to_regclass(s.tablename) AND a.attname = s.attname "
            "WHERE s.schemaname = 'public' AND s.tablename = ANY(%s) AND NOT EXISTS (SELECT 1 FROM pg_constraint k "
            "WHERE k.conrelid = a.attrelid AND k.contype IN ('p', 'f') AND a.attnum = ANY(k.conkey))",
            (sorted(rls.covered_tables()),),
        ).fetchall()
    assert kept == [], "statistics of content columns"

    def estimate(conn: psycopg.Connection[Any], table: str, column: str, value: str) -> int:
        plan = conn.execute(
            f"EXPLAIN (FORMAT JSON) SELECT * FROM {table} WHERE {column} = %s", (value,)
        ).fetchone()[0]
        return int(plan[0]["Plan"]["Plan Rows"])

    with scene.sql("alice") as a:
        assert (
            a.execute(
                "SELECT count(*) FROM pg_stats WHERE tablename = ANY(%s)", (sorted(rls.covered_tables()),)
            ).fetchone()[0]
            == 0
        )
        for table, column, value in (("note", "text", f"note {SECRET}"), ("document_label", "value", SECRET),
                                     ("set_skip", "reason", f"irrelevant {SECRET}")):  # fmt: skip
            assert estimate(a, table, column, value) == estimate(a, table, column, "no one wrote this"), table


def test_explain_and_activity_show_no_content(scene: Scene) -> None:
    bob_set = scene.ids["bob-open"]
    with scene.sql("bob") as bob, scene.sql("alice") as a:
        bob.execute(f"SELECT '{SECRET}' AS mine")
        plans = [
            r[0]
            for q in (
                "SELECT * FROM span WHERE set_id = %s",
                "SELECT * FROM note WHERE set_id = %s AND text LIKE 'note%%'",
            )
            for r in a.execute(f"EXPLAIN (ANALYZE, VERBOSE, BUFFERS) {q}", (bob_set,))
        ]
        assert plans and not [p for p in plans if SECRET in p]
        activity = a.execute("SELECT usename, query FROM pg_stat_activity WHERE usename = %s",
                             (scene.roles.name("bob"),)).fetchall()  # fmt: skip
        assert activity and all(
            q == "<insufficient privilege>" for _, q in activity
        )  # who is online, not what


# -- locks -----------------------------------------------------------------------------------------------


def test_lock_table_is_refused_and_what_she_may_lock_stalls_no_one(scene: Scene) -> None:
    with scene.sql("alice") as a:
        for table in sorted(rls.covered_tables()):
            for mode in (
                "SHARE UPDATE EXCLUSIVE",
                "SHARE",
                "SHARE ROW EXCLUSIVE",
                "EXCLUSIVE",
                "ACCESS EXCLUSIVE",
            ):
                refused(a, f"LOCK TABLE {table} IN {mode} MODE")
        assert {k: a.execute(f"SHOW {k}").fetchone()[0] for k in rls.LOGIN_SETTINGS} == rls.LOGIN_SETTINGS
        # what she may hold (ROW EXCLUSIVE with her INSERT right, row locks on her own set) blocks
        # neither bob's edits nor the owner's reads
        done: list[str] = []
        with a.transaction():
            a.execute("LOCK TABLE span, annotation_set IN ROW EXCLUSIVE MODE")
            assert a.execute("SELECT id FROM annotation_set FOR UPDATE").fetchall()  # her own sets' rows

            def bob_edits() -> None:
                bob = scene.login("bob")
                s = bob.my_set("open").info
                bob.edit_set(
                    s.id, [Put(Span("T9", "protein", ((44, 53),), "zebrafish"))], expected_version=s.version
                )
                bob.edit_set(s.id, [Remove("span", "T9")], expected_version=s.version + 1)
                scene.owner.status()
                done.append("bob")

            t = threading.Thread(target=bob_edits)
            t.start()
            t.join(60)
        assert done == ["bob"]


# -- what the owner sees, and the work that must go on ------------------------------------------------


def test_the_owners_views_never_show_forged_gold(
    scene: Scene, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine, spare = scene.ids["alice-open"], scene.ids["spare"]
    with scene.sql("alice") as a:  # every way she had to make gold of her own
        for stmt, params in (
            ("UPDATE annotation_set SET kind = 'gold' WHERE id = %s", (mine,)),
            ("INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, version, "
             "created, updated) VALUES (%s, %s, 'gold', 'submitted', 1, 1, now(), now())", (spare, scene.ids["alice"])),
            (ROWS["span"].format(s=scene.ids["gold-done"]), ()),
        ):  # fmt: skip
            with pytest.raises(pgerr.InsufficientPrivilege):
                a.execute(stmt, params)
    url = scene.url
    with scene.owner_sql() as o:  # the gold the adjudication made: no annotator
        made = dict(o.execute("SELECT s.id, d.external_id FROM annotation_set s JOIN document d "
                              "ON d.id = s.document_id WHERE s.kind = 'gold' AND s.annotator_id IS NULL").fetchall())  # fmt: skip
    assert scene.ids["gold-done"] in made
    assert main(["--db", url, "-f", "json", "sets", "--kind", "gold"]) == 0
    assert sorted(g["id"] for g in json.loads(capsys.readouterr().out)) == sorted(made)
    assert main(["--db", url, "-f", "json", "status"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["documents_with_gold"] == len(made) == sum(status["sets_by_kind_status"]["gold"].values())
    assert main(["--db", url, "export", "brat", "--gold", "--flat", str(tmp_path / "gold")]) == 0
    written = sorted(p.name for p in (tmp_path / "gold").iterdir())
    assert written == sorted(f"{d}.{x}" for d in made.values() for x in ("ann", "txt"))
    assert (tmp_path / "gold" / "done.ann").read_text().splitlines() == ["T1\tprotein 0 4\tIL-2"]


def test_planted_gold_is_refused_and_adjudication_stays_blind(scene: Scene) -> None:
    """The issue's attack: alice plants gold on a document bob is still annotating, and reads the
    adjudicator's later decisions through it. Refused; judy's and lena's logins work as before."""
    scene.owner.add_documents([Document("plant", TEXT)])
    scene.owner.assign(["plant"], ["alice", "bob"])
    plant = scene.one("SELECT id FROM document WHERE external_id = 'plant'")
    with scene.sql("alice") as a:
        refused(a, "INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, version, "
                   "created, updated) VALUES (%s, %s, 'gold', 'assigned', 1, 1, now(), now())", (plant, scene.ids["alice"]))  # fmt: skip
    for who, spans in (("alice", (Span("T1", "protein", ((0, 4),), "IL-2"),)),
                       ("bob", (Span("T1", "protein", ((0, 4),), "IL-2"), Span("T2", "protein", ((44, 53),), "zebrafish")))):  # fmt: skip
        me = scene.login(who)
        s = me.my_set("plant").info
        me.replace_set(s.id, Annotations(spans=spans), expected_version=s.version)
        me.submit(s.id)
    judy = scene.login("judy")
    judy.merge("plant")
    [dc] = judy.conflicts("plant")  # bob's zebrafish: taken, then the decision revised (superseded)
    [key] = [x.key for x in dc.conflicts]
    first = judy.resolve("plant", key, take="bob")
    judy.resolve("plant", key, reject=True, reason="not a protein", revise=True)
    assert [d.superseded_by for d in judy.decisions("plant") if d.id == first.decision.id] != [None]
    gold = judy.gold("plant").info
    judy.correct("plant", action="add", item=Span("T5", "protein", ((54, 61),), "T cells"), reason="missed")
    assert scene.one("SELECT count(*) FROM decision WHERE gold_set_id = %s", gold.id) > 0
    assert scene.one("SELECT count(*) FROM span WHERE set_id = %s", gold.id) >= 2
    with scene.sql("alice") as a:
        assert a.execute("SELECT count(*) FROM span WHERE set_id = %s", (gold.id,)).fetchone()[0] == 0
        assert a.execute("SELECT count(*) FROM decision").fetchone()[0] == 0
        assert a.execute("UPDATE span SET type = 'x' WHERE set_id = %s", (gold.id,)).rowcount == 0
        refused(a, _row(scene, "span", gold.id))
    lena = scene.login("lena")  # a lead's login reopens alice's set; alice edits it again
    alice_plant = next(h.id for h in lena.set_headers(document="plant") if h.annotator == "alice")
    lena.reopen(alice_plant, reason="one more span")
    alice = scene.login("alice")
    s = alice.my_set("plant").info
    alice.edit_set(s.id, [Put(Span("T3", "protein", ((44, 53),), "zebrafish"))], expected_version=s.version)
    assert scene.one("SELECT count(*) FROM span WHERE set_id = %s", s.id) == 2


def test_alices_own_work_still_works_through_her_login(scene: Scene) -> None:
    """Everything the API does for an annotator goes through the hardened server: leased ids,
    column-wise updates, deletes through ``corpusdb_delete`` (edits rewrite the set, undo stacks,
    skips) — even with no TEMP right on the database (the README's advice: the lease table is the
    owner's)."""
    with scene.owner_sql() as o:
        database = o.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        o.execute(f'REVOKE TEMP ON DATABASE "{database}" FROM PUBLIC')
    try:
        _alices_work(scene)
        with scene.sql("alice") as a:
            refused(a, "CREATE TEMP TABLE mine (x int)")
    finally:
        with scene.owner_sql() as o:
            o.execute(f'GRANT TEMP ON DATABASE "{database}" TO PUBLIC')


def _alices_work(scene: Scene) -> None:
    alice = scene.login("alice")
    s = alice.my_set("open").info
    added = Span("T8", "protein", ((54, 61),), "T cells")
    r = alice.edit_set(s.id, [Put(added)], expected_version=s.version, history="do", description="add")
    assert added in r.annotations.spans and len(alice.edit_history(s.id).undo) == 1
    r = alice.edit_set(s.id, list(r.inverse), expected_version=r.info.version, history="undo")
    assert added not in r.annotations.spans and len(alice.edit_history(s.id).redo) == 1
    alice.skip(s.id, "off topic")
    alice.unskip(s.id)
    info = alice.replace_set(s.id, alice_open(), expected_version=r.info.version)
    assert alice.read_set(s.id).annotations.spans == alice_open().spans
    with scene.owner_sql() as o:
        assert o.execute("SELECT count(*) FROM set_skip WHERE set_id = %s", (s.id,)).fetchone()[0] == 0
        assert (
            o.execute("SELECT version FROM annotation_set WHERE id = %s", (s.id,)).fetchone()[0]
            == info.version
        )


def test_an_upgrade_takes_back_what_0007_granted(scene: Scene) -> None:
    """A database at 0009 gave its logins table-level UPDATE and DELETE (so LOCK TABLE) and every
    sequence, and kept statistics of content: ``install`` (migration 0010) takes them back."""
    alice = scene.roles.name("alice")
    with scene.owner_sql() as o:
        o.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON span, note TO "{alice}"')
        o.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "{alice}"')
        o.execute("ALTER TABLE note ALTER COLUMN text SET STATISTICS -1")
        o.execute("ANALYZE note")
        assert (
            o.execute(
                "SELECT count(*) FROM pg_stats WHERE tablename = 'note' AND attname = 'text'"
            ).fetchone()[0]
            == 1
        )
    with scene.sql("alice") as a, a.transaction():
        a.execute("LOCK TABLE span IN ACCESS EXCLUSIVE MODE")  # what 0007's grants allowed
    engine = scene.owner.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        rls.install(conn)
    with scene.owner_sql() as o:
        assert (
            o.execute(
                "SELECT count(*) FROM pg_stats WHERE tablename = 'note' AND attname = 'text'"
            ).fetchone()[0]
            == 0
        )
        o.execute("ANALYZE note")
        assert (
            o.execute(
                "SELECT count(*) FROM pg_stats WHERE tablename = 'note' AND attname = 'text'"
            ).fetchone()[0]
            == 0
        )
    with scene.sql("alice") as a:
        refused(a, "LOCK TABLE span IN ACCESS EXCLUSIVE MODE")
        refused(a, "DELETE FROM note")
        refused(a, "SELECT last_value FROM note_id_seq")


def test_readme_lists_what_the_server_cannot_close() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("**Not enforced by the server**")
    end = text.find("\n## ", start)
    section = text[start : end if end >= 0 else len(text)]
    for channel in ("Rows Removed by Filter", "pg_stat_user_tables", "reltuples", "pg_locks", "pg_stat_activity",
                    "ids", "pg_terminate_backend", "lock_timeout", "TEMP"):  # fmt: skip
        assert channel in section, channel


def test_the_per_statement_functions_answer_as_the_rules_they_replace(scene: Scene) -> None:
    """``corpusdb_sets`` (one query per kind of access, an annotator's own sets through the annotator
    index) gives every role exactly the sets of the single query it replaced, for every kind of
    access, a set planted on another project's document included; ``corpusdb_projects`` names exactly
    the projects where ``corpusdb_role_in`` gives one of the roles. Asked as the owner (who may ask
    about anyone), in a transaction rolled back afterwards."""
    people = {n: scene.roles.name(n) for n in ("alice", "bob", "judy", "lena", "mallory")}
    old = (
        "SELECT coalesce(array_agg(s.id ORDER BY s.id), '{}') FROM team_login t "
        "JOIN annotator a ON a.id = t.annotator_id JOIN document d ON d.project_id = t.project_id "
        "JOIN annotation_set s ON s.document_id = d.id WHERE t.role_name = %(who)s::text AND "
        + rls._rule("s.document_id", "s.annotator_id", "s.kind", "s.status", "%(what)s::text")
    )
    new = "SELECT coalesce(array_agg(i ORDER BY i), '{}') FROM corpusdb_sets(%(who)s, %(what)s) i"
    role_in = (
        "SELECT coalesce(array_agg(p.id ORDER BY p.id), '{}') FROM project p "
        "WHERE corpusdb_role_in(p.id, %(who)s) = ANY(%(roles)s::text[])"
    )
    projects = (
        "SELECT coalesce(array_agg(i ORDER BY i), '{}') FROM corpusdb_projects(%(who)s, %(roles)s::text[]) i"
    )
    with psycopg.connect(scene.libpq()) as o:  # a transaction, rolled back at the end
        # bob's name on a set of another project's document (what a lead there could write)
        q = o.execute("INSERT INTO project (name, schema_name, created) VALUES ('q', 'biorelex-1.0', now()) "
                      "RETURNING id").fetchone()[0]  # type: ignore[index]  # fmt: skip
        doc = o.execute("INSERT INTO document (project_id, external_id, text, sha256, source, created) "
                        "VALUES (%s, 'elsewhere', 'x', 'x', 'x', now()) RETURNING id", (q,)).fetchone()[0]  # type: ignore[index]  # fmt: skip
        bob = o.execute("SELECT id FROM annotator WHERE name = 'bob'").fetchone()[0]  # type: ignore[index]
        for kind, status in (("annotation", "assigned"), ("gold", "submitted"), ("prediction", "submitted")):
            o.execute("INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, "
                      "version, created, updated) VALUES (%s, %s, %s, %s, 1, 1, now(), now())",
                      (doc, bob if kind != "gold" else None, kind, status))  # fmt: skip
        o.execute("INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, "
                  "version, created, updated) VALUES (%s, %s, 'prediction', 'assigned', 1, 1, now(), now())",
                  (scene.ids["spare"], bob))  # fmt: skip
        seen = 0
        for who in people.values():
            for what in rls.WHATS:
                p = {"who": who, "what": what}
                want = o.execute(old, p).fetchone()[0]  # type: ignore[index]
                assert o.execute(new, p).fetchone()[0] == want, (who, what)  # type: ignore[index]
                seen += len(want)
            for roles in (list(rls.MEMBERS), list(rls.ADJUDICATORS), list(rls.LEADS), ["annotator"]):
                p = {"who": who, "roles": roles}
                assert o.execute(projects, p).fetchone()[0] == o.execute(role_in, p).fetchone()[0], (
                    who,
                    roles,
                )  # type: ignore[index]
        assert seen > 20  # (the rules were asked about sets, not about nothing)
        o.rollback()
