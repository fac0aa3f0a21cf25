"""Passwords for the SQLite login screen: salted, memory-hard hashes (hashlib.scrypt), never clear text.

Why scrypt from the standard library: it is memory-hard (each guess costs an attacker 128 MiB at the
default cost), needs no extra dependency and is what OWASP lists beside argon2id. Each hash carries
its own parameters (``scrypt$<log2 n>$<r>$<p>$<salt>$<key>``, base64), so the cost can be raised
later without breaking the hashes already stored.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

LOG2_N, R, P = 17, 8, 1  # OWASP's minimum for scrypt: n = 2^17, r = 8, p = 1 (about 128 MiB, 0.4 s here)
SALT_BYTES, KEY_BYTES = 16, 32
MAX_PASSWORD = 1024  # characters: longer input is refused before hashing (no hashing of megabytes)


def _key(password: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    n = 1 << log2_n
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=256 * r * n + (1 << 20), dklen=KEY_BYTES
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, *, log2_n: int = LOG2_N) -> str:
    """The stored form of ``password``: parameters, a random salt and the derived key."""
    if not password:
        raise ValueError("a password may not be empty")
    if len(password) > MAX_PASSWORD:
        raise ValueError(f"a password may not be longer than {MAX_PASSWORD} characters")
    salt = os.urandom(SALT_BYTES)
    key = _key(password, salt, log2_n, R, P)
    return f"scrypt${log2_n}${R}${P}${_b64(salt)}${_b64(key)}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (constant-time comparison)."""
    try:
        scheme, log2_n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(key)
        got = _key(password[:MAX_PASSWORD], base64.b64decode(salt), int(log2_n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected) and len(password) <= MAX_PASSWORD


_DUMMY: list[str] = []


def waste_time(password: str) -> None:
    """Spend what checking a real hash costs, for a name that has none: an unknown name and a wrong
    password then take the same time, so timing does not tell which names exist."""
    if not _DUMMY:
        _DUMMY.append(hash_password("not a password"))
    verify_password(password, _DUMMY[0])
