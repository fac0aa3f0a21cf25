"""Agreement reports over a corpusdb project: the DB-facing service and the renderers.

``Corpus.agreement(...)`` (mixed in from :mod:`corpusdb.reports.service`) reads the raters' sets
through the blindness gate, computes with the pure engine :mod:`corpusdb.agreement`, and returns an
:class:`AgreementReport` whose ``to_dict()`` is the versioned JSON API (schema
``corpusdb.agreement/1``, documented in ``corpusdb/reports/README.md``). Renderers:
:func:`render_text` (rich), :func:`render_markdown`, :func:`render_html` (self-contained, with
inline SVG pictures drawn by matplotlib, imported only there).
"""

from typing import TYPE_CHECKING

from corpusdb.basics.lazy import lazy_names

if TYPE_CHECKING:  # for type checkers; at run time the names load lazily (PEP 562)
    from corpusdb.reports.options import GOLD, LAYERS, AgreementOptions, parse_merge
    from corpusdb.reports.report import SCHEMA_ID, AgreementReport, build_report

# Lazy because ``Corpus`` mixes in ``corpusdb.reports.service``: opening a project for any command
# must not load the report machinery and the engine (issue #14).
_LAZY = {
    "GOLD": "options",
    "LAYERS": "options",
    "AgreementOptions": "options",
    "parse_merge": "options",
    "SCHEMA_ID": "report",
    "AgreementReport": "report",
    "build_report": "report",
}

__all__ = [
    "GOLD",
    "LAYERS",
    "SCHEMA_ID",
    "AgreementOptions",
    "AgreementReport",
    "build_report",
    "parse_merge",
]

__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)
