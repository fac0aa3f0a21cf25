"""One key map for the whole TUI: a key means the same thing on every screen (issue #25).

Why one table: keys used to change meaning between screens (``b`` moved a word in the text and took
version B in adjudication, ``R`` was the relations view here and "reload" there, ``F`` removed a
fragment or finished the gold). Every screen now takes its ``BINDINGS`` from ``bindings(place)``;
the help screen, the footer (the ``show`` flags) and the key table of ``docs/guide/tui.md`` are
generated from the same entries, and a test checks that no screen declares a key of its own.

An entry is one key (or a few aliases) with one meaning, and what it does in each place that has
it (``uses``: place -> action). Where one meaning takes different forms in different places (``x``
deletes a span while annotating and a gold item while adjudicating; ``tab`` goes between the two
parts of a screen), the entry's meaning says so. ``python -m tui.keymap`` writes the docs table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from textual.binding import Binding, BindingType

GROUPS = ("Moving", "Selecting", "Annotating", "Deciding", "Going places", "Dialogs")
"""The table's sections, in order."""

PLACES = {
    "app": "everywhere",
    "text": "text views",
    "annotate": "annotate",
    "documents": "my documents",
    "queue": "adjudication queue",
    "adjudicate": "adjudicate",
    "gold_edit": "gold editor",
    "lead": "lead view",
    "search": "corpus search",
    "lead_conflicts": "a document's conflicts (lead)",
    "help": "help",
    "guideline": "guidelines",
    "login": "login",
    "pick": "pickers",
    "checklist": "checklists",
    "prompt": "prompts",
    "message": "questions",
    "kb": "knowledge-base lookup",
    "judge": "judging",
    "text_pick": "picking an argument in the text (r, then Tab)",
    "decisions": "decision history",
}
"""Where keys act: screens (and the text view widget), with the name the docs table uses."""

MODES = {"text_pick": "annotate"}
"""Places that are a mode of another: their keys join that place's bindings (last, with priority:
active only in the mode, by the screen's ``check_action``)."""

DIALOGS = ("pick", "checklist", "prompt", "message", "kb", "decisions")


@dataclass(frozen=True)
class Use:
    """What a key does in one place: a Textual action, its description (help, footer)."""

    action: str
    description: str
    show: bool = False
    priority: bool = False
    rank: int = 100
    """The footer's order: lower first, then the map's order."""


@dataclass(frozen=True)
class Entry:
    """One key (``keys``: Textual key names, aliases after the first) with one meaning."""

    keys: str
    group: str
    meaning: str
    uses: dict[str, Use] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [k.strip() for k in self.keys.split(",")]


def _e(keys: str, group: str, meaning: str, **uses: Use | tuple[str, str] | tuple[str, str, bool]) -> Entry:
    out: dict[str, Use] = {}
    for place, u in uses.items():
        out[place] = u if isinstance(u, Use) else Use(*u)
    return Entry(keys, group, meaning, out)


def _digits(first: int, last: int, group: str, meaning: str, **uses: Use) -> list[Entry]:
    """One entry per digit: in the action and description ``{n}`` is the digit, ``{i}`` the digit
    - 1 (an index), ``{letter}`` its letter (1 = A); a shown use is shown for 1 and 2 only (the
    footer has room for two); ``_LIMITS`` cuts a place's range."""
    out = []
    for n in range(first, last + 1):
        here: dict[str, Use] = {}
        for place, u in uses.items():
            top = _LIMITS.get((place, u.action))
            if top is not None and n > top:
                continue
            fill = {"n": n, "i": n - 1, "letter": chr(ord("A") + n - 1)}
            desc = u.description.format(**fill)
            if "{letter}" in u.description and n > 2:  # one help row for the rarer ones
                desc = u.description.format(letter="C, D, … (3 = C)")
            here[place] = Use(
                u.action.format(**fill),
                desc,
                u.show and n <= 2,
                u.priority,
                u.rank + n,
            )
        out.append(Entry(str(n), group, meaning, here))
    return out


_LIMITS = {("lead", "tab({i})"): 6}
"""Digit ranges a place has fewer of (the lead view has six tabs)."""

MOVE = "Moving"
SELECT = "Selecting"
ANNOTATE = "Annotating"
DECIDE = "Deciding"
GO = "Going places"
DIALOG = "Dialogs"

_CLOSE = ("close", "Close")

KEYMAP: list[Entry] = [
    # -- moving ---------------------------------------------------------------------------------
    _e(
        "left",
        MOVE,
        "back a character (the gold editor: its boundary)",
        text=("move('char', -1)", "Move by character or line"),
        gold_edit=("boundary('char', -1)", "Move the boundary by a character"),
    ),
    _e(
        "right",
        MOVE,
        "on a character (the gold editor: its boundary)",
        text=("move('char', 1)", "Move by character or line"),
        gold_edit=("boundary('char', 1)", "Move the boundary by a character"),
    ),
    _e(
        "up",
        MOVE,
        "up a line; in a list or a dialog the previous item",
        text=("move('line', -1)", "Move by character or line"),
        pick=Use("cursor(-1)", "Previous", priority=True),
        kb=("move(-1)", "Previous"),
        judge=("move(-1)", "Previous unit"),
    ),
    _e(
        "down",
        MOVE,
        "down a line; in a list or a dialog the next item",
        text=("move('line', 1)", "Move by character or line"),
        pick=Use("cursor(1)", "Next", priority=True),
        kb=("move(1)", "Next"),
        judge=("move(1)", "Next unit"),
    ),
    _e(
        "w,ctrl+right",
        MOVE,
        "next word (the gold editor: its boundary)",
        text=("move('word', 1)", "Next / previous word"),
        gold_edit=("boundary('word', 1)", "Move the boundary by a word"),
    ),
    _e(
        "b,ctrl+left",
        MOVE,
        "previous word (the gold editor: its boundary); never a decision",
        text=("move('word', -1)", "Next / previous word"),
        gold_edit=("boundary('word', -1)", "Move the boundary by a word"),
    ),
    _e(
        "right_parenthesis,full_stop",
        MOVE,
        "next sentence",
        text=("move('sentence', 1)", "Next / previous sentence"),
    ),
    _e(
        "left_parenthesis,comma",
        MOVE,
        "previous sentence",
        text=("move('sentence', -1)", "Next / previous sentence"),
    ),
    _e("home", MOVE, "line start", text=("move('home', 0)", "Line start / end")),
    _e("end", MOVE, "line end", text=("move('end', 0)", "Line start / end")),
    _e("ctrl+home", MOVE, "document start", text=("move('top', 0)", "Document start / end")),
    _e("ctrl+end", MOVE, "document end", text=("move('bottom', 0)", "Document start / end")),
    _e(
        "pageup",
        MOVE,
        "a page up",
        text=("move('line', -10)", "Page up / down"),
        pick=("cursor(-8)", "Page up"),
    ),
    _e(
        "pagedown",
        MOVE,
        "a page down",
        text=("move('line', 10)", "Page up / down"),
        pick=("cursor(8)", "Page down"),
    ),
    _e(
        "n",
        MOVE,
        "next item: the next span in a text; in the adjudication list the next conflict",
        annotate=("next_span(1)", "Next / previous span"),
        adjudicate=("next_open(1)", "Next / previous conflict (in a text: span)"),
    ),
    _e(
        "p",
        MOVE,
        "previous item: span in a text; conflict in the adjudication list",
        annotate=("next_span(-1)", "Next / previous span"),
        adjudicate=("next_open(-1)", "Next / previous conflict (in a text: span)"),
    ),
    _e(
        "right_square_bracket",
        MOVE,
        "next suggestion",
        annotate=("next_suggestion(1)", "Next / previous suggestion"),
    ),
    _e(
        "left_square_bracket",
        MOVE,
        "previous suggestion",
        annotate=("next_suggestion(-1)", "Next / previous suggestion"),
    ),
    # -- selecting ------------------------------------------------------------------------------
    _e(
        "shift+left",
        SELECT,
        "select a character back",
        text=("move('char', -1, True)", "Select by character or line"),
    ),
    _e(
        "shift+right",
        SELECT,
        "select a character on",
        text=("move('char', 1, True)", "Select by character or line"),
    ),
    _e(
        "shift+up", SELECT, "select a line up", text=("move('line', -1, True)", "Select by character or line")
    ),
    _e(
        "shift+down",
        SELECT,
        "select a line down",
        text=("move('line', 1, True)", "Select by character or line"),
    ),
    _e("W,ctrl+shift+right", SELECT, "select a word on", text=("move('word', 1, True)", "Select by word")),
    _e("B,ctrl+shift+left", SELECT, "select a word back", text=("move('word', -1, True)", "Select by word")),
    _e("v", SELECT, "select mode: moving extends the selection", text=("toggle_mark", "Select mode")),
    # -- annotating -----------------------------------------------------------------------------
    _e(
        "a,plus",
        ANNOTATE,
        "annotate the selection (or the word): a new span; in adjudication a new gold span",
        annotate=Use("annotate", "Annotate", show=True),
        adjudicate=("new_span", "New gold span (on the selection)"),
        search=Use("annotate_hits", "Annotate every hit as a type (my sets)", show=True),
    ),
    _e(
        "t",
        ANNOTATE,
        "change the span's type",
        annotate=("retype", "Change type"),
        gold_edit=("retype", "Type"),
    ),
    _e(
        "x,delete",
        ANNOTATE,
        "delete the item (in Ents: dissolve the entity; in adjudication: the gold item)",
        annotate=("delete", "Delete (in Ents: dissolve the entity, its members stay)"),
        adjudicate=("remove_gold", "Remove the gold span under the gold text's cursor"),
    ),
    _e("f", ANNOTATE, "add a fragment to the span (discontinuous)", annotate=("fragment", "Add fragment")),
    _e("F", ANNOTATE, "remove the fragment under the cursor", annotate=("unfragment", "Remove fragment")),
    _e(
        "i",
        ANNOTATE,
        "attributes",
        annotate=("attributes", "Attributes"),
        gold_edit=("attributes", "Attributes"),
    ),
    _e(
        "g",
        ANNOTATE,
        "grounding (where the schema has one)",
        annotate=("grounding", "Grounding"),
        gold_edit=("grounding", "Grounding"),
    ),
    _e(
        "e",
        ANNOTATE,
        "edit the label: a relation's label and tags (in adjudication, quick edit: type or label)",
        annotate=("edit_relation", "Relation label/tags"),
        gold_edit=("label_tags", "Relation label and tags"),
        adjudicate=("edit", "Quick edit: type or label"),
    ),
    _e(
        "r",
        ANNOTATE,
        "a relation: new (in the gold editor: its argument)",
        annotate=Use("relation", "Relation", show=True),
        gold_edit=("argument", "Relation argument"),
        adjudicate=("new_relation", "New gold relation"),
    ),
    _e("k", ANNOTATE, "a link", annotate=Use("link", "Link", show=True)),
    _e(
        "c",
        ANNOTATE,
        "the span's entity (cluster): join, new, leave, move",
        annotate=("cluster", "Entity (cluster): join, new, leave, move to another or to a new one"),
    ),
    _e(
        "o",
        ANNOTATE,
        "the other span here (overlapping spans in turn)",
        annotate=("cycle", "Other span here"),
    ),
    _e(
        "number_sign",
        ANNOTATE,
        "a note: on the item; in adjudication the next decision asks for a reason",
        annotate=("note", "Note on the item"),
        adjudicate=("with_reason", "The next decision asks for a reason"),
    ),
    _e(
        "u,ctrl+z",
        ANNOTATE,
        "undo (in adjudication: the highlighted decision; in the corpus search: the bulk annotation)",
        annotate=Use("undo", "Undo", show=True),
        adjudicate=("undo_decision", "Undo decision"),
        search=("undo_bulk", "Undo that bulk annotation"),
    ),
    _e("ctrl+r,ctrl+y,U", ANNOTATE, "redo", annotate=("redo", "Redo")),
    _e(
        "y",
        ANNOTATE,
        "accept the suggestion under the cursor",
        annotate=("accept_suggestion", "Accept the suggestion under the cursor"),
    ),
    _e(
        "Y",
        ANNOTATE,
        "accept every suggestion of that name here (one undo)",
        annotate=("accept_all_suggestions", "Accept every suggestion of that name here (one undo)"),
    ),
    _e(
        "X",
        ANNOTATE,
        "reject the suggestion (not proposed again)",
        annotate=("reject_suggestion", "Reject the suggestion (not proposed to you again)"),
    ),
    _e(
        "D",
        ANNOTATE,
        "skip the document as irrelevant (again: lift the skip)",
        annotate=("skip_document", "Skip the document as irrelevant (again: undo the skip)"),
    ),
    _e(
        "S",
        ANNOTATE,
        "submit (adjudication: finish the gold); then N opens the next document",
        annotate=Use("submit", "Submit", show=True),
        adjudicate=Use("finish_gold", "Finish gold"),
        judge=Use("submit_topic", "Submit topic", show=True),
    ),
    _e(
        "N",
        GO,
        "the next document (once this one is submitted or finished)",
        annotate=Use("next_document", "Next document", show=True),
        adjudicate=Use("next_document", "Next document", show=True),
        judge=("next_unjudged", "Next unit without a grade"),
    ),
    *_digits(
        1,
        9,
        ANNOTATE,
        "by number: a document label; in adjudication a version (1 = A, 2 = B); a lead tab",
        annotate=Use("doc_label('{n}')", "Document label"),
        adjudicate=Use("take({i})", "Take {letter}", show=True, rank=0),
        lead=Use("tab({i})", "Go to that tab"),
    ),
    # -- deciding (adjudication) ----------------------------------------------------------------
    _e("0", DECIDE, "take neither version", adjudicate=Use("reject", "Neither", show=True, rank=10)),
    _e(
        "m",
        DECIDE,
        "edit in the gold editor (a decided item: in place)",
        adjudicate=Use("modify", "Edit", show=True, rank=11),
    ),
    _e(
        "s",
        DECIDE,
        "the versions side by side or stacked",
        adjudicate=Use("toggle_sides", "Sides", show=True, rank=12),
    ),
    _e("h", DECIDE, "show the agreed items too", adjudicate=("toggle_agreed", "Show agreed items")),
    _e(
        "M",
        DECIDE,
        "the pair matrix's next measure (lead view)",
        lead=Use("next_measure", "Measure", show=True, rank=101),
    ),
    _e(
        "right_curly_bracket",
        MOVE,
        "next decided conflict (to revise it; n/p visit the open ones)",
        adjudicate=("next_decided(1)", "Next / previous decided conflict (to revise)"),
    ),
    _e(
        "left_curly_bracket",
        MOVE,
        "previous decided conflict",
        adjudicate=("next_decided(-1)", "Next / previous decided conflict (to revise)"),
    ),
    _e(
        "d",
        GO,
        "the item's decision history, as `corpusdb decisions` prints it (again: close it)",
        adjudicate=Use("history", "History", show=True, rank=13),
        decisions=("close", "Close"),
    ),
    # -- going places ---------------------------------------------------------------------------
    _e(
        "enter",
        GO,
        "open or confirm: open a document, confirm a dialog (in the text: annotate)",
        annotate=("annotate", "Annotate"),
        documents=("open", "Open"),
        queue=("open", "Open"),
        lead=Use("open_document", "Conflicts", show=True),
        gold_edit=Use("save", "Save to gold", show=True),
        checklist=Use("accept", "Accept", show=True, priority=True),
        judge=("annotate", "Passages: the unit on the annotation screen"),
        decisions=Use("close", "Close", show=True),
        text_pick=Use("text_pick('take')", "Pick: take this span", show=True, priority=True),
    ),
    _e(
        "escape",
        GO,
        "back out: cancel the dialog, clear the selection, back to the text, close",
        text=("clear_selection", "Clear selection"),
        annotate=("focus_text", "Back to the text"),
        gold_edit=Use("cancel", "Cancel", show=True),
        lead_conflicts=Use("close", "Back", show=True),
        help=Use("close", "Close", show=True),
        guideline=Use("close", "Close", show=True),
        pick=Use("cancel", "Cancel", show=True),
        checklist=Use("cancel", "Cancel", show=True),
        prompt=Use("cancel", "Cancel", show=True),
        message=Use("cancel", "Cancel", show=True),
        kb=Use("cancel", "Cancel", show=True),
        search=("close", "Close"),
        judge=("close", "Close"),
        decisions=Use("close", "Close", show=True),
        text_pick=Use("text_pick('cancel')", "Pick: cancel", show=True, priority=True),
    ),
    _e(
        "q",
        GO,
        "close the screen (back to the list)",
        annotate=_CLOSE,
        adjudicate=_CLOSE,
        lead_conflicts=("close", "Back"),
        help=_CLOSE,
        guideline=_CLOSE,
        judge=_CLOSE,
        decisions=_CLOSE,
    ),
    _e(
        "tab",
        GO,
        "the other part of the screen: text ⇄ list (gold editor: start ⇄ end boundary)",
        annotate=("toggle_focus", "Text ⇄ list"),
        gold_edit=Use("switch_side", "Start ⇄ end boundary", show=True),
        text_pick=Use("text_pick('list')", "Pick: the list", show=True, priority=True),
        pick=Use("to_text", "Pick it in the text (a relation's argument)", priority=True),
    ),
    _e(
        "l",
        GO,
        "the next side list, or tab",
        annotate=("next_list", "Next list"),
        lead=("next_tab", "Next tab"),
    ),
    _e(
        "V",
        GO,
        "the relations view (side list on relations, shown in the text)",
        annotate=("relations_view", "Relations: list, text, partners"),
    ),
    _e("L", GO, "type labels under the text on/off", annotate=("toggle_types", "Type labels under the text")),
    _e("T", GO, "the relevance topic in full", annotate=("topic", "Topic")),
    _e(
        "slash",
        GO,
        "search: the document shown (annotating, adjudicating, judging), else the corpus (a new search "
        "on the search screen)",
        annotate=("search_document", "Search the document"),
        adjudicate=("search_document", "Search the document"),
        judge=("search_document", "Search the document"),
        documents=("app.search_corpus", "Search the corpus"),
        queue=("app.search_corpus", "Search the corpus"),
        lead=("app.search_corpus", "Search the corpus"),
        search=Use("focus_query", "New search", show=True),
    ),
    _e(
        "greater_than_sign",
        MOVE,
        "next search hit",
        annotate=("next_hit(1)", "Next / previous search hit"),
        adjudicate=("next_hit(1)", "Next / previous search hit"),
        judge=("next_hit(1)", "Next / previous search hit"),
    ),
    _e(
        "less_than_sign",
        MOVE,
        "previous search hit",
        annotate=("next_hit(-1)", "Next / previous search hit"),
        adjudicate=("next_hit(-1)", "Next / previous search hit"),
        judge=("next_hit(-1)", "Next / previous search hit"),
    ),
    _e(
        "C",
        ANNOTATE,
        "correct gold at every search hit (leads and adjudicators)",
        search=Use("correct_hits", "Correct gold at every hit", show=True),
    ),
    _e(
        "R",
        GO,
        "reload from the database",
        documents=Use("reload", "Reload", show=True),
        queue=Use("reload", "Reload", show=True),
        lead=Use("reload", "Reload", show=True),
        adjudicate=("reload", "Reload"),
        judge=("reload", "Reload"),
    ),
    _e(
        "A",
        GO,
        "adjudication: the queue (lead view), this document (its conflicts)",
        lead=Use("adjudicate", "Adjudication", show=True),
        lead_conflicts=Use("adjudicate_here", "Adjudicate", show=True),
    ),
    _e("P", GO, "the project's progress (from the queue)", queue=Use("progress", "Progress", show=True)),
    _e(
        "question_mark,f1",
        GO,
        "help: every key of the screen",
        app=Use("help", "Help", show=True),
        help=("close", "Close"),
    ),
    _e("G,f2", GO, "the guidelines", app=Use("guideline", "Guide", show=True), guideline=("close", "Close")),
    _e("ctrl+q", GO, "quit, from every screen (everything is already saved)", login=("app.quit", "Quit")),
    # -- dialogs --------------------------------------------------------------------------------
    _e(
        "space",
        DIALOG,
        "a checklist: tick or untick the highlighted line",
        checklist=Use("toggle", "Toggle", show=True),
    ),
]
"""Every key of the TUI. Dialogs also take: a shown letter picks (a checklist: ticks) at once, Enter
takes the highlighted line (a checklist: accepts), Esc cancels, typing filters a long list."""

DIALOG_RULES = [
    ("a shown letter", "picks that line at once (a checklist: ticks or unticks it; a question: answers)",
     ("pick", "checklist", "message")),
    ("`up` `down` `pgup` `pgdn`", "move the highlight", ("pick", "checklist", "kb")),
    ("`enter`", "takes the highlighted line (a checklist: accepts the ticks; a prompt: the line typed)", DIALOGS),
    ("`esc`", "cancels: nothing changes", DIALOGS),
    ("`/` or a letter no line shows", "starts the filter (long lists); Enter takes the first match", ("pick",)),
]  # fmt: skip
"""The one behaviour of every picker, checklist and question (issue #25)."""


GRADE_KEYS = "123456789abcdefghilmnprstvwxyz"
"""Keys a relevance schema may give its grades (the digits in the schema's order, and its own keys,
e.g. ``d``/``p``/``n``). On the judging screen they are bindings (so a burst runs them in order with
the moves before them), active only for the schema's grades (the screen's ``check_action``); they
are the schema's, like the letters a picker shows, so the table lists them as one row."""

GRADE_RULE = (
    "a grade's key",
    "grades the unit (the schema's: `1`-`3`, or `d`/`p`/`n`): saved, then the next unit",
    ("judge",),
)


def entry_of(key: str) -> Entry | None:
    """The entry a Textual key name belongs to."""
    return _BY_KEY.get(key)


def bindings(place: str) -> list[BindingType]:
    """The Textual bindings of one place, by rank then in the map's order (the footer shows them so)."""
    if place not in PLACES:
        raise KeyError(place)
    if place in MODES:
        raise KeyError(f"{place} is a mode of {MODES[place]}: its keys are in that place's bindings")
    return _bindings(place) + [b for mode, host in MODES.items() if host == place for b in _bindings(mode)]


def _bindings(place: str) -> list[BindingType]:
    here = [(e, u) for e in KEYMAP if (u := e.uses.get(place)) is not None]
    here.sort(key=lambda eu: eu[1].rank)  # stable: the map's order within a rank
    out: list[BindingType] = [
        Binding(e.keys, u.action, u.description, show=u.show, priority=u.priority) for e, u in here
    ]
    if place == "judge":  # the schema's grade keys (GRADE_KEYS): after the map's, never shown
        out += [Binding(k, f"grade_key('{k}')", "", show=False) for k in GRADE_KEYS]
    return out


_NAMES = {
    "question_mark": "?", "number_sign": "#", "plus": "+", "right_square_bracket": "]",
    "left_square_bracket": "[", "right_parenthesis": ")", "left_parenthesis": "(", "full_stop": ".",
    "comma": ",", "escape": "esc", "pageup": "pgup", "pagedown": "pgdn", "slash": "/",
    "greater_than_sign": ">", "less_than_sign": "<", "right_curly_bracket": "}", "left_curly_bracket": "{",
}  # fmt: skip


def display(keys: str) -> str:
    """Key names as typed: ``question_mark,f1`` -> ``?`` ``f1``."""
    return " ".join(f"`{_NAMES.get(k, k)}`" for k in (x.strip() for x in keys.split(",")))


def markdown_table() -> str:
    """The docs' key table (docs/guide/tui.md between the keymap markers), one row per key."""
    lines = ["| keys | what they do | where |", "|---|---|---|"]
    for group in GROUPS:
        lines.append(f"| **{group}** | | |")
        for e in KEYMAP:
            if e.group != group:
                continue
            where = ", ".join(PLACES[p] for p in e.uses)
            lines.append(f"| {display(e.keys)} | {e.meaning} | {where} |")
        if group == DECIDE:
            keys, what, where = GRADE_RULE
            lines.append(f"| {keys} | {what} | {', '.join(PLACES[p] for p in where)} |")
        if group == DIALOG:
            for keys, what, where in DIALOG_RULES:
                lines.append(f"| {keys} | {what} | {', '.join(PLACES[p] for p in where)} |")
    return "\n".join(lines) + "\n"


DOC = Path(__file__).resolve().parent.parent / "docs" / "guide" / "tui.md"
START, END = "<!-- keymap:start (generated by python -m tui.keymap) -->\n", "<!-- keymap:end -->\n"


def docs_table(text: str) -> str:
    """The generated part of the docs page's text."""
    return text.split(START, 1)[1].split(END, 1)[0]


def write_docs(path: Path = DOC) -> bool:
    """Put the table into the docs page; True when it changed."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    new = head + START + markdown_table() + END + tail
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def _index() -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for e in KEYMAP:
        for k in e.names:
            if k in out:
                raise ValueError(f"key {k!r} has two entries in the key map")
            out[k] = e
        if e.group not in GROUPS or not set(e.uses) <= set(PLACES):
            raise ValueError(f"bad entry {e.keys!r}")
    return out


_BY_KEY = _index()

if __name__ == "__main__":  # pragma: no cover - a tool
    print("written" if write_docs() else "unchanged", DOC, file=sys.stderr)
