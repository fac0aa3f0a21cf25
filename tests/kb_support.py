"""Shared by the knowledge-base tests: a database URL per backend (PostgreSQL: a database of its own,
named ``kb_...``, because pg_trgm is installed once per database), the fixtures, OntoBiotope."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, PG_URL, REPO, pg_available

KB = FIXTURES / "kb"


def ontobiotope() -> Path:
    """The OntoBiotope release of BB 2016, or skip (its licence is not stated: not shipped)."""
    p = Path(
        os.environ.get("CORPUSDB_ONTOBIOTOPE", REPO / "bench" / "data" / "OntoBiotope_BioNLP-ST-2016.obo")
    )
    if not p.is_file():
        pytest.skip(
            f"needs OntoBiotope_BioNLP-ST-2016.obo at {p} (not shipped: see tests/fixtures/kb/README.md)"
        )
    return p


def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database ``kb_<random>`` (dropped afterwards), or skip."""
    reason = pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg
    from sqlalchemy.engine import make_url

    name = f"kb_{uuid.uuid4().hex[:12]}"
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        from sqlalchemy import create_engine  # noqa: F401 (engines are disposed by the tests)

        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
