"""Annotation schemas: what may be annotated in a project, read from TOML files.

Why TOML: it is in the standard library (``tomllib``), comments are allowed, and a lead can edit it
by hand. The format is documented in ``guidelines/README.md``; ``load_schema`` checks every rule
there and names the file and the offending entry when one is broken.

A schema is stored inside the project as a guideline version (as the dict from ``Schema.to_dict``),
so a project keeps working, and keeps its history, when the shipped files change.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from corpusdb.basics.errors import NotFound, SchemaError

SCHEMA_FORMAT = 1
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+\-]*$")
# A palette for types that name no colour: distinct on dark and light terminals.
PALETTE = (
    "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
    "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3",
    "#808000", "#ffd8b1", "#000075", "#808080",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class EntityType:
    name: str
    color: str
    parent: str | None = None
    description: str = ""
    key: str | None = None


@dataclass(frozen=True, slots=True)
class AttributeDef:
    """A span or relation attribute: binary when ``values`` is empty, else one of ``values``."""

    name: str
    applies_to: tuple[str, ...] = ("entity",)
    values: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    """Entity/relation types it may be set on; empty means any of ``applies_to``."""
    description: str = ""


@dataclass(frozen=True, slots=True)
class LinkType:
    name: str
    symmetric: bool = True
    transitive: bool = True
    types: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    """Other names for this type in source files (brat ``Equiv`` for coreference)."""
    description: str = ""


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    types: tuple[str, ...] = ()
    optional: bool = False
    repeatable: bool = False


@dataclass(frozen=True, slots=True)
class LabelValue:
    value: int | str
    name: str
    key: str | None = None
    description: str = ""


@dataclass(frozen=True, slots=True)
class LabelSet:
    name: str
    values: tuple[LabelValue, ...]

    def names(self) -> dict[int | str, str]:
        return {v.value: v.name for v in self.values}


@dataclass(frozen=True, slots=True)
class RelationType:
    name: str
    roles: tuple[Role, ...]
    directed: bool = True
    kind: str = "relation"
    labels: str | None = None
    tags: tuple[str, ...] = ()
    trigger_types: tuple[str, ...] = ()
    description: str = ""

    def role(self, name: str) -> Role | None:
        base = name.rstrip("0123456789")  # numbered roles: Theme2 is a second Theme
        for r in self.roles:
            if r.name == name or (r.repeatable and r.name == base):
                return r
        return None


@dataclass(frozen=True, slots=True)
class DocLabelDef:
    name: str
    values: tuple[LabelValue, ...]
    required: bool = False
    description: str = ""


@dataclass(frozen=True, slots=True)
class Rules:
    """Validation rules checked at submit time."""

    allow_overlap: bool = True
    allow_discontinuous: bool = True
    max_fragments: int = 0
    """0 means no limit."""
    groundings: bool = False
    grounding_databases: tuple[str, ...] = ()
    require_grounding: tuple[str, ...] = ()
    """Entity types whose spans must carry a grounding before submission."""
    relations_join_entities: bool = False
    """Relation arguments are entities (clusters), not mentions (BioRelEx interactions): the TUI
    gives a member span's entity as the argument, as the importer does and strict agreement expects."""
    token_boundaries: bool = False
    """Spans start and end on token boundaries (see ``guidelines.validate.token_boundary``)."""
    boundary_symbols: str = ""
    """Characters that end a token besides whitespace (empty: ``guidelines.validate.BOUNDARY_SYMBOLS``)."""
    trim_whitespace: bool = False
    """No span fragment starts or ends with whitespace."""


@dataclass(frozen=True, slots=True)
class DeriveRule:
    """A relation implied by two others sharing an argument (``guidelines.derive``): when ``first``
    and ``second`` relations exist with ``first.join[0] == second.join[1]``, the ``relation`` with
    roles taken as ``roles`` says (``{"Agent": "first.Agent", "Target": "second.Target"}``) is implied.

    Or, with ``link`` (and no ``second``): a ``first`` relation one of whose arguments is the part
    (source) of a ``link`` link implies the same relation with the whole (its target) in that
    argument's place, tagged ``tag`` (BioRelEx's ``part_of`` and ``implicit``)."""

    name: str
    relation: str
    first: str
    second: str
    join: tuple[str, str]
    roles: tuple[tuple[str, str], ...]
    source: str = ""
    """Where the rule comes from (a paper, a guideline section)."""
    link: str = ""
    """A link type (``part_of``): the rule lifts ``first`` from a part to its whole."""
    tag: str = ""
    """A tag of ``relation`` the derived items carry (``implicit``)."""


@dataclass(frozen=True, slots=True)
class KnowledgeBaseRef:
    """Groundings of a database (``OBT``, ``NCBITaxon``, BioNLP-ST's ``OntoBiotope``) are ids of a
    knowledge base loaded with ``corpusdb kb add``: looked up as annotators type, labelled, checked."""

    database: str
    kb: str
    aliases: tuple[str, ...] = ()
    """Other names of the database in groundings (``OBT`` for ``OntoBiotope``)."""
    types: tuple[str, ...] = ()
    """Entity types grounded to it (empty: any); the TUI offers this knowledge base for them."""
    branches: tuple[tuple[str, str], ...] = ()
    """``(entity type, concept id)``: that type's groundings must be the concept or under it (is_a)."""
    unknown: str = "error"
    """Severity of an id the knowledge base does not have: ``error`` or ``warning``."""
    obsolete: str = "warning"
    """Severity of an obsolete id (the replacement is named)."""
    line_kind: str | None = None
    """Set: new groundings are written as BioNLP-ST lines ``KIND Annotation:T1 Referent:ID``."""

    def names(self) -> tuple[str, ...]:
        return (self.database, *self.aliases)

    def branch_of(self, entity_type: str) -> str | None:
        return next((root for t, root in self.branches if t == entity_type), None)


@dataclass(frozen=True, slots=True)
class Schema:
    name: str
    title: str
    description: str
    entities: tuple[EntityType, ...]
    links: tuple[LinkType, ...] = ()
    relations: tuple[RelationType, ...] = ()
    attributes: tuple[AttributeDef, ...] = ()
    label_sets: tuple[LabelSet, ...] = ()
    document_labels: tuple[DocLabelDef, ...] = ()
    rules: Rules = field(default_factory=Rules)
    guideline: str | None = None
    """File name of the shipped guideline text (``guidelines/texts/``)."""
    knowledge_bases: tuple[KnowledgeBaseRef, ...] = ()
    derive: tuple[DeriveRule, ...] = ()
    """Rules deriving relations from others (``guidelines.derive``)."""

    # -- lookups -------------------------------------------------------------------------------
    def entity(self, name: str) -> EntityType | None:
        return next((e for e in self.entities if e.name == name), None)

    def relation(self, name: str) -> RelationType | None:
        return next((r for r in self.relations if r.name == name), None)

    def link(self, name: str) -> LinkType | None:
        return next((lt for lt in self.links if lt.name == name or name in lt.aliases), None)

    def attribute(self, name: str) -> AttributeDef | None:
        return next((a for a in self.attributes if a.name == name), None)

    def label_set(self, name: str) -> LabelSet | None:
        return next((ls for ls in self.label_sets if ls.name == name), None)

    def document_label(self, name: str) -> DocLabelDef | None:
        return next((d for d in self.document_labels if d.name == name), None)

    def knowledge_base(self, database: str) -> KnowledgeBaseRef | None:
        """The knowledge base a grounding database maps to (names compared without case)."""
        d = database.casefold()
        return next((k for k in self.knowledge_bases if d in {n.casefold() for n in k.names()}), None)

    def knowledge_base_for_type(self, entity_type: str) -> KnowledgeBaseRef | None:
        """The knowledge base offered for an entity type (its own, else one for any type)."""
        for k in self.knowledge_bases:
            if any(self.is_a(entity_type, t) for t in k.types):
                return k
        return next((k for k in self.knowledge_bases if not k.types), None)

    def colors(self) -> dict[str, str]:
        return {e.name: e.color for e in self.entities}

    def ancestors(self, name: str) -> list[str]:
        """``protein-domain`` → ``["protein"]``: the parent chain, nearest first."""
        out: list[str] = []
        cur = self.entity(name)
        while cur is not None and cur.parent:
            out.append(cur.parent)
            cur = self.entity(cur.parent)
        return out

    def is_a(self, name: str, other: str) -> bool:
        return name == other or other in self.ancestors(name)

    def symmetric_link_types(self) -> set[str]:
        out: set[str] = set()
        for lt in self.links:
            if lt.symmetric:
                out.add(lt.name)
                out.update(lt.aliases)
        return out

    # -- serialisation ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict that ``schema_from_dict`` turns back into an equal Schema."""
        d = asdict(self)
        d["format"] = SCHEMA_FORMAT
        return d


def _tuple(v: Any) -> tuple[Any, ...]:
    if v is None:
        return ()
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,)


def schema_from_dict(d: Mapping[str, Any]) -> Schema:
    """Rebuild a Schema stored by ``Schema.to_dict`` (in a guideline version)."""
    return Schema(
        name=d["name"],
        title=d["title"],
        description=d.get("description", ""),
        entities=tuple(EntityType(**e) for e in d.get("entities", ())),
        links=tuple(
            LinkType(**{**lt, "types": _tuple(lt.get("types")), "aliases": _tuple(lt.get("aliases"))})
            for lt in d.get("links", ())
        ),
        relations=tuple(
            RelationType(
                **{
                    **r,
                    "roles": tuple(Role(**{**ro, "types": _tuple(ro.get("types"))}) for ro in r["roles"]),
                    "tags": _tuple(r.get("tags")),
                    "trigger_types": _tuple(r.get("trigger_types")),
                }
            )
            for r in d.get("relations", ())
        ),
        attributes=tuple(
            AttributeDef(
                **{
                    **a,
                    "applies_to": _tuple(a.get("applies_to")),
                    "values": _tuple(a.get("values")),
                    "types": _tuple(a.get("types")),
                }
            )
            for a in d.get("attributes", ())
        ),
        label_sets=tuple(
            LabelSet(name=ls["name"], values=tuple(LabelValue(**v) for v in ls["values"]))
            for ls in d.get("label_sets", ())
        ),
        document_labels=tuple(
            DocLabelDef(**{**dl, "values": tuple(LabelValue(**v) for v in dl["values"])})
            for dl in d.get("document_labels", ())
        ),
        rules=Rules(
            **{
                k: (_tuple(v) if k in ("grounding_databases", "require_grounding") else v)
                for k, v in d.get("rules", {}).items()
            }
        ),
        guideline=d.get("guideline"),
        knowledge_bases=tuple(
            KnowledgeBaseRef(
                **{
                    **k,
                    "aliases": _tuple(k.get("aliases")),
                    "types": _tuple(k.get("types")),
                    "branches": tuple(tuple(b) for b in k.get("branches") or ()),
                }
            )
            for k in d.get("knowledge_bases", ())
        ),
        derive=tuple(
            DeriveRule(**{**x, "join": tuple(x["join"]), "roles": tuple(tuple(p) for p in x["roles"])})
            for x in d.get("derive", ())
        ),
    )


class _Reader:
    """Reads one TOML table with precise errors: every message names the file and the entry."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> SchemaError:
        return SchemaError(f"{self.source}: {where}: {message}")

    def get(self, table: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
            default: Any = ..., ) -> Any:  # fmt: skip
        if key not in table:
            if default is ...:
                raise self.fail(where, f"missing required key '{key}'")
            return default
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(where, f"'{key}' must be {names}, not {type(value).__name__} {value!r}")
        return value

    def strings(self, table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(where, f"'{key}' must be a list of strings, not {value!r}")
        return tuple(value)

    def known(self, table: Mapping[str, Any], allowed: set[str], where: str) -> None:
        extra = sorted(set(table) - allowed)
        if extra:
            raise self.fail(
                where, f"unknown key(s) {', '.join(extra)} (allowed: {', '.join(sorted(allowed))})"
            )

    def name(self, table: Mapping[str, Any], where: str) -> str:
        name = self.get(table, "name", str, where)
        if not _NAME.match(name):
            raise self.fail(where, f"name {name!r} may hold only letters, digits and _ . + -")
        return name

    def named_tables(
        self, tables: Any, kind: str, allowed: set[str]
    ) -> Iterator[tuple[int, Mapping[str, Any], str, str]]:
        """Each ``[[kind]]`` table with its index, its keys checked against ``allowed`` and its name
        read (errors say ``[[kind]] #n``), then the place later errors name: ``[[kind]] 'name'``."""
        for i, table in enumerate(tables):
            where = f"[[{kind}]] #{i + 1}"
            self.known(table, allowed, where)
            name = self.name(table, where)
            yield i, table, name, f"[[{kind}]] '{name}'"


def _label_values(r: _Reader, raw: Any, where: str) -> tuple[LabelValue, ...]:
    if not isinstance(raw, list) or not raw:
        raise r.fail(where, "'values' must be a non-empty list of {value, name} tables")
    out: list[LabelValue] = []
    for i, v in enumerate(raw):
        w = f"{where} value #{i + 1}"
        if not isinstance(v, dict):
            raise r.fail(w, 'must be a table such as {value = 1, name = "asserted"}')
        r.known(v, {"value", "name", "key", "description"}, w)
        value = r.get(v, "value", (int, str), w)
        out.append(
            LabelValue(
                value=value,
                name=r.get(v, "name", str, w, str(value)),
                key=r.get(v, "key", str, w, None),
                description=r.get(v, "description", str, w, ""),
            )
        )
    values = [v.value for v in out]
    if len(set(values)) != len(values):
        raise r.fail(where, f"duplicate label values in {values}")
    return tuple(out)


def parse_schema(data: Mapping[str, Any], source: str = "<schema>") -> Schema:
    """Check and build a Schema from parsed TOML; ``source`` names the file in every error."""
    r = _Reader(source)
    r.known(
        data,
        {
            "schema",
            "entity",
            "link",
            "relation",
            "attribute",
            "label_set",
            "document_label",
            "rules",
            "knowledge_base",
            "derive",
        },
        "top level",
    )
    head = data.get("schema")
    if not isinstance(head, dict):
        raise r.fail("top level", "missing the [schema] table with name and title")
    r.known(head, {"name", "title", "description", "format", "guideline"}, "[schema]")
    fmt = r.get(head, "format", int, "[schema]", SCHEMA_FORMAT)
    if fmt != SCHEMA_FORMAT:
        raise r.fail(
            "[schema]", f"format {fmt} is not supported (this corpusdb reads format {SCHEMA_FORMAT})"
        )
    name = r.name(head, "[schema]")

    entities: list[EntityType] = []
    raw_entities = data.get("entity", [])
    if not isinstance(raw_entities, list) or not raw_entities:
        raise r.fail("[[entity]]", "a schema needs at least one [[entity]] type")
    for i, e, ename, where in r.named_tables(
        raw_entities, "entity", {"name", "color", "parent", "description", "key"}
    ):
        color = r.get(e, "color", str, where, PALETTE[i % len(PALETTE)])
        if not _COLOR.match(color):
            raise r.fail(where, f"color {color!r} must be #rrggbb")
        entities.append(
            EntityType(
                name=ename,
                color=color.lower(),
                parent=r.get(e, "parent", str, where, None),
                description=r.get(e, "description", str, where, ""),
                key=r.get(e, "key", str, where, None),
            )
        )
    enames = [e.name for e in entities]
    _unique(r, enames, "[[entity]]")
    known_types = set(enames)
    for e in entities:
        if e.parent is not None and e.parent not in known_types:
            raise r.fail(f"[[entity]] '{e.name}'", f"parent {e.parent!r} is not an entity type")
    _no_cycles(r, entities)

    def check_types(types: tuple[str, ...], where: str, extra: set[str] | None = None) -> None:
        for t in types:
            if t not in known_types and not (extra and t in extra):
                raise r.fail(where, f"unknown entity type {t!r}")

    label_sets: list[LabelSet] = []
    for _, ls, lname, where in r.named_tables(data.get("label_set", []), "label_set", {"name", "values"}):
        label_sets.append(LabelSet(lname, _label_values(r, ls.get("values"), where)))
    _unique(r, [ls.name for ls in label_sets], "[[label_set]]")

    links: list[LinkType] = []
    link_keys = {"name", "symmetric", "transitive", "types", "aliases", "description"}
    for _, lt, lname, where in r.named_tables(data.get("link", []), "link", link_keys):
        types = r.strings(lt, "types", where)
        check_types(types, where)
        symmetric = r.get(lt, "symmetric", bool, where, True)
        links.append(
            LinkType(
                name=lname,
                symmetric=symmetric,
                transitive=r.get(lt, "transitive", bool, where, symmetric),
                types=types,
                aliases=r.strings(lt, "aliases", where),
                description=r.get(lt, "description", str, where, ""),
            )
        )
    _unique(r, [lt.name for lt in links] + [a for lt in links for a in lt.aliases], "[[link]]")

    relations: list[RelationType] = []
    event_names = {
        rel.get("name")
        for rel in data.get("relation", [])
        if isinstance(rel, dict) and rel.get("kind") == "event"
    }
    relation_keys = {"name", "roles", "directed", "kind", "labels", "tags", "trigger_types", "description"}
    for _, rel, rname, where in r.named_tables(data.get("relation", []), "relation", relation_keys):
        kind = r.get(rel, "kind", str, where, "relation")
        if kind not in ("relation", "event"):
            raise r.fail(where, f"kind must be 'relation' or 'event', not {kind!r}")
        raw_roles = rel.get("roles")
        if not isinstance(raw_roles, list) or (kind == "relation" and len(raw_roles) < 2):
            raise r.fail(where, "'roles' must list the argument roles (at least two for a relation)")
        roles: list[Role] = []
        for j, ro in enumerate(raw_roles):
            rw = f"{where} role #{j + 1}"
            if not isinstance(ro, dict):
                raise r.fail(rw, 'must be a table such as {name = "Arg1", types = ["protein"]}')
            r.known(ro, {"name", "types", "optional", "repeatable"}, rw)
            roname = r.name(ro, rw)
            rtypes = r.strings(ro, "types", rw)
            # Event arguments may name other events (or <EVENT> for any event).
            check_types(rtypes, f"{where} role '{roname}'", {*event_names, "<EVENT>"})
            roles.append(
                Role(
                    name=roname,
                    types=rtypes,
                    optional=r.get(ro, "optional", bool, rw, False),
                    repeatable=r.get(ro, "repeatable", bool, rw, False),
                )
            )
        _unique(r, [ro.name for ro in roles], f"{where} roles")
        labels = r.get(rel, "labels", str, where, None)
        if labels is not None and labels not in {ls.name for ls in label_sets}:
            raise r.fail(where, f"labels {labels!r} is not a [[label_set]]")
        trig = r.strings(rel, "trigger_types", where)
        check_types(trig, where)
        relations.append(
            RelationType(
                name=rname,
                roles=tuple(roles),
                directed=r.get(rel, "directed", bool, where, True),
                kind=kind,
                labels=labels,
                tags=r.strings(rel, "tags", where),
                trigger_types=trig,
                description=r.get(rel, "description", str, where, ""),
            )
        )
    _unique(r, [rel.name for rel in relations], "[[relation]]")

    attributes: list[AttributeDef] = []
    rel_names = {rel.name for rel in relations}
    attribute_keys = {"name", "applies_to", "values", "types", "description"}
    for _, a, aname, where in r.named_tables(data.get("attribute", []), "attribute", attribute_keys):
        applies = r.strings(a, "applies_to", where) or ("entity",)
        for ap in applies:
            if ap not in ("entity", "relation"):
                raise r.fail(where, f"applies_to must list 'entity' and/or 'relation', not {ap!r}")
        types = r.strings(a, "types", where)
        check_types(types, where, rel_names)
        attributes.append(
            AttributeDef(
                name=aname,
                applies_to=applies,
                values=r.strings(a, "values", where),
                types=types,
                description=r.get(a, "description", str, where, ""),
            )
        )
    _unique(r, [a.name for a in attributes], "[[attribute]]")

    doc_labels: list[DocLabelDef] = []
    doc_label_keys = {"name", "values", "required", "description"}
    for _, dl, dname, where in r.named_tables(
        data.get("document_label", []), "document_label", doc_label_keys
    ):
        doc_labels.append(
            DocLabelDef(
                name=dname,
                values=_label_values(r, dl.get("values"), where),
                required=r.get(dl, "required", bool, where, False),
                description=r.get(dl, "description", str, where, ""),
            )
        )
    _unique(r, [d.name for d in doc_labels], "[[document_label]]")

    raw_rules = data.get("rules", {})
    if not isinstance(raw_rules, dict):
        raise r.fail("[rules]", "must be a table")
    r.known(
        raw_rules,
        {"allow_overlap", "allow_discontinuous", "max_fragments", "groundings", "grounding_databases",
         "require_grounding", "relations_join_entities", "token_boundaries", "boundary_symbols",
         "trim_whitespace"},
        "[rules]",
    )  # fmt: skip
    rules = Rules(
        allow_overlap=r.get(raw_rules, "allow_overlap", bool, "[rules]", True),
        allow_discontinuous=r.get(raw_rules, "allow_discontinuous", bool, "[rules]", True),
        max_fragments=r.get(raw_rules, "max_fragments", int, "[rules]", 0),
        groundings=r.get(raw_rules, "groundings", bool, "[rules]", False),
        grounding_databases=r.strings(raw_rules, "grounding_databases", "[rules]"),
        require_grounding=r.strings(raw_rules, "require_grounding", "[rules]"),
        relations_join_entities=r.get(raw_rules, "relations_join_entities", bool, "[rules]", False),
        token_boundaries=r.get(raw_rules, "token_boundaries", bool, "[rules]", False),
        boundary_symbols=r.get(raw_rules, "boundary_symbols", str, "[rules]", ""),
        trim_whitespace=r.get(raw_rules, "trim_whitespace", bool, "[rules]", False),
    )
    check_types(rules.require_grounding, "[rules] require_grounding")
    kbs = _knowledge_bases(r, data.get("knowledge_base", []), check_types)

    return Schema(
        name=name,
        title=r.get(head, "title", str, "[schema]"),
        description=r.get(head, "description", str, "[schema]", ""),
        entities=tuple(entities),
        links=tuple(links),
        relations=tuple(relations),
        attributes=tuple(attributes),
        label_sets=tuple(label_sets),
        document_labels=tuple(doc_labels),
        rules=rules,
        guideline=r.get(head, "guideline", str, "[schema]", None),
        knowledge_bases=kbs,
        derive=_derive_rules(
            r,
            data.get("derive", []),
            {x.name: x for x in relations},
            {n for lt in links for n in (lt.name, *lt.aliases)},
        ),
    )


def _knowledge_bases(r: _Reader, raw: Any, check_types: Any) -> tuple[KnowledgeBaseRef, ...]:
    """``[[knowledge_base]]`` tables: database, kb, aliases, types, branches, unknown, obsolete, line_kind."""
    if not isinstance(raw, list):
        raise r.fail("[[knowledge_base]]", "must be an array of tables")
    out: list[KnowledgeBaseRef] = []
    for i, k in enumerate(raw):
        where = f"[[knowledge_base]] #{i + 1}"
        if not isinstance(k, dict):
            raise r.fail(where, "must be a table")
        r.known(
            k, {"database", "kb", "aliases", "types", "branches", "unknown", "obsolete", "line_kind"}, where
        )
        database = r.get(k, "database", str, where)
        where = f"[[knowledge_base]] '{database}'"
        types = r.strings(k, "types", where)
        check_types(types, where)
        branches = r.get(k, "branches", dict, where, {})
        for t, root in branches.items():
            check_types((t,), f"{where} branches")
            if not isinstance(root, str) or not root:
                raise r.fail(where, f"branch of {t!r} must be a concept id, not {root!r}")
        sev = {}
        for key, default in (("unknown", "error"), ("obsolete", "warning")):
            sev[key] = r.get(k, key, str, where, default)
            if sev[key] not in ("error", "warning"):
                raise r.fail(where, f"{key} must be 'error' or 'warning', not {sev[key]!r}")
        out.append(
            KnowledgeBaseRef(
                database=database,
                kb=r.get(k, "kb", str, where),
                aliases=r.strings(k, "aliases", where),
                types=types,
                branches=tuple(sorted(branches.items())),
                unknown=sev["unknown"],
                obsolete=sev["obsolete"],
                line_kind=r.get(k, "line_kind", str, where, None),
            )
        )
    _unique(r, [n.casefold() for k in out for n in k.names()], "[[knowledge_base]] database names")
    return tuple(out)


def _link_rule(
    r: _Reader,
    x: Mapping[str, Any],
    where: str,
    relations: Mapping[str, RelationType],
    links: Collection[str],
) -> DeriveRule:
    """A ``[[derive]]`` with ``link``: ``first`` lifted from a part to its whole (see DeriveRule)."""
    rel, first, link = (r.get(x, key, str, where) for key in ("relation", "first", "link"))
    for key, name in (("relation", rel), ("first", first)):
        if name not in relations:
            raise r.fail(where, f"{key} {name!r} is not a relation type of the schema")
    if rel != first:
        raise r.fail(where, "a link rule derives the relation it lifts: relation and first must be equal")
    if link not in links:
        raise r.fail(where, f"link {link!r} is not a link type of the schema")
    if "second" in x or "join" in x or "roles" in x:
        raise r.fail(where, "a link rule has no second, join or roles")
    tag = r.get(x, "tag", str, where, "")
    if tag and tag not in relations[rel].tags:
        raise r.fail(where, f"tag {tag!r} is not a tag of {rel}")
    return DeriveRule(r.get(x, "name", str, where), rel, first, "", ("", ""), (), r.get(x, "source", str, where, ""),
                      link, tag)  # fmt: skip


def _derive_rules(
    r: _Reader, raw: Any, relations: Mapping[str, RelationType], links: Collection[str] = ()
) -> tuple[DeriveRule, ...]:
    if not isinstance(raw, list):
        raise r.fail("[[derive]]", "must be an array of tables")
    out: list[DeriveRule] = []
    for k, x in enumerate(raw):
        where = f"[[derive]] #{k + 1}"
        if not isinstance(x, dict):
            raise r.fail(where, "must be a table")
        r.known(x, {"name", "relation", "first", "second", "join", "roles", "source", "link", "tag"}, where)
        if "link" in x:
            out.append(_link_rule(r, x, where, relations, links))
            continue
        rel, first, second = (r.get(x, key, str, where) for key in ("relation", "first", "second"))
        for key, name in (("relation", rel), ("first", first), ("second", second)):
            if name not in relations:
                raise r.fail(where, f"{key} {name!r} is not a relation type of the schema")
        join = r.strings(x, "join", where)
        if (
            len(join) != 2
            or relations[first].role(join[0]) is None
            or relations[second].role(join[1]) is None
        ):
            raise r.fail(where, f"join must name a role of {first} and a role of {second}")
        roles = x.get("roles")
        if not isinstance(roles, dict) or not roles:
            raise r.fail(
                where, "roles must map each role of the derived relation to first.ROLE or second.ROLE"
            )
        pairs: list[tuple[str, str]] = []
        for role, src in roles.items():
            which, _, arg = str(src).partition(".")
            base = {"first": first, "second": second}.get(which)
            if relations[rel].role(role) is None or base is None or relations[base].role(arg) is None:
                raise r.fail(
                    where,
                    f"roles: {role} = {src!r} must be a role of {rel} taken from first.ROLE or second.ROLE",
                )
            pairs.append((role, str(src)))
        out.append(DeriveRule(r.get(x, "name", str, where), rel, first, second, (join[0], join[1]), tuple(pairs),
                              r.get(x, "source", str, where, "")))  # fmt: skip
    return tuple(out)


def _unique(r: _Reader, names: list[str], where: str) -> None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise r.fail(where, f"{n!r} is defined twice")
        seen.add(n)


def _no_cycles(r: _Reader, entities: list[EntityType]) -> None:
    parent = {e.name: e.parent for e in entities}
    for e in entities:
        seen = {e.name}
        cur = parent.get(e.name)
        while cur:
            if cur in seen:
                raise r.fail(f"[[entity]] '{e.name}'", f"parent chain loops back to {cur!r}")
            seen.add(cur)
            cur = parent.get(cur)


def _shipped_dir() -> Any:
    return resources.files("guidelines") / "schemas"


def shipped_schemas() -> list[str]:
    """Names of the schemas shipped with corpusdb (``biorelex-1.0``, ``bb-2011``...)."""
    return sorted(p.name[:-5] for p in _shipped_dir().iterdir() if p.name.endswith(".toml"))


def load_schema(name_or_path: str | Path) -> Schema:
    """Load a shipped schema by name or a schema file by path; errors name the file and problem."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        if not path.exists():
            raise NotFound(f"schema file {path} does not exist")
        raw = path.read_bytes()
        source = str(path)
    else:
        res = _shipped_dir() / f"{name_or_path}.toml"
        if not res.is_file():
            raise NotFound(
                f"no shipped schema named {name_or_path!r} (shipped: {', '.join(shipped_schemas())}); "
                "give a path to a .toml file to use your own"
            )
        raw = res.read_bytes()
        source = f"guidelines/schemas/{name_or_path}.toml"
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SchemaError(f"{source}: invalid TOML: {exc}") from exc
    return parse_schema(data, source)


def guideline_text(schema: Schema) -> str:
    """The shipped guideline text for a shipped schema ('' when it names none)."""
    if not schema.guideline:
        return ""
    res = resources.files("guidelines") / "texts" / schema.guideline
    return res.read_text(encoding="utf-8") if res.is_file() else ""
