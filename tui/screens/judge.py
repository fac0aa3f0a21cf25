"""Relevance judging (TREC-style): the topic beside the text, one key per grade, the next unit at once.

Why a screen of its own: a judgment is one document label, not spans. On the annotation screen it
cost six keys and the topic was a title cut at 80 columns. Here the topic (title, need, context) is
always in sight, a grade key saves the judgment (``Corpus.judge``, what ``corpusdb judge`` calls)
and moves to the next unit, the list shows each unit's topic and grade and the progress per topic.

Keys typed in a burst are applied in order to the units in order: a grade changes the screen's
picture at once (on the UI thread) and its save is queued to one worker that writes them one after
another, so nothing waits for a text to load or a save to finish. Blindness: the list is the judge's
own ``Corpus.judgments()``; nothing on screen names another judge, a run or a rank.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.colours import HIT
from tui.keymap import GRADE_KEYS
from tui.screens.base import HelpRows, ReloadingScreen, app_rows, binding_rows
from tui.screens.doc_search import DocumentSearch
from tui.screens.pickers import MessageScreen
from tui.session import QueueClaim
from tui.widgets.footer import KeyBar
from tui.widgets.header import TitleBar
from tui.widgets.tables import fill_table

GRADE_STYLE = ("bold green", "yellow", "dim")
"""Grades in the schema's order (DR, PR, NR): most relevant brightest."""
WIDE = 120
"""From this many columns the topic is a column beside the text (below it: above the text)."""
PREFETCH = 3
"""Texts of the next units read with the current one (a judge moves on in a key)."""


class JudgeScreen(DocumentSearch, ReloadingScreen):
    """My relevance units: the topic and the text side by side, one key per grade."""

    HELP = (
        "Judge each document against the topic shown beside it (units topic by topic). A grade key (1 2 3, or the schema's "
        "d p n) saves the judgment and opens the next unit; up/down move in the list, where each "
        "unit shows its topic and your grade, with the progress per topic under it. S submits your "
        "graded units of the current topic (read-only afterwards: then they count in qrels and kappa). "
        "Enter opens the unit on the annotation screen (to mark the passage that supports the judgment). "
        "/ searches the unit's text (words, a phrase, a regex), > / < go to the next/previous hit. "
        "You see only your own judgments."
    )

    LOADING = "read your units"

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("judge")

    def __init__(self, start: str | None = None) -> None:
        super().__init__()
        self.start = start
        self.units: list[Any] = []
        """My ``Judgment`` records, topic by topic, pool order in each (grades as on screen)."""
        self.topics: dict[str, Any] = {}
        self.grades: list[tuple[str, str, str | None]] = []
        self.keys: dict[str, str] = {}
        """Key -> grade value: the digits in the schema's order, and the schema's own keys."""
        self.texts: dict[str, str] = {}
        self.current = 0
        self._saves: deque[tuple[int, str]] = deque()
        self._saving = False
        self._lock = threading.Lock()
        self._claim = QueueClaim(self._lock)
        """Who writes the queue: the worker, or the app ending (``save_before_exit``)."""
        self.pending: dict[str, str] = {}
        """Unit -> grade typed but not saved yet (a reload keeps it)."""
        self.search_hits: list[tuple[int, int]] = []
        self.hit_at = -1
        """The offset of the search hit gone to last in the unit's text (-1: none yet)."""
        self._hits_of: str | None = None
        """The unit the hits are of (another unit shown: its own hits, searched again)."""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="judge-main"):
            with Vertical(id="judge-side"):
                yield DataTable(id="units", cursor_type="row", zebra_stripes=True)
                yield Static("", id="judge-progress", markup=False)
            with Horizontal(id="judge-read"):
                yield Static("Loading…", id="topic", markup=False)
                with VerticalScroll(id="unit-scroll"):
                    yield Static("", id="unit-text", markup=False)
        yield Static("", id="judge-keys", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Relevance judging"
        self.sub_title = f"{self.facade.user} · {self.facade.project.name}"
        self.grades = self.facade.grades()
        for i, (value, _name, key) in enumerate(self.grades):
            self.keys[str(i + 1)] = value
            if key and key in GRADE_KEYS:
                self.keys[key] = value
        self.query_one("#judge-keys", Static).update(self._keys_line())
        self.query_one(DataTable).focus()
        self._layout()

    def _keys_line(self) -> Text:
        by_value: dict[str, list[str]] = {}
        for k, v in self.keys.items():
            by_value.setdefault(v, []).append(k)
        parts = []
        for i, (value, name, _key) in enumerate(self.grades):
            keys = "/".join(by_value.get(value, []))
            parts.append(Text.assemble((keys, "bold reverse"), " ", (value, _style(i)), f" {name}"))
        return Text("  ").join(parts)  # each saves, then opens the next unit (the help says so)

    # -- loading ----------------------------------------------------------------------------------
    def on_screen_resume(self) -> None:
        """Read once (and on R): a dialog closing must not reload under grades still being saved."""
        if self.keys_wait and not self.units:  # not shown yet (keys wait for it)
            self._load()

    def fetch(self) -> Any:
        units, topics = self.facade.judging_round()
        units = by_topic(units)
        first = self._index_of(units, self.start) if self.units == [] else self.current
        near = [u.unit for u in units[first : first + 1 + PREFETCH]]
        return units, topics, self.facade.unit_texts(near)

    @staticmethod
    def _index_of(units: list[Any], unit: str | None) -> int:
        if unit is not None:
            found = next((i for i, u in enumerate(units) if u.unit == unit), None)
            if found is not None:
                return found
        # else the first without a grade (where the judge stopped), or the first
        return next((i for i, u in enumerate(units) if u.grade is None), 0)

    def show(self, data: Any) -> None:
        units, topics, texts = data
        from dataclasses import replace

        first = not self.units
        self.units = [replace(u, grade=self.pending[u.unit]) if u.unit in self.pending else u for u in units]
        self.topics = topics
        self.texts.update(texts)
        if first:
            self.current = self._index_of(self.units, self.start)
        self.current = min(self.current, max(0, len(self.units) - 1))
        table = self.query_one(DataTable)
        fill_table(
            table, ("#", "topic", "document", "grade"), [self._row(i, u) for i, u in enumerate(self.units)]
        )
        if self.units:
            table.move_cursor(row=self.current, animate=False)
        self._show_unit()

    def _row(self, i: int, u: Any) -> tuple[str | Text, ...]:
        grade: str | Text = "·"
        if u.grade is not None:
            idx = next((n for n, g in enumerate(self.grades) if g[0] == u.grade), 0)
            grade = Text(u.grade + (" ✓" if u.status == "submitted" else ""), _style(idx))
        return (str(i + 1), u.topic, u.doc, grade)

    # -- the unit on screen -------------------------------------------------------------------------
    def _show_unit(self) -> None:
        topic_w = self.query_one("#topic", Static)
        text_w = self.query_one("#unit-text", Static)
        if not self.units:
            topic_w.update("No unit to judge: a lead pools runs for you first (`corpusdb pool`).")
            text_w.update("")
            self._progress()
            return
        u = self.units[self.current]
        t = self.topics.get(u.topic)
        topic_w.update(_topic_text(u.topic, t, self._counts(u.topic)))
        text = self.texts.get(u.unit)
        if text is None:
            text_w.update(Text("Loading the text…", "dim"))
            self._fetch_texts(self.current)
        else:
            text_w.update(self._body(text))
        self.query_one("#unit-scroll", VerticalScroll).scroll_home(animate=False)
        if self._hits_of not in (None, u.unit):  # the search goes on in this unit's text
            self.search_hits, self.hit_at, self._hits_of = [], -1, None
            if self.search_query and text is not None:
                self._search(self.search_query, quiet=True)
        graded = f" · your grade: {u.grade}" if u.grade else " · not judged yet"
        state = " (submitted: read-only)" if u.status == "submitted" else ""
        self.query_one("#unit-scroll").border_title = f"{u.doc}{graded}{state}"
        self.sub_title = f"{self.facade.user} · unit {self.current + 1} of {len(self.units)}"
        self._progress()
        nxt = [
            x.unit
            for x in self.units[self.current + 1 : self.current + 1 + PREFETCH]
            if x.unit not in self.texts
        ]
        if nxt and text is not None:
            self._fetch_texts(self.current + 1)

    def _body(self, text: str) -> Text:
        """The unit's text: the topic's words underlined, the search's hits marked (the one gone to
        reversed)."""
        u = self.units[self.current]
        t = self.topics.get(u.topic)
        body = Text(text)
        words = [w for w in (t.title.split() if t else []) if len(w.strip(".,;:()")) > 3]
        body.highlight_words([w.strip(".,;:()") for w in words], "underline", case_sensitive=False)
        if self._hits_of == u.unit:
            for a, b in self.search_hits:
                body.stylize(f"bold #000000 on {HIT}" + (" reverse" if a == self.hit_at else ""), a, b)
        return body

    def _repaint_text(self) -> None:
        if self.units and (text := self.texts.get(self.units[self.current].unit)) is not None:
            self.query_one("#unit-text", Static).update(self._body(text))

    # -- search in the unit's text (/, > and <: the DocumentSearch hooks) -----------------------------
    def _search_scope(self) -> tuple[str, int | None] | None:
        return (self.units[self.current].unit, None) if self.units else None

    def _mark_hits(self, hits: list[tuple[int, int]]) -> None:
        self._hits_of = self.units[self.current].unit if self.units else None
        self.search_hits, self.hit_at = hits, -1
        self._repaint_text()

    def _hit_cursor(self) -> int:
        return self.hit_at

    def _go_to_hit(self, start: int, stop: int) -> None:
        """Mark the hit gone to and scroll its line into sight (a third of the way down)."""
        self.hit_at = start
        self._repaint_text()
        text = self.texts.get(self.units[self.current].unit, "") if self.units else ""
        scroll = self.query_one("#unit-scroll", VerticalScroll)
        width = self.query_one("#unit-text", Static).content_region.width
        row = wrapped_row(text, start, width)
        scroll.scroll_to(y=max(0, row - scroll.scrollable_content_region.height // 3), animate=False)

    @work(thread=True, group="texts")
    def _fetch_texts(self, index: int) -> None:
        want = [u.unit for u in self.units[index : index + 1 + PREFETCH] if u.unit not in self.texts]
        if not want:
            return
        try:
            texts = self.facade.unit_texts(want)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "cannot read the text")
            return
        self.app.call_from_thread(self._texts_read, texts)

    def _texts_read(self, texts: dict[str, str]) -> None:
        missing = self.units and self.units[self.current].unit not in self.texts
        self.texts.update(texts)
        if missing and self.units[self.current].unit in texts:
            self._show_unit()

    def _counts(self, topic: str) -> tuple[int, int, int]:
        mine = [u for u in self.units if u.topic == topic]
        return (sum(u.grade is not None for u in mine), sum(u.status == "submitted" for u in mine), len(mine))

    def _progress(self) -> None:
        """Judged / total per topic, a bar each; the current topic bold."""
        here = self.units[self.current].topic if self.units else None
        lines = []
        order = list(dict.fromkeys(sorted((u.topic for u in self.units), key=lambda t: (len(t), t))))
        for topic in order:
            done, submitted, total = self._counts(topic)
            width = 10
            full = round(width * done / total) if total else 0
            bar = "█" * full + "░" * (width - full)
            sub = f" ✓{submitted}" if submitted else ""
            lines.append(Text(f"{topic:<4} {bar} {done}/{total}{sub}", "bold" if topic == here else ""))
        done = sum(u.grade is not None for u in self.units)
        lines.append(Text(f"all  {done}/{len(self.units)} judged", "dim"))
        self.query_one("#judge-progress", Static).update(Text("\n").join(lines))

    @on(DataTable.RowHighlighted, "#units")
    def _row_highlighted(self) -> None:
        """The list's cursor moved (arrows, a click): show that unit. The table's cursor, not the
        message's row: in a burst, messages of rows already passed arrive after the next grade."""
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.units) and row != self.current:
            self.current = row
            self._show_unit()

    def _go(self, index: int) -> None:
        if not self.units:
            return
        self.current = max(0, min(index, len(self.units) - 1))
        self.query_one(DataTable).move_cursor(row=self.current, animate=False)
        self._show_unit()

    def go_to(self, unit: str) -> None:
        self._go(self._index_of(self.units, unit))

    def action_move(self, step: int) -> None:
        self._go(self.current + step)

    def action_next_unjudged(self) -> None:
        n = len(self.units)
        found = next((i % n for i in range(self.current + 1, self.current + 1 + n)
                      if self.units[i % n].grade is None), None)  # fmt: skip
        if found is None:
            self.notify("every unit has a grade")
            return
        self._go(found)

    # -- judging --------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A grade key of another schema's grades is no binding here (the key goes on)."""
        if action == "grade_key":
            return bool(parameters) and str(parameters[0]) in self.keys
        return True

    def action_grade_key(self, key: str) -> None:
        value = self.keys.get(key)
        if value is not None:
            self.grade(value)

    def grade(self, value: str) -> None:
        """Grade the unit on screen with ``value``: shown at once, saved in order, then the next unit."""
        if not self.units:
            return
        from dataclasses import replace

        table = self.query_one(DataTable)
        if 0 <= table.cursor_row < len(self.units) and table.cursor_row != self.current:
            self._go(table.cursor_row)  # the list's cursor moved in this burst: its message comes later
        i = self.current
        u = self.units[i]
        if u.status == "submitted":
            self.notify(f"{u.unit} is submitted: read-only", severity="warning")
            return
        self.units[i] = replace(u, grade=value)
        self.pending[u.unit] = value
        table.update_cell_at((i, 3), self._row(i, self.units[i])[3])
        with self._lock:
            self._saves.append((i, value))
            start = not self._saving
            self._saving = True
        if start:
            before_exit = getattr(self.app, "before_exit", None)
            if before_exit is not None:  # the worker may never run if the app ends first
                before_exit[self] = self.save_before_exit
            self._save_all()
        if i + 1 < len(self.units):
            self._go(i + 1)
        else:
            left = sum(x.grade is None for x in self.units)
            self._show_unit()
            self.notify(
                f"last unit judged · {left} unit(s) without a grade" + (" (u: next one)" if left else "")
            )

    @work(thread=True, group="judge-save")
    def _save_all(self) -> None:
        """Write the queued grades one after another (one writer: a unit graded twice in a burst
        keeps the last grade)."""
        if self._claim.by_worker():  # (else the app ended first and saved them)
            self._write_grades(tell=True)

    def save_before_exit(self) -> None:
        """Save the grades still queued, here and now, when no writer took them: the app is ending
        (a browser tab closed), and Textual cancels workers as it ends (``CorpusApp.on_unmount``)."""
        if self._claim.by_exit(self._saves):
            self._write_grades(tell=False)

    def _write_grades(self, *, tell: bool) -> None:
        """The writer's loop; ``tell``: show each outcome (the app may have ended meanwhile: then
        nothing is shown and the rest is saved all the same)."""
        while True:
            with self._lock:
                if not self._saves:
                    self._saving = self._claim.taken = False
                    return
                i, value = self._saves.popleft()
            u = self.units[i]
            try:
                saved = self.facade.judge(u.topic, u.doc, value)
            except CorpusError as exc:
                if tell:
                    with contextlib.suppress(Exception):  # the app is gone
                        self.app.call_from_thread(self._not_saved, i, value, exc)
                continue
            if tell:
                with contextlib.suppress(Exception):  # the app is gone
                    self.app.call_from_thread(self._saved, i, saved)

    def _saved(self, i: int, saved: Any) -> None:
        u = self.units[i]
        if self.pending.get(u.unit) == saved.grade:
            del self.pending[u.unit]
            self.units[i] = saved
        self._progress()

    def _not_saved(self, i: int, value: str, exc: CorpusError) -> None:
        u = self.units[i]
        self.fail(exc, f"{u.unit} {value} not saved")
        if self.pending.get(u.unit) == value:
            del self.pending[u.unit]
            self._load()  # the store's grade back on screen

    # -- submitting, other screens ------------------------------------------------------------------
    @work(exclusive=True, group="dialog")
    async def action_submit_topic(self) -> None:
        """Submit my graded, unsubmitted units of the current topic, after a confirmation."""
        if not self.units:
            return
        topic = self.units[self.current].topic
        ready = [
            u for u in self.units if u.topic == topic and u.grade is not None and u.status != "submitted"
        ]
        left = sum(u.topic == topic and u.grade is None for u in self.units)
        if not ready:
            self.notify(f"topic {topic}: nothing graded to submit", severity="warning")
            return
        note = (
            f"{left} unit(s) of this topic have no grade yet and stay open." if left else "Every unit graded."
        )
        answer = await self.app.push_screen_wait(
            MessageScreen(
                f"Submit {len(ready)} judgment(s) of topic {topic}?",
                f"{note}\nSubmitted judgments are read-only: then they count in qrels and agreement.",
                {"enter": ("submit", "submit")},
            )
        )
        if answer == "submit":
            self._submit([u.unit for u in ready])

    @work(thread=True, exclusive=True, group="judge-submit")
    def _submit(self, units: list[str]) -> None:
        while True:  # after the grades still queued
            with self._lock:
                if not self._saving:
                    break
            threading.Event().wait(0.01)
        by_unit = {u.unit: u for u in self.units}
        done = 0
        try:
            for name in units:
                self.facade.submit_set(by_unit[name].set_id)
                done += 1
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, f"{done} of {len(units)} submitted")
        else:
            self.app.call_from_thread(self.notify, f"{done} judgment(s) submitted")
        self.app.call_from_thread(self._load)

    @on(DataTable.RowSelected, "#units")
    def _row_selected(self) -> None:
        """Enter on the list (the table takes it first): the unit on the annotation screen."""
        self.action_annotate()

    def action_annotate(self) -> None:
        if self.units:
            self.corpus_app.open_document(self.units[self.current].unit, annotate=True)

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)

    def on_resize(self) -> None:
        self._layout()

    def _layout(self) -> None:
        self.set_class(self.size.width >= WIDE, "-wide")

    def help_sections(self) -> list[tuple[str, HelpRows]]:
        grades = [(" ".join(k for k, v in self.keys.items() if v == value), f"{value}: {name}, then the next unit")
                  for value, name, _ in self.grades]  # fmt: skip
        return [("Grades", grades), (str(self.title), binding_rows(self)), ("Everywhere", app_rows(self))]


def by_topic(units: list[Any]) -> list[Any]:
    """Units topic by topic (numeric ids numerically), each topic's in pool order: a judge reads one
    topic's need once and judges its documents in a row, still in the pool's shuffled order."""
    return sorted(units, key=lambda u: (len(u.topic), u.topic))  # stable: pool order within a topic


def _style(i: int) -> str:
    return GRADE_STYLE[i] if i < len(GRADE_STYLE) else ""


def _topic_text(topic_id: str, t: Any, counts: tuple[int, int, int]) -> Text:
    done, submitted, total = counts
    out = Text.assemble(("Topic ", "bold"), (topic_id, "bold"), (f" · {done}/{total} judged", "dim"))
    if submitted:
        out.append(f" · {submitted} submitted", "dim")
    if t is None:
        out.append("\n(no such topic in the project)", "dim")
        return out
    out.append("\n")
    out.append(t.title, "bold underline")
    if t.need:
        out.append("\n\nNeed: ", "bold")
        out.append(t.need)
    if t.context:
        out.append("\n\nContext: ", "bold")
        out.append(t.context)
    return out


def wrapped_row(text: str, offset: int, width: int) -> int:
    """The row ``offset`` is on when ``text`` is wrapped at words to ``width`` cells, as a Static
    wraps it (rich's own line breaking)."""
    if width <= 0:
        return 0
    from rich._wrap import divide_line

    row, at = 0, 0
    for para in text.split("\n"):
        end = at + len(para)
        breaks = divide_line(para, width, fold=True)
        if offset <= end:
            return row + sum(1 for b in breaks if at + b <= offset)
        row += len(breaks) + 1
        at = end + 1
    return row
