"""Alembic migrations, shipped in the package so ``corpusdb db upgrade`` works from an installed wheel.

``env.py`` is driven by ``corpusdb.store.migrate`` with a live connection; ``versions/`` holds one script
per schema change, numbered in order.
"""
