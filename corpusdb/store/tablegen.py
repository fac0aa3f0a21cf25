"""Write ``corpusdb/store/tables.py``: the tables of ``corpusdb/store/models.py`` as plain SQLAlchemy Core code.

    python -m corpusdb.store.tablegen          # rewrite corpusdb/store/tables.py after changing models.py
    python -m corpusdb.store.tablegen --check  # exit 1 when corpusdb/store/tables.py is stale

Why: the store only ever queries the tables (SQLAlchemy Core, no ORM session), yet building
SQLModel's table classes imports pydantic, SQLModel and the ORM and costs more than an ordinary
command itself (issue #14). The rendering is mechanical, from the models' own metadata, so the two
cannot disagree on a name, a type, a default or a constraint (``tests/test_tables.py`` also compares
the DDL both produce on SQLite and PostgreSQL); ``tables.py`` refuses to be used once models.py has
changed since it was generated (it then takes the tables from the models: correct, only slower).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKeyConstraint,
    Index,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    UniqueConstraint,
)
from sqlalchemy.sql.elements import TextClause

TABLES_PY = Path(__file__).with_name("tables.py")
MODELS_PY = Path(__file__).with_name("models.py")

_HEADER = '''\
"""The store's tables as SQLAlchemy Core ``Table`` objects: what every query and write uses.

GENERATED from corpusdb/store/models.py by ``python -m corpusdb.store.tablegen``: do not edit; change models.py
and regenerate. Why: building SQLModel's table classes imports pydantic, SQLModel and the ORM, which
cost more than an ordinary command itself (issue #14), while the store only needs the tables (for
queries: the schema itself is the migrations', so dialect-only index options are left out). If
models.py has changed since this file was generated (its hash differs from ``MODELS_SHA256``), the
tables come from the models instead: correct, only slower (``tests/test_tables.py`` then fails until
the file is regenerated).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.sql.naming import conv

'''

_FOOTER = '''

def _models_unchanged() -> bool:
    """models.py is the one this file was generated from (always so in a released package)."""
    try:
        source = Path(__file__).with_name("models.py").read_bytes()
    except OSError:
        return False
    return hashlib.sha256(source.replace(b"\\r\\n", b"\\n")).hexdigest() == MODELS_SHA256


if _models_unchanged():
    metadata = _build()
else:  # stale: the models' own tables (SQLModel, slower to import) rather than outdated ones
    from corpusdb.store.models import metadata
'''

_CALLABLES = {"corpusdb.store.models.utcnow": "utcnow"}
"""Column defaults that are functions: their copy in tables.py (``_UTCNOW`` below)."""

_UTCNOW = '''
def utcnow() -> datetime:
    """As ``corpusdb.store.models.utcnow``: the default of every ``created``/``updated`` column."""
    return datetime.now(UTC)
'''

_TYPES = {"Integer", "String", "Text", "JSON", "DateTime", "Float"}


def _q(value: str) -> str:
    """A double-quoted literal, as ruff would write it (the body is kept verbatim: ``fmt: off``)."""
    return json.dumps(value)


def models_hash(source: bytes) -> str:
    return hashlib.sha256(source.replace(b"\r\n", b"\n")).hexdigest()


def _type(col: Column[Any]) -> str:
    t = col.type
    name = type(t).__name__
    if name == "AutoString":  # SQLModel's String (a length only on MySQL)
        return "String()"
    if name not in _TYPES or not type(t).__module__.startswith("sqlalchemy.sql"):
        raise ValueError(f"{col.table.name}.{col.name}: type {t!r} is not one tablegen renders")
    return repr(t)


def _default(col: Column[Any]) -> str | None:
    d = col.default
    if d is None:
        return None
    if getattr(d, "is_scalar", False):
        return _q(d.arg) if isinstance(d.arg, str) else repr(d.arg)
    if getattr(d, "is_callable", False):
        fn = d.arg
        key = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__name__', '')}"
        if key in _CALLABLES:
            return _CALLABLES[key]
    raise ValueError(f"{col.table.name}.{col.name}: default {d!r} is not one tablegen renders")


def _column(col: Column[Any]) -> str:
    if col.server_default is not None or col.onupdate is not None or col.server_onupdate is not None:
        raise ValueError(f"{col.table.name}.{col.name}: server defaults/onupdate are not rendered")
    if col.key != col.name or col.comment or col.computed is not None or col.identity is not None:
        raise ValueError(f"{col.table.name}.{col.name}: key/comment/computed/identity are not rendered")
    args = [_q(col.name), _type(col)]
    if col.primary_key:
        args.append("primary_key=True")
    args.append(f"nullable={col.nullable!r}")
    default = _default(col)
    if default is not None:
        args.append(f"default={default}")
    if col.autoincrement != "auto":
        args.append(f"autoincrement={col.autoincrement!r}")
    return f"Column({', '.join(args)})"


def _text(clause: Any) -> str:
    if not isinstance(clause, TextClause):
        raise ValueError(f"{clause!r}: only text() clauses are rendered")
    return f"text({_q(clause.text)})"


def _constraint(c: Any) -> str:
    name = f"name=conv({_q(str(c.name))})"
    if isinstance(c, ForeignKeyConstraint):
        if c.deferrable is not None or c.initially is not None or c.use_alter or c.match is not None:
            raise ValueError(f"{c.name}: deferrable/initially/use_alter/match are not rendered")
        extra = "".join(f", {k}={_q(getattr(c, k))}" for k in ("ondelete", "onupdate") if getattr(c, k))
        cols = ", ".join(_q(e.parent.name) for e in c.elements)
        refs = ", ".join(_q(e.target_fullname) for e in c.elements)
        return f"ForeignKeyConstraint([{cols}], [{refs}]{extra}, {name})"
    if isinstance(c, UniqueConstraint):
        return f"UniqueConstraint({', '.join(_q(x.name) for x in c.columns)}, {name})"
    if isinstance(c, CheckConstraint):
        return f"CheckConstraint({_text(c.sqltext)}, {name})"
    raise ValueError(f"{c!r}: constraint kind not rendered")


def _index(ix: Index) -> str:
    """An index; its dialect options (a partial index's ``sqlite_where``) as a comment only.

    Why: passing them makes SQLAlchemy import each dialect they name to check them (PostgreSQL's
    costs ~40 ms), and they only matter to DDL, which the migrations own, never to a query.
    """
    if any(not isinstance(e, Column) for e in ix.expressions):
        raise ValueError(f"{ix.name}: only indexes on plain columns are rendered")
    args = [f"conv({_q(str(ix.name))})", *(_q(c.name) for c in ix.columns)]
    if ix.unique:
        args.append("unique=True")
    ddl_only = [f"{k}={_text(v)}" for k, v in sorted(ix.dialect_kwargs.items()) if v is not None]
    note = f"  # DDL only (see tablegen): {', '.join(ddl_only)}" if ddl_only else ""
    return f"Index({', '.join(args)}),{note}"


def _table(t: Table) -> list[str]:
    if t.schema is not None or t.comment:
        raise ValueError(f"{t.name}: schema/comment are not rendered")
    pk = t.primary_key
    if isinstance(pk, PrimaryKeyConstraint) and pk.name is not None and str(pk.name) != f"pk_{t.name}":
        raise ValueError(f"{t.name}: primary key name {pk.name} is not the convention's")
    lines = ["    Table(", f"        {_q(t.name)},", "        metadata,"]
    lines += [f"        {_column(c)}," for c in t.columns]
    others = sorted((c for c in t.constraints if c is not pk), key=lambda c: c._creation_order)
    lines += [f"        {_constraint(c)}," for c in others]
    lines += [f"        {_index(ix)}" for ix in sorted(t.indexes, key=lambda i: str(i.name))]
    lines.append("    )")
    return lines


def render(metadata: MetaData, models_source: bytes) -> str:
    """The text of tables.py for ``metadata`` (the models'), stamped with the models' hash."""
    conventions = ", ".join(f"{_q(str(k))}: {_q(v)}" for k, v in metadata.naming_convention.items())
    out = [_HEADER + f'MODELS_SHA256 = "{models_hash(models_source)}"', "", _UTCNOW, ""]
    out += ["# fmt: off", "def _build() -> MetaData:", '    """The tables, as models.py defines them."""']
    out.append(f"    metadata = MetaData(naming_convention={{{conventions}}})")
    for t in metadata.sorted_tables:
        out += _table(t)
    out += ["    return metadata", "# fmt: on", _FOOTER]
    out += [f"{t} = metadata.tables[{_q(t)}]" for t in sorted(metadata.tables)]
    return "\n".join(out) + "\n"


def generate() -> str:
    from corpusdb.store.models import metadata

    return render(metadata, MODELS_PY.read_bytes())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = generate()
    if "--check" in args:
        stale = not TABLES_PY.exists() or TABLES_PY.read_text(encoding="utf-8") != text
        if stale:
            sys.stderr.write(f"{TABLES_PY} is stale: run `python -m corpusdb.store.tablegen`\n")
        return 1 if stale else 0
    TABLES_PY.write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {TABLES_PY}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
