"""The Textual app (``corpusdb tui``): a thin layer over the API.

Reads top-down: ``app`` (the App and its navigation) -> ``screens`` (one per task) -> ``widgets``
and the pure models beside them (``session``, ``items``, ``clusters``, ``relations``, ``textmodel``,
``paint``) -> ``facade`` (everything the TUI asks of ``corpusdb.api.Corpus``, in one object).
Screens see the app only as ``host.AppHost``. Nothing here touches the database directly, so the
blindness rules hold on this path as on every other.
"""
