"""Agreement reports over a corpusdb project: the DB-facing service and the renderers.

``Corpus.agreement(...)`` (mixed in from :mod:`corpusdb.reports.service`) reads the raters' sets
through the blindness gate, computes with the pure engine :mod:`corpusdb.agreement`, and returns an
:class:`AgreementReport` whose ``to_dict()`` is the versioned JSON API (schema
``corpusdb.agreement/1``, documented in ``corpusdb/reports/README.md``). Renderers:
:func:`render_text` (rich), :func:`render_markdown`, :func:`render_html` (self-contained, with
inline SVG pictures drawn by matplotlib, imported only there).
"""

from corpusdb.reports.options import GOLD, LAYERS, AgreementOptions, parse_merge
from corpusdb.reports.report import SCHEMA_ID, AgreementReport, build_report

__all__ = [
    "GOLD",
    "LAYERS",
    "SCHEMA_ID",
    "AgreementOptions",
    "AgreementReport",
    "build_report",
    "parse_merge",
]
