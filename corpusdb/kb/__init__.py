"""Knowledge bases: vocabularies loaded into the database, looked up as annotators type.

One module per job: ``norm`` (how names are compared), ``index`` (the typo-tolerant search index
each database offers: SQLite FTS5 trigram, PostgreSQL pg_trgm), ``store`` (load, update, remove,
list: bulk writes of what ``importers.kb_*`` read), ``search`` (candidates for a typed text, ranked
exact > synonym > prefix > fuzzy with rapidfuzz), ``graph`` (``is_a`` ancestors, branches, Wang
similarity inputs), ``check`` (groundings against their knowledge base: unknown, obsolete, outside
the branch), ``service`` (the ``Corpus`` methods the CLI and the TUI call).
"""
