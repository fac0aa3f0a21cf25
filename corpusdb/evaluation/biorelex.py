"""BioRelEx 1.0 scoring (Khachatrian et al. 2019, §4.1; the official ``evaluate.py`` of YerevaNN/BioRelEx).

Official definitions, per sentence (sentences matched by ``id``, or by their text lower-cased with
everything but ``[0-9a-z]`` removed), counts summed over sentences:

* **Entity Mentions**: the set of ``(name, start, end)`` of every mention of every name with
  ``is_mentioned``; tp = |T ∩ P|, fn = |T| - tp, fp = |P| - tp.
* **Entities**: the set of distinct names that have such a mention.
* **Entity Coreferences**: unordered pairs of distinct mentioned names within one cluster.
* **Relation Extraction (any / all)**: every gold interaction (duplicates count twice; every label,
  implicit included) is one item. Its *name pairs* are the unordered pairs (a, b), a a mentioned name
  of one participant cluster, b of the other. The predicted name pairs are those of every predicted
  interaction. *any*: the interaction is found when one of its name pairs is predicted; *all*: when
  every one of them is (so a gold interaction whose cluster has no mentioned name counts as found by
  *all* and missed by *any*, as the official code does). Every predicted name pair that no gold
  interaction consumed is one false positive, per name pair.

What the official script leaves out and the paper asks for, added here with the same counting:
``Relation Extraction (any, label-aware)`` (a name pair counts only with the gold label 1/0/-1),
``(any, positive only)`` (label 1 on both sides) and ``(any, non-implicit)`` (implicit interactions
left out of both sides), and ``Entity Mentions (flat)`` done correctly.

Known flaws of the official script, **not** copied: its ``PRFScoresFlatMentions.add_sets`` removes
items from the caller's sets in place (so its *Entities* score is computed from the reduced mention
sets when nested mentions of different names were matched), counts tp before removing them (so fn and
fp can be negative: it prints negative counts), and its "mention inside a larger mention" test
``end2 <= start1 <= start2`` only holds for empty mentions. *Entities* is printed as the script
computes it (the figure papers report, marked official) and ``Entities (corrected)`` beside it, from
the full mention sets. Here *flat* means: on each side keep only
the mentions not strictly inside another mention of that side, then score exactly as *Entity
Mentions*. The official script also skips sentences
without a prediction; here they count as misses unless ``answered_only`` is set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from corpusdb.evaluation.counts import EvaluationInputError, Score

MENTIONS = "Entity Mentions"
MENTIONS_FLAT = "Entity Mentions (flat)"
ENTITIES = "Entities"
"""The official script's figure, flaw included (see ``official_entity_names``): what papers report."""
ENTITIES_CORRECTED = "Entities (corrected)"
"""The same score from the full mention sets: what the script would give without its flaw."""
COREFERENCES = "Entity Coreferences"
RE_ANY = "Relation Extraction (any)"
RE_ALL = "Relation Extraction (all)"
RE_LABEL = "Relation Extraction (any, label-aware)"
RE_POSITIVE = "Relation Extraction (any, positive only)"
RE_EXPLICIT = "Relation Extraction (any, non-implicit)"
OFFICIAL = (MENTIONS, ENTITIES, COREFERENCES, RE_ANY, RE_ALL)
ALL_SCORES = (
    MENTIONS,
    MENTIONS_FLAT,
    ENTITIES,
    ENTITIES_CORRECTED,
    COREFERENCES,
    RE_ANY,
    RE_ALL,
    RE_LABEL,
    RE_POSITIVE,
    RE_EXPLICIT,
)


@dataclass(frozen=True, slots=True)
class Name:
    """One name of a cluster and its mentions (``(start, end)``, end exclusive; maybe none)."""

    text: str
    mentions: tuple[tuple[int, int], ...] = ()
    is_mentioned: bool = True


@dataclass(frozen=True, slots=True)
class Cluster:
    """An entity: names that are synonyms or abbreviations of each other."""

    names: tuple[Name, ...]
    type: str = ""


@dataclass(frozen=True, slots=True)
class Interaction:
    """An interaction between two clusters (indices into ``Sentence.clusters``)."""

    a: int
    b: int
    label: int | None = 1
    implicit: bool = False
    type: str = ""
    derived: str = ""
    """The rule that derived it (a corpusdb release's ``derived`` key; not BioRelEx's): "" when annotated."""


@dataclass(frozen=True, slots=True)
class Sentence:
    id: str
    text: str
    clusters: tuple[Cluster, ...] = ()
    interactions: tuple[Interaction, ...] = ()


def match_key(sentence: Sentence, match_by: str) -> str:
    """The key sentences are matched by: the id, or the text lower-cased, only ``[0-9a-z]`` kept."""
    if match_by == "text":
        return re.sub("[^0-9a-z]+", "", sentence.text.lower())
    if match_by == "id":
        return sentence.id
    raise EvaluationInputError(f"match_by must be 'id' or 'text', got {match_by!r}")


# -- reading BioRelEx JSON (pure; the structure is in ../shared/data/README.md) -----------------------------


def _fail(path: str, where: str, what: str) -> EvaluationInputError:
    return EvaluationInputError(f"{path}: {where}: {what}")


def sentences_from_json(data: Any, path: str = "<json>") -> list[Sentence]:
    """BioRelEx JSON (a list of sentence objects) -> sentences; a clear error names what is wrong."""
    if not isinstance(data, list):
        raise _fail(path, "top level", "expected a JSON list of sentence objects")
    out = []
    for i, s in enumerate(data):
        where = f"sentence {i + 1}" + (f" (id {s.get('id')!r})" if isinstance(s, dict) else "")
        if not isinstance(s, dict) or "id" not in s or not isinstance(s.get("text"), str):
            raise _fail(path, where, "a sentence needs 'id' and 'text'")
        clusters = []
        for j, c in enumerate(s.get("entities") or []):
            names = c.get("names") if isinstance(c, dict) else None
            if not isinstance(names, dict):
                raise _fail(path, f"{where}, entity {j}", "an entity needs 'names' (an object)")
            ns = []
            for text, meta in names.items():
                try:
                    mentions = tuple((int(a), int(b)) for a, b in meta.get("mentions") or ())
                except (TypeError, ValueError, AttributeError):
                    raise _fail(
                        path, f"{where}, entity {j}, name {text!r}", "mentions must be [start, end] pairs"
                    ) from None
                ns.append(Name(text, mentions, bool(meta.get("is_mentioned", True))))
            clusters.append(Cluster(tuple(ns), str(c.get("label") or "")))
        inters = []
        for j, it in enumerate(s.get("interactions") or []):
            parts = it.get("participants") if isinstance(it, dict) else None
            if not (isinstance(parts, list) and len(parts) == 2 and all(
                    isinstance(p, int) and 0 <= p < len(clusters) for p in parts)):  # fmt: skip
                raise _fail(
                    path,
                    f"{where}, interaction {j}",
                    f"participants must be two entity indices < {len(clusters)}",
                )
            label = it.get("label", 1)
            inters.append(Interaction(parts[0], parts[1], None if label is None else int(label),
                                      bool(it.get("implicit", False)), str(it.get("type") or ""),
                                      str(it.get("derived") or "")))  # fmt: skip
        out.append(Sentence(str(s["id"]), s["text"], tuple(clusters), tuple(inters)))
    return out


def keep_derived(sentences: list[Sentence], include: bool) -> list[Sentence]:
    """``sentences`` with or without the interactions a file marks derived (``evaluate --derived``);
    BioRelEx's own files mark none, so both give them whole."""
    if include:
        return sentences
    return [replace(s, interactions=tuple(i for i in s.interactions if not i.derived)) for s in sentences]


def read_biorelex(path: str | Path) -> list[Sentence]:
    """Read a BioRelEx JSON file; a JSON error names the file, line and column."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvaluationInputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise EvaluationInputError(
            f"{p}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"
        ) from None
    except UnicodeDecodeError as exc:
        raise EvaluationInputError(f"{p}: not UTF-8 (byte {exc.start})") from None
    return sentences_from_json(data, str(p))


# -- the scores -------------------------------------------------------------------------------------------

Mention = tuple[str, int, int]


def entity_mentions(s: Sentence) -> set[Mention]:
    return {(n.text, a, b) for c in s.clusters for n in c.names if n.is_mentioned for a, b in n.mentions}


def coreferences(s: Sentence) -> set[tuple[str, str]]:
    out = set()
    for c in s.clusters:
        names = [n.text for n in c.names if n.is_mentioned]
        out.update((min(a, b), max(a, b)) for a in names for b in names if a != b)
    return out


def flat(mentions: set[Mention]) -> set[Mention]:
    """The mentions not strictly inside another mention of the same set (the outermost layer)."""
    spans = {(a, b) for _, a, b in mentions}
    return {
        m for m in mentions if not any(a <= m[1] and m[2] <= b and (a, b) != (m[1], m[2]) for a, b in spans)
    }


def _name_pairs(s: Sentence, it: Interaction) -> set[tuple[str, str]]:
    na = [n.text for n in s.clusters[it.a].names if n.is_mentioned]
    nb = [n.text for n in s.clusters[it.b].names if n.is_mentioned]
    return {(min(a, b), max(a, b)) for a in na for b in nb}


def _relations(
    doc: str, truth: Sentence, pred: Sentence | None, any_score: Score, all_score: Score | None,
    keep: Callable[[Interaction], bool], with_label: bool,
) -> None:  # fmt: skip
    """The official relation counting, on the interactions ``keep`` accepts, optionally label-aware."""

    def key(s: Sentence, it: Interaction) -> set[tuple[Any, ...]]:
        return {(*p, it.label) if with_label else p for p in _name_pairs(s, it)}

    predicted: set[tuple[Any, ...]] = set()
    if pred is not None:
        for it in pred.interactions:
            if keep(it):
                predicted |= key(pred, it)
    consumed: set[tuple[Any, ...]] = set()
    for it in truth.interactions:
        if not keep(it):
            continue
        pairs = key(truth, it)
        hit = pairs & predicted
        consumed |= hit
        any_score.add(doc, 1, 0, 0) if hit else any_score.add(doc, 0, 1, 0)
        if all_score is not None:
            all_score.add(doc, 1, 0, 0) if len(hit) == len(pairs) else all_score.add(doc, 0, 1, 0)
    extra = len(predicted - consumed)
    any_score.add(doc, fp=extra)
    if all_score is not None:
        all_score.add(doc, fp=extra)


def _empty(s: Sentence) -> Sentence:
    return Sentence(s.id, s.text)


def official_entity_names(truth: set[Mention], predicted: set[Mention]) -> tuple[set[str], set[str]]:
    """The names the official script scores as *Entities*: it collects them after its flat-mention
    score has removed, from both mention sets in place, every mention overlapping a matched mention
    of another name (and mentions "inside" another by a test only empty mentions pass). Reproduced so
    the figure papers compare with is printed as such; ``Entities (corrected)`` is beside it."""
    common = truth & predicted

    def reduce(ms: set[Mention]) -> set[Mention]:
        kept = {m for m in ms if not any(c[1] < m[2] and c[2] > m[1] and m[0] != c[0] for c in common)}
        inside = {a for a in kept for b in kept if a[1] <= b[1] and b[2] <= a[1] and a[0] != b[0]}
        return kept - inside

    return {m[0] for m in reduce(truth)}, {m[0] for m in reduce(predicted)}


def score_biorelex(
    truth: Sequence[Sentence], predicted: Sequence[Sentence], *, match_by: str = "id",
    answered_only: bool = False,
) -> dict[str, Score]:  # fmt: skip
    """Every BioRelEx score of ``predicted`` against ``truth`` (see the module docstring).

    A gold sentence the system did not answer counts as an empty prediction (all its items are
    misses) unless ``answered_only``; predicted sentences not in the gold are ignored, as officially.
    """
    preds = {match_key(s, match_by): s for s in predicted}
    scores = {n: Score(n) for n in ALL_SCORES}
    scores[MENTIONS_FLAT].note = "outermost mentions only; the official script's version is flawed (see docs)"
    # one gold sentence per key, the last one given, as the official script's dict keeps it
    gold = {match_key(t, match_by): t for t in truth}
    for k, t in gold.items():
        p = preds.get(k)
        if p is None:
            if answered_only:
                continue
            p = _empty(t)
        doc = t.id
        tm, pm = entity_mentions(t), entity_mentions(p)
        scores[MENTIONS].add_sets(doc, tm, pm)
        scores[MENTIONS_FLAT].add_sets(doc, flat(tm), flat(pm))
        scores[ENTITIES].add_sets(doc, *official_entity_names(tm, pm))
        scores[ENTITIES_CORRECTED].add_sets(doc, {m[0] for m in tm}, {m[0] for m in pm})
        scores[COREFERENCES].add_sets(doc, coreferences(t), coreferences(p))
        _relations(doc, t, p, scores[RE_ANY], scores[RE_ALL], lambda it: True, False)
        _relations(doc, t, p, scores[RE_LABEL], None, lambda it: True, True)
        _relations(doc, t, p, scores[RE_POSITIVE], None, lambda it: it.label == 1, False)
        _relations(doc, t, p, scores[RE_EXPLICIT], None, lambda it: not it.implicit, False)
    return scores


def unanswered(truth: Iterable[Sentence], predicted: Iterable[Sentence], match_by: str = "id") -> list[str]:
    """Ids of gold sentences without a prediction."""
    keys = {match_key(s, match_by) for s in predicted}
    return [t.id for t in truth if match_key(t, match_by) not in keys]


def counts_table(scores: Mapping[str, Score]) -> dict[str, dict[str, float]]:
    """``{score name: {"tp", "fn", "fp"}}``: what the tests compare with the official output."""
    return {n: {"tp": s.tp, "fn": s.fn, "fp": s.fp} for n, s in scores.items()}
