"""``python -m corpusdb``: the ``corpusdb`` command (how ``corpusdb serve`` starts each session)."""

from corpusdb.cli.main import run

run()
