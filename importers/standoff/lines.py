"""One standoff line's text: second fields in canonical or kept spacing, tails, one-line texts.

Shared by the writer (which makes lines) and the parser (which rebuilds a line to tell whether
it was written canonically).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_KNOWN_PREFIXES = frozenset("TRAEMN*#")


def _norm(s: str) -> list[str]:
    """Tokens of a second field (``;`` a token, numbers by value): compares spacing-insensitively."""
    return [
        (t.lstrip("0") or "0") if t.isdigit() and t.isascii() else t for t in s.replace(";", " ; ").split()
    ]


def _field2(canon: str, extra: Mapping[str, Any]) -> str:
    ws = extra.get("ws")
    if ws is not None and _norm(ws) == _norm(canon):
        return ws
    return canon


def _tail(extra: Mapping[str, Any]) -> str:
    tail = extra.get("tail")
    return "" if tail is None else "\t" + tail


def _attr_line(ident: str, name: str, target: str, value: Any, extra: Mapping[str, Any]) -> str:
    canon = f"{name} {target}" if value is True else f"{name} {target} {value}"
    return f"{ident}\t{_field2(canon, extra)}{_tail(extra)}"


def _norm_line(
    ident: str, kind: str, target: str, ref: str, text: str | None, extra: Mapping[str, Any]
) -> str:
    if extra.get("st"):  # the BioNLP-ST form (see parser._st_norm)
        target, ref = f"Annotation:{target}", f"Referent:{ref}"
    line = f"{ident}\t{_field2(f'{kind} {target} {ref}', extra)}"
    return line if text is None else f"{line}\t{_one_line(text)}"


def _star_line(type_: str, members: Sequence[str], extra: Mapping[str, Any]) -> str:
    return f"*\t{_field2(type_ + ' ' + ' '.join(members), extra)}{_tail(extra)}"


def _note_line(ident: str, type_: str, target: str, text: str, extra: Mapping[str, Any]) -> str:
    line = f"{ident}\t{_field2(f'{type_} {target}', extra)}"
    return line if extra.get("notext") and not text else f"{line}\t{_one_line(text)}"


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return text


def _clean(token: str) -> bool:
    return bool(token) and not any(c.isspace() for c in token)
