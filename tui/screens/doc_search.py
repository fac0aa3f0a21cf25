"""``/`` in the annotate screen: search the open document; ``>`` / ``<`` go to the next / previous hit.

Why ``>`` and ``<`` rather than vim's ``n``/``N``: those move to the next and previous span here.
The query is the corpus search's (``corpusdb.search.query``): words, phrases and regexes find places
in the text; a query with fields (``type:Habitat``, ``grounding:*``) finds the spans of my set that
match. The search runs through the API, like every read (the facade, in a worker).
"""

from __future__ import annotations

from textual import work

from corpusdb.basics.errors import CorpusError
from tui.screens.pickers import PromptScreen


class DocumentSearch:
    """Mixed into the annotate screen (which has ``view``, ``session``, ``facade``, ``notify``)."""

    search_query: str = ""
    search_hits: list[tuple[int, int]] = []  # noqa: RUF012 (replaced, never changed in place)
    pending_hit: tuple[tuple[int, int], str] | None = None
    """Set before the screen is shown (from the corpus search screen): the hit to go to, its query."""

    def on_mount(self) -> None:
        self.search_hits = []
        if self.pending_hit is not None:
            self.call_after_refresh(self._go_to_pending)  # type: ignore[attr-defined]

    def _go_to_pending(self) -> None:
        assert self.pending_hit is not None
        (start, _stop), query = self.pending_hit
        self.pending_hit = None
        self.view.move_to(start)  # type: ignore[attr-defined]
        self.view.scroll_to_cursor()  # type: ignore[attr-defined]
        if query:
            self._search(query, quiet=True)

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
            self.view.set_hits([])  # type: ignore[attr-defined]
            return
        self._search(query)

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str, quiet: bool = False) -> None:
        session = self.session  # type: ignore[attr-defined]
        if session is None:
            return
        try:
            hits = self.facade.search_document(session, query)  # type: ignore[attr-defined]
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "search")  # type: ignore[attr-defined]
            return
        self.app.call_from_thread(self._show_hits, query, hits, quiet)  # type: ignore[attr-defined]

    def _show_hits(self, query: str, hits: list[tuple[int, int]], quiet: bool) -> None:
        self.search_query, self.search_hits = query, hits
        self.view.set_hits(hits)  # type: ignore[attr-defined]
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
        cursor = self.view.cursor  # type: ignore[attr-defined]
        starts = [a for a, _ in hits]
        if step > 0:
            after = [i for i, a in enumerate(starts) if a > cursor or (here and a == cursor)]
            i = after[0] if after else 0
        else:
            before = [i for i, a in enumerate(starts) if a < cursor]
            i = before[-1] if before else len(hits) - 1
        self.view.move_to(starts[i])  # type: ignore[attr-defined]
        self.view.scroll_to_cursor()  # type: ignore[attr-defined]
        self.notify(f"hit {i + 1}/{len(hits)}: {self.search_query}", timeout=2)  # type: ignore[attr-defined]

    def hit_status(self) -> str:
        return f"{len(self.search_hits)} hit(s) of {self.search_query}" if self.search_query else ""
