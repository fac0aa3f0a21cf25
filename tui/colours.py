"""Type colours that stay apart: from each other, from the screen's own marks, in 16 colours too.

Why: a schema names a colour per entity type, chosen one at a time by whoever wrote it; side by
side on a terminal some are too close (bb-2011's Bacterium red beside the pink that marks a
relation partner, Host green beside HostPart mint), and a 16-colour terminal folds others into one
(Bacterium and Environment both become bright red). The TUI therefore shows each type in the
colour :func:`assign_colours` derives from the schema's: the schema's own colour when it keeps its
distance, else the nearest colour that does.

The rule, checked by ``tests/test_tui_navigation.py`` for every shipped schema:

- Distance is CIEDE2000 (ΔE00) in CIELAB (D65). One ΔE00 is about one just-noticeable difference
  side by side; colours that must be *named* apart at a glance, on marks as small as a text cell,
  need far more (Szafir 2018, "Modeling Color Difference for Visualization Design", measured the
  noticeable difference growing several-fold as marks shrink; colour-coding studies put reliable
  identification of small symbols at tens of units). What a schema can have is bounded by its size
  (31 BioRelEx types cannot all be 30 apart in the sRGB gamut), hence a ladder. So: every two types of a schema differ by at least ``TYPE_MIN`` (12) and by the largest
  step of ``LADDER`` the schema allows (24 for bb-2011's nine types, where Host and HostPart at
  21.6 read as one green); a schema of up to 13 types (``FREE_16``) gets at least 18.
- The fixed colours of the text view keep away from every type: the relation partner's pink
  (``PARTNER``, also the hot relation markers) by ``UI_MIN`` (30), as far as two types of a small
  schema: a partner must never pass for a type; the selection (``SELECTION``) by
  ``SELECTION_MIN`` (20): the annotator makes it and it is drawn underlined, and a wider margin
  around its blue-grey would leave no blue for a type; a search hit's orange (``HIT``) likewise; the screen background and the active-span
  mark's dark ground (``MARK_BG``) by ``BACKGROUND_MIN`` (15): a span must stand out of the page.
- In 16 colours (Rich ``ColorSystem.STANDARD``, how Textual downsamples on such terminals) no
  type becomes black (the background), the partner's bright magenta or the selection's bright
  black; while the schema has no more types than the 16 colours leave free (13: all
  but black, the partner's bright magenta and the selection's bright black), each type has a
  colour of its own, and in larger schemas (BioRelEx's 31) the keyed, most used types still do.

Candidates are the xterm 256-colour cube and greys (what a 256-colour terminal shows exactly) and
the schema's own colour. Types are placed in the order: keyed types, top-level types, subtypes
(schema order within each), so the types annotators use most keep the schema's colours first.
Pure Python, memoised per schema: a few milliseconds for a small schema, a fraction of a second
once per process for the largest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rich.color import Color, ColorSystem

PARTNER = "#ff87d7"
"""Background of a relation partner and of the hot relation markers (the text view)."""
SELECTION = "#5f5f87"
"""Background of the selection."""
HIT = "#ffaf00"
"""Background of a search hit in the document (``/``)."""
MARK_BG = "#303030"
"""Background of the active span's mark (drawn with yellow bold underlined text)."""
BACKGROUND = "#121212"
"""The screen's background (Textual's dark theme)."""

TYPE_MIN = 12.0
UI_MIN = 30.0
SELECTION_MIN = 20.0
BACKGROUND_MIN = 15.0
LADDER = (30.0, 27.0, 24.0, 21.0, 18.0, 15.0, TYPE_MIN)
"""Type-to-type distances tried, largest first: a schema gets the largest every type can keep."""

UI_COLOURS: Mapping[str, tuple[str, float]] = {
    "partner": (PARTNER, UI_MIN),
    "selection": (SELECTION, SELECTION_MIN),
    "search hit": (HIT, SELECTION_MIN),
    "mark": (MARK_BG, BACKGROUND_MIN),
    "background": (BACKGROUND, BACKGROUND_MIN),
}
"""Fixed colours of the screen and how far every type keeps from each."""

_LEVELS = (0, 95, 135, 175, 215, 255)
CANDIDATES: tuple[str, ...] = tuple(
    [f"#{r:02x}{g:02x}{b:02x}" for r in _LEVELS for g in _LEVELS for b in _LEVELS]
    + [f"#{v:02x}{v:02x}{v:02x}" for v in range(8, 248, 10)]
)
"""The xterm 256-colour palette's cube and grey ramp."""


@dataclass(frozen=True, slots=True)
class TypeColour:
    """What the assignment needs of an entity type."""

    name: str
    hint: str
    """The schema's colour (#rrggbb)."""
    parent: str | None = None
    keyed: bool = False


# -- colour science --------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def lab(color: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB ``#rrggbb``."""
    r, g, b = (_linear(int(color[i : i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    fx, fy, fz = _f(x), _f(y), _f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _f(t: float) -> float:
    return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """ΔE00 between two CIELAB colours (Sharma, Wu and Dalal 2005; kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    d_l, d_c = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh) / 2)
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if not c1p * c2p:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    d_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


@lru_cache(maxsize=65536)
def distance(a: str, b: str) -> float:
    """ΔE00 between two ``#rrggbb`` colours (memoised: the assignment asks the same pairs often)."""
    return ciede2000(lab(a), lab(b))


@lru_cache(maxsize=4096)
def standard(color: str) -> int:
    """The colour's number (0-15) on a 16-colour terminal, as Rich (and so Textual) downsamples it."""
    number = Color.parse(color).downgrade(ColorSystem.STANDARD).number
    assert number is not None
    return number


RESERVED_16 = frozenset({0, standard(PARTNER), standard(SELECTION), standard(MARK_BG)})
"""16-colour numbers no type may take: black (the background), the partner's, the selection's."""
FREE_16 = 16 - len(RESERVED_16)


# -- the assignment --------------------------------------------------------------------------------
def placement_order(types: Sequence[TypeColour]) -> list[TypeColour]:
    """Keyed types first, then top-level ones, then subtypes; schema order within each."""
    rank = {t.name: i for i, t in enumerate(types)}
    return sorted(types, key=lambda t: (0 if t.keyed else 1 if t.parent is None else 2, rank[t.name]))


def _place(order: Sequence[TypeColour], apart: float, fresh_16: bool) -> dict[str, str] | None:
    """Colours at least ``apart`` from each other (and the UI rules), or None. With ``fresh_16``,
    each type also takes a 16-colour number no other type has, while free ones are left."""
    taken: list[str] = []
    used = set(RESERVED_16)
    out: dict[str, str] = {}

    def fits(c: str, fresh: bool) -> bool:
        n = standard(c)
        if n in RESERVED_16 or (fresh and n in used):
            return False
        if any(distance(c, ui) < d for ui, d in UI_COLOURS.values()):
            return False
        return all(distance(c, t) >= apart for t in taken)

    for t in order:
        hint = t.hint.lower()
        choice = None
        for fresh in (True, False) if fresh_16 and len(used) < 16 else (False,):
            if fits(hint, fresh):
                choice = hint
                break
            good = [c for c in CANDIDATES if fits(c, fresh)]
            if good:
                choice = min(good, key=lambda c: distance(c, hint))
                break
            if fresh_16 and len(order) <= FREE_16:
                return None  # a small schema keeps every type apart in 16 colours, or tries lower
        if choice is None:
            return None
        out[t.name] = choice
        taken.append(choice)
        used.add(standard(choice))
    return out


def assign_colours(types: Sequence[TypeColour]) -> dict[str, str]:
    """Each type's colour under the rule above (the module's docstring): the largest distance of
    ``LADDER`` every type can keep; below the last step, the schema's colours as they are."""
    order = placement_order(types)
    for fresh_16 in (True, False):  # 16 colours of their own if any step allows it, else apart only
        for apart in LADDER:
            placed = _place(order, apart, fresh_16=fresh_16)
            if placed is not None:
                return placed
    return {t.name: t.hint.lower() for t in types}


@lru_cache(maxsize=64)
def _cached(types: tuple[TypeColour, ...]) -> dict[str, str]:
    return assign_colours(types)


def schema_types(schema: object) -> tuple[TypeColour, ...]:
    """The entity types of a schema (``guidelines.schema.Schema``) as the assignment reads them."""
    return tuple(
        TypeColour(e.name, e.color, e.parent, e.key is not None)
        for e in getattr(schema, "entities", ())  # type: ignore[attr-defined]
    )


def type_colours(schema: object) -> dict[str, str]:
    """Type → the colour the TUI shows it in (memoised per schema content)."""
    return dict(_cached(schema_types(schema)))


def faint(color: str, share: float = 0.35) -> str:
    """``color`` mixed into the screen background (``share`` of it): a band that reads as the
    colour's, well below a span's own."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    bg = [int(BACKGROUND[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = (round(share * c + (1 - share) * b) for c, b in zip(rgb, bg, strict=True))
    return "#" + "".join(f"{v:02x}" for v in mixed)


def min_distance(colours: Mapping[str, str]) -> float:
    """The smallest ΔE00 between two of ``colours`` (infinite for fewer than two)."""
    values = list(colours.values())
    return min(
        (distance(a, b) for i, a in enumerate(values) for b in values[i + 1 :]),
        default=math.inf,
    )
