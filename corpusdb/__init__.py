"""corpusdb: annotated biomedical corpora, double-blind annotation, adjudication, agreement, releases.

``api`` (``Corpus``, the one Python API the CLI, the TUI and scripts use) and ``demo`` (a sample
project made through it) sit at the root; the packages, from the bottom up:

* ``basics``: records, errors and names every layer shares (importers and schemas included);
* ``agreement``, ``evaluation``: pure engines, records in, figures out;
* ``store``: engines, transactions, tables, migrations, row-level security;
* ``services``: projects, documents, annotation sets and the blindness gate (the API's core mixins);
* ``workflow``, ``interchange``, ``reports``, ``relevance``: assignment to release, formats in and
  out, agreement reports, relevance judging (the API's feature mixins);
* ``cli``: the command line (the TUI is the top-level package ``tui``).

Dependencies point down only; ``pyproject.toml``'s import contracts check it.
"""
