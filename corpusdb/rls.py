"""Team mode on PostgreSQL: the blindness rules of ``corpusdb.access``, enforced by the server.

Why: ``--as`` and ``Corpus.open(user=...)`` are trusted names. With a login role per person
(``corpusdb team login``), row-level security policies decide what each connection sees and may
write, so plain SQL as alice shows alice exactly what the API shows her — and nothing else.

The rules, per role of the connection's annotator (``team_login`` maps a role to one annotator of
a project), mirror ``corpusdb.access``:

* set **content** (spans, relations, arguments, links, notes, labels, decisions): an annotator or
  system sees its own sets; an adjudicator or lead also sees gold and prediction sets and every set
  of a document whose annotation sets are all submitted;
* set **headers** (the ``annotation_set`` row: who, status, version, and its ``extra`` column, which
  RLS cannot hide column by column): own sets; adjudicators and leads all;
* **writes** to a set: its owner; an adjudicator also gold sets; a lead any set of the project;
* project tables: documents, annotators, guidelines readable by members, written by leads;
  releases, corrections and the audit trail readable by adjudicators and leads; corrections
  written by adjudicators and leads; audit events inserted (and read back) by any member under
  their own name only.

Covering a new table is one line: a table whose rows belong to an annotation set goes in
``SET_OWNED`` (with the SQL that finds the set id of a row), a table that belongs to a project in
``PROJECT_SCOPED``. ``install`` (run by migration 0007 and after every later upgrade) then
enables RLS, writes the policies and grants the team roles access; a table in neither list is not
granted at all, so a new table fails closed for team roles until it has its line.

The policies call ``SECURITY DEFINER`` functions (owned by the database owner, who bypasses RLS)
because the rule for a set depends on *other* sets of its document, which a policy on
``annotation_set`` could not read without recursing into itself. Each function takes the asking
role (``current_user`` in the policy) and refuses to answer for another role when the session
itself logged in as a team role, so alice cannot ask "may bob read set 7?".
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, text

# table -> SQL (on the table's row) giving the id of the annotation set the row belongs to:
# ``"set_id"`` for a table with that column, ``"corpusdb_set_of('parent', parent_id)"`` for a table
# whose rows hang off such a table's rows (e.g. a cluster's members off ``entity_cluster``).
# ``annotation_set`` itself is special-cased (its policies look at its own columns).
SET_OWNED: dict[str, str] = {
    "span": "set_id",
    "relation": "set_id",
    "relation_arg": "corpusdb_set_of('relation', relation_id)",  # through its parent row
    "entity": "set_id",
    "link": "set_id",
    "note": "set_id",
    "document_label": "set_id",
    "decision": "gold_set_id",
    "edit_history": "set_id",
    "set_skip": "set_id",
}

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
}

READ_ONLY = ("team_login", "alembic_version")
"""Tables a team role may read but never write (``team_login`` only its own rows)."""

PRIVATE = ("login_password", "login_state")
"""Tables no team role is granted at all: login secrets and counters, reached on PostgreSQL only through
the ``SECURITY DEFINER`` login functions of ``corpusdb.logins.pgsql``."""

ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_POLICY_NAMES = ("corpusdb_read", "corpusdb_insert", "corpusdb_update", "corpusdb_delete")


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def is_postgres(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def current_schema(conn: Connection) -> str:
    return str(conn.execute(text("SELECT current_schema()")).scalar_one())


def _set_id_tables() -> str:
    return ", ".join(f"'{t}'" for t, expr in SET_OWNED.items() if expr == "set_id")


def _rule(doc: str, owner: str, kind: str) -> str:
    """The rules of corpusdb.access for one set (its document, owner and kind) and annotator ``a``
    of the asking role; ``what`` is 'header' (who/status), 'content' (the annotations) or 'write'."""
    return f"""(
        {owner} = a.id
        OR (a.role = 'lead' AND what IN ('header', 'write'))
        OR (a.role = 'adjudicator' AND (what = 'header' OR (what = 'write' AND {kind} = 'gold')))
        OR (a.role IN ('adjudicator', 'lead') AND what = 'content' AND (
              {kind} IN ('gold', 'prediction')
              OR NOT EXISTS (SELECT 1 FROM annotation_set o WHERE o.document_id = {doc}
                             AND o.kind = 'annotation' AND o.status <> 'submitted')))
    )"""


def _functions(schema: str) -> list[str]:
    path = f"SET search_path = {quote_ident(schema)}, pg_temp"
    # The session guard: a session that logged in as a team role may only ask about itself.
    guard = (
        "(who::text = session_user::text OR NOT EXISTS "
        "(SELECT 1 FROM team_login x WHERE x.role_name = session_user::text))"
    )
    return [
        f"""CREATE OR REPLACE FUNCTION corpusdb_role_in(pid integer, who name) RETURNS text
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT a.role FROM team_login t JOIN annotator a ON a.id = t.annotator_id
          WHERE t.project_id = pid AND t.role_name = who::text AND {guard}
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_name_in(pid integer, who name) RETURNS text
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT a.name FROM team_login t JOIN annotator a ON a.id = t.annotator_id
          WHERE t.project_id = pid AND t.role_name = who::text AND {guard}
        $$""",
        # what: 'header' (who/status), 'content' (the annotations) or 'write'
        f"""CREATE OR REPLACE FUNCTION corpusdb_may_set(doc integer, owner integer, set_kind text, who name,
                                                        what text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT EXISTS (
            SELECT 1 FROM document d
            JOIN team_login t ON t.project_id = d.project_id AND t.role_name = who::text
            JOIN annotator a ON a.id = t.annotator_id
            WHERE d.id = doc AND {guard} AND {_rule("doc", "owner", "set_kind")}
          )
        $$""",
        # Every set the role may touch, computed once per statement: the content tables' policies
        # test ``set_id IN (SELECT corpusdb_sets(...))``, a hashed lookup rather than a call per row.
        f"""CREATE OR REPLACE FUNCTION corpusdb_sets(who name, what text) RETURNS SETOF integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT s.id FROM team_login t
          JOIN annotator a ON a.id = t.annotator_id
          JOIN document d ON d.project_id = t.project_id
          JOIN annotation_set s ON s.document_id = d.id
          WHERE t.role_name = who::text AND {guard} AND {_rule("s.document_id", "s.annotator_id", "s.kind")}
        $$""",
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
          SELECT coalesce((SELECT corpusdb_may_set(s.document_id, s.annotator_id, s.kind, who, what)
                           FROM annotation_set s WHERE s.id = sid), false)
        $$""",
        # existence only (ids are sequential anyway): lets the API refuse "not yours" as it always did
        f"""CREATE OR REPLACE FUNCTION corpusdb_set_project(sid integer) RETURNS integer
        LANGUAGE sql STABLE SECURITY DEFINER {path} AS $$
          SELECT d.project_id FROM annotation_set s JOIN document d ON d.id = s.document_id WHERE s.id = sid
        $$""",
        # The set of a parent row (a relation's, for its arguments), read past the caller's RLS: a
        # lead pre-annotating another's set may write there without reading it. Only tables with a
        # ``set_id`` column listed in SET_OWNED are accepted. (No '%' here: the driver would read a
        # placeholder.)
        f"""CREATE OR REPLACE FUNCTION corpusdb_set_of(parent text, pid integer) RETURNS integer
        LANGUAGE plpgsql STABLE SECURITY DEFINER {path} AS $$
          DECLARE sid integer;
          BEGIN
            IF parent <> ALL (ARRAY[{_set_id_tables()}]) THEN
              RAISE EXCEPTION USING MESSAGE = 'corpusdb_set_of: ' || parent || ' is not a table of set items';
            END IF;
            EXECUTE 'SELECT set_id FROM ' || quote_ident(parent) || ' WHERE id = $1' INTO sid USING pid;
            RETURN sid;
          END
        $$""",
    ]


FUNCTION_SIGNATURES = (
    "corpusdb_role_in(integer, name)",
    "corpusdb_name_in(integer, name)",
    "corpusdb_may_set(integer, integer, text, name, text)",
    "corpusdb_sets(name, text)",
    "corpusdb_my_annotators(name)",
    "corpusdb_overseen_documents(name)",
    "corpusdb_may(integer, name, text)",
    "corpusdb_set_project(integer)",
    "corpusdb_set_of(text, integer)",
)


def _roles(roles: tuple[str, ...]) -> str:
    return ", ".join(f"'{r}'" for r in roles)


def _policies(
    table: str, read: str, insert: str, update: str | None, delete: str | None, check: str | None = None
) -> list[str]:
    """``check``: what a row must satisfy after an UPDATE (default ``update``)."""
    t = quote_ident(table)
    out = [f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY"]
    out += [f"DROP POLICY IF EXISTS {p} ON {t}" for p in _POLICY_NAMES]
    out.append(f"CREATE POLICY corpusdb_read ON {t} FOR SELECT USING ({read})")
    out.append(f"CREATE POLICY corpusdb_insert ON {t} FOR INSERT WITH CHECK ({insert})")
    if update is not None:
        out.append(
            f"CREATE POLICY corpusdb_update ON {t} FOR UPDATE USING ({update}) WITH CHECK ({check or update})"
        )
    if delete is not None:
        out.append(f"CREATE POLICY corpusdb_delete ON {t} FOR DELETE USING ({delete})")
    return out


def policy_statements(tables: set[str]) -> list[str]:
    """RLS and policies for every listed table that exists (others are skipped: added later)."""
    out: list[str] = []
    if "annotation_set" in tables:

        def on_set(what: str) -> str:  # a new row is not in the table yet: its columns decide
            return f"corpusdb_may_set(document_id, annotator_id, kind, current_user, '{what}')"

        def in_sets(what: str) -> str:
            return f"id IN (SELECT corpusdb_sets(current_user, '{what}'))"

        header = (
            "annotator_id IN (SELECT corpusdb_my_annotators(current_user)) "
            "OR document_id IN (SELECT corpusdb_overseen_documents(current_user))"
        )
        out += _policies(
            "annotation_set",
            header,
            on_set("write"),
            in_sets("write"),
            in_sets("write"),
            on_set("write"),
        )
    for table, set_id in SET_OWNED.items():
        if table in tables:
            read, write = (
                f"{set_id} IN (SELECT corpusdb_sets(current_user, '{w}'))" for w in ("content", "write")
            )
            out += _policies(table, read, write, write, write)
    for table, (pid, readers, writers) in PROJECT_SCOPED.items():
        if table not in tables:
            continue
        read = f"corpusdb_role_in({pid}, current_user) IN ({_roles(readers)})"
        if writers == AUDIT:  # one's own events are one's own (and INSERT ... RETURNING reads them back)
            mine = f"actor = corpusdb_name_in({pid}, current_user)"
            out += _policies(table, f"{read} OR {mine}", mine, None, None)
        else:
            assert isinstance(writers, tuple)
            write = f"corpusdb_role_in({pid}, current_user) IN ({_roles(writers)})"
            out += _policies(table, read, write, write, write)
    if "team_login" in tables:
        own = "role_name = current_user::text OR corpusdb_role_in(project_id, current_user) = 'lead'"
        out += _policies("team_login", own, "false", None, None)
    return out


def covered_tables() -> set[str]:
    return {"annotation_set", *SET_OWNED, *PROJECT_SCOPED}


def existing_tables(conn: Connection) -> set[str]:
    rows = conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))
    return {r[0] for r in rows}


def grant_statements(schema: str, role: str, tables: set[str]) -> list[str]:
    """What a team role may touch: the covered tables (RLS decides the rows), the read-only ones."""
    r, s = quote_ident(role), quote_ident(schema)
    out = [f"GRANT USAGE ON SCHEMA {s} TO {r}", f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA {s} TO {r}"]
    for t in sorted(tables & covered_tables()):
        out.append(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {quote_ident(t)} TO {r}")
    for t in sorted(tables & set(READ_ONLY)):
        out.append(f"GRANT SELECT ON {quote_ident(t)} TO {r}")
    return out


def revoke_statements(schema: str, role: str) -> list[str]:
    r, s = quote_ident(role), quote_ident(schema)
    return [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM {r}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {r}",
        f"REVOKE ALL ON SCHEMA {s} FROM {r}",
    ]


def logins(conn: Connection) -> list[str]:
    """Every role that is a team login in this schema."""
    return sorted({r[0] for r in conn.execute(text("SELECT role_name FROM team_login"))})


def install(conn: Connection) -> None:
    """Functions, RLS policies and team roles' grants for every covered table (idempotent;
    PostgreSQL only, a no-op elsewhere)."""
    if not is_postgres(conn):
        return
    schema = current_schema(conn)
    tables = existing_tables(conn)
    for stmt in _functions(schema) + policy_statements(tables):
        conn.exec_driver_sql(stmt)
    # EXECUTE stays with PUBLIC: policies run the functions as the querying role; the guard in each
    # function keeps a team session from asking about anyone but itself.
    for role in logins(conn):
        for stmt in grant_statements(schema, role, tables):
            conn.exec_driver_sql(stmt)


def uninstall(conn: Connection) -> None:
    """Undo ``install`` (migration downgrade): policies, RLS, functions."""
    if not is_postgres(conn):
        return
    tables = existing_tables(conn)
    for table in sorted(tables & (covered_tables() | {"team_login"})):
        t = quote_ident(table)
        for p in _POLICY_NAMES:
            conn.exec_driver_sql(f"DROP POLICY IF EXISTS {p} ON {t}")
        conn.exec_driver_sql(f"ALTER TABLE {t} DISABLE ROW LEVEL SECURITY")
    for sig in FUNCTION_SIGNATURES:
        conn.exec_driver_sql(f"DROP FUNCTION IF EXISTS {sig}")
