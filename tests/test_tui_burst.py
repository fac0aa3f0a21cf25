"""Keys typed in a burst reach the screen they were typed for, in order (issue #25.1).

A fast typist's chord, or a paste into a browser terminal, sends keys with no pause: the dialog a
key opens is not on screen yet when the next keys come. These tests send every key at once (through
the driver as a terminal does, and posted straight to the app) and check what the database holds.
"""

from __future__ import annotations

import pytest

from corpusdb.api import Corpus
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample
from tui.screens.annotate import AnnotateScreen
from tui.testing import burst, run_async, settle

D1 = TEXTS["d1"]


@pytest.fixture
def url(sqlite_url: str) -> str:
    build_sample(sqlite_url)
    return sqlite_url


def app_for(url: str, start: str | None = "d1") -> CorpusApp:
    return build_app(open_facade(url, "demo", "alice"), start=start)


def spans(url: str) -> list[tuple[str, str]]:
    ann = Corpus.open("demo", url=url, user="alice").my_set("d1").annotations
    return [(s.type, s.text) for s in ann.spans]


@pytest.mark.parametrize("direct", [False, True], ids=["driver", "posted"])
@run_async
async def test_a_then_a_type_key_in_one_burst(url: str, direct: bool) -> None:
    """``a h``: the type dialog opens and takes ``h`` (chemical), nothing is lost."""
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await burst(pilot, "a", "h", direct=direct)
        assert isinstance(app.screen, AnnotateScreen)
    assert spans(url) == [("chemical", "IL-2")]


@run_async
async def test_a_letter_without_a_key_filters_instead_of_adding_a_fragment(url: str) -> None:
    """``a f``: ``f`` (no type has it) starts the dialog's filter; it is not "add fragment"."""
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await burst(pilot, "a", "f", "u", "s", "i", "o", "n", "enter")
    assert spans(url) == [("fusion-protein", "IL-2")]


@pytest.mark.parametrize("direct", [False, True], ids=["driver", "posted"])
@run_async
async def test_move_select_annotate_in_one_write(url: str, direct: bool) -> None:
    """``w w v w a p`` in one write: two words on, select mode, a word more, annotate as protein."""
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await burst(pilot, "w", "w", "v", "w", "a", "p", direct=direct)
    assert spans(url) == [("protein", "CD25")]


@run_async
async def test_a_chain_of_dialogs_in_one_burst(url: str) -> None:
    """Two spans and a relation (argument, label, tags: four dialogs, one after another), one burst."""
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await burst(pilot, "a", "p", "w", "w", "a", "p", "r", "enter", "minus", "h", "i", "enter")
    ann = Corpus.open("demo", url=url, user="alice").my_set("d1").annotations
    assert [(s.id, s.type, s.text) for s in ann.spans] == [
        ("T1", "protein", "IL-2"),
        ("T2", "protein", "CD25"),
    ]
    (rel,) = ann.relations
    assert (rel.type, rel.label, rel.tags) == ("bind", -1, ("hypothesis", "implicit"))
    assert [(a.role, a.ref) for a in rel.args] == [("Arg1", "T2"), ("Arg2", "T1")]


@run_async
async def test_keys_typed_while_a_document_opens_reach_it(url: str) -> None:
    """From the list: enter opens d1 (read in a worker); ``a p`` typed at once annotate in d1."""
    app = app_for(url, start=None)
    async with app.run_test() as pilot:
        await settle(pilot)
        await burst(pilot, "enter", "a", "p", "q")
        assert not isinstance(app.screen, AnnotateScreen)  # q closed it again, after the span
    assert spans(url) == [("protein", "IL-2")]


@run_async
async def test_escape_in_a_burst_cancels_the_dialog_it_was_typed_for(url: str) -> None:
    """``a escape x``: the dialog is cancelled, then x (delete) acts on the text: nothing to delete."""
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await burst(pilot, "a", "p", "a", "escape", "u", "ctrl+r")
    assert spans(url) == [("protein", "IL-2")]  # added, the second dialog cancelled, undone, redone
