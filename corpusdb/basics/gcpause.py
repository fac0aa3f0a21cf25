"""Pausing Python's cyclic garbage collector around bulk work.

Why a module of its own: an import pauses the collector from its very first step (loading its
readers, listing the files), before the import machinery is loaded; a full collection there walks
every object the program holds (~15 ms of GENIA's 0.3 s import through the API).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector during bulk work: rows are acyclic tuples, and generational passes
    over a heap of 10^6 of them would cost more than the inserts."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
