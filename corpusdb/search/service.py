"""The ``Corpus`` methods for search: what ``corpusdb search`` and the TUI's search screens call.

Who sees what: every member searches every document's text (texts are no one's work); span hits
come only from sets the actor may read (``corpusdb.services.access``: an annotator her own sets; an
adjudicator or lead gold, predictions, their own sets and the sets of documents every annotator has
submitted). Naming another annotator's sets in a query is refused for annotators, not answered
with nothing, so a search never suggests a colleague has or lacks an annotation.
"""

from __future__ import annotations

from collections.abc import Sequence

from corpusdb.search import engine
from corpusdb.search.bulk import BulkMixin
from corpusdb.search.engine import SearchCounts, SearchResult
from corpusdb.search.query import parse
from corpusdb.services.base import ServiceBase


class SearchMixin(BulkMixin, ServiceBase):
    """Searching texts and annotations, and acting on every hit (``corpusdb.search.bulk``)."""

    def search(
        self,
        query: str,
        *,
        limit: int | None = 100,
        context: int | None = 40,
        document: str | Sequence[str] | None = None,
        set_id: int | None = None,
    ) -> SearchResult:
        """The hits of ``query`` (syntax: ``corpusdb.search.query``), in document and offset order:
        at most ``limit`` (None: all; ``more`` says whether there were others), each with ``context``
        characters of text before and after. ``document`` / ``set_id`` keep to one document or set."""
        q = parse(query)
        schema = self.schema()  # type: ignore[attr-defined]
        with self._read() as conn:
            return engine.run(conn, self.project_id, self.actor, schema, q, limit=limit, context=context,
                              document=document, set_id=set_id)  # fmt: skip

    def search_counts(self, query: str, *, document: str | Sequence[str] | None = None) -> SearchCounts:
        """How many hits of ``query`` per document and span type (``text`` for places in the texts)."""
        q = parse(query)
        schema = self.schema()  # type: ignore[attr-defined]
        with self._read() as conn:
            return engine.counts(conn, self.project_id, self.actor, schema, q, document=document)
