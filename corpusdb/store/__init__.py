"""The store engine: engines and transactions, tables, migrations, team-mode security.

``db`` (the only place that knows SQLite from PostgreSQL), ``writers`` (who holds SQLite's write
lock), ``models`` (the tables as SQLModel classes) and ``tables`` (the same as Core tables, generated
by ``tablegen``; what every query uses), ``migrate`` and ``migrations/`` (Alembic, shipped inside),
``rls`` (the blindness rules as PostgreSQL row-level security). Knows nothing of projects' rules:
the services above it do.
"""
