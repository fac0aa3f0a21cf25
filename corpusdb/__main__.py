"""``python -m corpusdb``: the ``corpusdb`` command (how ``corpusdb serve`` starts each session)."""

if __name__ == "__main__":
    from corpusdb.cli.main import run

    run()
