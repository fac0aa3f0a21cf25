"""Control characters in user-supplied strings: found and cleaned without loading Rich.

Why apart from ``terminal``: names are checked where they enter (``check_annotator_name`` runs at the
start of every import), and importing ``terminal`` loads Rich (~30 ms), a cost only printing needs.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 controls but tab and newline, DEL and C1 controls (ESC, CSI... start terminal commands)."""


def clean(s: str) -> str:
    """``s`` with every control character (tab and newline apart) replaced by ``?``."""
    return _CONTROL.sub("?", s)


def has_control(s: str) -> bool:
    """True when ``s`` holds a character that ``clean`` would replace, or a tab or newline."""
    return bool(_CONTROL.search(s)) or "\t" in s or "\n" in s
