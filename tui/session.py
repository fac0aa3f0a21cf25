"""One open annotation set: local state, instant edits, saves in order, undo and redo.

Why this shape: every action must be saved at once in its own transaction (``Corpus.edit_set``)
yet the screen must never wait for the disk. An action is applied locally first with the same pure
function the store uses (``corpusdb.services.edits.apply_changes``), shown at once, and queued; a worker saves
the queue in order, each save naming the version the previous one produced. A crash loses at most
the action being saved. Undo is just another edit (the inverse the store returned), so it is saved,
locked and checked like any other. On a stale version or a refusal the session reloads from the
database and the screen tells the user; nothing is overwritten silently.

No Textual here: the tests and the bench drive it directly.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence, Sized
from dataclasses import dataclass, field, replace
from typing import Any

from corpusdb.basics.errors import CorpusError, StaleVersion
from corpusdb.basics.records import Annotations, AnnotationSet, DocumentInfo, SetInfo
from corpusdb.services.edits import Change, Mark, apply_changes
from guidelines.schema import Schema


@dataclass
class Entry:
    """One user action in the undo history."""

    description: str
    undo: tuple[Change, ...]
    redo: tuple[Change, ...]
    version: int | None = None
    """The set's version once this action was saved (None while it is queued)."""


@dataclass
class _Pending:
    changes: tuple[Change, ...]
    entry: Entry
    undoing: bool
    mode: str = "do"
    """How the store updates its undo stacks: "do", "undo" or "redo" (``corpusdb.services.undo``)."""


@dataclass(frozen=True)
class SaveOutcome:
    """What a save did, for the screen: ``error`` set when it failed and the set was reloaded."""

    saved: int = 0
    version: int = 0
    error: str | None = None
    stale: bool = False
    reloaded: AnnotationSet | None = field(default=None, repr=False)
    history: Any = field(default=None, repr=False)
    """With ``reloaded``: the set's undo stacks as the store has them now (None: none kept)."""


class ReadOnly(CorpusError):
    """The set cannot be edited here (submitted, or being reloaded after a failed save)."""


class DocumentSession:
    """The editing state of one annotation set; ``act``/``undo``/``redo`` run on the UI thread,
    ``save_pending`` in a worker thread."""

    def __init__(self, corpus: Any, document: DocumentInfo, aset: AnnotationSet, schema: Schema) -> None:
        self.corpus = corpus
        self.document = document
        self.schema = schema
        self.text = document.text
        self.topic: Any = None
        """A relevance unit's topic (``corpusdb.relevance.records.Topic``), set by the facade."""
        self.skipped: str | None = None
        """Why I skipped this document as irrelevant (None: not skipped), set by the facade."""
        self.suggestions: list[Any] = []
        """The recommenders' suggestions on my set (``corpusdb.recommend.records.Suggestion``), set by
        the facade; their status follows accepts, rejects and their undo here (``Mark`` changes)."""
        self._lock = threading.Lock()
        self._pending: deque[_Pending] = deque()
        self.undo_stack: list[Entry] = []
        self.redo_stack: list[Entry] = []
        self.broken = False
        self._reset(aset)

    def _reset(self, aset: AnnotationSet) -> None:
        self.info: SetInfo = aset.info
        self.annotations: Annotations = aset.annotations
        self.saved_version = aset.info.version

    # -- state ------------------------------------------------------------------------------------
    @property
    def set_id(self) -> int:
        return self.info.id

    @property
    def version(self) -> int:
        """The set's version in the database (what the next save must name)."""
        return self.saved_version

    @property
    def readonly(self) -> bool:
        return self.info.status == "submitted"

    @property
    def dirty(self) -> bool:
        """Actions shown but not yet saved."""
        return bool(self._pending)

    def _check_writable(self) -> None:
        if self.broken:
            raise ReadOnly("reloading after a failed save; try again in a moment")
        if self.readonly:
            raise ReadOnly("this set is submitted and read-only (a lead can reopen it)")

    # -- actions (UI thread) ----------------------------------------------------------------------
    def act(self, changes: Sequence[Change], description: str) -> Annotations:
        """Apply one action locally now and queue its save; raises InvalidInput when it is refused."""
        self._check_writable()
        new, inverse = apply_changes(self.annotations, changes)
        entry = Entry(description, tuple(inverse), tuple(changes))
        self.annotations = new
        self._marks(changes)
        self.undo_stack.append(entry)
        self.redo_stack.clear()
        self._pending.append(_Pending(tuple(changes), entry, False, "do"))
        return new

    def undo(self) -> str | None:
        """Undo the last action (None when there is none); saved like any action."""
        self._check_writable()
        if not self.undo_stack:
            return None
        entry = self.undo_stack.pop()
        new, inverse = apply_changes(self.annotations, entry.undo)
        entry.redo = tuple(inverse)
        self.annotations = new
        self._marks(entry.undo)
        self.redo_stack.append(entry)
        self._pending.append(_Pending(entry.undo, entry, True, "undo"))
        return entry.description

    def redo(self) -> str | None:
        """Redo the last undone action (None when there is none)."""
        self._check_writable()
        if not self.redo_stack:
            return None
        entry = self.redo_stack.pop()
        new, inverse = apply_changes(self.annotations, entry.redo)
        entry.undo = tuple(inverse)
        self.annotations = new
        self._marks(entry.redo)
        self.undo_stack.append(entry)
        self._pending.append(_Pending(entry.redo, entry, False, "redo"))
        return entry.description

    def _marks(self, changes: Sequence[Change]) -> None:
        """Suggestions accepted, rejected or reopened by an action: shown so at once."""
        status = {c.suggestion: (c.status, c.item) for c in changes if isinstance(c, Mark)}
        if status:
            self.suggestions = [
                replace(s, status=status[s.id][0], item=status[s.id][1]) if s.id in status else s
                for s in self.suggestions
            ]

    # -- saving (worker thread) -------------------------------------------------------------------
    def save_pending(self) -> SaveOutcome:
        """Save every queued action in order, one transaction each. Blocking: call from a worker.

        On failure the queue is dropped, the set reloaded, and the outcome says why; the caller
        (UI thread) then calls ``adopt`` with ``outcome.reloaded``.
        """
        saved = 0
        with self._lock:
            while self._pending:
                p = self._pending[0]
                try:
                    res = self.corpus.edit_set(
                        self.set_id,
                        p.changes,
                        expected_version=self.saved_version,
                        history=p.mode,
                        description=p.entry.description,
                    )
                except Exception as exc:  # refused (CorpusError) or the database failed: same remedy
                    self.broken = True
                    self._pending.clear()
                    msg = str(exc) if isinstance(exc, CorpusError) else f"{type(exc).__name__}: {exc}"
                    try:
                        fresh = self.corpus.read_set(self.set_id)
                    except Exception as again:  # the database is gone: stay read-only, say so
                        return SaveOutcome(saved, self.saved_version, f"{msg}; reloading failed too: {again}")
                    stale = isinstance(exc, StaleVersion)
                    history = None
                    if callable(getattr(self.corpus, "edit_history", None)):
                        try:  # the stacks match the reloaded content: undo goes on from there
                            history = self.corpus.edit_history(self.set_id)
                        except CorpusError:
                            history = None
                    return SaveOutcome(saved, fresh.info.version, msg, stale, fresh, history)
                self._pending.popleft()
                # The store's inverse is authoritative: it was computed on the rows actually there.
                if p.undoing:
                    p.entry.redo = res.inverse
                else:
                    p.entry.undo = res.inverse
                p.entry.version = res.info.version
                self.saved_version = res.info.version
                self.info = res.info
                saved += 1
        return SaveOutcome(saved, self.saved_version)

    def restore_history(self, history: Any) -> None:
        """Take the stacks the store kept (``corpusdb.services.undo.EditHistory``): undo works after a restart."""
        self.undo_stack = [Entry(h.description, h.changes, (), h.version) for h in history.undo]
        self.redo_stack = [Entry(h.description, (), h.changes, h.version) for h in history.redo]

    def adopt(self, fresh: AnnotationSet, history: Any = None) -> None:
        """Take the database's version after a failed save (UI thread), with the store's undo
        stacks when it read them (they match that version), else none."""
        with self._lock:
            self._reset(fresh)
            self.undo_stack.clear()
            self.redo_stack.clear()
            if history is not None:
                self.restore_history(history)
            self.broken = False

    def reload(self) -> AnnotationSet:
        """Read the set again (blocking)."""
        return self.corpus.read_set(self.set_id)


def save_before_exit(session: DocumentSession) -> None:
    """Save what ``session`` still has queued, here and now, blocking: the app is ending (a browser
    tab closed, the terminal went away). Why: the save of the last action runs in a worker, and
    Textual cancels its workers when the app exits; one not yet in its thread never saved, so a span
    shown on the screen was lost with the tab (``bench/bench_serve.py``: 2 of 20 spans in a session).
    A refusal is not shown (no screen is left): the document opens next time as the database has it.
    Called by ``CorpusApp.on_unmount`` once nothing calls back into the ending app: a save worker
    still in ``save_pending`` holds the session's lock, and this waits for it."""
    if session.dirty:
        session.save_pending()


class QueueClaim:
    """Who writes a screen's queue of actions: its writer worker, or the app as it ends
    (``CorpusApp.before_exit``), never both. Why: Textual cancels workers as the app ends, so a writer
    not yet in its thread never runs; the app's end then takes the queue, and a writer starting
    after finds it taken. ``lock`` is the queue's own; the writer sets ``taken`` back to False, under
    it, when it has emptied the queue."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self.taken = False

    def by_worker(self) -> bool:
        """The writer worker takes the queue (False: the app's end took it first)."""
        with self._lock:
            if self.taken:
                return False
            self.taken = True
            return True

    def by_exit(self, queue: Sized) -> bool:
        """The app's end takes the queue (False: it is empty, or a writer is on it)."""
        with self._lock:
            if self.taken or not queue:
                return False
            self.taken = True
            return True
