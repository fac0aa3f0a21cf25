"""The command palette's document search: type part of a document id to open it (ctrl+p)."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from corpusdb.basics.errors import CorpusError

if TYPE_CHECKING:
    from tui.host import AppHost


class DocumentCommands(Provider):
    """``open DOCUMENT``: my documents to annotate, and documents to adjudicate when I may."""

    async def startup(self) -> None:
        app = cast("AppHost", self.app)
        self.targets: list[tuple[str, str, str]] = []
        if app.facade is None:  # the login screen: nothing of the project yet
            return
        try:
            self.targets = await asyncio.to_thread(app.facade.document_targets)
        except CorpusError:
            self.targets = []

    def _command(self, document: str, mode: str) -> object:
        app = cast("AppHost", self.app)
        return (
            partial(app.open_document, document)
            if mode == "annotate"
            else partial(app.open_adjudication, document)
        )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for document, mode, help_text in self.targets:
            text = f"{mode} {document}"
            score = matcher.match(text)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(text), self._command(document, mode), text=text, help=help_text
                )  # type: ignore[arg-type]

    async def discover(self) -> Hits:
        for document, mode, help_text in self.targets[:30]:
            yield DiscoveryHit(f"{mode} {document}", self._command(document, mode), help=help_text)  # type: ignore[arg-type]


class AnnotationCommands(Provider):
    """The annotate screen's actions by name (add span, change type, delete, link, relation, note,
    undo/redo, submit, skip, next/previous span...): every key of the screen is also a command,
    so someone who forgot a key finds it by typing what they want to do."""

    SKIP: tuple[str, ...] = ("toggle_focus", "focus_text", "doc_label")

    def _commands(self) -> list[tuple[str, str, object]]:
        """(name, help, callback) for the calling screen's bindings and the text view's span moves."""
        from textual.binding import Binding

        screen = self.screen
        out: list[tuple[str, str, object]] = []
        seen: set[str] = set()
        for b in Binding.make_bindings(getattr(type(screen), "BINDINGS", [])):
            if not b.description or b.action.split("(")[0] in self.SKIP or b.action in seen:
                continue
            seen.add(b.action)
            keys = screen.app.get_key_display(b) or b.key
            out.append((b.description, f"key {keys}", partial(screen.run_action, b.action)))
        view = getattr(screen, "view", None)
        if view is not None:
            for name, action, key in (
                ("Next span", "move('span', 1)", "n"),
                ("Previous span", "move('span', -1)", "N"),
            ):
                out.append((name, f"key {key}", partial(view.run_action, action)))
        return out

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name, help=help_text)  # type: ignore[arg-type]

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)  # type: ignore[arg-type]
