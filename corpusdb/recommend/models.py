"""Trained models as stored text, and the loaded models a process keeps.

Why text: a model is data the database carries for the whole team (a string matcher's names with
their counts, a tagger's crfsuite file); it is stored compressed and base64-encoded in a text
column, never pickled (unpickling what a colleague's process wrote would run its code). Loading
rebuilds the automaton or opens the crfsuite model; the result is cached per model version, so a
document opens without reading or building a model again (``load``).
"""

from __future__ import annotations

import base64
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import orjson

_LOCK = threading.Lock()
_CACHE: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
CACHE_SIZE = 16


def pack(obj: Any) -> str:
    """JSON, compressed, base64: what the ``model`` columns hold."""
    return base64.b64encode(zlib.compress(orjson.dumps(obj), 6)).decode("ascii")


def unpack(text: str, what: str = "the model") -> Any:
    """The stored JSON back; a damaged value is refused with what to do (retrain it)."""
    try:
        return orjson.loads(zlib.decompress(base64.b64decode(text, validate=True)))
    except (ValueError, zlib.error) as exc:  # binascii.Error and orjson's error are ValueErrors
        from corpusdb.basics.errors import InvalidInput

        raise InvalidInput(
            f"{what} cannot be read ({exc}): train it again (corpusdb recommend train)"
        ) from None


def encode_bytes(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decode_bytes(text: str) -> bytes:
    return base64.b64decode(text)


def cached(key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
    """The loaded model under ``key`` (which names the model's version), built once per process."""
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    value = build()
    with _LOCK:
        _CACHE[key] = value
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return value


def is_cached(key: tuple[Any, ...]) -> bool:
    with _LOCK:
        return key in _CACHE


def clear() -> None:
    with _LOCK:
        _CACHE.clear()
