"""corpusdb/store/tables.py (Core tables, what the store queries) is the models' tables, and is current.

The file is generated from corpusdb/store/models.py (``python -m corpusdb.store.tablegen``) so that ordinary
commands need not build SQLModel's classes (issue #14). These tests fail when models.py changed and
the file was not regenerated, and compare what both produce as DDL on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

from corpusdb.store import models, tablegen, tables

REPO = Path(__file__).resolve().parents[1]
DIALECTS = [sqlite.dialect(), postgresql.dialect()]


def test_tables_py_is_generated_from_the_current_models() -> None:
    assert tablegen.TABLES_PY.read_text(encoding="utf-8") == tablegen.generate(), (
        "corpusdb/store/tables.py is stale: run `python -m corpusdb.store.tablegen`"
    )
    assert tablegen.main(["--check"]) == 0
    assert tables.metadata is not models.metadata  # the generated tables, not the fallback


def test_same_tables_columns_and_defaults() -> None:
    assert sorted(tables.metadata.tables) == sorted(models.metadata.tables)
    for name, mt in models.metadata.tables.items():
        ct = tables.metadata.tables[name]
        assert getattr(tables, name) is ct
        assert [c.name for c in ct.columns] == [c.name for c in mt.columns], name
        for mc in mt.columns:
            cc = ct.c[mc.name]
            where = f"{name}.{mc.name}"
            assert (cc.primary_key, cc.nullable, cc.autoincrement) == (
                mc.primary_key,
                mc.nullable,
                mc.autoincrement,
            ), where
            assert type(cc.type).__name__ == type(mc.type).__name__.replace("AutoString", "String"), where
            impl = getattr(mc.type, "impl_instance", mc.type)  # SQLModel's AutoString: a String
            assert type(cc.type) is type(impl) and repr(cc.type) == repr(impl), where
            assert getattr(cc.type, "timezone", None) == getattr(mc.type, "timezone", None), where
            assert (cc.default is None) == (mc.default is None), where
            if mc.default is not None and mc.default.is_scalar:
                assert cc.default.arg == mc.default.arg, where  # type: ignore[union-attr]
            elif mc.default is not None:  # utcnow: an aware datetime now
                got = cc.default.arg(None)  # type: ignore[union-attr]
                assert isinstance(got, datetime) and got.tzinfo is not None, where
        assert {(tuple(e.parent.name for e in f.elements), f.referred_table.name, f.ondelete)
                for f in ct.foreign_key_constraints} == {
            (tuple(e.parent.name for e in f.elements), f.referred_table.name, f.ondelete)
            for f in mt.foreign_key_constraints
        }, name  # fmt: skip


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_same_ddl(dialect: object) -> None:
    """CREATE TABLE and CREATE INDEX as each dialect writes them: names, types, constraints."""
    for name, mt in models.metadata.tables.items():
        ct = tables.metadata.tables[name]
        assert str(CreateTable(ct).compile(dialect=dialect)) == str(CreateTable(mt).compile(dialect=dialect))
        ours = {str(i.name): str(CreateIndex(i).compile(dialect=dialect)) for i in ct.indexes}
        # dialect-only options (a partial index's WHERE) are kept out of tables.py: DDL is the migrations'
        theirs = {
            str(i.name): re.sub(r" WHERE .*$", "", str(CreateIndex(i).compile(dialect=dialect)))
            for i in mt.indexes
        }
        assert ours == theirs, name


def test_stale_tables_py_falls_back_to_the_models() -> None:
    """A tables.py whose models.py changed since it was generated is not used: the models' are."""
    path = Path(tables.__file__)
    source = path.read_text(encoding="utf-8").replace(tables.MODELS_SHA256, "0" * 64)
    namespace: dict[str, object] = {"__file__": str(path), "__name__": "corpusdb._stale_tables"}
    exec(compile(source, str(path), "exec"), namespace)
    assert namespace["metadata"] is models.metadata
    assert namespace["document"] is models.metadata.tables["document"]


def test_importing_the_tables_loads_no_orm() -> None:
    code = (
        "import json, sys; import corpusdb.store.tables; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlmodel', 'pydantic') "
        "or m.startswith(('sqlalchemy.orm', 'sqlalchemy.dialects.postgresql')) or m == 'corpusdb.store.models')))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == []
