"""``RecommendMixin``: recommenders and their suggestions, as part of ``corpusdb.api.Corpus``.

Who does what (the blindness rules, ``corpusdb.recommend.training``):

* a **lead** adds, removes and evaluates recommenders and trains their *shared* part, learned from
  gold of adjudicated documents and from dictionaries only, so every member may read it;
* an **annotator** trains her *own* part (``recommender_model``, hers alone), learned from the
  shared part's gold and her own sets; the database owner may train anyone's own part (it reads
  what that annotator reads, nothing more);
* ``suggestions(document)`` gives the acting annotator the suggestions on her own set, refreshed
  from the models she may use (shared, her own, and the names already in this set), and stores them
  so that accepting one is an edit naming it (``accept_suggestions``, ``reject_suggestions``: one
  action, one transaction, one undo step each, through ``edit_set``).

Models are loaded once per version and process (``corpusdb.recommend.models``): a document opens in
milliseconds once a matcher's automaton is built.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, func, insert, select, update

from corpusdb import access, content, tables
from corpusdb.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from corpusdb.service import ServiceBase, aware, utcnow_aware

if TYPE_CHECKING:  # the recommenders' modules load when one is used, not with corpusdb.api
    from corpusdb.recommend.matcher import Proposal
    from corpusdb.recommend.records import RecommenderInfo, Suggestion, TrainingResult
    from corpusdb.sets import EditResult

KINDS: tuple[str, ...] = ("string", "tagger", "external")
TRAINABLE: tuple[str, ...] = ("string", "tagger")

RC = tables.recommender
RM = tables.recommender_model
SG = tables.suggestion
S = tables.annotation_set
D = tables.document
A = tables.annotator

LAYERS = ("spans",)
"""Layers recommenders propose on. Relations: an external recommender's prediction sets carry them,
but they are not offered as suggestions yet (see the README's "Suggestions")."""

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


@dataclass(frozen=True, slots=True)
class _Own:
    """An annotator's own part of a recommender, as far as choosing a model needs (no blob)."""

    version: int
    base_version: int
    trained: Any


class RecommendMixin(ServiceBase):
    """Recommenders (leads), training, suggestions (annotators), evaluation."""

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
        from corpusdb.projects import check_annotator_name
        from corpusdb.recommend.matcher import MatcherOptions
        from corpusdb.recommend.sources import read_dictionary
        from corpusdb.recommend.tagger import TaggerOptions

        self._require("lead", doing="add recommenders")
        if kind not in KINDS:
            raise InvalidInput(f"recommender kind {kind!r} is not one of {', '.join(KINDS)}")
        try:
            check_annotator_name(name)
        except InvalidInput as exc:
            raise InvalidInput(str(exc).replace("annotator name", "recommender name")) from None
        schema_types = {e.name for e in self.schema().entities}  # type: ignore[attr-defined]
        if types is not None:
            unknown = sorted(set(types) - schema_types)
            if unknown:
                raise InvalidInput(
                    f"types {', '.join(unknown)} are not entity types of the schema "
                    f"({', '.join(sorted(schema_types))})"
                )
        opts: dict[str, Any] = dict(options or {})
        if kind == "string":
            MatcherOptions.from_dict(opts)
            unknown = sorted(set(opts) - set(MatcherOptions.__dataclass_fields__) - {"kb"})
        elif kind == "tagger":
            TaggerOptions.from_dict(opts)
            unknown = sorted(set(opts) - set(TaggerOptions.__dataclass_fields__))
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
                    layer="spans",
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
            conn.execute(delete(SG).where(SG.c.recommender_id == info.id))
            conn.execute(delete(RM).where(RM.c.recommender_id == info.id))
            conn.execute(delete(RC).where(RC.c.id == info.id))
            self._audit(conn, "remove_recommender", name, suggestions=n)
        return n

    # -- training ---------------------------------------------------------------------------------
    def train_recommender(
        self, name: str | None = None, *, annotator: str | None = None
    ) -> list[TrainingResult]:
        """Train one recommender (``name``) or every trainable one.

        A lead (or the owner) without ``annotator`` trains the shared part, from gold of adjudicated
        documents (and dictionaries); an external recommender instead offers its system's predictions
        as suggestions on every annotation set of a predicted document. An annotator trains her own
        part (``annotator`` may only be herself); the owner may name any annotator."""
        if annotator is None and self.actor.name is not None and not self.actor.is_lead:
            annotator = self.actor.name
        if annotator is not None and self.actor.name not in (None, annotator):
            raise PermissionDenied(
                f"{self.actor.label} may not train {annotator}'s own model: it learns from {annotator}'s sets, "
                "which only they (and the database owner) read"
            )
        if annotator is None:
            self._require("lead", doing="train recommenders' shared part")
        recs = [self.recommender(name)] if name is not None else self.recommenders()
        out: list[TrainingResult] = []
        for rec in recs:
            if annotator is None:
                if rec.kind == "external":
                    out.append(self._offer_external(rec))
                else:
                    out.append(self._train_shared(rec))
            elif rec.kind in TRAINABLE:
                out.append(self._train_own(rec, annotator))
        return out

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

    def _names_from_sources(self, rec: RecommenderInfo) -> list[tuple[str, str]]:
        from corpusdb.recommend.sources import external_names

        out = self.dictionary_names(rec.name)
        return out + external_names(self, dict(rec.options), rec.types)

    def _train_shared(self, rec: RecommenderInfo) -> TrainingResult:
        from corpusdb.recommend import models
        from corpusdb.recommend.matcher import count_names
        from corpusdb.recommend.records import TrainingResult
        from corpusdb.recommend.tagger import TaggerOptions
        from corpusdb.recommend.training import gold_examples

        t0 = time.perf_counter()
        types = set(rec.types) if rec.types is not None else None
        with self._read() as conn:
            examples = gold_examples(conn, self.project_id, types)
        payload: dict[str, Any]
        if rec.kind == "string":
            names = count_names((n, t) for ex in examples for n, t in ex.names())
            extra = self._names_from_sources(rec)
            count_names(extra, names)
            payload = {"names": names}
            detail = {"names": len(names), "dictionary_names": len(extra)}
        else:
            from corpusdb.recommend.tagger import train

            if not examples:
                raise InvalidInput(
                    f"{rec.name}: no adjudicated gold to train on yet (finish gold of some documents)"
                )
            model = train(((ex.text, ex.items) for ex in examples), TaggerOptions.from_dict(rec.options))
            payload = {
                "crf": models.encode_bytes(model),
                "gold": {ex.document: [[t, [list(f) for f in fr]] for t, fr in ex.items] for ex in examples},
            }
            detail = {"model_bytes": len(model)}
        seconds = time.perf_counter() - t0
        stats = {"gold_documents": len(examples), "seconds": round(seconds, 3), **detail}
        with self._write() as conn:
            version = int(conn.execute(select(RC.c.version).where(RC.c.id == rec.id)).scalar_one()) + 1
            conn.execute(
                update(RC)
                .where(RC.c.id == rec.id)
                .values(version=version, model=models.pack(payload), stats=stats, trained=utcnow_aware())
            )
            self._audit(
                conn,
                "train_recommender",
                rec.name,
                part="shared",
                version=version,
                gold_documents=len(examples),
            )
        return TrainingResult(rec.name, "shared", version, seconds, len(examples), detail)

    def _train_own(self, rec: RecommenderInfo, annotator: str) -> TrainingResult:
        from corpusdb.recommend import models
        from corpusdb.recommend.matcher import count_names
        from corpusdb.recommend.records import TrainingResult
        from corpusdb.recommend.tagger import TaggerOptions
        from corpusdb.recommend.training import Example, own_examples, texts

        t0 = time.perf_counter()
        types = set(rec.types) if rec.types is not None else None
        with self._read() as conn:
            aid = conn.execute(
                select(A.c.id).where(A.c.project_id == self.project_id, A.c.name == annotator)
            ).scalar()
            if aid is None:
                raise NotFound(f"no annotator named {annotator!r} in this project")
            own = own_examples(conn, self.project_id, int(aid), types, submitted_only=rec.kind == "tagger")
            shared = self._shared_payload(conn, rec.id) if rec.kind == "tagger" else None
            gold_texts = texts(conn, self.project_id, list((shared or {}).get("gold", {})))
        detail: dict[str, Any]
        if rec.kind == "string":
            names = count_names(n for ex in own for n in ex.names())
            payload: dict[str, Any] = {"names": names}
            detail = {"names": len(names)}
        else:
            from corpusdb.recommend.tagger import train

            if not own:
                return TrainingResult(
                    rec.name,
                    annotator,
                    0,
                    time.perf_counter() - t0,
                    0,
                    {"note": "no submitted set of her own yet: the shared model serves her"},
                )
            gold = [
                Example(d, gold_texts[d], tuple((t, tuple((a, b) for a, b in fr)) for t, fr in items))
                for d, items in (shared or {}).get("gold", {}).items()
                if d in gold_texts
            ]
            mine = {ex.document for ex in own}
            examples = [
                ex for ex in gold if ex.document not in mine
            ] + own  # her own version of a document wins
            model = train(((ex.text, ex.items) for ex in examples), TaggerOptions.from_dict(rec.options))
            payload = {"crf": models.encode_bytes(model)}
            detail = {"gold_documents": len(examples) - len(own), "model_bytes": len(model)}
        seconds = time.perf_counter() - t0
        stats = {"own_sets": len(own), "seconds": round(seconds, 3), **detail}
        with self._write() as conn:
            base = int(conn.execute(select(RC.c.version).where(RC.c.id == rec.id)).scalar_one())
            row = conn.execute(
                select(RM.c.id, RM.c.version).where(RM.c.recommender_id == rec.id, RM.c.annotator_id == aid)
            ).first()
            values = {
                "base_version": base,
                "model": models.pack(payload),
                "stats": stats,
                "trained": utcnow_aware(),
            }
            if row is None:
                version = 1
                conn.execute(
                    insert(RM).values(recommender_id=rec.id, annotator_id=aid, version=version, **values)
                )
            else:
                version = int(row.version) + 1
                conn.execute(update(RM).where(RM.c.id == row.id).values(version=version, **values))
        return TrainingResult(rec.name, annotator, version, seconds, len(own), detail)

    def _offer_external(self, rec: RecommenderInfo) -> TrainingResult:
        """A system's predictions as suggestions on every annotation set of a document it predicted."""
        from corpusdb.recommend.records import TrainingResult

        t0 = time.perf_counter()
        system = str(rec.system)
        with self._write() as conn:
            n, sets = offer_predictions(conn, self.project_id, self.actor, rec, system)
            self._audit(conn, "train_recommender", rec.name, part="external", system=system, suggestions=n)
        return TrainingResult(
            rec.name, "external", rec.version, time.perf_counter() - t0, sets, {"suggestions": n}
        )

    def _shared_payload(self, conn: Connection, rec_id: int) -> dict[str, Any] | None:
        from corpusdb.recommend import models

        blob = conn.execute(select(RC.c.model).where(RC.c.id == rec_id)).scalar()
        return models.unpack(blob, "the shared part of the recommender") if blob else None

    def train_in_background(
        self, name: str | None = None, *, url: str | None = None, project: str | None = None
    ) -> Any:
        """Start ``corpusdb recommend train`` as this user in a separate process and return it at once
        (``subprocess.Popen``): an annotator never waits for training (``corpusdb.recommend.background``)."""
        from corpusdb.recommend.background import spawn_training

        return spawn_training(
            url or self.engine.url.render_as_string(hide_password=False), project, self.actor.name, name
        )

    # -- suggestions ------------------------------------------------------------------------------
    def suggestions(self, document: str | int, *, refresh: bool = True) -> list[Suggestion]:
        """The suggestions on my own set of ``document`` (every status), refreshed first from every
        span recommender I may use, unless the set is submitted or ``refresh`` is False."""
        from corpusdb.recommend import store as sstore

        if self.actor.name is None:
            raise InvalidInput("the database owner has no sets of their own: act as an annotator (--as NAME)")
        with self._read() as conn:
            info = self._my_annotation_set(conn, document)
            if not refresh or info.status == "submitted":
                return sstore.read(conn, [info.id])
            recs = conn.execute(
                select(RC.c.id, RC.c.name, RC.c.kind, RC.c.options, RC.c.version, RC.c.trained)
                .where(RC.c.project_id == self.project_id, RC.c.kind.in_(TRAINABLE))
                .order_by(RC.c.name)
            ).all()
            own = {
                int(r.recommender_id): _Own(int(r.version), int(r.base_version), r.trained)
                for r in conn.execute(
                    select(RM.c.recommender_id, RM.c.version, RM.c.base_version, RM.c.trained).where(
                        RM.c.annotator_id == self.actor.id
                    )
                )
            }
            ann = content.load_many(conn, [info.id])[info.id]
            text = str(conn.execute(select(D.c.text).where(D.c.id == info.document_id)).scalar_one())
            stored = sstore.read(conn, [info.id])
        proposals: dict[int, tuple[str, list[Proposal]]] = {}
        have = {(sp.type, tuple(sp.fragments)) for sp in ann.spans}
        for r in recs:
            found = self._proposals_of(r, own.get(int(r.id)), text, ann)
            if found is not None:  # what the set already has as an item is not proposed
                proposals[int(r.id)] = (found[0], [p for p in found[1] if (p.type, p.fragments) not in have])
        if not self._would_change(stored, recs, proposals):
            return stored
        with self._write() as conn:
            self._my_annotation_set(conn, document)  # still mine (not deleted meanwhile)
            for rid, (version, props) in proposals.items():
                sstore.refresh(conn, info.id, rid, version, props)
            return sstore.read(conn, [info.id])

    def warm_recommenders(self) -> int:
        """Load the models my suggestions use into this process, so that the first document I open
        does not wait for them (a string matcher's automaton over 10^5 names takes a second or more to
        build). Returns how many recommenders have a model for me. The TUI calls it in a worker."""
        from corpusdb.records import Annotations

        if self.actor.name is None:
            return 0
        with self._read() as conn:
            recs = conn.execute(
                select(RC.c.id, RC.c.name, RC.c.kind, RC.c.options, RC.c.version, RC.c.trained).where(
                    RC.c.project_id == self.project_id, RC.c.kind.in_(TRAINABLE)
                )
            ).all()
            own = {
                int(r.recommender_id): _Own(int(r.version), int(r.base_version), r.trained)
                for r in conn.execute(
                    select(RM.c.recommender_id, RM.c.version, RM.c.base_version, RM.c.trained).where(
                        RM.c.annotator_id == self.actor.id
                    )
                )
            }
        return sum(self._proposals_of(r, own.get(int(r.id)), "", Annotations()) is not None for r in recs)

    def _would_change(
        self,
        stored: Sequence[Suggestion],
        recs: Sequence[Any],
        proposals: Mapping[int, tuple[str, list[Proposal]]],
    ) -> bool:
        """Whether ``refresh`` would write anything (a document opened again writes nothing)."""
        from corpusdb.recommend.store import span_key

        names = {int(r.id): str(r.name) for r in recs}
        for rid, (version, props) in proposals.items():
            mine = {span_key(s.type, s.fragments): s for s in stored if s.recommender == names[rid]}
            want = {span_key(p.type, p.fragments): p for p in props}
            for k, s in mine.items():
                if s.status == "open" and (k not in want or s.version != version or s.score != want[k].score):
                    return True
            if any(k not in mine for k in want):
                return True
        return False

    def _my_annotation_set(self, conn: Connection, document: str | int) -> Any:
        from corpusdb.sets import document_id

        doc = document_id(conn, self.project_id, document)
        found = access.visible_sets(
            conn,
            self.project_id,
            self.actor,
            document_ids=[doc],
            kind="annotation",
            annotator=self.actor.name,
        )
        if not found:
            raise NotFound(f"{self.actor.label} has no annotation set on document {document!r}")
        return found[0]

    def _proposals_of(
        self, r: Any, own: _Own | None, text: str, ann: Any
    ) -> tuple[str, list[Proposal]] | None:
        """(version label, proposals) of one recommender on one document, or None when it has no
        model for me yet."""
        from corpusdb.recommend import models
        from corpusdb.recommend.matcher import MatcherOptions, StringMatcher, count_names, propose
        from corpusdb.recommend.tagger import TaggerOptions

        opts = dict(r.options or {})
        types = frozenset(opts["types"]) if opts.get("types") is not None else None
        url = self.engine.url.render_as_string(hide_password=True)
        if r.kind == "string":
            mopts = MatcherOptions.from_dict(opts)
            matchers = []
            if r.version:
                key = ("string", url, int(r.id), int(r.version), str(r.trained))
                matchers.append(
                    models.cached(
                        key, lambda: StringMatcher(self._load_payload(int(r.id))["names"], mopts, types)
                    )
                )
            if own is not None:
                key = ("string-own", url, int(r.id), self.actor.id, own.version, str(own.trained))
                matchers.append(
                    models.cached(
                        key, lambda: StringMatcher(self._load_own(int(r.id))["names"], mopts, types)
                    )
                )
            here = count_names((sp.text, sp.type) for sp in ann.spans if len(sp.fragments) == 1)
            if here:  # the names of this very set: every other occurrence in the document at once
                matchers.append(StringMatcher(here, mopts, types))
            version = f"{r.version}" + (f".{own.version}" if own is not None else "")
            return version, propose(text, matchers) if matchers else []
        from corpusdb.recommend.tagger import Tagger

        topts = TaggerOptions.from_dict(opts)
        if own is not None and own.version:
            key = ("tagger-own", url, int(r.id), self.actor.id, own.version, str(own.trained))
            tagger = models.cached(
                key,
                lambda: Tagger(models.decode_bytes(self._load_own(int(r.id))["crf"]), types, topts.min_score),
            )
            version = f"{own.base_version}.{own.version}"
        elif r.version:
            key = ("tagger", url, int(r.id), int(r.version), str(r.trained))
            tagger = models.cached(
                key,
                lambda: Tagger(
                    models.decode_bytes(self._load_payload(int(r.id))["crf"]), types, topts.min_score
                ),
            )
            version = f"{r.version}"
        else:
            return None
        return version, tagger.propose(text)

    def _load_payload(self, rec_id: int) -> dict[str, Any]:
        with self._read() as conn:
            payload = self._shared_payload(conn, rec_id)
        if payload is None:
            raise NotFound("the recommender has no trained model")
        return payload

    def _load_own(self, rec_id: int) -> dict[str, Any]:
        from corpusdb.recommend import models

        with self._read() as conn:
            blob = conn.execute(
                select(RM.c.model).where(RM.c.recommender_id == rec_id, RM.c.annotator_id == self.actor.id)
            ).scalar()
        if not blob:
            raise NotFound("no model of your own for this recommender")
        return models.unpack(blob, "your own part of the recommender")

    def set_suggestions(self, set_id: int, *, status: str | None = None) -> list[Suggestion]:
        """The suggestions of a set this user may read (its annotator; adjudicators and leads once
        the document is complete), without refreshing them."""
        from corpusdb.recommend import store as sstore

        with self._read() as conn:
            access.readable_set(conn, self.project_id, self.actor, set_id)
            return sstore.read(conn, [set_id], status=status)

    def suggestion_counts(self, set_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """Per readable set: how many suggestions are open, accepted, rejected (what a document list
        shows beside each document)."""
        from corpusdb.recommend import store as sstore

        with self._read() as conn:
            ok = [i.id for i in access.visible_sets(conn, self.project_id, self.actor, set_ids=list(set_ids))]
            return sstore.counts(conn, ok)

    def queue_positions(self, set_ids: Sequence[int]) -> dict[int, tuple[str, int, float]]:
        """Per readable set handed out by ``assign --order``: (order, rank, score)."""
        q_ = tables.queue_position
        with self._read() as conn:
            ok = [i.id for i in access.visible_sets(conn, self.project_id, self.actor, set_ids=list(set_ids))]
            out: dict[int, tuple[str, int, float]] = {}
            for k in range(0, len(ok), 500):
                rows = conn.execute(
                    select(q_.c.set_id, q_.c.ordering, q_.c.rank, q_.c.score).where(
                        q_.c.set_id.in_(ok[k : k + 500])
                    )
                )
                out.update({int(r[0]): (str(r[1]), int(r[2]), float(r[3])) for r in rows})
        return out

    def accept_suggestions(
        self, set_id: int, ids: Sequence[int], *, expected_version: int, same_name: bool = False
    ) -> EditResult:
        """Accept suggestions of my set as my items (one action, one undo step); ``same_name``: every
        open suggestion of the first one's name and type in the document."""
        from corpusdb.recommend import actions

        ann, text, chosen, everything = self._picked_suggestions(set_id, ids)
        if same_name:
            chosen = actions.same_name(everything, chosen[0])
        changes, description = actions.accept(ann, text, chosen, everything)
        return self.edit_set(
            set_id,
            changes,
            expected_version=expected_version,
            history="do",  # type: ignore[attr-defined]
            description=description,
        )

    def reject_suggestions(self, set_id: int, ids: Sequence[int], *, expected_version: int) -> EditResult:
        """Reject suggestions of my set: never proposed to me again (one action, one undo step)."""
        from corpusdb.recommend import actions

        _ann, _text, chosen, _all = self._picked_suggestions(set_id, ids)
        changes, description = actions.reject(chosen)
        return self.edit_set(
            set_id,
            changes,
            expected_version=expected_version,
            history="do",  # type: ignore[attr-defined]
            description=description,
        )

    def _picked_suggestions(
        self, set_id: int, ids: Sequence[int]
    ) -> tuple[Any, str, list[Suggestion], list[Suggestion]]:
        from corpusdb.recommend import store as sstore

        if not ids:
            raise InvalidInput("name at least one suggestion")
        with self._read() as conn:
            info = access.readable_set(conn, self.project_id, self.actor, set_id)
            if info.annotator != self.actor.name:
                raise PermissionDenied(
                    f"set {set_id} is not yours: only its annotator accepts or rejects its suggestions"
                )
            ann = content.load_many(conn, [set_id])[set_id]
            text = str(conn.execute(select(D.c.text).where(D.c.id == info.document_id)).scalar_one())
            everything = sstore.read(conn, [set_id])
        by_id = {s.id: s for s in everything}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise NotFound(f"set {set_id} has no suggestion {missing[0]}")
        return ann, text, [by_id[i] for i in ids], everything

    # -- measuring --------------------------------------------------------------------------------
    def evaluate_recommender(
        self,
        name: str,
        *,
        split: str | None = None,
        holdout: float = 0.2,
        seed: int = 0,
        criterion: str = "exact",
    ) -> dict[str, Any]:
        """P/R/F per type of a recommender trained afresh on gold of the other adjudicated documents
        and scored on held-out ones (``split``: that split's documents; else a seeded ``holdout``
        fraction), with the project's NER scorer (``corpusdb.evaluation.ner``); plus acceptance rates
        per annotator from the suggestions this user may read. Lead or adjudicator."""
        from corpusdb.recommend.evaluation import evaluate

        self._require("lead", "adjudicator", doing="evaluate recommenders")
        rec = self.recommender(name)
        report = evaluate(self, rec, split=split, holdout=holdout, seed=seed, criterion=criterion)
        report["acceptance"] = [r for r in self.acceptance() if r["recommender"] == name]
        return report

    def acceptance(self) -> list[dict[str, Any]]:
        """Per recommender and annotator: suggestions accepted, rejected and still open, and the
        acceptance rate (accepted / decided), over the sets this user may read (blindness: a lead
        counts complete documents only, an annotator her own)."""
        with self._read() as conn:
            ids = access.visible_set_ids(self.project_id, self.actor, kind="annotation")
            q = (
                select(RC.c.name, A.c.name, SG.c.status, func.count())
                .join(RC, RC.c.id == SG.c.recommender_id)
                .join(S, S.c.id == SG.c.set_id)
                .join(A, A.c.id == S.c.annotator_id)
                .where(SG.c.set_id.in_(ids))
                .group_by(RC.c.name, A.c.name, SG.c.status)
            )
            rows = conn.execute(q).all()
        table: dict[tuple[str, str], dict[str, int]] = {}
        for rec, who, status, n in rows:
            table.setdefault((rec, who), {"open": 0, "accepted": 0, "rejected": 0})[status] = int(n)
        out = []
        for (rec, who), c in sorted(table.items()):
            decided = c["accepted"] + c["rejected"]
            out.append(
                {
                    "recommender": rec,
                    "annotator": who,
                    **c,
                    "rate": round(c["accepted"] / decided, 4) if decided else None,
                }
            )
        return out


def offer_predictions(
    conn: Connection,
    project_id: int,
    actor: Any,
    rec: RecommenderInfo,
    system: str,
    set_ids: Collection[int] | None = None,
) -> tuple[int, int]:
    """Suggestions from ``system``'s prediction sets on the annotation sets of the same documents that
    are not submitted (``set_ids``: only these). Returns (suggestions added, sets given some)."""
    from corpusdb.recommend import store as sstore
    from corpusdb.recommend.matcher import Proposal

    preds = access.visible_sets(conn, project_id, actor, kind="prediction", annotator=system)
    if not preds:
        return 0, 0
    by_doc = {p.document_id: p for p in preds}
    targets = [
        h
        for h in access.set_headers(conn, project_id, actor, kind="annotation", document_ids=list(by_doc))
        if h.status != "submitted" and (set_ids is None or h.id in set_ids)
    ]
    if not targets:
        return 0, 0
    body = content.load_many(conn, [by_doc[t.document_id].id for t in targets])
    types = set(rec.types) if rec.types is not None else None
    added = given = 0
    for t in targets:
        pred = by_doc[t.document_id]
        props = [
            Proposal(
                sp.type,
                tuple((int(a), int(b)) for a, b in sp.fragments),
                sp.text,
                float(sp.attributes.get("score", 1.0))
                if isinstance(sp.attributes.get("score"), int | float)
                else 1.0,
            )
            for sp in body[pred.id].spans
            if sp.fragments and (types is None or sp.type in types)
        ]
        n = sstore.add(conn, t.id, rec.id, str(pred.version), props)
        n += sstore.add_relations(conn, t.id, rec.id, str(pred.version), _relations(body[pred.id], types))
        added += n
        given += bool(n)
    return added, given


def _relations(ann: Any, types: Collection[str] | None) -> list[dict[str, Any]]:
    """A prediction set's relations whose arguments are all spans with a text mention (of the
    recommender's types), as proposals naming their arguments by place and type."""
    spans = {sp.id: sp for sp in ann.spans if sp.fragments}
    out = []
    for r in ann.relations:
        args = [spans.get(a.ref) for a in r.args]
        if not args or any(sp is None or (types is not None and sp.type not in types) for sp in args):
            continue
        out.append({
            "type": r.type, "label": r.label, "tags": list(r.tags), "kind": r.kind,
            "args": [{"role": a.role, "type": sp.type, "fragments": [list(f) for f in sp.fragments], "text": sp.text}
                     for a, sp in zip(r.args, args, strict=True)],  # type: ignore[union-attr]
        })  # fmt: skip
    return out
