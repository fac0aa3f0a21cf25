"""The lead's view: progress per annotator and per document, span agreement per type with bars."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane

from tui.facade import Progress
from tui.screens.base import ReloadingScreen
from tui.widgets.tables import fill_table

BLOCKS = " ▏▎▍▌▋▊▉█"
STATUS_MARK = {"assigned": "·", "in_progress": "…", "submitted": "✓"}


def bar(fraction: float | None, width: int = 12) -> str:
    """A horizontal bar of ``width`` cells for a fraction in [0, 1], in eighths of a cell."""
    if fraction is None:
        return ""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (BLOCKS[part] if part else "")).ljust(width)


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


class LeadScreen(ReloadingScreen):
    """Where the project stands, and how well the annotators agree so far."""

    HELP = (
        "Progress per annotator and per document. Agreement: pairwise span F1 per type (exact "
        "boundaries, same type) over documents whose sets are all submitted."
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "reload", "Reload"),
        Binding("A", "adjudicate", "Adjudication"),
        Binding("l", "next_tab", "Next tab", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.with_agreement = False
        """Agreement is computed once its tab is first opened, not before the first paint: it is
        the one costly read of this screen (numpy and the agreement engine; issue #14)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading…", id="summary", markup=False)
        with TabbedContent(id="lead-tabs"):
            with TabPane("Annotators", id="tab-annotators"):
                yield DataTable(id="annotators", cursor_type="row")
            with TabPane("Documents", id="tab-documents"):
                yield DataTable(id="documents", cursor_type="row")
            with TabPane("Agreement", id="tab-agreement"):
                yield Static("", id="agreement-note", markup=False)
                yield DataTable(id="agreement", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Project progress"
        self.sub_title = f"{self.facade.user} ({self.facade.role}) · {self.facade.project.name}"

    LOADING = "read progress"

    def fetch(self) -> Any:
        return self.facade.progress(with_agreement=self.with_agreement)

    @on(TabbedContent.TabActivated, "#lead-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-agreement" and not self.with_agreement:
            self.with_agreement = True
            self.query_one("#agreement-note", Static).update("Computing agreement…")
            self.action_reload()

    def show(self, p: Progress) -> None:
        r = p.report
        self.query_one("#summary", Static).update(
            f"{r.project} · schema {r.schema} · guidelines v{r.guideline_version} · {r.documents} documents · "
            f"{r.documents_ready} ready for adjudication · {r.documents_with_gold} with gold"
            + _skipped_lines(r.skipped)
        )
        ann_rows = []
        for a in r.annotators:
            done = a.submitted / a.total if a.total else None
            ann_rows.append(
                (
                    a.name,
                    a.role,
                    str(a.assigned),
                    str(a.in_progress),
                    str(a.submitted),
                    Text(bar(done, 10) + (f" {done:.0%}" if done is not None else ""), style="green"),
                )
            )
        fill_table(
            self.query_one("#annotators", DataTable),
            ("annotator", "role", "assigned", "in prog.", "submitted", "done"),
            ann_rows,
        )
        names = sorted({n for d in p.documents for n in d.statuses})
        fill_table(
            self.query_one("#documents", DataTable),
            ("document", *names, "gold"),
            [
                (d.document, *(STATUS_MARK.get(d.statuses.get(n, ""), "") for n in names), d.gold or "")
                for d in p.documents
            ],
        )
        if not self.with_agreement:
            return
        rows = list(p.agreement) + ([p.agreement_overall] if p.agreement_overall else [])
        fill_table(self.query_one("#agreement", DataTable), ("type", "matched", "only A", "only B", "F1", " "),
                   [(t.type, str(t.matched), str(t.only_a), str(t.only_b), _f(t.f1), Text(bar(t.f1), style="cyan"))
                    for t in rows])  # fmt: skip
        self.query_one("#agreement-note", Static).update(p.agreement_note or "span F1 per type")

    def action_adjudicate(self) -> None:
        self.corpus_app.show_queue()

    def action_next_tab(self) -> None:
        tabs = self.query_one("#lead-tabs", TabbedContent)
        order = ["tab-annotators", "tab-documents", "tab-agreement"]
        tabs.active = order[(order.index(tabs.active) + 1) % 3] if tabs.active in order else order[0]


def _skipped_lines(skipped: Any) -> str:
    """Documents skipped as irrelevant, under the summary: the first three, then how many more."""
    lines = "".join(
        f"\nskipped as irrelevant: {k.document} by {k.annotator} ({k.reason})" for k in skipped[:3]
    )
    more = len(skipped) - 3
    return lines + (f"\n… and {more} more skipped (corpusdb status lists them all)" if more > 0 else "")
