"""What an agreement report compares, as one validated record (the API and the CLI share it).

Why a record: the same choices (raters, layer, criterion, type handling, documents, bootstrap) go
into the computation, into the report's ``settings`` (so a JSON report says how it was made), and
into every renderer; validating them once here gives one error message for the API and the CLI.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from corpusdb.agreement.spans import CRITERIA, OLD_NAMES, TYPE_MODES, SpanColumns
from corpusdb.basics.errors import InvalidInput, OptionError
from corpusdb.basics.records import Annotations

LAYERS: tuple[str, ...] = ("spans", "relations", "links", "groundings", "labels")
RELATION_MODES: tuple[str, ...] = ("strict", "relaxed")
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
"""Levels of measurement of a document label's values (Krippendorff's alpha's distance function)."""
UNANSWERED: tuple[str, ...] = ("misses", "skipped")
"""What a document the reference (gold) has and the other rater has no set for counts as: ``misses``
(the reference's items there are missed, as an evaluation counts them) or ``skipped`` (left out:
the pair is compared on the documents both answered)."""
GOLD = "gold"
"""The rater name of the gold (adjudicated) sets."""

_EMPTY: Mapping[str, tuple[str, ...]] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Rater:
    """One side of the comparison: an annotator, a system's predictions, or gold."""

    name: str
    kind: str
    sets: Mapping[str, Annotations]
    """Document external id -> that rater's annotations."""
    columns: SpanColumns | None = None
    """The spans as columns (layer ``spans`` from the store): what the report computes from."""
    suggested: Mapping[str, int] | None = None
    """Document -> items of the compared layer accepted from suggestions (left out when the options
    exclude them); None for the labels layer."""

    def info(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "documents": len(self.sets)}


def parse_merge(spec: str) -> tuple[str, tuple[str, ...]]:
    """``"protein,DNA,RNA=macromolecule"`` -> ``("macromolecule", ("protein", "DNA", "RNA"))``.

    >>> parse_merge("cell line, cell type=cell")
    ('cell', ('cell line', 'cell type'))
    """
    members, sep, cls = spec.rpartition("=")
    names = tuple(m.strip() for m in members.split(",") if m.strip())
    if not sep or not cls.strip() or not names:
        raise InvalidInput(
            f"a type merge is MEMBERS=CLASS, e.g. 'protein,DNA,RNA=macromolecule'; got {spec!r}"
        )
    return cls.strip(), names


def type_classes_from(
    merges: Iterable[str] | Mapping[str, Iterable[str]] | None,
) -> dict[str, tuple[str, ...]]:
    """User merges (``--merge`` strings or a mapping class -> members) as a checked mapping."""
    if not merges:
        return {}
    pairs = (
        [(k, tuple(v)) for k, v in merges.items()]
        if isinstance(merges, Mapping)
        else [parse_merge(s) for s in merges]
    )
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for cls, members in pairs:
        for m in members:
            if owner.get(m, cls) != cls:
                raise InvalidInput(f"type {m!r} is merged into two classes: {owner[m]!r} and {cls!r}")
            owner[m] = cls
        out[cls] = tuple(dict.fromkeys((*out.get(cls, ()), *members)))
    return out


@dataclass(frozen=True, slots=True)
class AgreementOptions:
    """One agreement computation. ``raters`` None means every annotator with visible sets."""

    layer: str = "spans"
    raters: tuple[str, ...] | None = None
    gold: bool = False
    """Add the gold sets as a rater named ``gold`` (when ``raters`` is None)."""
    predictions: bool = False
    """Add every system's prediction sets as raters (when ``raters`` is None)."""
    criterion: str = "exact"
    jaccard: float = 0.5
    types: str = "required"
    type_classes: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _EMPTY)
    relation_mode: str = "strict"
    label: str | None = None
    """The document label to compare (default: the schema's first, or the only one present)."""
    ordinal: bool = False
    """Document-label categories are ordered (schema order): ordinal alpha, linearly weighted kappa.
    The same as ``level="ordinal"`` (kept: scripts pass it)."""
    level: str = "nominal"
    """Level of measurement of document-label values: ``nominal``, ``ordinal`` (schema order),
    ``interval`` or ``ratio`` (the values are numbers: alpha with Krippendorff's interval or ratio
    distance, its bootstrap CI over documents; kappa-type pair figures get linear weights)."""
    split: str | None = None
    documents: tuple[str, ...] | None = None
    bootstrap: int = 0
    seed: int = 0
    confidence: float = 0.95
    lowest: int = 5
    """How many documents and types the ``lowest`` lists hold."""
    unanswered: str = "misses"
    """See ``UNANSWERED``; only pairs with gold as one side are concerned."""
    exclude_suggested: bool = False
    """Compare only the raters' own items: items accepted from suggestions (``corpusdb.recommend``)
    are left out, since suggestions shared by raters raise agreement."""
    semantic: str | None = None
    """Layer groundings: also score near concepts with Wang's similarity on this knowledge base's
    ``is_a`` graph (a loaded ontology, e.g. ``ontobiotope``)."""
    semantic_weight: float = 0.65
    """Wang's edge weight (0.65: the BB-cat 2016 task's)."""
    derived: str = "exclude"
    """Layer relations: ``include`` adds, to every rater's sets, the relations the schema's rules derive
    (``guidelines.derive``, marked with their rule); ``exclude`` compares annotated relations only."""

    def __post_init__(self) -> None:
        if self.criterion in OLD_NAMES:  # "partial": the old name of "overlap", reported under the new
            import warnings

            warnings.warn(
                f"criterion {self.criterion!r} is now named {OLD_NAMES[self.criterion]!r} (any overlap, full "
                "credit; not SemEval-2013's half-credit partial)",
                DeprecationWarning,
                stacklevel=3,
            )
            object.__setattr__(self, "criterion", OLD_NAMES[self.criterion])
        problems = []
        if self.ordinal and self.level not in ("nominal", "ordinal"):
            problems.append(f"ordinal and level {self.level!r} contradict each other")
        if self.ordinal and self.level == "nominal":
            object.__setattr__(self, "level", "ordinal")
        object.__setattr__(self, "ordinal", self.level == "ordinal")
        if self.layer not in LAYERS:
            problems.append(f"layer must be one of {', '.join(LAYERS)}, got {self.layer!r}")
        if self.criterion not in CRITERIA:
            problems.append(f"criterion must be one of {', '.join(CRITERIA)}, got {self.criterion!r}")
        if self.level not in LEVELS:
            problems.append(f"level must be one of {', '.join(LEVELS)}, got {self.level!r}")
        if self.types not in TYPE_MODES:
            problems.append(f"types must be one of {', '.join(TYPE_MODES)}, got {self.types!r}")
        if self.types == "merged" and not self.type_classes:
            problems.append("types 'merged' needs type merges, e.g. --merge protein,DNA,RNA=macromolecule")
        if self.relation_mode not in RELATION_MODES:
            problems.append(f"relation mode must be strict or relaxed, got {self.relation_mode!r}")
        if not 0.0 < self.jaccard <= 1.0:
            problems.append(f"the Jaccard threshold must be in (0, 1], got {self.jaccard}")
        if self.bootstrap < 0:
            problems.append(
                f"the number of bootstrap resamples must be 0 (off) or more, got {self.bootstrap}"
            )
        if not 0.5 <= self.confidence < 1.0:
            problems.append(f"confidence must be in [0.5, 1), got {self.confidence}")
        if self.unanswered not in UNANSWERED:
            problems.append(f"unanswered documents count as misses or are skipped, got {self.unanswered!r}")
        if self.semantic is not None and self.layer != "groundings":
            problems.append("a semantic measure (--semantic KB) applies to the layer groundings only")
        if not 0.0 < self.semantic_weight < 1.0:
            problems.append(f"Wang's edge weight must be in (0, 1), got {self.semantic_weight}")
        if self.derived not in ("include", "exclude"):
            problems.append(f"derived relations are included or excluded, got {self.derived!r}")
        if self.raters is not None and len(set(self.raters)) < 2:
            problems.append("name at least two different raters (or none for all)")
        if problems:
            raise OptionError("; ".join(problems))

    @classmethod
    def build(
        cls,
        *,
        merges: Iterable[str] | Mapping[str, Iterable[str]] | None = None,
        raters: Sequence[str] | None = None,
        documents: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> AgreementOptions:
        """Options from loose arguments; merges imply types='merged' unless types is given."""
        classes = type_classes_from(merges)
        if classes and kwargs.setdefault("types", "merged") != "merged":
            raise InvalidInput(f"type merges need types 'merged', not {kwargs['types']!r}")
        return cls(
            type_classes=MappingProxyType(classes),
            raters=tuple(raters) if raters is not None else None,
            documents=tuple(documents) if documents is not None else None,
            **kwargs,
        )

    def class_of(self, type_name: str) -> str:
        """A type's merged class (itself unless merged)."""
        if self.types != "merged":
            return type_name
        for cls, members in self.type_classes.items():
            if type_name in members:
                return cls
        return type_name

    def settings(self) -> dict[str, Any]:
        """The ``settings`` object of the JSON report."""
        span_like = self.layer != "labels"
        return {
            "layer": self.layer,
            "raters": list(self.raters) if self.raters is not None else None,
            "gold": self.gold,
            "predictions": self.predictions,
            "criterion": self.criterion if span_like else None,
            "jaccard": self.jaccard if span_like and self.criterion == "jaccard" else None,
            "types": self.types if span_like else None,
            "type_classes": {k: list(v) for k, v in self.type_classes.items()}
            if self.types == "merged"
            else {},
            "relation_mode": self.relation_mode if self.layer == "relations" else None,
            "derived_relations": self.derived if self.layer == "relations" else None,
            "label": self.label if self.layer == "labels" else None,
            "ordinal": self.ordinal if self.layer == "labels" else None,
            "level": self.level if self.layer == "labels" else None,
            "documents": {
                "split": self.split,
                "ids": list(self.documents) if self.documents is not None else None,
            },
            "bootstrap": {"resamples": self.bootstrap, "seed": self.seed, "confidence": self.confidence}
            if self.bootstrap
            else None,
            "unanswered": self.unanswered if span_like else None,
            "exclude_suggested": self.exclude_suggested if span_like else None,
            "semantic": {"kb": self.semantic, "measure": "wang", "weight": self.semantic_weight}
            if self.semantic is not None
            else None,
        }

    def check_merged_types(self, known: Iterable[str], what: str) -> None:
        """Refuse a merge naming a type (or label value) that neither the schema nor the data has:
        a typo (``Wter``) would otherwise merge nothing while the report says it merged."""
        if self.types != "merged":
            return
        names = set(known)
        unknown = sorted({m for members in self.type_classes.values() for m in members} - names)
        if unknown:
            raise InvalidInput(
                f"--merge names {', '.join(map(repr, unknown))}, not among the {what} "
                f"({', '.join(sorted(names)) or 'none'})"
            )
