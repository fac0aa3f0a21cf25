"""Team mode on PostgreSQL: the blindness rules of ``corpusdb.services.access``, enforced by the server.

Why: ``--as`` and ``Corpus.open(user=...)`` are trusted names. With a login role per person
(``corpusdb team login``), row-level security policies decide what each connection sees and may
write, so plain SQL as alice shows alice exactly what the API shows her — and nothing else.

The rules, per role of the connection's annotator (``team_login`` maps a role to one annotator of
a project), mirror ``corpusdb.services.access``:

* set **content** (spans, relations, arguments, links, notes, labels, decisions): an annotator or
  system sees its own non-gold sets; an adjudicator or lead also sees gold and prediction sets and
  every set of a document whose annotation sets are all submitted;
* set **headers** (the ``annotation_set`` row: who, status, version, and its ``extra`` column, which
  RLS cannot hide column by column): own sets; adjudicators and leads all;
* **writes** to a set's content: its owner while it is an unsubmitted *annotation* set (a system
  also its predictions); an adjudicator also gold sets; a lead any set of the project. Decisions
  only in gold sets, by adjudicators and leads. A set header is inserted only by a lead (an
  adjudicator: a gold set with no annotator) and deleted only by a lead; its kind, annotator and
  document are never changed by a team login (no column privilege), nor any row's id, set or project;
* an item may refer (a link's ends, a relation's trigger and arguments) only to items of its own
  set: a foreign key is checked past row-level security, so without this alice could point at bob's
  span, learn that it exists and stop bob from deleting it;
* project tables: documents, annotators, guidelines readable by members, written by leads;
  releases, corrections and the audit trail readable by adjudicators and leads; corrections
  written by adjudicators and leads; audit events inserted (and read back) by any member under
  their own name only.

Side channels closed here (what stays open is listed in the README's "Not enforced by the server"):

* **ids**: team logins have no right on any sequence (its ``last_value`` counted everyone's rows).
  Ids come from ``corpusdb_next_ids`` (and the ``id`` columns' default, ``corpusdb_next_id``), run
  as the owner; a team session may insert only ids the server handed to it in the same transaction
  (leases in a temporary table only the owner can write), so it cannot probe whether row ``N``
  exists through a unique violation, nor take ids ahead of the sequence;
* **statistics**: every column but keys has statistics target 0 (and its old statistics purged):
  the planner's estimates for ``text = 'guess'`` or ``text < 'm'`` were computed from everyone's
  rows, a way to read frequent values and histogram bounds of hidden spans;
* **locks**: team logins get ``UPDATE`` column by column and no ``DELETE``/``TRUNCATE``: PostgreSQL
  lets ``LOCK TABLE`` take modes above ``ROW EXCLUSIVE`` only with a table-level ``UPDATE``,
  ``DELETE`` or ``TRUNCATE`` (or, from 17, ``MAINTAIN``) right, so ``LOCK span IN ACCESS EXCLUSIVE
  MODE`` is refused. Rows are deleted through ``corpusdb_delete`` (``delete_rows`` below), which
  applies the delete rules;
* **functions**: every ``SECURITY DEFINER`` function is revoked from ``PUBLIC`` (granted to team
  logins only, as policies run them as the querying role), pins ``search_path``, and answers only
  about the asking role and what it may read or write.

Covering a new table is one line: a table whose rows belong to an annotation set goes in
``SET_OWNED`` (its set column, or ``Via(parent table, column)`` for rows that hang off such a
table's rows), a table that belongs to a project in ``PROJECT_SCOPED`` (a shared task's team or
run table in ``TEAM_SCOPED``: organizers and that team's members read it), a table whose rows belong
to one annotator alone in ``PERSONAL``. ``install`` (run by
migrations 0007 and 0010 and after every later upgrade) then enables RLS, writes the policies and
grants the team roles access; a table in neither list is not granted at all, so a new table fails
closed for team roles until it has its line.

The policies call ``SECURITY DEFINER`` functions (owned by the database owner, who bypasses RLS)
because the rule for a set depends on *other* sets of its document, which a policy on
``annotation_set`` could not read without recursing into itself. Each function takes the asking
role (``current_user`` in the policy) and refuses to answer for another role when the session
itself logged in as a team role, so alice cannot ask "may bob read set 7?".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, delete, select, text

from corpusdb.store.text_index import WORDS_MAX, words_sql


@dataclass(frozen=True, slots=True)
class Via:
    """Rows that belong to a set through a parent row: ``column`` holds the id of a row of ``parent``
    (a table of ``SET_OWNED`` with a set column), e.g. a relation's arguments through the relation."""

    parent: str
    column: str


# table -> the column holding the id of the set a row belongs to, or Via(parent, column).
# ``annotation_set`` itself is special-cased (its policies look at its own columns).
SET_OWNED: dict[str, str | Via] = {
    "span": "set_id",
    "relation": "set_id",
    "relation_arg": Via("relation", "relation_id"),
    "entity": "set_id",
    "link": "set_id",
    "note": "set_id",
    "document_label": "set_id",
    "decision": "gold_set_id",
    "edit_history": "set_id",
    "set_skip": "set_id",
    "suggestion": "set_id",  # a recommender's proposals on one annotator's set: as blind as the set
    "queue_position": "set_id",  # where the set stands in its annotator's queue (assign --order)
}

# table -> column naming the one annotator a row belongs to: only that annotator's login reads or
# writes it (a recommender's part learned from her own unadjudicated sets: not even a lead reads it).
PERSONAL: dict[str, str] = {
    "recommender_model": "annotator_id",
}

DECISIONS = ("decision",)
"""Tables of SET_OWNED written only into gold sets, by adjudicators and leads."""

REFERENCES: dict[str, dict[str, str]] = {
    "relation": {"trigger_id": "span"},
    "relation_arg": {"span_id": "span", "arg_relation_id": "relation", "entity_id": "entity"},
    "link": {"source_id": "span", "target_id": "span"},
}
"""table -> {column: table of SET_OWNED it refers to}: the row referred to must be in the same set."""

MEMBERS = ("annotator", "system", "adjudicator", "lead")
ADJUDICATORS = ("adjudicator", "lead")
LEADS = ("lead",)
AUDIT = "audit"  # writers: any member, inserting events under their own name only

# table -> (SQL giving the row's project id, roles that read, roles that write)
PROJECT_SCOPED: dict[str, tuple[str, tuple[str, ...], tuple[str, ...] | str]] = {
    "project": ("id", MEMBERS, LEADS),
    "guideline": ("project_id", MEMBERS, LEADS),
    "annotator": ("project_id", MEMBERS, LEADS),
    "document": ("project_id", MEMBERS, LEADS),
    "release": ("project_id", ADJUDICATORS, LEADS),
    "correction": ("project_id", ADJUDICATORS, ADJUDICATORS),
    "audit_event": ("project_id", ADJUDICATORS, AUDIT),
    # relevance judging: topics are every judge's instructions; runs (which system retrieved what, at
    # which rank) are a lead's alone, or judging would not be blind
    "topic": ("project_id", MEMBERS, LEADS),
    "run": ("project_id", LEADS, LEADS),
    "run_entry": ("(SELECT r.project_id FROM run r WHERE r.id = run_id)", LEADS, LEADS),
    # recommenders and their shared part (learned from gold of adjudicated documents only)
    "recommender": ("project_id", MEMBERS, LEADS),
    # shared tasks: a task's definition is every member's; its teams and runs are below (TEAM_SCOPED)
    "shared_task": ("project_id", MEMBERS, LEADS),
}

_TASK_PROJECT = "(SELECT t.project_id FROM shared_task t WHERE t.id = task_id)"
# table -> (SQL giving the row's project id, SQL giving the id of the task team the row belongs to)
TEAM_SCOPED: dict[str, tuple[str, str]] = {
    "task_team": (_TASK_PROJECT, "id"),
    "task_run": (_TASK_PROJECT, "team_id"),
    "task_submission": (_TASK_PROJECT, "team_id"),
}
"""Shared-task teams and runs: adjudicators and leads (the organizers) read every row and leads write;
an annotator named in a team's ``members`` reads that team's row and runs, and nothing of other teams."""

MEMBER_INSERTS = ("task_submission",)
"""TEAM_SCOPED tables a team's member may also INSERT into: only for their own team, under their own
name (``submitted_by``) and as ``queued`` (a run handed in for the organizers' intake); never UPDATE
or DELETE."""

FROZEN: dict[str, tuple[str, ...]] = {
    "annotation_set": ("document_id", "annotator_id", "kind", "seeded_from", "created"),
    "run_entry": ("run_id",),
}
"""Columns no team login may UPDATE, besides every table's ``id``, set column and ``project_id``."""

READ_ONLY = ("team_login", "alembic_version", "kb", "kb_concept", "kb_name", "kb_parent")
"""Tables a team role may read but never write (``team_login`` only its own rows). The knowledge
bases (``kb*``) belong to the database, not to a project or a set: every member reads them (to
look names up and see labels); only the owner loads, updates or removes them."""

LOGIN_SETTINGS: dict[str, str] = {
    "lock_timeout": "1min",
    "statement_timeout": "15min",
    "idle_in_transaction_session_timeout": "10min",
}
"""Session defaults of every team login in this database (``ALTER ROLE ... IN DATABASE ... SET``):
a transaction left open (holding its row locks) ends after 10 minutes, a statement after 15, a
wait for a lock after 1. They guard against accidents only: a login may change its own settings."""

PRIVATE = ("login_password", "login_state")

LOGIN_PERSON_FUNCTIONS = (
    "corpusdb_login_succeeded(integer, text)",
    "corpusdb_login_logout(integer, text, text)",
    "corpusdb_login_valid(integer)",
    "corpusdb_login_last_document(integer)",
    "corpusdb_login_remember(integer, text)",
)
"""The ``SECURITY DEFINER`` login functions (``corpusdb.store.login_pgsql``) a logged-in person calls:
revoked from PUBLIC and granted to team logins like the policies' functions (named here because the
grants are made here)."""
"""Tables no team role is granted at all: login secrets and counters, reached on PostgreSQL only through
the ``SECURITY DEFINER`` login functions of ``corpusdb.store.login_pgsql``."""

ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_POLICY_NAMES = ("corpusdb_read", "corpusdb_insert", "corpusdb_update", "corpusdb_delete",
                 "corpusdb_insert_guard", "corpusdb_update_guard")  # fmt: skip
_LEGACY_FUNCTIONS = ("corpusdb_may_set(integer, integer, text, name, text)", "corpusdb_set_of(text, integer)")
"""Signatures of earlier installs, dropped when the current ones are created."""
_LEGACY_VIA = re.compile(r"^corpusdb_set_of\('(\w+)',\s*(\w+)\)$")


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def is_postgres(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def current_schema(conn: Connection) -> str:
    return str(conn.execute(text("SELECT current_schema()")).scalar_one())


def _owned() -> dict[str, str | Via]:
    """SET_OWNED with the older spelling of a parent-row line (``"corpusdb_set_of('p', col)"``)
    read as ``Via('p', 'col')``, so a line written for an earlier release still works."""
    out: dict[str, str | Via] = {}
    for table, how in SET_OWNED.items():
        m = _LEGACY_VIA.match(how) if isinstance(how, str) else None
        out[table] = Via(m.group(1), m.group(2)) if m else how
    return out


def _set_column_tables() -> list[str]:
    return [t for t, how in _owned().items() if isinstance(how, str)]


def _in_list(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(_literal(n) for n in names) or "NULL"


# -- the rule for one set ---------------------------------------------------------------------------


WHATS = ("header", "content", "write", "keep", "decide", "create", "drop")
"""What ``_rule`` is asked (see there)."""


def _rule(doc: str, owner: str, kind: str, status: str, what: str = "what") -> str:
    """The rules of corpusdb.services.access for one set (its document, owner, kind and status) and annotator
    ``a`` of the asking role. ``what``:

    * 'header' (who/status) and 'content' (the annotations): reading;
    * 'write': changing the set's content or header (checked on the set as it is);
    * 'keep': what a changed header must still be (its status may change: submitting);
    * 'decide': writing decisions (gold only); 'create' / 'drop': inserting / deleting a header.

    ``what``: the SQL naming what is asked (a parameter, or one of WHATS as a literal: the planner
    then drops every other clause).
    """
    own = f"{owner} = a.id AND ({kind} = 'annotation' OR ({kind} = 'prediction' AND a.role = 'system'))"
    return f"""(
        ({what} = 'header' AND ({owner} = a.id OR a.role IN ('adjudicator', 'lead')))
        OR ({what} = 'content' AND (
              ({owner} = a.id AND {kind} <> 'gold')
              OR (a.role IN ('adjudicator', 'lead') AND (
                    {kind} IN ('gold', 'prediction')
                    OR NOT EXISTS (SELECT 1 FROM annotation_set o WHERE o.document_id = {doc}
                                   AND o.kind = 'annotation' AND o.status <> 'submitted')))))
        OR ({what} IN ('write', 'keep') AND (
              a.role = 'lead'
              OR (a.role = 'adjudicator' AND {kind} = 'gold')
              OR ({own} AND ({what} = 'keep' OR {status} <> 'submitted'))))
        OR ({what} = 'decide' AND {kind} = 'gold' AND a.role IN ('adjudicator', 'lead'))
        OR ({what} = 'create' AND (a.role = 'lead'
                                 OR (a.role = 'adjudicator' AND {kind} = 'gold' AND {owner} IS NULL)))
        OR ({what} = 'drop' AND a.role = 'lead')
    )"""


def _functions(schema: str) -> list[str]:
    path = f"SET search_path = {quote_ident(schema)}, pg_temp"
    # The session guard: a session that logged in as a team role may only ask about itself.
    team = "EXISTS (SELECT 1 FROM team_login x WHERE x.role_name = session_user::text)"
    guard = f"(who::text = session_user::text OR NOT {team})"
    set_tables = f"ARRAY[{_in_list(_set_column_tables())}]::text[]"
    lease = "pg_temp.corpusdb_id_lease"
    # the lease table is made by the owner (in this function); one made by the session is refused
    ours = (
        "(SELECT c.relowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) "
        "FROM pg_class c WHERE c.oid = to_regclass('pg_temp.corpusdb_id_lease'))"
    )
    return [
        f"""CREATE OR REPLACE FUNCTION corpusdb_role_in(pid integer, who name) RETURNS text
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT a.role FROM team_login t JOIN annotator a ON a.id = t.annotator_id
          WHERE t.project_id = pid AND t.role_name = who::text AND {guard}
        $$""",
        # The projects where ``who`` has one of ``roles``: the project-scoped policies test
        # ``project_id IN (SELECT corpusdb_projects(...))``, a hashed lookup computed once per
        # statement, where ``corpusdb_role_in(project_id, ...) IN (...)`` was a call per row (a
        # SECURITY DEFINER function is never inlined: 3,816 documents a word matched cost 67 ms of
        # calls). The same answer: a role has at most one team login per project (unique).
        f"""CREATE OR REPLACE FUNCTION corpusdb_projects(who name, roles text[]) RETURNS SETOF integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT t.project_id FROM team_login t JOIN annotator a ON a.id = t.annotator_id
          WHERE t.role_name = who::text AND a.role = ANY (roles) AND {guard}
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_name_in(pid integer, who name) RETURNS text
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT a.name FROM team_login t JOIN annotator a ON a.id = t.annotator_id
          WHERE t.project_id = pid AND t.role_name = who::text AND {guard}
        $$""",
        # what: see _rule
        f"""CREATE OR REPLACE FUNCTION corpusdb_may_set(doc integer, owner integer, set_kind text,
                                                        set_status text, who name, what text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT EXISTS (
            SELECT 1 FROM document d
            JOIN team_login t ON t.project_id = d.project_id AND t.role_name = who::text
            JOIN annotator a ON a.id = t.annotator_id
            WHERE d.id = doc AND {guard} AND {_rule("doc", "owner", "set_kind", "set_status")}
          )
        $$""",
        # Every set the role may touch, computed once per statement: the content tables' policies
        # test ``set_id IN (SELECT corpusdb_sets(...))``, a hashed lookup rather than a call per row.
        _sets_function(path, guard),
        # For set headers, by columns (a row being inserted with RETURNING is not in the table yet):
        # the role's own annotators, and the documents of projects it adjudicates or leads.
        f"""CREATE OR REPLACE FUNCTION corpusdb_my_annotators(who name) RETURNS SETOF integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT t.annotator_id FROM team_login t WHERE t.role_name = who::text AND {guard}
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_overseen_documents(who name) RETURNS SETOF integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT d.id FROM team_login t JOIN annotator a ON a.id = t.annotator_id
          JOIN document d ON d.project_id = t.project_id
          WHERE t.role_name = who::text AND a.role IN ('adjudicator', 'lead') AND {guard}
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_may(sid integer, who name, what text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT coalesce((SELECT corpusdb_may_set(s.document_id, s.annotator_id, s.kind, s.status, who, what)
                           FROM annotation_set s WHERE s.id = sid), false)
        $$""",
        # Full-text candidates for a team login (corpusdb.search): under row-level security
        # PostgreSQL uses no text index (``@@`` is not leakproof, so it is never evaluated before a
        # policy) and would scan every text. Run as the owner, the words index answers; only the
        # documents of ``pid`` the session's own role reads (every member reads every text of her
        # project: the ``document`` policy) come back, so it tells nothing a scan would not.
        f"""CREATE OR REPLACE FUNCTION corpusdb_text_candidates(pid integer, q tsquery) RETURNS SETOF integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT d.id FROM document d
          WHERE d.project_id = pid AND (SELECT corpusdb_role_in(pid, session_user)) IN ({_roles(MEMBERS)})
            AND ({words_sql("d.text")} @@ q OR octet_length(d.text) >= {WORDS_MAX})
        $$""",
        # Trigram candidates for a team login's ``ILIKE`` literals (a regex's literal run, a word the
        # words index does not answer): under row-level security ``ILIKE`` (not leakproof) is never
        # evaluated before a policy, so the trigram index goes unused and every text is read. Run as
        # the owner, the trigram index answers; the guard is corpusdb_text_candidates's (only
        # documents of ``pid``, only when the session's own role is a member there: every member
        # reads every text of her project, the ``document`` policy). The exact match is still made
        # by the caller, on texts it reads under the policies.
        f"""CREATE OR REPLACE FUNCTION corpusdb_like_candidates(pid integer, pattern text) RETURNS SETOF integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT d.id FROM document d
          WHERE d.project_id = pid AND (SELECT corpusdb_role_in(pid, session_user)) IN ({_roles(MEMBERS)})
            AND d.text ILIKE pattern
        $$""",
        # Whether a set exists, and in which project (lets the API refuse "not yours" as it always
        # did): to a team session only for sets of its own projects (set ids are sequential anyway).
        f"""CREATE OR REPLACE FUNCTION corpusdb_set_project(sid integer) RETURNS integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT d.project_id FROM annotation_set s JOIN document d ON d.id = s.document_id
          WHERE s.id = sid AND (NOT {team} OR EXISTS (SELECT 1 FROM team_login x
                WHERE x.role_name = session_user::text AND x.project_id = d.project_id))
        $$""",
        # The set of a parent row (a relation's, for its arguments), read past the caller's RLS (a
        # lead pre-annotating another's set writes there without reading it), and only for a set
        # ``who`` may read or write: NULL otherwise, so it counts no one else's rows. Only tables
        # with a set column listed in SET_OWNED are accepted. (No percent sign in these bodies: the
        # driver would read a placeholder.)
        f"""CREATE OR REPLACE FUNCTION corpusdb_set_of(parent text, pid integer, who name) RETURNS integer
        LANGUAGE plpgsql STABLE SECURITY DEFINER {path} AS $$
          DECLARE sid integer;
          BEGIN
            IF parent <> ALL ({set_tables}) THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_set_of: ' || parent || ' is not a table of set items';
            END IF;
            EXECUTE 'SELECT set_id FROM ' || quote_ident(parent) || ' WHERE id = $1' INTO sid USING pid;
            IF sid IS NULL OR NOT (corpusdb_may(sid, who, 'write') OR corpusdb_may(sid, who, 'content')) THEN
              RETURN NULL;
            END IF;
            RETURN sid;
          END
        $$""",
        # Whether row ``rid`` of ``tbl`` is in set ``sid``, a set ``who`` may write (else false: no
        # answer about anyone else's rows). NULL references are fine (optional columns).
        f"""CREATE OR REPLACE FUNCTION corpusdb_in_set(tbl text, rid integer, sid integer, who name)
        RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER {path} AS $$
          DECLARE found boolean;
          BEGIN
            IF rid IS NULL THEN RETURN true; END IF;
            IF tbl <> ALL ({set_tables}) THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_in_set: ' || tbl || ' is not a table of set items';
            END IF;
            IF sid IS NULL OR NOT corpusdb_may(sid, who, 'write') THEN RETURN false; END IF;
            EXECUTE 'SELECT EXISTS (SELECT 1 FROM ' || quote_ident(tbl) || ' WHERE id = $1 AND set_id = $2)'
              INTO found USING rid, sid;
            RETURN found;
          END
        $$""",
        # Ids: from the table's own sequence, run as the owner (team logins have no right on any
        # sequence). For a team session each id is also leased to its transaction, and the insert
        # policies accept only leased ids (corpusdb_leased).
        f"""CREATE OR REPLACE FUNCTION corpusdb_next_ids(tbl text, n integer) RETURNS SETOF bigint
        LANGUAGE plpgsql VOLATILE SECURITY DEFINER {path} AS $$
          DECLARE seq text;
          BEGIN
            IF n IS NULL OR n < 0 THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_next_ids: a count of ids is 0 or more';
            END IF;
            IF to_regclass({_literal(quote_ident(schema))} || '.' || quote_ident(tbl)) IS NULL THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_next_ids: no table ' || tbl;
            END IF;
            seq := pg_get_serial_sequence({_literal(quote_ident(schema))} || '.' || quote_ident(tbl), 'id');
            IF seq IS NULL THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_next_ids: ' || tbl || ' has no id sequence';
            END IF;
            IF NOT {team} THEN
              RETURN QUERY SELECT nextval(seq) FROM generate_series(1, n);
              RETURN;
            END IF;
            IF to_regclass('{lease}') IS NULL THEN
              CREATE TEMP TABLE corpusdb_id_lease (tbl text NOT NULL, id bigint NOT NULL,
                                                   PRIMARY KEY (tbl, id)) ON COMMIT DELETE ROWS;
            ELSIF NOT {ours} THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb: a temporary table corpusdb_id_lease made by this session is in the way';
            END IF;
            RETURN QUERY INSERT INTO {lease} (tbl, id) SELECT tbl, nextval(seq) FROM generate_series(1, n)
              RETURNING id;
          END
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_next_id(tbl text) RETURNS bigint
        LANGUAGE sql VOLATILE SECURITY DEFINER {path} AS $$
          SELECT corpusdb_next_ids(tbl, 1)
        $$""",
        # VOLATILE: it must see the leases taken earlier in the same statement (an id column's default)
        f"""CREATE OR REPLACE FUNCTION corpusdb_leased(tbl text, rid bigint) RETURNS boolean
        LANGUAGE plpgsql VOLATILE SECURITY DEFINER {path} AS $$
          BEGIN
            IF to_regclass('{lease}') IS NULL OR NOT {ours} THEN RETURN false; END IF;
            RETURN EXISTS (SELECT 1 FROM {lease} l WHERE l.tbl = $1 AND l.id = $2);
          END
        $$""",
        _delete_function(path, guard),
    ]


def _sets_function(path: str, guard: str) -> str:
    """``corpusdb_sets(who, what)``: the ids of every set ``who`` may touch as ``what`` asks (``_rule``).

    Why PL/pgSQL, one query per ``what``: with ``what`` a literal the planner drops the rule's other
    clauses (with it a parameter, the whole rule was evaluated for every set), and each query's plan
    is kept for the session. Why two branches: the sets the role's own annotator owns (through the
    set's annotator index), and every set of the project for an adjudicator or lead. For any other
    role the rule holds only for its own sets (each clause of ``_rule`` that does not ask
    ``owner = a.id`` asks for an adjudicator or lead), so the union is exactly the rule's sets, and an
    annotator's call no longer walks every set of her project. Each branch has the whole rule; the
    second leaves out the first's sets (disjoint: no duplicate to remove)."""
    rule = _rule("s.document_id", "s.annotator_id", "s.kind", "s.status", "{what}")
    branches = []
    for what in WHATS:
        r = rule.replace("{what}", _literal(what))
        branches.append(
            f"{'IF' if not branches else 'ELSIF'} what = {_literal(what)} THEN RETURN QUERY\n"
            f"  SELECT s.id FROM team_login t JOIN annotator a ON a.id = t.annotator_id\n"
            f"  JOIN annotation_set s ON s.annotator_id = a.id\n"
            f"  JOIN document d ON d.id = s.document_id AND d.project_id = t.project_id\n"
            f"  WHERE t.role_name = who::text AND {guard} AND {r}\n"
            f"  UNION ALL\n"
            f"  SELECT s.id FROM team_login t JOIN annotator a ON a.id = t.annotator_id\n"
            f"  JOIN document d ON d.project_id = t.project_id\n"
            f"  JOIN annotation_set s ON s.document_id = d.id\n"
            f"  WHERE t.role_name = who::text AND a.role IN ({_roles(ADJUDICATORS)}) AND {guard}\n"
            f"    AND s.annotator_id IS DISTINCT FROM a.id AND {r};"
        )
    body = "\n".join(branches) + "\nEND IF;"
    return f"""CREATE OR REPLACE FUNCTION corpusdb_sets(who name, what text) RETURNS SETOF integer
        LANGUAGE plpgsql STABLE SECURITY DEFINER {path} AS $$
          BEGIN
            {body}
          END
        $$"""


def _delete_function(path: str, guard: str) -> str:
    """``corpusdb_delete(tbl, ids, who)``: delete rows by id under the tables' delete rules.

    Why: a table-level DELETE right would also let a team login ``LOCK TABLE ... IN ACCESS
    EXCLUSIVE MODE`` and stall everyone; this function (run as the owner) deletes only the rows
    the delete policy would let ``who`` delete, and returns how many it deleted."""
    branches = []
    for table, rule in _delete_rules("who").items():
        branches.append(
            f"{'IF' if not branches else 'ELSIF'} tbl = {_literal(table)} THEN\n"
            f"  DELETE FROM {quote_ident(table)} WHERE id = ANY(ids) AND ({rule});"
        )
    body = "\n".join(branches) + (
        "\nELSE RAISE EXCEPTION USING MESSAGE = 'corpusdb_delete: no rows of ' || tbl || ' are deleted here';"
        "\nEND IF;"
        if branches
        else "\nRAISE EXCEPTION USING MESSAGE = 'corpusdb_delete: nothing is deleted here';"
    )
    return f"""CREATE OR REPLACE FUNCTION corpusdb_delete(tbl text, ids bigint[], who name) RETURNS integer
        LANGUAGE plpgsql VOLATILE SECURITY DEFINER {path} AS $$
          DECLARE n integer;
          BEGIN
            IF NOT {guard} THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_delete: a team login deletes as itself';
            END IF;
            {body}
            GET DIAGNOSTICS n = ROW_COUNT;
            RETURN n;
          END
        $$"""


FUNCTION_SIGNATURES = (
    "corpusdb_role_in(integer, name)",
    "corpusdb_name_in(integer, name)",
    "corpusdb_may_set(integer, integer, text, text, name, text)",
    "corpusdb_sets(name, text)",
    "corpusdb_my_annotators(name)",
    "corpusdb_overseen_documents(name)",
    "corpusdb_may(integer, name, text)",
    "corpusdb_set_project(integer)",
    "corpusdb_set_of(text, integer, name)",
    "corpusdb_in_set(text, integer, integer, name)",
    "corpusdb_next_ids(text, integer)",
    "corpusdb_next_id(text)",
    "corpusdb_leased(text, bigint)",
    "corpusdb_delete(text, bigint[], name)",
    "corpusdb_text_candidates(integer, tsquery)",
    "corpusdb_projects(name, text[])",
    "corpusdb_like_candidates(integer, text)",
)


# -- policies -----------------------------------------------------------------------------------------


def _roles(roles: tuple[str, ...]) -> str:
    return ", ".join(f"'{r}'" for r in roles)


def _has_role(pid: str, who: str, roles: tuple[str, ...]) -> str:
    """``who`` has one of ``roles`` in project ``pid`` (SQL): ``corpusdb_role_in(pid, who) IN (roles)``,
    asked once per statement (``corpusdb_projects``) rather than once per row."""
    return f"{pid} IN (SELECT corpusdb_projects({who}, ARRAY[{_roles(roles)}]::text[]))"


@dataclass(frozen=True, slots=True)
class _Rules:
    """One table's policy expressions (``who``: the SQL naming the asking role)."""

    read: str
    insert: str
    update: str | None
    delete: str | None
    check: str | None = None  # what a row must satisfy after an UPDATE (default ``update``)
    set_expr: str | None = None  # the SQL giving a row's set (tables of set items)


def _table_rules(who: str) -> dict[str, _Rules]:
    out: dict[str, _Rules] = {}

    def sets(what: str) -> str:
        return f"(SELECT corpusdb_sets({who}, '{what}'))"

    def on_set(what: str) -> str:  # a new row is not in the table yet: its columns decide
        return f"corpusdb_may_set(document_id, annotator_id, kind, status, {who}, '{what}')"

    out["annotation_set"] = _Rules(
        read=(
            f"annotator_id IN (SELECT corpusdb_my_annotators({who})) "
            f"OR document_id IN (SELECT corpusdb_overseen_documents({who}))"
        ),
        insert=on_set("create"),
        update=f"id IN {sets('write')}",
        check=on_set("keep"),
        delete=f"id IN {sets('drop')}",
    )
    for table, how in _owned().items():
        what = "decide" if table in DECISIONS else "write"
        if isinstance(how, Via):
            set_expr = f"corpusdb_set_of({_literal(how.parent)}, {quote_ident(how.column)}, {who})"
            read = f"{quote_ident(how.column)} IN (SELECT p.id FROM {quote_ident(how.parent)} p)"
        else:
            set_expr = quote_ident(how)
            read = f"{set_expr} IN {sets('content')}"
        write = f"{set_expr} IN {sets(what)}"
        out[table] = _Rules(read, write, write, write, set_expr=set_expr)
    for table, (pid, readers, writers) in PROJECT_SCOPED.items():
        read = _has_role(pid, who, readers)
        if writers == AUDIT:  # one's own events are one's own (and INSERT ... RETURNING reads them back)
            mine = f"actor = corpusdb_name_in({pid}, {who})"
            out[table] = _Rules(f"{read} OR {mine}", mine, None, None)
        else:
            assert isinstance(writers, tuple)
            write = _has_role(pid, who, writers)
            out[table] = _Rules(read, write, write, write)
    for table, column in PERSONAL.items():  # one annotator's own rows (her recommender models)
        mine = f"{quote_ident(column)} IN (SELECT corpusdb_my_annotators({who}))"
        out[table] = _Rules(mine, mine, mine, mine)
    for table, (pid, team) in TEAM_SCOPED.items():
        members = (
            f"(SELECT m.members FROM task_team m WHERE m.id = {quote_ident(team)})"
            if team != "id"
            else "members"
        )
        mine = f"corpusdb_name_in({pid}, {who}) IN (SELECT json_array_elements_text({members}::json))"
        read = f"{_has_role(pid, who, ADJUDICATORS)} OR {mine}"
        write = _has_role(pid, who, LEADS)
        insert = write
        if table in MEMBER_INSERTS:
            insert = (f"{write} OR ({mine} AND submitted_by = corpusdb_name_in({pid}, {who}) "
                      f"AND status = 'queued')")  # fmt: skip
        out[table] = _Rules(read, insert, write, write)
    return out


def _delete_rules(who: str) -> dict[str, str]:
    return {t: r.delete for t, r in _table_rules(who).items() if r.delete is not None}


def _reference_check(table: str, rules: _Rules, who: str) -> str | None:
    refs = REFERENCES.get(table)
    if not refs or rules.set_expr is None:
        return None
    return " AND ".join(
        f"corpusdb_in_set({_literal(to)}, {quote_ident(col)}, {rules.set_expr}, {who})"
        for col, to in sorted(refs.items())
    )


def _policies(table: str, rules: _Rules, who: str) -> list[str]:
    t = quote_ident(table)
    out = [f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY"]
    out.append(f"CREATE POLICY corpusdb_read ON {t} FOR SELECT USING ({rules.read})")
    out.append(f"CREATE POLICY corpusdb_insert ON {t} FOR INSERT WITH CHECK ({rules.insert})")
    if rules.update is not None:
        out.append(
            f"CREATE POLICY corpusdb_update ON {t} FOR UPDATE USING ({rules.update}) "
            f"WITH CHECK ({rules.check or rules.update})"
        )
    if rules.delete is not None:
        out.append(f"CREATE POLICY corpusdb_delete ON {t} FOR DELETE USING ({rules.delete})")
    # Restrictive: on top of the rules above, whoever inserts (ids the server leased to this
    # transaction; references inside the row's own set) or updates (references).
    refs = _reference_check(table, rules, who)
    guard = f"corpusdb_leased({_literal(table)}, id)" + (f" AND {refs}" if refs else "")
    out.append(f"CREATE POLICY corpusdb_insert_guard ON {t} AS RESTRICTIVE FOR INSERT WITH CHECK ({guard})")
    if refs and rules.update is not None:
        out.append(
            f"CREATE POLICY corpusdb_update_guard ON {t} AS RESTRICTIVE FOR UPDATE USING (true) WITH CHECK ({refs})"
        )
    return out


def policy_statements(tables: set[str]) -> list[str]:
    """RLS and policies for every listed table that exists (others are skipped: added later).
    Run after ``drop_policy_statements`` (policies are created, not replaced)."""
    out: list[str] = []
    for table, rules in _table_rules("current_user").items():
        if table in tables:
            out += _policies(table, rules, "current_user")
    if "team_login" in tables:
        own = "role_name = current_user::text OR corpusdb_role_in(project_id, current_user) = 'lead'"
        out += [
            "ALTER TABLE team_login ENABLE ROW LEVEL SECURITY",
            f"CREATE POLICY corpusdb_read ON team_login FOR SELECT USING ({own})",
            "CREATE POLICY corpusdb_insert ON team_login FOR INSERT WITH CHECK (false)",
        ]
    return out


def drop_policy_statements(tables: set[str]) -> list[str]:
    return [
        f"DROP POLICY IF EXISTS {p} ON {quote_ident(t)}"
        for t in sorted(tables & (covered_tables() | {"team_login"}))
        for p in _POLICY_NAMES
    ]


def covered_tables() -> set[str]:
    return {"annotation_set", *SET_OWNED, *PROJECT_SCOPED, *PERSONAL, *TEAM_SCOPED}


def existing_tables(conn: Connection) -> set[str]:
    rows = conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))
    return {r[0] for r in rows}


# -- grants ---------------------------------------------------------------------------------------------


def _frozen(table: str) -> set[str]:
    """Columns of ``table`` no team login may UPDATE: its id, the set or project it belongs to, and
    FROZEN's (a set's kind, annotator, document)."""
    out = {"id", *FROZEN.get(table, ())}
    how = _owned().get(table)
    if isinstance(how, Via):
        out.add(how.column)
    elif how is not None:
        out.add(how)
    if table in PROJECT_SCOPED:
        out.add("project_id")
    if table in TEAM_SCOPED:
        out |= {"task_id", "team_id"}
    return out


def updatable_columns(conn: Connection, table: str) -> list[str]:
    """The columns of ``table`` team logins may UPDATE (none when the table has no update rule)."""
    rules = _table_rules("current_user").get(table)
    if rules is None or rules.update is None:
        return []
    rows = conn.execute(
        text(
            "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(:t) AND attnum > 0 "
            "AND NOT attisdropped ORDER BY attnum"
        ),
        {"t": quote_ident(current_schema(conn)) + "." + quote_ident(table)},
    )
    return [r[0] for r in rows if r[0] not in _frozen(table)]


def grant_statements(conn: Connection, schema: str, role: str, tables: set[str]) -> list[str]:
    """What a team role may touch: SELECT and INSERT on the covered tables (RLS decides the rows),
    UPDATE column by column, no DELETE (``corpusdb_delete``), no sequence; the read-only tables; the
    functions the policies call; its session settings in this database."""
    r, s = quote_ident(role), quote_ident(schema)
    out = [f"GRANT USAGE ON SCHEMA {s} TO {r}", f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {r}"]
    for t in sorted(tables & covered_tables()):
        q = quote_ident(t)
        out += [f"REVOKE ALL ON {q} FROM {r}", f"GRANT SELECT, INSERT ON {q} TO {r}"]
        cols = updatable_columns(conn, t)
        if cols:
            out.append(f"GRANT UPDATE ({', '.join(quote_ident(c) for c in cols)}) ON {q} TO {r}")
    for t in sorted(tables & set(READ_ONLY)):
        out += [f"REVOKE ALL ON {quote_ident(t)} FROM {r}", f"GRANT SELECT ON {quote_ident(t)} TO {r}"]
    out += [f"GRANT EXECUTE ON FUNCTION {f} TO {r}" for f in FUNCTION_SIGNATURES]
    out += [  # the login functions a logged-in person calls (migration 0013 on): team logins only
        f"GRANT EXECUTE ON FUNCTION {f} TO {r}"
        for f in LOGIN_PERSON_FUNCTIONS
        if conn.execute(text("SELECT to_regprocedure(:f) IS NOT NULL"), {"f": f}).scalar_one()
    ]
    database = quote_ident(str(conn.execute(text("SELECT current_database()")).scalar_one()))
    out += [
        f"ALTER ROLE {r} IN DATABASE {database} SET {k} = {_literal(v)}" for k, v in LOGIN_SETTINGS.items()
    ]
    return out


def revoke_statements(conn: Connection, schema: str, role: str) -> list[str]:
    r, s = quote_ident(role), quote_ident(schema)
    database = quote_ident(str(conn.execute(text("SELECT current_database()")).scalar_one()))
    return [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM {r}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {r}",
        f"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {s} FROM {r}",
        f"REVOKE ALL ON SCHEMA {s} FROM {r}",
        f"ALTER ROLE {r} IN DATABASE {database} RESET ALL",
    ]


def logins(conn: Connection) -> list[str]:
    """Every role that is a team login in this schema."""
    return sorted({r[0] for r in conn.execute(text("SELECT role_name FROM team_login"))})


# -- ids, statistics --------------------------------------------------------------------------------------


def _serial_tables(conn: Connection, tables: set[str]) -> dict[str, str]:
    """Covered tables whose ``id`` has a sequence -> that sequence."""
    schema = current_schema(conn)
    out: dict[str, str] = {}
    for t in sorted(tables & covered_tables()):
        seq = conn.execute(
            text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": f"{quote_ident(schema)}.{quote_ident(t)}"}
        ).scalar_one_or_none()
        if seq:
            out[t] = str(seq)
    return out


def default_statements(conn: Connection, tables: set[str], *, server_side: bool = True) -> list[str]:
    """The ``id`` default of each covered table: ``corpusdb_next_id`` (owner's rights, leased to a team
    session), or back to the sequence's own ``nextval`` (``server_side=False``, on uninstall)."""
    out = []
    for t, seq in _serial_tables(conn, tables).items():
        default = f"corpusdb_next_id({_literal(t)})" if server_side else f"nextval({_literal(seq)}::regclass)"
        out.append(f"ALTER TABLE {quote_ident(t)} ALTER COLUMN id SET DEFAULT {default}")
    return out


def statistics_statements(conn: Connection, tables: set[str]) -> list[str]:
    """Statistics target 0 on every column of the covered tables but keys (primary and foreign), and
    the old statistics of such a column purged (``ALTER COLUMN ... TYPE`` to its own type drops them;
    only a superuser may delete from ``pg_statistic``). Why: the planner estimates a query's rows
    from statistics over *all* rows, so ``EXPLAIN`` of ``text = 'guess'`` or ``text < 'm'`` read
    frequent values and histogram bounds of rows the login cannot see. Run with no policy in place
    (a column a policy uses cannot change type)."""
    covered = sorted(tables & covered_tables())
    if not covered:
        return []
    rows = conn.execute(
        text(
            "SELECT c.relname, a.attname, a.attstattarget, format_type(a.atttypid, a.atttypmod), "
            "EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname "
            "        AND s.attname = a.attname) "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
            "WHERE n.nspname = current_schema() AND c.relname = ANY(:tables) "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid "
            "                AND k.contype IN ('p', 'f') AND a.attnum = ANY(k.conkey)) "
            "ORDER BY c.relname, a.attnum"
        ),
        {"tables": covered},
    ).all()
    out = []
    for table, column, target, type_sql, has_stats in rows:
        q = f"ALTER TABLE {quote_ident(table)} ALTER COLUMN {quote_ident(column)}"
        if target != 0:
            out.append(f"{q} SET STATISTICS 0")
        if has_stats:
            out.append(f"{q} TYPE {type_sql}")
    return out


# -- install ------------------------------------------------------------------------------------------------


def install(conn: Connection) -> None:
    """Functions, RLS policies, id defaults, statistics targets and team roles' grants for every
    covered table (idempotent; PostgreSQL only, a no-op elsewhere)."""
    if not is_postgres(conn):
        return
    schema = current_schema(conn)
    tables = existing_tables(conn)
    # No one but the owner creates objects here (a function of a login's making could otherwise
    # be chosen by a name lookup); PostgreSQL 15 already denies it for ``public``.
    stmts = [f"REVOKE CREATE ON SCHEMA {quote_ident(schema)} FROM PUBLIC"]
    stmts += drop_policy_statements(tables)
    stmts += statistics_statements(conn, tables)
    stmts += default_statements(conn, tables, server_side=False)  # before an old function goes
    stmts += [f"DROP FUNCTION IF EXISTS {sig}" for sig in _LEGACY_FUNCTIONS]
    stmts += _functions(schema)
    # EXECUTE only for team logins (granted below): policies run the functions as the querying
    # role; the guard in each function keeps a team session from asking about anyone but itself.
    stmts += [f"REVOKE ALL ON FUNCTION {sig} FROM PUBLIC" for sig in FUNCTION_SIGNATURES]
    for stmt in stmts:
        conn.exec_driver_sql(stmt)
    for stmt in default_statements(conn, tables) + policy_statements(tables):
        conn.exec_driver_sql(stmt)
    for role in logins(conn):
        for stmt in grant_statements(conn, schema, role, tables):
            if stmt.startswith("ALTER ROLE"):
                _session_defaults(conn, stmt)
            else:
                conn.exec_driver_sql(stmt)


def _session_defaults(conn: Connection, stmt: str) -> None:
    """A login's session defaults, when this owner may set them: a login made by someone else (a
    superuser) may be beyond its rights, and an upgrade must not fail for a guard against accidents."""
    from sqlalchemy.exc import DBAPIError

    try:
        with conn.begin_nested():
            conn.exec_driver_sql(stmt)
    except DBAPIError as exc:
        if getattr(exc.orig, "sqlstate", None) != "42501":  # insufficient privilege
            raise


def uninstall(conn: Connection) -> None:
    """Undo ``install`` (migration downgrade): policies, RLS, id defaults, functions."""
    if not is_postgres(conn):
        return
    tables = existing_tables(conn)
    for stmt in drop_policy_statements(tables) + default_statements(conn, tables, server_side=False):
        conn.exec_driver_sql(stmt)
    for table in sorted(tables & (covered_tables() | {"team_login"})):
        conn.exec_driver_sql(f"ALTER TABLE {quote_ident(table)} DISABLE ROW LEVEL SECURITY")
    for sig in FUNCTION_SIGNATURES + _LEGACY_FUNCTIONS:
        conn.exec_driver_sql(f"DROP FUNCTION IF EXISTS {sig}")


# -- deleting as a team login ----------------------------------------------------------------------------------


def _may_delete(conn: Connection, table: str) -> bool:
    """Whether this connection's role may DELETE from ``table`` itself (the owner) or must go through
    ``corpusdb_delete`` (a team login); asked once per connection and table."""
    cache: dict[str, bool] = conn.info.setdefault("corpusdb_may_delete", {})
    if table not in cache:
        cache[table] = bool(
            conn.execute(
                text("SELECT has_table_privilege(current_user, to_regclass(:t), 'DELETE')"),
                {"t": quote_ident(current_schema(conn)) + "." + quote_ident(table)},
            ).scalar_one()
        )
    return cache[table]


def delete_rows(conn: Connection, table: Table, *where: Any) -> int:
    """``DELETE FROM table WHERE ...``; returns the rows deleted. A team login (no DELETE right, see
    the module docstring: it would allow ``LOCK TABLE``) deletes the rows it can see through
    ``corpusdb_delete``, which applies the delete rules."""
    if not is_postgres(conn) or _may_delete(conn, table.name):
        return int(conn.execute(delete(table).where(*where)).rowcount)
    ids = list(conn.execute(select(table.c.id).where(*where)).scalars())
    if not ids:
        return 0
    return int(
        conn.execute(
            text("SELECT corpusdb_delete(:t, CAST(:ids AS bigint[]), current_user)"),
            {"t": table.name, "ids": ids},
        ).scalar_one()
    )


def settings(conn: Connection, role: str) -> Mapping[str, str]:
    """The session defaults a role has in this database (``ALTER ROLE ... IN DATABASE ... SET``)."""
    rows = conn.execute(
        text(
            "SELECT unnest(s.setconfig) FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole "
            "WHERE r.rolname = :r AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ),
        {"r": role},
    )
    return dict(str(v).split("=", 1) for (v,) in rows)
