"""The API's core parts: projects, documents, annotation sets, and who may see what.

Each module is one mixin (or the helpers of one) of ``corpusdb.api.Corpus``: ``base`` (the engine,
project, acting user and transactions every part shares), ``access`` (the blindness gate: every read
of annotation content goes through it), ``projects``, ``documents``, ``sets``, ``content`` (a set's
records to rows and back), ``items`` (items as JSON), ``edits`` and ``undo``, ``skips``, ``history``,
``hygiene``, ``team``. The features (workflow, interchange, reports, relevance) build on these; these
build on the store.
"""
