"""The annotation screen's suggestions: drawn in the text, named on the status line, decided in one key.

Why a mixin of its own: ``annotate.py`` keeps the screen (layout, saving, undo); what accepting or
rejecting changes is pure (``corpusdb.recommend.actions``: the same changes the API makes); this
draws the suggestions, says who proposed them, and turns a key into one ``_act`` (one transaction,
one undo step, accept-all included). The suggestions come from the API (``Corpus.suggestions``),
which refreshes them from the models the annotator may use (blindness: gold, adjudicated documents,
her own sets) in a worker, after the document is shown and after each action that adds a span (so
a name just tagged is proposed at its other occurrences at once), and every ``facade.suggestion_poll``
seconds (a recommender added or retrained after the TUI started is picked up in the open document;
opening a document reads the recommenders again too).

Keys: ``y`` accept the suggestion under the cursor, ``Y`` accept every open suggestion of that name
and type in the document, ``X`` reject it (not proposed to me again), ``]``/``[`` next/previous
suggestion; ``u`` undoes any of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from corpusdb.basics.errors import CorpusError
from corpusdb.services.edits import Change, Mark
from tui import items as it
from tui.paint import UNKNOWN_COLOR
from tui.widgets.docview import suggestion_style

if TYPE_CHECKING:
    from textual.app import App

    from tui.facade import TuiFacade
    from tui.session import DocumentSession
    from tui.widgets.docview import DocumentView

HELP_ROWS: list[tuple[str, str]] = [
    ("underlined italic text", "a suggestion (type colour as text colour; your items have it as background)"),
    ("status line", "the suggestion under the cursor: type, text, recommender and version, score"),
]


class SuggestionActions:
    """Mixed into ``AnnotateScreen``, which provides the state and the few methods stubbed here."""

    session: DocumentSession | None

    if TYPE_CHECKING:
        app: App[Any]
        view: DocumentView
        facade: TuiFacade

        def notify(
            self, message: str, *, severity: Any = "information", timeout: float | None = None
        ) -> None: ...
        def fail(self, exc: BaseException, doing: str = "") -> None: ...
        def _act(self, changes: list[Change], description: str, *, active: str | None = None) -> bool: ...
        def _writable(self) -> bool: ...
        def _update_status(self) -> None: ...
        def set_interval(self, interval: float, callback: Any) -> Any: ...

    # -- what is shown ----------------------------------------------------------------------------
    def shown_suggestions(self) -> list[Any]:
        """The open span suggestions not already among my items, in text order."""
        s = self.session
        if s is None or not s.suggestions:
            return []
        return self.facade.suggestion_actions().shown(s.annotations, s.suggestions)

    def update_suggestions(self) -> None:
        """Redraw the suggestions (after an edit, an undo, a refresh)."""
        s = self.session
        if s is None:
            return
        colors = s.schema.colors()
        self.view.set_suggestions(
            [
                (a, b, suggestion_style(colors.get(x.type, UNKNOWN_COLOR)))
                for x in self.shown_suggestions()
                for a, b in x.fragments
            ]
        )

    def suggestion_here(self) -> Any | None:
        """The suggestion under the cursor (the shortest when several cover it)."""
        at = self.view.cursor
        here = [x for x in self.shown_suggestions() if any(a <= at < b for a, b in x.fragments)]
        return min(here, key=lambda x: x.end - x.start) if here else None

    def suggestion_line(self, x: Any) -> str:
        same = len(self.facade.suggestion_actions().same_name(self.shown_suggestions(), x))
        more = f" · Y all {same}" if same > 1 else ""
        return f"suggested {x.type} «{it.short(x.text, 24)}» by {x.source} ({x.score:.2f}) · y accept · X reject{more}"

    def suggestions_summary(self) -> str:
        """For the second status line: what this document has, suggestions or pre-annotation."""
        s = self.session
        if s is None:
            return ""
        n = len(self.shown_suggestions())
        rels = sum(1 for x in s.suggestions if x.kind == "relation" and x.status == "open")
        seeded = " · pre-annotated" if s.info.seeded_from is not None else ""
        # relation suggestions are decided from the command line for now (recommend accept ID)
        return (
            (f" · {n} suggestion(s) (]/[ y X)" if n else "")
            + (f" · {rels} relation suggestion(s)" if rels else "")
            + seeded
        )

    # -- actions ----------------------------------------------------------------------------------
    def _decide(self, how: str) -> None:
        s = self.session
        if s is None or not self._writable():
            return
        x = self.suggestion_here()
        if x is None:
            self.notify("no suggestion under the cursor (] goes to the next one)", severity="warning")
            return
        acts = self.facade.suggestion_actions()
        try:
            if how == "reject":
                changes, description = acts.reject([x])
            else:
                chosen = acts.same_name(self.shown_suggestions(), x) if how == "all" else [x]
                changes, description = acts.accept(s.annotations, s.text, chosen)
        except CorpusError as exc:
            self.fail(exc, "not done")
            return
        made = next((c.item for c in changes if isinstance(c, Mark) and c.item), None)
        if self._act(changes, description, active=made):
            self.notify(description)

    def action_accept_suggestion(self) -> None:
        self._decide("one")

    def action_accept_all_suggestions(self) -> None:
        self._decide("all")

    def action_reject_suggestion(self) -> None:
        self._decide("reject")

    def action_next_suggestion(self, step: int) -> None:
        shown = self.shown_suggestions()
        at = self.view.cursor
        starts = sorted({x.start for x in shown})
        target = (
            next((p for p in starts if p > at), None)
            if step > 0
            else next((p for p in reversed(starts) if p < at), None)
        )
        if target is None:
            self.notify(
                "no suggestion " + ("after" if step > 0 else "before") + " the cursor"
                if shown
                else "no suggestion in this document"
            )
            return
        self.view.move_to(target)

    # -- refreshing -------------------------------------------------------------------------------
    def refresh_suggestions(self) -> None:
        """Ask the recommenders again (in a worker): after opening, and after an action adds a span."""
        if self.session is not None and not self.session.readonly and self.facade.has_recommenders():
            self._refresh_suggestions()

    @work(thread=True, exclusive=True, group="suggest")
    def _refresh_suggestions(self) -> None:
        s = self.session
        if s is None:
            return
        try:
            found = self.facade.refresh_suggestions(s)
        except CorpusError as exc:
            self.app.call_from_thread(self.notify, f"suggestions: {exc}", severity="warning")
            return
        self.app.call_from_thread(self._suggestions_read, s, found)

    def start_suggestion_poll(self) -> None:
        """Check every ``facade.suggestion_poll`` seconds for recommenders added or retrained since
        the TUI started (a lead's ``recommend add``/``train``, my own background training): their
        suggestions appear in the open document without reopening it."""
        if getattr(self, "_suggestion_timer", None) is None:  # one timer per screen
            self._suggestion_timer = self.set_interval(self.facade.suggestion_poll, self._poll_suggestions)

    @work(thread=True, exclusive=True, group="suggest-poll")
    def _poll_suggestions(self) -> None:
        s = self.session
        if s is None or s.dirty:
            return
        try:
            found = self.facade.poll_suggestions(s)
        except CorpusError:  # said when the document is opened again; a poll stays quiet
            return
        if found is not None:
            self.app.call_from_thread(self._suggestions_read, s, found)

    def _suggestions_read(self, s: DocumentSession, found: list[Any]) -> None:
        if s is not self.session or s.dirty:  # an action is being saved: its own refresh follows
            return
        if [(x.id, x.status, x.score, x.version) for x in found] == [
            (x.id, x.status, x.score, x.version) for x in s.suggestions
        ]:
            return  # nothing new: no repaint
        s.suggestions = found
        self.update_suggestions()
        self._update_status()
