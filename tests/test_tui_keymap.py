"""The one key map (issue #25.2): every screen's bindings come from ``tui.keymap``, no key has two
entries, each entry's actions exist, and the docs' key table is the one the map generates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding

from tui import keymap

ROOT = Path(__file__).resolve().parent.parent


def _classes() -> dict[str, type]:
    from tui.app import CorpusApp
    from tui.screens.adjudicate import AdjudicateScreen, QueueScreen
    from tui.screens.annotate import AnnotateScreen
    from tui.screens.decisions import DecisionsScreen
    from tui.screens.documents import DocumentsScreen
    from tui.screens.gold_edit import GoldEditScreen
    from tui.screens.info import GuidelineScreen, HelpScreen
    from tui.screens.judge import JudgeScreen
    from tui.screens.lead import LeadScreen
    from tui.screens.lead_conflicts import LeadConflictsScreen
    from tui.screens.login import LoginScreen
    from tui.screens.pickers import (
        ChecklistScreen,
        KbGroundingScreen,
        MessageScreen,
        PickScreen,
        PromptScreen,
    )
    from tui.screens.search import SearchScreen
    from tui.widgets.docview import DocumentView

    return {
        "app": CorpusApp, "text": DocumentView, "annotate": AnnotateScreen, "documents": DocumentsScreen,
        "queue": QueueScreen, "adjudicate": AdjudicateScreen, "gold_edit": GoldEditScreen,
        "lead": LeadScreen, "lead_conflicts": LeadConflictsScreen, "help": HelpScreen,
        "guideline": GuidelineScreen, "login": LoginScreen, "pick": PickScreen,
        "checklist": ChecklistScreen, "prompt": PromptScreen, "message": MessageScreen,
        "kb": KbGroundingScreen,
        "search": SearchScreen, "judge": JudgeScreen, "decisions": DecisionsScreen,
    }  # fmt: skip


def _shape(bindings: list) -> list[tuple]:
    return [(b.key, b.action, b.description, b.show, b.priority) for b in Binding.make_bindings(bindings)]


def test_every_place_has_its_class_and_takes_its_bindings_from_the_map() -> None:
    classes = _classes()
    assert set(classes) == set(keymap.PLACES)
    for place, cls in classes.items():
        declared = cls.__dict__.get("BINDINGS", [])
        assert _shape(declared) == _shape(keymap.bindings(place)), place


def test_no_binding_is_declared_outside_the_map() -> None:
    """A ``Binding(`` anywhere in tui/ but the map would be a key the table does not show."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "tui").rglob("*.py")
        if p.name != "keymap.py" and re.search(r"\bBinding\(", p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_one_meaning_per_key_and_every_action_exists() -> None:
    seen: dict[str, str] = {}
    classes = _classes()
    for e in keymap.KEYMAP:
        for k in e.names:
            assert k not in seen, f"{k!r}: {seen[k]!r} and {e.meaning!r}"
            seen[k] = e.meaning
        for place, use in e.uses.items():
            name = use.action.split("(", 1)[0]
            owner: type = classes[place]
            if name.startswith("app."):
                owner, name = classes["app"], name[4:]
            assert hasattr(owner, f"action_{name}"), f"{place}: {use.action} ({e.keys})"


def test_the_conflicts_of_issue_25_are_gone() -> None:
    """b moves a word (never a decision), R reloads (the relations view is V), F removes a fragment
    (finishing is S, as submitting), n/p go to the next/previous item everywhere."""
    assert set(keymap.entry_of("b").uses) == {"text", "gold_edit"}
    assert {u.action for u in keymap.entry_of("R").uses.values()} == {"reload"}
    assert set(keymap.entry_of("F").uses) == {"annotate"}
    assert keymap.entry_of("S").uses["adjudicate"].action == "finish_gold"
    assert keymap.entry_of("n").uses["adjudicate"].action == "next_open(1)"
    assert keymap.entry_of("N").uses["annotate"].action == "next_document"
    for shared in ("e", "x", "r", "1", "escape", "enter", "tab"):  # one meaning, said in the entry
        assert len(keymap.entry_of(shared).uses) > 1


def test_docs_table_is_the_generated_one() -> None:
    text = (ROOT / "docs" / "guide" / "tui.md").read_text(encoding="utf-8")
    assert keymap.docs_table(text) == keymap.markdown_table(), "run: python -m tui.keymap"
    assert "docs/guide/tui.md#keys" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("place", ["annotate", "adjudicate", "lead"])
def test_help_lists_the_map(place: str) -> None:
    """The help screen's rows are the map's descriptions (binding_rows reads the same bindings)."""
    from tui.screens.base import binding_rows

    class Node:  # binding_rows needs a node with an app that displays keys
        BINDINGS = keymap.bindings(place)

        class app:
            @staticmethod
            def get_key_display(b: Binding) -> str:
                return b.key

    rows = binding_rows(Node())  # type: ignore[arg-type]
    wanted = {u.description for e in keymap.KEYMAP if (u := e.uses.get(place)) and u.description}
    assert {desc for _k, desc in rows} == wanted
