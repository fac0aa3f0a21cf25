"""``/`` on a screen that shows a document's text: search that document; ``>`` / ``<`` go to the
next / previous hit (the annotate, adjudication and judging screens: one mixin, one meaning).

Why ``>`` and ``<`` rather than vim's ``n``/``N``: those move to the next and previous span here.
The query is the corpus search's (``corpusdb.search.query``): words, phrases and regexes find places
in the text; a query with fields (``type:Habitat``, ``grounding:*``) finds the spans that match: of
my set while annotating, of every set the adjudicator reads while adjudicating. The search runs
through the API, like every read (the facade), inside the dialog's worker: keys typed after Enter
(``/ soil enter >``, in one burst) wait until the hits are shown, then walk them.
"""

from __future__ import annotations

import asyncio

from textual import work

from corpusdb.basics.errors import CorpusError
from tui.screens.pickers import PromptScreen


class DocumentSearch:
    """Mixed into a screen that shows one document's text. The annotate screen's defaults (``view``,
    ``session``); another screen overrides the four hooks: what is searched (``_search_scope``),
    where hits are marked (``_mark_hits``), where the cursor is (``_hit_cursor``) and how it goes
    to a hit (``_go_to_hit``)."""

    search_query: str = ""
    search_hits: list[tuple[int, int]] = []  # noqa: RUF012 (replaced, never changed in place)
    pending_hit: tuple[tuple[int, int], str] | None = None
    """Set before the screen is shown (from the corpus search screen): the hit to go to, its query."""

    # -- hooks (the annotate screen's) ------------------------------------------------------------
    def _search_scope(self) -> tuple[str, int | None] | None:
        """``(document, set id or None: every set I may read there)``, or None before it is open."""
        session = self.session  # type: ignore[attr-defined]
        return None if session is None else (session.document.external_id, session.info.id)

    def _mark_hits(self, hits: list[tuple[int, int]]) -> None:
        self.view.set_hits(hits)  # type: ignore[attr-defined]

    def _hit_cursor(self) -> int:
        return int(self.view.cursor)  # type: ignore[attr-defined]

    def _go_to_hit(self, start: int, stop: int) -> None:
        self.view.move_to(start)  # type: ignore[attr-defined]
        self.view.scroll_to_cursor()  # type: ignore[attr-defined]

    # -- opening at a hit ---------------------------------------------------------------------------
    def search_mounted(self) -> None:
        """Called by the screen's ``on_mount``: go to the pending hit once the text is laid out."""
        self.search_hits = []
        if self.pending_hit is not None:
            self.call_after_refresh(self._go_to_pending)  # type: ignore[attr-defined]

    def _go_to_pending(self) -> None:
        assert self.pending_hit is not None
        (start, stop), query = self.pending_hit
        self.pending_hit = None
        self._go_to_hit(start, stop)
        if query:
            self._search(query, quiet=True)

    # -- searching ----------------------------------------------------------------------------------
    @work(exclusive=True, group="dialog")
    async def action_search_document(self) -> None:
        query = await self.app.push_screen_wait(  # type: ignore[attr-defined]
            PromptScreen(
                "Search this document",
                value=self.search_query,
                placeholder='words, "a phrase", /regex/, or fields: type:T text:W grounding:ID',
                note="Enter searches (empty: clear the hits) · > / < next and previous hit · Esc cancels",
            )
        )
        if query is None:
            return
        if not query:
            self.search_query, self.search_hits = "", []
            self._mark_hits([])
            return
        hits = await asyncio.to_thread(self._find, query)  # in this worker: keys typed after wait
        if hits is not None:
            self._show_hits(query, hits, False)

    def _find(self, query: str) -> list[tuple[int, int]] | None:
        """The hits of ``query`` in the document (blocking; None: refused, and said so)."""
        scope = self._search_scope()
        if scope is None:
            return None
        try:
            return self.facade.search_document(scope[0], query, set_id=scope[1])  # type: ignore[attr-defined,no-any-return]
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "search")  # type: ignore[attr-defined]
            return None

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str, quiet: bool = False) -> None:
        hits = self._find(query)
        if hits is not None:
            self.app.call_from_thread(self._show_hits, query, hits, quiet)  # type: ignore[attr-defined]

    def _show_hits(self, query: str, hits: list[tuple[int, int]], quiet: bool) -> None:
        self.search_query, self.search_hits = query, hits
        self._mark_hits(hits)
        if not hits:
            self.notify(f"no hit for {query}", severity="warning")  # type: ignore[attr-defined]
            return
        if not quiet:
            self.action_next_hit(1, here=True)

    def action_next_hit(self, step: int, here: bool = False) -> None:
        """Move to the next (``step`` 1) or previous (-1) hit after the cursor, round the end."""
        hits = self.search_hits
        if not hits:
            self.notify("no search yet: / searches the document", severity="warning")  # type: ignore[attr-defined]
            return
        cursor = self._hit_cursor()
        starts = [a for a, _ in hits]
        if step > 0:
            after = [i for i, a in enumerate(starts) if a > cursor or (here and a == cursor)]
            i = after[0] if after else 0
        else:
            before = [i for i, a in enumerate(starts) if a < cursor]
            i = before[-1] if before else len(hits) - 1
        self._go_to_hit(*hits[i])
        self.notify(f"hit {i + 1}/{len(hits)}: {self.search_query}", timeout=2)  # type: ignore[attr-defined]

    def hit_status(self) -> str:
        return f"{len(self.search_hits)} hit(s) of {self.search_query}" if self.search_query else ""
