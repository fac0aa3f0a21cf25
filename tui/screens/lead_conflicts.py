"""A document's conflicts as a lead looks at them from the lead view: the adjudication screen, read-only.

Why a read-only variant: opening the adjudication screen runs the workflow's auto-merge, which
writes a gold set and "unanimous" decisions in the opener's name (issue #15.7). A lead who drills
down from "lowest-agreement document" wants to see the disagreements, not to start gold. So this
screen reads without merging (the facade below), refuses every action that is not looking (an
allow-list, so an action added to the adjudication screen later is refused until it is listed),
and offers ``A`` to adjudicate the document for real (the facade merges at a lead's first decision).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import BindingType

from corpusdb.basics.errors import UsageError
from tui import keymap
from tui.facade import Adjudication, TuiFacade
from tui.screens.adjudicate import AdjudicateScreen

LOOK_ACTIONS = frozenset({"next_open", "toggle_agreed", "toggle_sides", "reload", "close", "adjudicate_here"})
"""The adjudication screen's actions that only change what is shown (everything else may write)."""
READ_ONLY = "read-only: looking writes nothing; A adjudicates this document"


class LookingFacade(TuiFacade):
    """The app's facade for a lead who looks: opening reads (no auto-merge into gold), deciding refuses."""

    def __init__(self, inner: TuiFacade) -> None:
        super().__init__(inner.corpus)
        self.__dict__.update(project=inner.project, schema=inner.schema)  # read once, at start-up

    def open_adjudication(self, document: str) -> Adjudication:
        return self.reload_adjudication(document)

    def resolve(self, document: str, key: str, **how: Any) -> Any:
        raise UsageError(f"{key} not decided: {READ_ONLY}")


class LeadConflictsScreen(AdjudicateScreen):
    """One document's conflicts and the annotators' versions, without writing anything."""

    HELP = (
        "The conflicts of one document, as the annotators left them (agreed items are not merged into "
        "gold: nothing is written). n/p move between open conflicts, s shows the versions side by side, "
        "h the agreed items. A adjudicates this document (agreed items are merged into gold, in your "
        "name, at your first decision)."
    )

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("lead_conflicts")

    def __init__(self, document: str) -> None:
        super().__init__(document)
        self._looking: LookingFacade | None = None

    @property
    def facade(self) -> TuiFacade:
        if self._looking is None:
            self._looking = LookingFacade(self.corpus_app.facade)
        return self._looking

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # None: shown disabled in the footer (they decide: not here); the subtitle says A adjudicates
        return True if action in LOOK_ACTIONS else None

    def _show(self, a: Adjudication) -> None:
        super()._show(a)
        self.title = f"Conflicts of {self.document} (read-only)"
        dc = a.conflicts
        self.sub_title = (
            f"{self.corpus_app.facade.user} · {dc.open if dc else 0} open · "
            f"{dc.agreed if dc else 0} agreed · gold {a.gold.info.status if a.gold else 'none'} · A adjudicate"
        )

    def action_adjudicate_here(self) -> None:
        """Adjudicate this document for real (the queue's screen; agreed items merged at the first decision)."""
        app = self.corpus_app
        if not app.facade.can_adjudicate:
            self.notify("adjudication needs an adjudicator or a lead", severity="warning")
            return
        self.dismiss(None)
        app.open_adjudication(self.document)
