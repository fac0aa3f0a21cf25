"""The ``Corpus`` methods for knowledge bases: what ``corpusdb kb ...`` and the TUI's grounding
picker call.

Who may do what: every member reads knowledge bases (search, labels, checks; team roles are granted
SELECT on them); only the database owner loads, updates or removes one. Why the owner and not a
lead: a knowledge base is shared by every project of the database, and an update's report lists
the groundings that point at ids that went, in every set of the project, which a lead acting as
herself may not read before submission (blindness).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from corpusdb.basics.errors import InvalidInput, NotFound, PermissionDenied
from corpusdb.basics.records import Annotations, grounding_key, split_key
from corpusdb.services.base import ServiceBase
from guidelines.schema import KnowledgeBaseRef, Schema
from guidelines.validate import Violation

if TYPE_CHECKING:  # the knowledge bases' store and search load when one is used (start-up, issue #26)
    from corpusdb.kb import store
    from corpusdb.kb.search import Candidate
    from corpusdb.kb.store import KbInfo

_KB_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+\-]{0,63}$")


@dataclass(frozen=True, slots=True)
class GroundingUse:
    """A grounding of this project that points at an id (``kb update`` lists those that went)."""

    set_id: int
    document: str
    annotator: str | None
    item: str
    ref: str


@dataclass(frozen=True, slots=True)
class KbUpdate:
    info: KbInfo
    disappeared: tuple[str, ...]
    affected: tuple[GroundingUse, ...]


@dataclass(frozen=True, slots=True)
class ConceptInfo:
    id: str
    label: str
    names: tuple[tuple[str, str], ...]
    parents: tuple[str, ...]
    obsolete: bool
    replaced_by: tuple[str, ...]
    type: str | None


class KnowledgeBaseMixin(ServiceBase):
    """Loading, searching and checking against knowledge bases."""

    def _require_owner(self, doing: str) -> None:
        if self.actor.name is not None:
            raise PermissionDenied(
                f"{self.actor.label} may not {doing}: knowledge bases are shared by every project of the "
                "database and loaded by its owner (run without --as, connected as the owner)"
            )

    def kb_add(
        self, name: str, path: str | Path, fmt: str, *, progress: store.Progress | None = None
    ) -> KbInfo:
        """Load ``path`` (``obo``, ``ncbi-taxonomy`` or ``tsv``) as the knowledge base ``name``: all
        or nothing (a problem anywhere in the file, listed with its line, stores nothing).
        ``progress(done, total, what)``: concepts stored so far (total None while the file is read)."""
        from corpusdb.kb import store
        from importers.kb_formats import reader

        self._require_owner("load a knowledge base")
        if not _KB_NAME.match(name):
            raise InvalidInput(f"knowledge-base name {name!r}: letters, digits and _ . + - only (at most 64)")
        read = reader(fmt)
        with self._write(holder=f"loading the knowledge base {name}") as conn:
            return store.add(conn, name, fmt, str(path), read(path), progress)

    def kb_update(
        self, name: str, path: str | Path, fmt: str | None = None, *, progress: store.Progress | None = None
    ) -> KbUpdate:
        """Replace the content of ``name`` from ``path``; report the ids that disappeared and the
        groundings of this project that point at them."""
        from corpusdb.kb import store
        from importers.kb_formats import reader

        self._require_owner("update a knowledge base")
        with self._write(holder=f"updating the knowledge base {name}") as conn:
            old = store.info(conn, name)
            fmt = fmt or old.format
            info, gone = store.replace(conn, name, fmt, str(path), reader(fmt)(path), progress)
            affected = [u for u in self._uses(conn, name) if u.ref in gone or split_key(u.ref)[1] in gone]
        return KbUpdate(info, tuple(sorted(gone)), tuple(affected))

    def kb_remove(self, name: str) -> None:
        from corpusdb.kb import store

        self._require_owner("remove a knowledge base")
        with self._write() as conn:
            store.remove(conn, name)

    def kb_list(self) -> list[KbInfo]:
        from corpusdb.kb import store

        with self._read() as conn:
            return store.listing(conn)

    def kb_show(self, name: str) -> KbInfo:
        from corpusdb.kb import store

        with self._read() as conn:
            return store.info(conn, name)

    def kb_search(
        self, name: str, typed: str, *, limit: int = 20, branch: str | None = None
    ) -> list[Candidate]:
        """The best candidates for ``typed`` (names and synonyms, typos tolerated), under ``branch``."""
        from corpusdb.kb import search, store

        with self._read() as conn:
            kid = store.kb_id(conn, name)
            return search.search(conn, kid, typed, limit=limit, branch=(branch,) if branch else ())

    def kb_concept(self, name: str, concept: str) -> ConceptInfo:
        from corpusdb.kb import graph, store

        with self._read() as conn:
            kid = store.kb_id(conn, name)
            row = conn.execute(
                text(
                    "SELECT code, label, obsolete, replaced_by, type FROM kb_concept WHERE kb_id = :k AND code = :c"
                ),
                {"k": kid, "c": concept},
            ).first()
            if row is None:
                raise NotFound(f"no concept {concept!r} in the knowledge base {name!r}")
            names = conn.execute(
                text("SELECT name, kind FROM kb_name WHERE kb_id = :k AND code = :c ORDER BY id"),
                {"k": kid, "c": concept},
            ).fetchall()
            parents = graph.parents_of(conn, kid, concept)
            rep = graph.concepts(conn, kid, [concept])[concept][2]
            return ConceptInfo(
                row[0], row[1], tuple((n, k) for n, k in names), parents, bool(row[2]), rep, row[4]
            )

    def kb_parents(self, name: str) -> dict[str, tuple[str, ...]]:
        """Every ``is_a`` edge of a knowledge base (``child -> parents``): Wang's similarity input."""
        from corpusdb.kb import graph, store

        with self._read() as conn:
            return graph.parents(conn, store.kb_id(conn, name))

    # -- groundings ---------------------------------------------------------------------------
    def kb_for(self, entity_type: str, schema: Schema | None = None) -> KnowledgeBaseRef | None:
        """The knowledge base the schema offers for an entity type (None: free-text groundings)."""
        schema = schema or self.schema()  # type: ignore[attr-defined]
        return schema.knowledge_base_for_type(entity_type)

    def grounding_labels(self, keys: list[str], schema: Schema | None = None) -> dict[str, str]:
        """The label of each grounding key (``OBT:000965`` -> ``gastric mucosa``) whose database the
        schema maps to a loaded knowledge base; others are left out."""
        from corpusdb.kb import check

        schema = schema or self.schema()  # type: ignore[attr-defined]
        with self._read() as conn:
            return check.grounding_labels(conn, schema, keys)

    def grounding_violations(self, annotations: Annotations, schema: Schema | None = None) -> list[Violation]:
        """Knowledge-base problems of these annotations' groundings (unknown, obsolete, off-branch)."""
        from corpusdb.kb import check

        schema = schema or self.schema()  # type: ignore[attr-defined]
        with self._read() as conn:
            return check.violations(conn, schema, annotations)

    def _uses(self, conn: Any, kb_name: str) -> list[GroundingUse]:
        """Every grounding of this project whose database the current schema maps to ``kb_name``."""
        import json

        schema: Schema = self.schema()  # type: ignore[attr-defined]
        out: list[GroundingUse] = []
        for table in ("span", "entity"):
            rows = conn.execute(
                text(
                    f"SELECT st.id, d.external_id, a.name, x.local_id, x.groundings FROM {table} x "
                    "JOIN annotation_set st ON st.id = x.set_id JOIN document d ON d.id = st.document_id "
                    "LEFT JOIN annotator a ON a.id = st.annotator_id "
                    "WHERE d.project_id = :p AND x.groundings IS NOT NULL ORDER BY st.id, x.id"
                ),
                {"p": self.project_id},
            )
            from corpusdb.services.content import grounding_from_json

            for sid, doc, who, local, raw in rows:
                for g in json.loads(raw) if isinstance(raw, str) else raw or ():
                    key = grounding_key(grounding_from_json(g))
                    ref = schema.knowledge_base(split_key(key)[0])
                    if ref is not None and ref.kb == kb_name:
                        out.append(GroundingUse(int(sid), doc, who, local, key))
        return out
