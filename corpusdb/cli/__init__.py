"""The ``corpusdb`` command line (``corpusdb.cli.main``)."""

import gc
import os
import sys

# Start-up (issue #14): run as the ``corpusdb`` console script, the cyclic garbage collector is
# paused while the command's modules load (they create hundreds of thousands of long-lived objects,
# and each full collection walks them all: ~15% of a short command), then ``main`` freezes what was
# loaded and resumes it. Not when corpusdb.cli is imported by another program (tests, scripts).
PAUSED_GC = os.path.basename(sys.argv[0] if sys.argv else "") == "corpusdb" and gc.isenabled()
if PAUSED_GC:
    gc.disable()
