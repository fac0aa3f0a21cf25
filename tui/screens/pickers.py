"""Small modal dialogs that return a value: pick one (type to filter), tick several, type a line.

Why modal screens that ``dismiss(value)``: every multi-step action (a relation: type, argument,
label, tags) is a chain of these, awaited one after another with ``push_screen_wait`` in a worker,
so each step stays a tiny, testable screen and Escape cancels the whole action cleanly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from tui import keymap
from tui.screens.rendering import CachedBackdrop, SteadyLayout

if TYPE_CHECKING:
    from corpusdb.basics.records import Span
    from guidelines.schema import Schema


@dataclass(frozen=True)
class Choice:
    """One option: what it returns, how it shows, what filtering matches, an optional hotkey."""

    value: Any
    label: str | Text
    search: str = ""
    key: str | None = None

    @property
    def haystack(self) -> str:
        return (self.search or str(self.label)).lower()


IN_TEXT = "+in-text"
"""What a ``PickScreen`` with ``to_text`` answers on Tab."""


class PickScreen(CachedBackdrop, SteadyLayout, ModalScreen[Any]):
    """Pick one choice. Filterable: typing narrows the list, Enter takes the highlighted one.
    Not filterable: a choice's hotkey picks it at once.

    Filterable with hotkeys (``hotkeys=True``, the type picker of a schema with ``key``s): while
    the filter is empty a choice's key picks it at once, as brat's type dialog does; ``/`` or any
    other character starts the filter (so keyed and unkeyed types are both a few keys away)."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("pick")

    def __init__(
        self,
        title: str,
        choices: Sequence[Choice],
        *,
        filterable: bool = True,
        initial: Any = None,
        note: str = "",
        hotkeys: bool = False,
        to_text: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.filterable = filterable
        self.hotkeys = filterable and hotkeys and any(c.key for c in choices)
        self.initial = initial
        self.note = note
        if self.hotkeys and not note:
            self.note = "a key picks its type at once · / or a letter without a key starts the filter"
        self.to_text = to_text
        """Tab answers ``IN_TEXT``: the caller lets the annotator pick by moving in the text."""
        if to_text:
            self.note = "Tab: pick it in the text instead (move there, Enter takes it)" + (
                f" · {self.note}" if self.note else ""
            )
        self.shown: list[Choice] = list(choices)
        self._filtering = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "to_text":  # else Tab keeps its usual meaning
            return self.to_text
        return True

    def action_to_text(self) -> None:
        self.dismiss(IN_TEXT)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            if self.filterable:
                hint = "a type's key, or / and words to filter" if self.hotkeys else "type to filter"
                yield Input(placeholder=f"{hint}, Enter to choose, Esc to cancel", id="filter")
            yield OptionList(*self._options(self.choices), id="choices", markup=False)
            if self.note:
                yield Static(self.note, classes="dialog-note", markup=False)

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        for i, c in enumerate(self.shown):
            if self.initial is not None and c.value == self.initial:
                ol.highlighted = i
        if self.filterable:
            self.query_one(Input).focus()
        else:
            ol.focus()

    def _options(self, choices: Sequence[Choice]) -> list[Option]:
        out = []
        for c in choices:
            label = c.label if isinstance(c.label, Text) else Text(c.label)
            if c.key and (self.hotkeys or not self.filterable):
                label = Text.assemble((f"{c.key} ", "bold"), label)
            elif self.hotkeys:
                label = Text.assemble("  ", label)
            out.append(Option(label))
        return out

    @on(Input.Changed, "#filter")
    def _refilter(self, event: Input.Changed) -> None:
        if self.hotkeys and not self._filtering and self._hotkey(event.value):
            return
        words = event.value.lower().split()
        self.shown = [c for c in self.choices if all(w in c.haystack for w in words)]
        ol = self.query_one(OptionList)
        ol.set_options(self._options(self.shown))
        if self.shown:
            ol.highlighted = 0

    @on(Input.Submitted, "#filter")
    def _submit_filter(self) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is not None and self.shown:
            self.dismiss(self.shown[ol.highlighted].value)
        else:
            self.app.bell()

    @on(OptionList.OptionSelected, "#choices")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index].value)

    def on_key(self, event: Key) -> None:
        if self.filterable or event.character is None:
            return
        for c in self.shown:
            if c.key is not None and c.key == event.character:
                event.stop()
                self.dismiss(c.value)
                return

    def _hotkey(self, typed: str) -> bool:
        """Hotkey mode, the first character typed: a key picks its choice, ``/`` only starts the
        filter; anything else starts the filter with it. True when the character was consumed."""
        if not typed:
            return False
        self._filtering = True
        if typed == "/":
            self.query_one("#filter", Input).value = ""
            return True
        choice = next((c for c in self.choices if c.key is not None and c.key == typed), None)
        if choice is None:
            return False
        self.dismiss(choice.value)
        return True

    def reopen(self, title: str, initial: Any) -> PickScreen:
        """Ready to be shown again with a new title and highlight, as a new picker would open: the
        filter empty, every choice listed (``kept_type_picker``)."""
        self.title_text, self.initial, self._filtering = title, initial, False
        if not self.is_mounted:
            return self  # not shown yet: compose and on_mount read the new values
        self.query_one(".dialog-title", Label).update(title)
        ol = self.query_one(OptionList)
        if self.filterable:
            typed = self.query_one(Input)
            if typed.value:
                with typed.prevent(Input.Changed):
                    typed.value = ""
        if self.shown != self.choices:
            self.shown = list(self.choices)
            ol.set_options(self._options(self.choices))
        ol.highlighted = (
            next((i for i, c in enumerate(self.shown) if c.value == initial), 0) if self.shown else None
        )
        (self.query_one(Input) if self.filterable else ol).focus()
        return self

    def action_cursor(self, step: int) -> None:
        ol = self.query_one(OptionList)
        if not self.shown:
            return
        cur = ol.highlighted if ol.highlighted is not None else 0
        ol.highlighted = max(0, min(len(self.shown) - 1, cur + step))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChecklistScreen(ModalScreen[tuple[str, ...] | None]):
    """Tick several names (tags, attributes): Space or a hotkey toggles, Enter accepts."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("checklist")

    def __init__(self, title: str, names: Sequence[str], ticked: Sequence[str] = ()) -> None:
        super().__init__()
        self.title_text = title
        self.names = list(names)
        self.ticked = [n in ticked for n in names]
        self.keys = _hotkeys(self.names)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(*[Option(self._prompt(i)) for i in range(len(self.names))], markup=False)
            yield Static("Space or the letter toggles · Enter accepts · Esc cancels", classes="dialog-note")

    def _prompt(self, i: int) -> Text:
        box = "[x]" if self.ticked[i] else "[ ]"
        return Text.assemble((f"{self.keys[i]} ", "bold"), f"{box} {self.names[i]}")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _toggle(self, i: int) -> None:
        self.ticked[i] = not self.ticked[i]
        self.query_one(OptionList).replace_option_prompt_at_index(i, self._prompt(i))

    def action_toggle(self) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is not None:
            self._toggle(ol.highlighted)

    def on_key(self, event: Key) -> None:
        if event.character and event.character in self.keys:
            event.stop()
            self._toggle(self.keys.index(event.character))

    def action_accept(self) -> None:
        self.dismiss(tuple(n for n, t in zip(self.names, self.ticked, strict=True) if t))

    def action_cancel(self) -> None:
        self.dismiss(None)


def type_picker(title: str, schema: Schema, initial: str | None = None) -> PickScreen:
    """The entity type dialog, the same on every screen (issue #25: one dialog behaviour): each type
    in its colour with the schema's key beside it; a key picks at once, ``/`` or another letter
    filters, Enter takes the highlighted type."""
    from tui import items as it
    from tui.colours import type_colours

    colours = type_colours(schema)  # the colours the text shows (kept apart: tui.colours)
    choices = [
        Choice(e.name, it.swatch(colours[e.name]) + f" {e.name}" + (f" — {e.description}" if e.description else ""),
               f"{e.name} {e.parent or ''}", key=e.key)
        for e in schema.entities
    ]  # fmt: skip
    return PickScreen(title, choices, initial=initial, hotkeys=True)


def kept_type_picker(owner: Any, title: str, schema: Schema, initial: str | None = None) -> PickScreen:
    """``type_picker``, kept for ``owner`` (the annotation screen) and shown again at every ``a``.

    Why: a new picker composed, styled and drew its widgets and its list of types at every span,
    and removing it on close made Textual lay out and draw the whole screen once more: about a
    third of the CPU a keystroke costs a served session (``bench/bench_serve.py``). Kept installed
    in the app (so closing it does not remove it), it keeps its widgets and their drawn rows; it
    opens as a new one would (``PickScreen.reopen``). ``drop_type_picker`` uninstalls it."""
    kept = getattr(owner, "_kept_type_picker", None)
    if kept is not None and kept[0] is schema:
        return kept[1].reopen(title, initial)
    drop_type_picker(owner)
    picker = type_picker(title, schema, initial)
    owner.app.install_screen(picker, f"type-picker-{id(owner)}")
    owner._kept_type_picker = (schema, picker)
    return picker


def drop_type_picker(owner: Any) -> None:
    """Uninstall and remove ``owner``'s kept picker (its screen closes, or the schema changed)."""
    kept = getattr(owner, "_kept_type_picker", None)
    if kept is None:
        return
    owner._kept_type_picker = None
    app, picker = owner.app, kept[1]
    if app.is_screen_installed(picker) and all(picker not in stack for stack in app._screen_stacks.values()):
        app.uninstall_screen(picker)
        if picker.is_mounted:
            picker.remove()


async def ask_attributes(
    app: Any, title: str, defs: Sequence[Any], attrs: dict[str, Any]
) -> dict[str, Any] | None:
    """The attributes dialog, a checklist like the tags' (issue #25: one dialog behaviour): a
    letter ticks, Enter accepts, Esc cancels. ``defs``: the schema's attribute definitions that
    apply; answers the span's new attributes (None: cancelled). Of two values ticked for one
    attribute the newly ticked one wins."""
    rows = [
        (d.name if v is True else f"{d.name} = {v}", d.name, v)
        for d in defs
        for v in list(d.values) or [True]
    ]
    ticked = [label for label, name, v in rows if attrs.get(name) == v]
    chosen = await app.push_screen_wait(ChecklistScreen(title, [r[0] for r in rows], ticked))
    if chosen is None:
        return None
    names = {d.name for d in defs}
    out = {k: v for k, v in attrs.items() if k not in names}
    for label, name, v in rows:
        if label in chosen and (name not in out or out[name] == attrs.get(name)):
            out[name] = v
    return out


def _hotkeys(names: Sequence[str]) -> list[str]:
    """A distinct lower-case letter per name (its first free letter), digits when letters run out."""
    used: set[str] = set()
    out: list[str] = []
    for n in names:
        key = next((ch for ch in n.lower() if ch.isalpha() and ch not in used), None)
        if key is None:
            key = next(str(d) for d in range(10) if str(d) not in used)
        used.add(key)
        out.append(key)
    return out


class PromptScreen(ModalScreen[str | None]):
    """Type one line (a grounding, a reason). ``check`` returns an error message or None."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("prompt")

    def __init__(
        self,
        title: str,
        *,
        placeholder: str = "",
        value: str = "",
        check: Callable[[str], str | None] | None = None,
        note: str = "",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value
        self.check = check
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt")
            yield Static(self.note, id="prompt-note", classes="dialog-note", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        problem = self.check(value) if self.check else None
        if problem:
            self.query_one("#prompt-note", Static).update(problem)
            self.app.bell()
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class MessageScreen(ModalScreen[str | None]):
    """A text and a few one-key answers (``{"enter": "submit", "f": "force"}``); Esc answers None."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("message")

    def __init__(self, title: str, body: str | Text, answers: dict[str, tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.answers = answers

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(self.title_text, classes="dialog-title")
            yield Static(self.body, classes="dialog-body", markup=False)
            keys = " · ".join(
                f"{k.replace('enter', 'Enter')}: {label}" for k, (_v, label) in self.answers.items()
            )
            yield Static(f"{keys} · Esc: cancel", classes="dialog-note", markup=False)

    def on_key(self, event: Key) -> None:
        if event.key in self.answers:
            event.stop()
            self.dismiss(self.answers[event.key][0])

    def action_cancel(self) -> None:
        self.dismiss(None)


class KbGroundingScreen(ModalScreen[str | None]):
    """A grounding looked up in the knowledge base as one types (the span's text pre-filled).

    Each keystroke asks ``Corpus.kb_search`` (exact > synonym > prefix > fuzzy, under the entity
    type's branch) and lists the candidates with their labels; Enter (or a click) takes the
    highlighted one, down/up move in the list. Answers ``"KEY LABEL"`` (the key ``db:id`` has no
    space), or a key the span already has (to remove it), or None."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("kb")

    def __init__(self, span: Span, kb: Any, have: str) -> None:
        super().__init__()
        self.span, self.kb, self.have = span, kb, have
        self.found: list[Any] = []

    def compose(self) -> ComposeResult:
        from textual.widgets import OptionList

        with Vertical(classes="dialog wide"):
            yield Label(
                f"Ground {self.span.id} «{self.span.text[:30]}» in {self.kb.kb}", classes="dialog-title"
            )
            yield Input(value=self.span.text, id="kb-typed")
            yield OptionList(id="kb-found")
            yield Static(f"Has: {self.have}. Enter takes the highlighted concept; an id it has removes it.",
                         id="prompt-note", classes="dialog-note", markup=False)  # fmt: skip

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._lookup(self.span.text)

    def _lookup(self, typed: str) -> None:
        from textual.widgets import OptionList

        corpus = self.app.facade.corpus  # type: ignore[attr-defined]
        try:
            self.found = corpus.kb_search(
                self.kb.kb, typed, limit=12, branch=self.kb.branch_of(self.span.type)
            )
        except Exception as exc:  # no such knowledge base loaded: say so, keep the dialog
            self.found = []
            self.query_one("#prompt-note", Static).update(str(exc))
        box = self.query_one(OptionList)
        box.clear_options()
        box.add_options([f"{c.label}  {c.id}" + (f"  ({c.match}: {c.name})" if c.name != c.label else f"  ({c.match})")
                         for c in self.found])  # fmt: skip
        if self.found:
            box.highlighted = 0

    @on(Input.Changed, "#kb-typed")
    def _typed(self, event: Input.Changed) -> None:
        self._lookup(event.value)

    def action_move(self, step: int) -> None:
        from textual.widgets import OptionList

        box = self.query_one(OptionList)
        if self.found:
            box.highlighted = max(0, min(len(self.found) - 1, (box.highlighted or 0) + step))

    def _answer(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.found):
            self.app.bell()
            return
        c = self.found[index]
        self.dismiss(f"{kb_key(self.kb, c.id)} {c.label}")

    @on(Input.Submitted, "#kb-typed")
    def _submitted(self, event: Input.Submitted) -> None:
        from textual.widgets import OptionList

        typed = event.value.strip()
        from corpusdb.basics.records import grounding_key

        if any(typed in (g.ref, grounding_key(g)) for g in self.span.groundings):
            self.dismiss(typed)
            return
        self._answer(self.query_one(OptionList).highlighted)

    def on_option_list_option_selected(self, event: Any) -> None:
        self._answer(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)


def kb_key(kb: Any, code: str) -> str:
    """The grounding key of a knowledge-base concept: the code when it already names one of the
    database's names (``OBT:000965``), else ``database:code`` (``NCBI_Taxonomy:210``)."""
    if any(code.startswith(f"{n}:") for n in kb.names()):
        return code
    return f"{kb.database}:{code}"


def grounding_prompt(schema: Schema, span: Span) -> ModalScreen[str | None]:
    """The prompt for a span's grounding, shared by the annotate screen and the gold editor: a ref
    the span already has passes (entering it again removes it), a new one must fit the schema.
    Where the schema maps the span's type to a knowledge base, the knowledge-base lookup instead."""
    from tui import items as it

    kb = schema.knowledge_base_for_type(span.type)
    if kb is not None:
        from corpusdb.basics.records import grounding_key

        return KbGroundingScreen(span, kb, ", ".join(grounding_key(g) + (f" ({g.text})" if g.text else "")
                                                     for g in span.groundings) or "none")  # fmt: skip

    have = ", ".join(g.ref for g in span.groundings) or "none"
    dbs = ", ".join(schema.rules.grounding_databases) or "any"
    return PromptScreen(
        f"Grounding for {span.id} «{it.short(span.text, 30)}»",
        placeholder="db:id, e.g. uniprot:P60568",
        check=lambda v: None if any(g.ref == v for g in span.groundings) else it.check_grounding(schema, v),
        note=f"Has: {have}. Enter one of these again to remove it. Databases: {dbs}.",
    )
