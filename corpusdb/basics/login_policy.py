"""How the login screen answers failures: a delay that grows, then a lockout, per name typed.

Why per name and in the database: one browser is one session process; counting in a process would
let an attacker open a new tab per guess. The lockout is for a while, not for ever, so that a
stranger typing a colleague's name cannot lock them out for good (a lead can always clear it by
setting the password again).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True, slots=True)
class LoginPolicy:
    max_failures: int = 5
    """Failed logins in a row that lock the name."""
    lockout: timedelta = timedelta(minutes=15)
    """How long a locked name stays locked (a success or a new password clears the count)."""
    delay: float = 1.0
    """Seconds a failure waits before its answer, times the failures so far (capped at ``max_delay``)."""
    max_delay: float = 8.0
    idle_timeout: timedelta | None = timedelta(minutes=30)
    """A session with no key or click for this long ends (None: never)."""

    def wait_after(self, failures: int) -> float:
        """Seconds to wait before answering the ``failures``-th failure in a row."""
        return min(self.max_delay, self.delay * max(1, failures))
