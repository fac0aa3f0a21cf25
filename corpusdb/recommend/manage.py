"""``RecommendersMixin``: the project's recommenders (add, list, remove) and their stored parts.

A lead adds and removes recommenders; every member lists them (their configuration and their
shared part are no one's unadjudicated work). The rows' columns are in ``corpusdb.store.models``
(``RecommenderRow``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, insert, select

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound
from corpusdb.services.base import ServiceBase, aware, utcnow_aware
from corpusdb.store import rls, tables

if TYPE_CHECKING:  # the recommenders' modules load when one is used, not with corpusdb.api
    from corpusdb.recommend.records import RecommenderInfo

KINDS: tuple[str, ...] = ("string", "tagger", "relation", "external")
"""``string``: the string matcher; ``tagger``: the trainable CRF tagger; ``relation``: relations
between the annotator's spans from co-occurrence statistics of gold relations (``cooccur``);
``external``: a system's prediction sets (what ``assign --pre-annotate`` copies) offered as
suggestions."""
TRAINABLE: tuple[str, ...] = ("string", "tagger", "relation")

RC = tables.recommender
RM = tables.recommender_model
SG = tables.suggestion

_INFO_COLS = (RC.c.id, RC.c.name, RC.c.kind, RC.c.layer, RC.c.options, RC.c.version, RC.c.trained, RC.c.stats)


def _info(r: Any) -> RecommenderInfo:
    from corpusdb.recommend.records import RecommenderInfo

    opts = dict(r.options or {})
    types = opts.pop("types", None)
    return RecommenderInfo(
        id=int(r.id),
        name=str(r.name),
        kind=str(r.kind),
        layer=str(r.layer),
        types=tuple(types) if types is not None else None,
        options=opts,
        version=int(r.version),
        trained=aware(r.trained),
        stats=dict(r.stats or {}),
        dictionary=int(opts.pop("dictionary_names", 0) or 0),
    )


def infos(conn: Connection, project_id: int) -> list[RecommenderInfo]:
    """Every recommender of the project, by name (inside the caller's transaction)."""
    rows = conn.execute(select(*_INFO_COLS).where(RC.c.project_id == project_id).order_by(RC.c.name))
    return [_info(r) for r in rows]


class RecommendersMixin(ServiceBase):
    """Managing recommenders (leads), listing them (every member)."""

    # -- managing ---------------------------------------------------------------------------------
    def add_recommender(
        self,
        name: str,
        kind: str,
        *,
        types: Sequence[str] | None = None,
        options: Mapping[str, Any] | None = None,
        dictionary: str | Path | None = None,
        system: str | None = None,
    ) -> RecommenderInfo:
        """A new recommender (lead). ``kind``: ``string`` (``options``: ``MatcherOptions``; a TSV
        ``dictionary`` of names and types), ``tagger`` (``TaggerOptions``) or ``external`` (``system``:
        the system annotator whose prediction sets it offers). ``types``: only these entity types."""
        from corpusdb.recommend.matcher import MatcherOptions
        from corpusdb.recommend.sources import read_dictionary
        from corpusdb.recommend.tagger import TaggerOptions
        from corpusdb.services.projects import check_annotator_name

        self._require("lead", doing="add recommenders")
        if kind not in KINDS:
            raise InvalidInput(f"recommender kind {kind!r} is not one of {', '.join(KINDS)}")
        try:
            check_annotator_name(name)
        except InvalidInput as exc:
            raise InvalidInput(str(exc).replace("annotator name", "recommender name")) from None
        schema = self.schema()  # type: ignore[attr-defined]
        schema_types = {e.name for e in schema.entities}
        if kind == "relation":  # its types are relation types: the binary ones between spans
            schema_types = {r.name for r in schema.relations if r.kind == "relation" and len(r.roles) == 2}
        if types is not None:
            unknown = sorted(set(types) - schema_types)
            if unknown:
                what = "binary relation types" if kind == "relation" else "entity types"
                raise InvalidInput(
                    f"types {', '.join(unknown)} are not {what} of the schema "
                    f"({', '.join(sorted(schema_types))})"
                )
        opts: dict[str, Any] = dict(options or {})
        if kind == "string":
            MatcherOptions.from_dict(opts)
            unknown = sorted(set(opts) - set(MatcherOptions.__dataclass_fields__) - {"kb"})
        elif kind == "tagger":
            TaggerOptions.from_dict(opts)
            unknown = sorted(set(opts) - set(TaggerOptions.__dataclass_fields__))
        elif kind == "relation":
            from corpusdb.recommend.cooccur import RelationOptions

            RelationOptions.from_dict(opts)
            unknown = sorted(set(opts) - set(RelationOptions.__dataclass_fields__))
        else:
            unknown = sorted(opts)
        if unknown:
            raise InvalidInput(f"{kind} recommenders have no option {', '.join(unknown)}")
        if dictionary is not None:
            if kind != "string":
                raise InvalidInput("only a string matcher learns from a dictionary")
            entries = read_dictionary(dictionary, types or schema_types)
            opts["dictionary_names"] = len(entries)
        else:
            entries = None
        if kind == "external":
            if system is None:
                raise InvalidInput(
                    "an external recommender names the system whose predictions it offers (--system)"
                )
            if self.annotator(system).role != "system":  # type: ignore[attr-defined]
                raise InvalidInput(f"{system!r} is not a system annotator: its sets are not predictions")
            opts["system"] = system
        elif system is not None:
            raise InvalidInput("--system is for external recommenders")
        if types is not None:
            opts["types"] = list(dict.fromkeys(types))
        with self._write() as conn:
            if conn.execute(
                select(RC.c.id).where(RC.c.project_id == self.project_id, RC.c.name == name)
            ).first():
                raise Conflict(f"recommender {name!r} already exists")
            conn.execute(
                insert(RC).values(
                    project_id=self.project_id,
                    name=name,
                    kind=kind,
                    layer="relations" if kind == "relation" else "spans",
                    options=opts,
                    dictionary=self._pack_dictionary(entries),
                    version=0,
                    created=utcnow_aware(),
                )
            )
            self._audit(conn, "add_recommender", name, kind=kind, types=list(types) if types else None)
            return self._recommender(conn, name)

    def recommenders(self) -> list[RecommenderInfo]:
        """The project's recommenders (every member may list them)."""
        with self._read() as conn:
            return infos(conn, self.project_id)

    def recommender(self, name: str) -> RecommenderInfo:
        with self._read() as conn:
            return self._recommender(conn, name)

    def _recommender(self, conn: Connection, name: str) -> RecommenderInfo:
        row = conn.execute(
            select(*_INFO_COLS).where(RC.c.project_id == self.project_id, RC.c.name == name)
        ).first()
        if row is None:
            known = conn.execute(select(RC.c.name).where(RC.c.project_id == self.project_id)).scalars().all()
            raise NotFound(
                f"no recommender named {name!r} (recommenders: {', '.join(sorted(known)) or 'none'})"
            )
        return _info(row)

    def remove_recommender(self, name: str) -> int:
        """Remove a recommender, its models and its suggestions (lead); items accepted from it stay,
        with their provenance. Returns how many suggestions went."""
        self._require("lead", doing="remove recommenders")
        with self._write() as conn:
            info = self._recommender(conn, name)
            n = int(
                conn.execute(
                    select(func.count()).select_from(SG).where(SG.c.recommender_id == info.id)
                ).scalar_one()
            )
            rls.delete_rows(
                conn, SG, SG.c.recommender_id == info.id
            )  # team logins delete only through the server's rules
            rls.delete_rows(
                conn, RM, RM.c.recommender_id == info.id
            )  # team logins delete only through the server's rules
            rls.delete_rows(
                conn, RC, RC.c.id == info.id
            )  # team logins delete only through the server's rules
            self._audit(conn, "remove_recommender", name, suggestions=n)
        return n

    @staticmethod
    def _pack_dictionary(entries: Sequence[tuple[str, str]] | None) -> str | None:
        from corpusdb.recommend import models

        return models.pack([list(x) for x in entries]) if entries else None

    def dictionary_names(self, name: str) -> list[tuple[str, str]]:
        """The (name, type) pairs a string matcher read from its TSV dictionary (every member may
        read them: a dictionary is no one's annotation)."""
        from corpusdb.recommend import models

        rec = self.recommender(name)
        with self._read() as conn:
            blob = conn.execute(select(RC.c.dictionary).where(RC.c.id == rec.id)).scalar()
        return [(str(n), str(t)) for n, t in models.unpack(blob, "the dictionary")] if blob else []

    def _shared_payload(self, conn: Connection, rec_id: int) -> dict[str, Any] | None:
        from corpusdb.recommend import models

        blob = conn.execute(select(RC.c.model).where(RC.c.id == rec_id)).scalar()
        return models.unpack(blob, "the shared part of the recommender") if blob else None
