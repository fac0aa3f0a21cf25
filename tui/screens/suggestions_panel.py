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
suggestion; ``u`` undoes any of them. A relation suggestion (a relation recommender's, or a
system's) is under the cursor when one of its arguments is: the status line names it with its
arguments (``suggested Localization: Bacterium «B. subtilis» → Localization «soil» by rels v2``),
``y`` makes the relation (and any argument still a span suggestion), ``X`` rejects it; the second
line counts them, and ``]``/``[`` stop at their first arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from corpusdb.basics.errors import CorpusError
from corpusdb.services.edits import Change, Mark
from tui import items as it
from tui.colours import type_colours
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
    ("suggested Type: A → B", "a relation suggested between the span under the cursor and the one lit pink"),
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
        def update_partners(self) -> None: ...

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
        colors = type_colours(s.schema)
        self.view.set_suggestions(
            [
                (a, b, suggestion_style(colors.get(x.type, UNKNOWN_COLOR)))
                for x in self.shown_suggestions()
                for a, b in x.fragments
            ]
        )

    def shown_relation_suggestions(self) -> list[Any]:
        """The open relation suggestions whose arguments are all my items or open span suggestions
        (what accepting needs), by their first argument's place."""
        s = self.session
        if s is None or not s.suggestions:
            return []
        have = {(sp.type, tuple(sp.fragments)) for sp in s.annotations.spans}
        have |= {(x.type, x.fragments) for x in s.suggestions if x.kind == "span" and x.status == "open"}
        out = [
            x
            for x in s.suggestions
            if x.kind == "relation"
            and x.status == "open"
            and _args(x)
            and all((t, frags) in have for _r, t, frags, _x in _args(x))
        ]
        return sorted(out, key=lambda x: (_args(x)[0][2][0][0], -x.score, x.type))

    def relation_suggestion_here(self) -> Any | None:
        """The relation suggestion an argument of which is under the cursor (one whose first
        argument is here first, then the best score)."""
        at = self.view.cursor
        best: tuple[tuple[int, float], Any] | None = None
        for x in self.shown_relation_suggestions():
            for i, (_r, _t, frags, _x) in enumerate(_args(x)):
                if any(a <= at < b for a, b in frags):
                    key = (min(i, 1), -x.score)
                    if best is None or key < best[0]:
                        best = (key, x)
                    break
        return best[1] if best else None

    def suggestion_here(self) -> Any | None:
        """The span suggestion under the cursor (the shortest when several cover it), else the
        relation suggestion one of whose arguments is under it."""
        at = self.view.cursor
        here = [x for x in self.shown_suggestions() if any(a <= at < b for a, b in x.fragments)]
        if here:
            return min(here, key=lambda x: x.end - x.start)
        return self.relation_suggestion_here()

    def suggestion_line(self, x: Any) -> str:
        if x.kind == "relation":
            ends = " → ".join(f"{role} «{it.short(text, 16)}»" for role, _t, _f, text in _args(x))
            return f"suggested {x.type}: {ends} by {x.source} ({x.score:.2f}) · y accept · X reject"
        same = len(self.facade.suggestion_actions().same_name(self.shown_suggestions(), x))
        more = f" · Y all {same}" if same > 1 else ""
        return f"suggested {x.type} «{it.short(x.text, 24)}» by {x.source} ({x.score:.2f}) · y accept · X reject{more}"

    def suggestions_summary(self) -> str:
        """For the second status line: what this document has, suggestions or pre-annotation."""
        s = self.session
        if s is None:
            return ""
        n = len(self.shown_suggestions())
        rels = len(self.shown_relation_suggestions())
        seeded = " · pre-annotated" if s.info.seeded_from is not None else ""
        return (
            (f" · {n} suggestion(s)" if n else "")
            + (f" · {rels} relation suggestion(s)" if rels else "")
            + (" (]/[ y X)" if n or rels else "")
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
            elif x.kind == "relation":  # its arguments are my items (or span suggestions taken with it)
                changes, description = acts.accept(s.annotations, s.text, [x], s.suggestions)
            else:
                chosen = acts.same_name(self.shown_suggestions(), x) if how == "all" else [x]
                changes, description = acts.accept(s.annotations, s.text, chosen)
        except CorpusError as exc:
            self.fail(exc, "not done")
            return
        made = next((c.item for c in changes if isinstance(c, Mark) and c.item), None)
        if x.kind == "relation":
            made = None  # the cursor's span stays the active one
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
        starts = sorted(
            {x.start for x in shown} | {_args(x)[0][2][0][0] for x in self.shown_relation_suggestions()}
        )
        target = (
            next((p for p in starts if p > at), None)
            if step > 0
            else next((p for p in reversed(starts) if p < at), None)
        )
        if target is None:
            self.notify(
                "no suggestion " + ("after" if step > 0 else "before") + " the cursor"
                if starts
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
        self.update_partners()  # a relation suggested with the active span lights its partner up
        self._update_status()


def _args(x: Any) -> list[tuple[str, str, tuple[tuple[int, int], ...], str]]:
    """A relation suggestion's arguments: (role, type, fragments, text)."""
    return [
        (
            str(a["role"]),
            str(a["type"]),
            tuple((int(p), int(q)) for p, q in a["fragments"]),
            str(a.get("text", "")),
        )
        for a in (x.payload or {}).get("args") or ()
        if a.get("fragments")
    ]
