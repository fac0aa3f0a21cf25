"""The ``corpusdb`` command line (``corpusdb.cli.main``)."""

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Iterator

# Start-up (issue #14): run as the ``corpusdb`` console script, the cyclic garbage collector is
# paused while the command's modules load (they create hundreds of thousands of long-lived objects,
# and each full collection walks them all: ~15% of a short command), then ``resume_gc`` freezes what
# was loaded and resumes it before the command works. Not when corpusdb.cli is imported by another
# program (tests, scripts).
CONSOLE_SCRIPT = os.path.basename(sys.argv[0] if sys.argv else "") == "corpusdb"
PAUSED_GC = CONSOLE_SCRIPT and gc.isenabled()
if PAUSED_GC:
    gc.disable()


def resume_gc() -> None:
    """Resume the collector paused while the modules loaded; what they created is frozen: never
    collectable, and walked by no later collection."""
    global PAUSED_GC
    if PAUSED_GC:
        PAUSED_GC = False
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Pause the collector again while a command loads the modules it needs (the API and the domain
    load lazily, when a command opens the project: ``corpusdb --help`` never does), then freeze what
    they made, as ``resume_gc`` does. Only as the console script, and only if the collector runs."""
    pause = CONSOLE_SCRIPT and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.freeze()
            gc.enable()


def interrupted_while_loading(_signum: int, _frame: object) -> None:
    """Ctrl-C before the command starts (its modules load for a few tenths of a second): one line and
    exit 130, not a KeyboardInterrupt traceback from inside some library's import (issue #22.15).
    Nothing has been opened yet, so nothing is left half done; ``main`` restores Python's handler."""
    os.write(2, b"corpusdb: interrupted while starting: nothing was done\n")
    os._exit(130)


# Only as the console script (not when a program imports corpusdb.cli): a handler is process-wide.
if os.path.basename(sys.argv[0] if sys.argv else "") == "corpusdb":
    signal.signal(signal.SIGINT, interrupted_while_loading)
