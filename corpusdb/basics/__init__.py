"""The basics every layer shares: plain records, errors, names, control characters, the GC pause.

Why a package of its own, at the bottom: importers, schemas, the agreement and evaluation engines,
the store, the services and both front ends exchange these, so they must depend on nothing above
them (the import contracts in ``pyproject.toml`` check it). ``records`` (frozen dataclasses; no ORM
object crosses a layer), ``errors`` (every error raised on purpose, with its CLI exit code),
``names`` (ids that become file names), ``controls`` and ``terminal`` (user strings shown safely),
``gcpause`` (the collector paused around bulk work).
"""
