"""Names of a package loaded on first use (PEP 562): its ``__getattr__`` and ``__dir__``.

Why here: ``corpusdb.agreement`` and ``corpusdb.reports`` both export names from their modules
without importing them when the package is imported (opening a project must not load the engine,
issue #14), by the same two functions; a package states its table and takes them from here.
"""

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_names(
    package: str, namespace: MutableMapping[str, Any], lazy: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` whose ``namespace`` (its ``globals()``) lacks
    the names of ``lazy`` (name -> module below the package): the first access imports the module
    and keeps the value in the namespace, so later accesses do not come here again."""

    def __getattr__(name: str) -> Any:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *lazy])

    return __getattr__, __dir__
