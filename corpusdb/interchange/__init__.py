"""Corpora into the store and out again: brat/BioNLP standoff and BioRelEx JSON.

``InterchangeMixin`` gives ``Corpus`` its ``import_*``/``export_*`` methods; the reports and the two
refusals (``ImportRefused``, exit code 4; ``ImportConflict``, exit code 6) carry every problem.
"""

from corpusdb.interchange.mixin import InterchangeMixin
from corpusdb.interchange.report import (
    ExportReport,
    ImportConflict,
    ImportProblems,
    ImportRefused,
    ImportReport,
)

__all__ = [
    "ExportReport",
    "ImportConflict",
    "ImportProblems",
    "ImportRefused",
    "ImportReport",
    "InterchangeMixin",
]
