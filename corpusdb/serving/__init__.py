"""``corpusdb serve``: the TUI in a browser, one session process per browser tab (textual-serve).

Why so little here: textual-serve does the serving (the page, the websocket, a process per session,
running a command under Textual's web driver); each session is ``corpusdb tui --login``, so the login
screen is the first thing any browser gets and the person who logs in is that process's user for its
life. This module builds that command and says what binding an address exposes. The database URL
reaches the sessions in their environment (``CORPUSDB_URL``), never on a command line; on PostgreSQL
it is the gatekeeper's (``corpusdb team gatekeeper``), checked before serving.
"""

from __future__ import annotations

import ipaddress
import shlex
import sys
from pathlib import Path

TEMPLATES = Path(__file__).with_name("templates")
"""Our copy of textual-serve's page: no request to any other site (its page loads a web font from one),
and the title is "corpusdb" (the page names no project: nothing before the login)."""


def session_command(
    project: str | None, *, idle_minutes: float, max_failures: int, lockout_minutes: float
) -> str:
    """The shell command textual-serve runs for each browser session."""
    args = [sys.executable, "-m", "corpusdb"]
    if project is not None:
        args += ["--project", project]
    args += [
        "tui", "--login", "--via", "serve", "--idle-timeout", f"{idle_minutes:g}",
        "--max-failures", str(max_failures), "--lockout", f"{lockout_minutes:g}",
    ]  # fmt: skip
    return shlex.join(args)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_line(host: str, port: int, public_url: str | None) -> str | None:
    """One line on what binding ``host`` exposes (None for loopback: only this machine reaches it)."""
    if is_loopback(host):
        return None
    tls = public_url is not None and public_url.startswith("https://")
    return (
        f"serving on {host}:{port}: every machine that reaches this address gets the login screen, and "
        + (
            f"passwords and annotations cross the network in clear up to the TLS proxy behind {public_url}; "
            if tls
            else "passwords and annotations cross the network in clear: put a TLS reverse proxy in front "
            "(README, 'Annotate in a browser': nginx recipe in corpusdb/serving/nginx.conf) and pass --public-url https://...; "
        )
        + "bind 127.0.0.1 when the proxy runs on this machine"
    )
