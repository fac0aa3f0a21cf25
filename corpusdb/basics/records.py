"""Plain frozen records that importers, services, agreement code and the TUI exchange.

Why: no ORM object ever crosses a layer. Importers turn files into these records without a
database; the store turns them into rows and back; agreement code and the TUI read them. Keeping
them plain (frozen dataclasses of str/int/tuples/mappings) makes every layer testable alone.

Conventions
-----------
* Offsets are Unicode code points into ``Document.text``, end exclusive.
* ``fragments`` is a tuple of ``(start, end)`` pairs: one for a contiguous span, several for a
  discontinuous one, none for a *name without a mention* (BioRelEx keeps those).
* Every item of an annotation set has a local ``id`` unique within its set (``T3``, ``R1``,
  ``E7`` from standoff; generated ``T<n>`` etc. otherwise). Relations, links and notes refer to
  other items by that local id, so a set is self-contained and a round trip keeps the ids.
* An *entity* is a cluster of mentions and names (:class:`Entity`): stored explicitly (a BioRelEx
  cluster; names without a mention are its member spans without fragments) or derived as the
  transitive closure of the schema's symmetric link types (synonym, abbreviation, coreference,
  brat Equiv). A relation argument may name an entity's id instead of a span's: the relation then
  holds between entities, whichever of their mentions or names come first.
* ``extra`` mappings hold format details that have no first-class field (which standoff file a
  line came from, line order, a BioRelEx cluster index...). They must be JSON-serialisable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

Fragment = tuple[int, int]
Fragments = tuple[Fragment, ...]
JSONMap = Mapping[str, Any]

Role = Literal["annotator", "adjudicator", "lead", "system"]
ROLES: tuple[str, ...] = ("annotator", "adjudicator", "lead", "system")
SetKind = Literal["annotation", "gold", "prediction"]
SET_KINDS: tuple[str, ...] = ("annotation", "gold", "prediction")
SetStatus = Literal["assigned", "in_progress", "submitted"]
SET_STATUSES: tuple[str, ...] = ("assigned", "in_progress", "submitted")
RelationKind = Literal["relation", "event"]
DecisionMethod = Literal["unanimous", "majority", "adjudicated", "corrected"]
DECISION_METHODS: tuple[str, ...] = ("unanimous", "majority", "adjudicated", "corrected")

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _frozen_map() -> Mapping[str, Any]:
    return _EMPTY


@dataclass(frozen=True, slots=True)
class Grounding:
    """A normalisation of a span to a database entry (brat ``N`` line, BioRelEx grounding)."""

    ref: str
    """``db:id`` such as ``uniprot:P60568`` or ``Wikipedia:64488``."""
    text: str | None = None
    """The entry's name as the source wrote it (the third field of an ``N`` line)."""
    source_id: str | None = None
    """``N1`` when read from standoff."""
    kind: str = "Reference"
    """The ``N`` line type (brat uses ``Reference``)."""
    extra: JSONMap = field(default_factory=_frozen_map)


def grounding_key(g: Grounding) -> str:
    """The grounding as one ``database:accession`` string, whatever line form it was read from.

    A brat ``N`` line names the database in its reference (``Reference T1 uniprot:P60568``: the key
    is the ref). A BioNLP-ST normalisation line names the referential in its type and gives a bare
    referent (``NCBI_Taxonomy Annotation:T10 Referent:210``, read with ``extra["st"]``): the key is
    ``NCBI_Taxonomy:210`` (``OntoBiotope:OBT:000965`` for an OntoBiotope referent). Agreement,
    evaluation and the knowledge-base checks compare these keys, so both forms mean the same.
    """
    return f"{g.kind}:{g.ref}" if g.extra.get("st") else g.ref


def split_key(key: str) -> tuple[str, str]:
    """``("OBT", "000965")`` for ``OBT:000965``; ``("", key)`` when it names no database."""
    db, sep, acc = key.partition(":")
    return (db, acc) if sep else ("", key)


@dataclass(frozen=True, slots=True)
class Concept:
    """One entry of a knowledge base (an ontology term, a taxon, a TSV row) as a reader yields it.

    ``id`` is the entry's id as its source writes it (``OBT:000965``, ``562``, ``P60568``); a
    grounding matches it by its whole key or by its accession (:func:`split_key`).
    """

    id: str
    label: str
    synonyms: tuple[tuple[str, str], ...] = ()
    """``(name, kind)``: OBO scopes (``EXACT``, ``RELATED``...), NCBI name classes, ``synonym`` (TSV)."""
    parents: tuple[str, ...] = ()
    """Direct ``is_a`` parents (NCBI: the parent taxon)."""
    obsolete: bool = False
    replaced_by: tuple[str, ...] = ()
    type: str | None = None
    """A TSV ``type`` column, an NCBI rank."""


@dataclass(frozen=True, slots=True)
class Span:
    """A typed mention: one or more fragments of the document text."""

    id: str
    type: str
    fragments: Fragments
    text: str
    """The text as the source gave it: fragments' slices joined by one space."""
    attributes: JSONMap = field(default_factory=_frozen_map)
    """``{"mutant": True, "Confidence": "Likely"}``; ``True`` for a binary attribute."""
    groundings: tuple[Grounding, ...] = ()
    extra: JSONMap = field(default_factory=_frozen_map)

    @property
    def start(self) -> int:
        """First offset covered (the start of the earliest fragment); -1 for a name only."""
        return min((s for s, _ in self.fragments), default=-1)

    @property
    def end(self) -> int:
        """Offset after the last character covered; -1 for a name only."""
        return max((e for _, e in self.fragments), default=-1)


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a relation or event: a role name and the local id it points to."""

    role: str
    ref: str


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation (binary, roles such as Arg1/Arg2) or an event (optional trigger, n-ary).

    ``label`` is 1 (asserted), 0 (speculative), -1 (negated) or None where the schema has none.
    Arguments may point at spans or, for events, at other relations/events.
    """

    id: str
    type: str
    args: tuple[Argument, ...]
    label: int | None = None
    tags: tuple[str, ...] = ()
    attributes: JSONMap = field(default_factory=_frozen_map)
    trigger: str | None = None
    kind: RelationKind = "relation"
    extra: JSONMap = field(default_factory=_frozen_map)


@dataclass(frozen=True, slots=True)
class Link:
    """A link between two spans: synonym, abbreviation, part_of, coreference...

    Symmetric types form clusters by transitive closure. An n-member brat ``*`` line is kept as
    a star of links from its first member, sharing ``group`` (so it can be written back whole).
    """

    id: str
    type: str
    source: str
    target: str
    group: str | None = None
    extra: JSONMap = field(default_factory=_frozen_map)


@dataclass(frozen=True, slots=True)
class Entity:
    """An entity: a cluster of spans (mentions, and names without a mention) of one set.

    Why a record of its own: a relation between two entities must not depend on which mention or
    name was listed first (BioRelEx interactions join clusters, not mentions). ``members`` are span
    ids; their order is the source's and carries no meaning. ``groundings`` and ``attributes`` are
    the cluster's (a BioRelEx cluster's grounding and ``is_mutant``/``is_state``).
    """

    id: str
    type: str
    members: tuple[str, ...]
    attributes: JSONMap = field(default_factory=_frozen_map)
    groundings: tuple[Grounding, ...] = ()
    extra: JSONMap = field(default_factory=_frozen_map)


@dataclass(frozen=True, slots=True)
class Note:
    """A free-text note on an item (brat ``#`` AnnotatorNotes); ``text`` is kept verbatim."""

    id: str
    type: str
    target: str
    text: str
    extra: JSONMap = field(default_factory=_frozen_map)


@dataclass(frozen=True, slots=True)
class DocLabel:
    """A document-level judgment, e.g. ``relevance = DR``."""

    name: str
    value: str
    extra: JSONMap = field(default_factory=_frozen_map)


@dataclass(frozen=True, slots=True)
class Annotations:
    """Everything in one annotation set. ``extra`` holds set-level format details."""

    spans: tuple[Span, ...] = ()
    relations: tuple[Relation, ...] = ()
    links: tuple[Link, ...] = ()
    notes: tuple[Note, ...] = ()
    labels: tuple[DocLabel, ...] = ()
    extra: JSONMap = field(default_factory=_frozen_map)
    entities: tuple[Entity, ...] = ()
    """Explicit entities (clusters); see :class:`Entity`. Last, so positional construction holds."""

    def span(self, local_id: str) -> Span:
        """The span with this local id (KeyError if absent)."""
        for s in self.spans:
            if s.id == local_id:
                return s
        raise KeyError(local_id)

    def count(self) -> int:
        """Number of items of every kind."""
        return (
            len(self.spans) + len(self.relations) + len(self.links) + len(self.notes) + len(self.labels)
            + len(self.entities)
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Document:
    """A document as it enters or leaves the store."""

    external_id: str
    text: str
    source: str = ""
    metadata: JSONMap = field(default_factory=_frozen_map)
    group_key: str | None = None
    split: str | None = None


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A stored document (without its annotations)."""

    id: int
    external_id: str
    text: str
    sha256: str
    source: str
    metadata: JSONMap
    group_key: str | None
    split: str | None


@dataclass(frozen=True, slots=True)
class AnnotatorInfo:
    id: int
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class ProjectInfo:
    id: int
    name: str
    schema_name: str
    guideline_version: int
    created: datetime


@dataclass(frozen=True, slots=True)
class GuidelineInfo:
    version: int
    schema_name: str
    schema: JSONMap
    text: str
    note: str
    created: datetime


@dataclass(frozen=True, slots=True)
class SetInfo:
    """One annotation set's header: whose, which document, where it stands."""

    id: int
    document_id: int
    document_external_id: str
    annotator: str | None
    """None for the gold set, which belongs to the adjudication, not a person."""
    kind: str
    status: str
    guideline_version: int
    version: int
    """Optimistic-locking counter: every write must name the version it read."""
    created: datetime
    updated: datetime
    seeded_from: int | None = None


@dataclass(frozen=True, slots=True)
class AnnotationSet:
    """A set header together with its content."""

    info: SetInfo
    annotations: Annotations


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """What an importer yields for one document: the text, its annotations and warnings."""

    document: Document
    annotations: Annotations
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DecisionInfo:
    """Provenance of one gold item."""

    id: int
    document_external_id: str
    item_kind: str
    item_id: str
    method: str
    decided_by: str | None
    sources: tuple[JSONMap, ...]
    reason: str | None
    created: datetime
    superseded_by: int | None = None
    """The decision that revised or undid this one; None while it is in force."""
    before: JSONMap | None = None
    """``edited``: the version it was edited from (None: a new item); ``undone``: the item removed."""
    after: JSONMap | None = None
    """``edited``: the gold version put (None: the item was removed)."""

    @property
    def in_force(self) -> bool:
        """Still what gold says (not revised, not itself an undo record)."""
        return self.superseded_by is None and self.method != "undone"


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One entry of the project's trail: who did what to which target, when (reopen, assign...)."""

    id: int
    actor: str
    action: str
    target: str
    detail: JSONMap
    created: datetime


def _positional_maker(cls: type[Any]) -> Any:
    """A constructor of ``cls`` taking every field positionally, twice as fast as ``cls(...)``.

    Why: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, which
    costs about 2 µs a span; readers make 10^5-10^6 records (an import, an agreement report), and
    setting the slots through their descriptors halves that. Built once, like dataclasses' own
    methods, from the fields as declared; there are no defaults and no ``__post_init__`` to honour
    (records have none: ``test_records`` checks that the result equals the dataclass's own).
    """
    names = [f.name for f in fields(cls)]
    body = "".join(f"    set_{n}(o, {n})\n" for n in names)
    src = f"def make({', '.join(names)}):\n    o = new(cls)\n{body}    return o\n"
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    scope.update({f"set_{n}": getattr(cls, n).__set__ for n in names})
    exec(src, scope)  # a fixed source over the class's own field names, as dataclasses does
    make = scope["make"]
    make.__doc__ = f"``{cls.__name__}({', '.join(names)})``, every field given, positionally."
    return make


make_span = _positional_maker(Span)
make_argument = _positional_maker(Argument)
make_relation = _positional_maker(Relation)
