"""The ``corpusdb`` command line (``corpusdb.cli.main``)."""

import gc
import os
import sys

# Start-up (issue #14): run as the ``corpusdb`` console script, the cyclic garbage collector is
# paused while the command's modules load (they create hundreds of thousands of long-lived objects,
# and each full collection walks them all: ~15% of a short command), then ``resume_gc`` freezes what
# was loaded and resumes it before the command works. Not when corpusdb.cli is imported by another
# program (tests, scripts).
PAUSED_GC = os.path.basename(sys.argv[0] if sys.argv else "") == "corpusdb" and gc.isenabled()
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
