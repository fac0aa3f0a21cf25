"""corpusdb: annotated biomedical corpora, double-blind annotation, adjudication, agreement, releases.

``corpusdb.api.Corpus`` is the one Python API the CLI, the TUI and scripts use; each subpackage's
docstring says its job.
"""
