"""The command palette's document search: type part of a document id to open it (ctrl+p)."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from corpusdb.errors import CorpusError

if TYPE_CHECKING:
    from tui.app import CorpusApp


class DocumentCommands(Provider):
    """``open DOCUMENT``: my documents to annotate, and documents to adjudicate when I may."""

    async def startup(self) -> None:
        app = cast("CorpusApp", self.app)
        try:
            self.targets = await asyncio.to_thread(app.facade.document_targets)
        except CorpusError:
            self.targets = []

    def _command(self, document: str, mode: str) -> object:
        app = cast("CorpusApp", self.app)
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
