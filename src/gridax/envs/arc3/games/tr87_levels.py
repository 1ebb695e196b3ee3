"""tr87's levels: ARC Prize's level data (``rules.official.load("tr87")``) as the
original's ``on_set_level`` leaves it, computed once in plain Python: each symbol turned
a random quarter and the answer's symbols (or the rules' sides) turned on by random
variants, with Python's ``random`` seeded as the original seeds it; the rules, rows and
selectable sets found as the original finds them (``games/tr87.py`` describes the game).
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np

from gridax.envs.arc3 import rules
from gridax.envs.arc3.rules import Level

DATA = rules.official.load("tr87")
TAGS = DATA.tags
SYMBOL, MARKER = TAGS.index("nxkictbbvzt"), TAGS.index("tjaqvwdgkxe")
SYMBOL_PREFIX, ARROW, BACKGROUND = "nxkictbbvzt", "iqrduxrukrk", "background"
FRAME = "nxkictbbvztedxeenecwqa"  # the 9x9 frame of a rule's symbol while it plays
CURSOR = "qvtymdcqear"  # + the number of symbols it spans (1-3)
FAMILIES, VARIANTS = "ABC", 7
STRIDE = 7  # cells between neighbouring symbols of a side or row
CURSOR_GAP = 4  # cells between the cursor's bars and the symbol
# From a symbol's top row to its cursor's lower bar: the symbol's 5 rows less the bar's
# 2, and the gap (the original's arithmetic).
LOWER_BAR = 5 - 2 + CURSOR_GAP
SETUP_SEEDS = (4, 2, 1, 2, 12, 20)
VARIANT_SEEDS = (7, 7, 32, 18, 23, 11)
# The pixel grids the state holds, (height, width): the catalogue's tallest and widest
# (its sprites are 9 rows at most, its bars up to 19 wide: a square grid held twice the
# bytes, benchmarks/RESULTS.md).
_TALLEST, _WIDEST = np.max([np.shape(s.pixels) for s in DATA.catalogue.values()], 0)
PIXELS = (int(_TALLEST), int(_WIDEST))


def symbol_code(kind: str) -> int:
    """A symbol's code, ``family * 7 + variant`` (variant 0-6 for digits 1-7)."""
    return FAMILIES.index(kind[len(SYMBOL_PREFIX)]) * VARIANTS + int(kind[-1]) - 1


def symbol_kind(code: int) -> str:
    return f"{SYMBOL_PREFIX}{FAMILIES[code // VARIANTS]}{code % VARIANTS + 1}"


# --- the levels: the original's setup, computed once ----------------------------------


@dataclasses.dataclass
class _Setup:
    """One level as the original's ``on_set_level`` leaves it, by sprite index."""

    sprites: list  # the level's sprites, changed in place
    order: list  # arcengine's list order (a symbol turned on is added again, last)
    top: list
    answer: list
    rules: list  # (left side, right side) per arrow
    code: dict  # symbol index -> code


def _symbol_at(sprites, order, x, y, tag=SYMBOL):
    """arcengine's ``get_sprite_at(x, y, tag)`` over the level's sprites (highest layer
    first, list order among equals; symbols block by their box, markers are 1x1)."""
    tag_name = TAGS[tag]
    for i in sorted(order, key=lambda i: -sprites[i].layer):
        s = sprites[i]
        height, width = s.drawn_shape
        inside = s.x <= x < s.x + width and s.y <= y < s.y + height
        if s.collidable and inside and tag_name in s.tags:
            return i
    return None


def _setup(number: int) -> _Setup:
    data = DATA.levels[number]
    sprites = list(data.sprites)
    turns = random.Random(SETUP_SEEDS[number])
    by_place = sorted(
        (i for i, s in enumerate(sprites) if TAGS[SYMBOL] in s.tags),
        key=lambda i: (sprites[i].y, sprites[i].x),
    )
    for i in by_place:
        sprites[i] = dataclasses.replace(
            sprites[i],
            blocking=rules.Blocking.BOUNDING_BOX,
            rotation=turns.choice([0, 90, 180, 270]),
        )
    edge = next(s.y for s in sprites if s.kind == BACKGROUND)
    below = [i for i in by_place if sprites[i].y > edge]
    top_y = min(sprites[i].y for i in below)
    top = [i for i in below if sprites[i].y == top_y]
    answer = [i for i in below if sprites[i].y != top_y]
    order = list(range(len(sprites)))

    def neighbour(i, step):
        s = sprites[i]
        return next(
            (j for j in by_place if sprites[j].x == s.x + step * STRIDE and sprites[j].y == s.y),
            None,
        )

    sides = []
    arrows = [s for s in sprites if s.kind == ARROW]
    for arrow in sorted(arrows, key=lambda s: (s.y, s.x)):
        left = [_symbol_at(sprites, order, arrow.x, arrow.y)]
        while (j := neighbour(left[0], -1)) is not None:
            left.insert(0, j)
        right = [_symbol_at(sprites, order, arrow.x + arrow.drawn_shape[1], arrow.y)]
        while (j := neighbour(right[-1], 1)) is not None:
            right.append(j)
        sides.append((left, right))
    code = {i: symbol_code(sprites[i].kind) for i in by_place}

    def turn_on(i):
        code[i] = code[i] // VARIANTS * VARIANTS + (code[i] + 1) % VARIANTS
        sprites[i] = dataclasses.replace(
            sprites[i], kind=symbol_kind(code[i]), pixels=_pixels(code[i])
        )
        order.remove(i)
        order.append(i)

    offsets = random.Random(VARIANT_SEEDS[number])
    if data.data.get("alter_rules"):
        for side in (side for rule in sides for side in rule):
            steps = offsets.randint(0, VARIANTS - 1)
            for i in side:
                for _ in range(steps):
                    turn_on(i)
    else:
        for i in answer:
            for _ in range(offsets.randint(0, VARIANTS - 1)):
                turn_on(i)
    for i, s in enumerate(sprites):
        if TAGS[MARKER] in s.tags:
            sprites[i] = dataclasses.replace(s, visible=False)
    return _Setup(sprites, order, top, answer, sides, code)


def _pixels(code: int) -> tuple:
    return DATA.catalogue[symbol_kind(code)].pixels


def _translation(setup: _Setup, number: int):
    """Each rule as the check uses it on a level whose rules do not change (all but
    the tree level): ``(usable, match, consumed, result, framed)``: the left side the
    top row must match, how many top-row symbols it consumes, the symbols the answer
    must match, and the rule symbols framed while it plays. On the double level a rule
    marked ``...1`` takes its partner's sides after its own, one marked ``...2`` is not
    used alone, and the result is the right side of the first rule whose (so extended)
    left side it matches."""
    data, sprites = DATA.levels[number].data, setup.sprites

    def extended(left, right):
        marker = _symbol_at(sprites, setup.order, sprites[left[0]].x, sprites[left[0]].y, MARKER)
        if marker is None:
            return left, right, True
        name = sprites[marker].kind
        if name.endswith("2"):
            return [], [], False
        partner = next(s for s in sprites if s.kind == name.replace("1", "2"))
        first = _symbol_at(sprites, setup.order, partner.x, partner.y)
        more_left, more_right = next(rule for rule in setup.rules if rule[0][0] == first)
        return left + more_left, right + more_right, True

    names = setup.code
    translated = []
    for left, right in setup.rules:
        if not data.get("double_translation") or data.get("tree_translation"):
            translated.append((True, left, len(left), right, left + right))
            continue
        long_left, long_right, usable = extended(left, right)
        result = None
        for other_left, other_right in setup.rules:
            other_left, other_right, other_usable = extended(other_left, other_right)
            if other_usable and all(
                names[a] == names[b] for a, b in zip(long_right, other_left, strict=False)
            ):
                result = (other_right, long_right + other_left)
                break
        if not usable or result is None:
            translated.append((False, left, 0, [], []))
        else:
            translated.append(
                (True, left, len(long_left), result[0], long_left + result[0] + result[1])
            )
    return translated


SETUPS = tuple(_setup(n) for n in range(len(DATA.levels)))
TRANSLATIONS = tuple(_translation(setup, n) for n, setup in enumerate(SETUPS))
SIDE = max(len(side) for s in SETUPS for rule in s.rules for side in rule)  # <= 3
NUM_RULES = max(len(s.rules) for s in SETUPS)
ROW = max(len(s.top) for s in SETUPS)  # the most pairs a solution plays
ANSWER = max(len(s.answer) for s in SETUPS)
RESULT = max(SIDE * SIDE, max(len(t[3]) for ts in TRANSLATIONS for t in ts))
SETS = NUM_RULES * 2 + ANSWER  # room for either kind of selection


def _framed(setup: _Setup) -> list:
    """The rule symbols a frame can surround, in rule order."""
    seen = []
    for i in (i for rule in setup.rules for side in rule for i in side):
        if i not in seen:
            seen.append(i)
    return seen


NUM_SLOTS = max(len(s.sprites) + 2 + len(_framed(s)) for s in SETUPS)


def _padded(values, length, fill=-1) -> list:
    return list(values) + [fill] * (length - len(values))


def _table(rows, width: int, height: int) -> list:
    """Lists of slots as a ``[height, width]`` table padded with -1."""
    return [_padded(row, width) for row in rows] + [[-1] * width] * (height - len(rows))


def _level(number: int) -> Level:
    setup = SETUPS[number]
    data = DATA.levels[number].data
    alter = bool(data.get("alter_rules"))
    sprites = [setup.sprites[i] for i in setup.order]
    slot = {i: n for n, i in enumerate(setup.order)}  # sprite index -> slot

    def slots(indices):
        return [slot[i] for i in indices]

    sets = [side for rule in setup.rules for side in rule] if alter else [[i] for i in setup.answer]
    first = setup.sprites[sets[0][0]]
    bars = DATA.catalogue[f"{CURSOR}{len(sets[0])}"]
    cursor = [
        dataclasses.replace(bars, x=first.x, y=first.y - CURSOR_GAP),
        dataclasses.replace(bars, x=first.x, y=first.y + LOWER_BAR, rotation=180),
    ]
    framed = _framed(setup)
    frames = [
        dataclasses.replace(
            DATA.catalogue[FRAME], x=setup.sprites[i].x - 2, y=setup.sprites[i].y - 2
        )
        for i in framed
    ]
    frame_of = _padded([], len(sprites) + 2) + slots(framed)
    code = [-1] * NUM_SLOTS
    for i, c in setup.code.items():
        code[slot[i]] = c
    translated = TRANSLATIONS[number]
    lit = np.zeros((NUM_RULES, NUM_SLOTS), bool)
    for r, (_, _, _, _, shown) in enumerate(translated):
        lit[r, slots(shown)] = True
    memory = {
        "moves": 128 if number <= 4 else 256,
        "moves_left": 128 if number <= 4 else 256,
        "code": code,
        "sets": _table([slots(s) for s in sets], SIDE, SETS),
        "num_sets": len(sets),
        "cursor": [len(sprites), len(sprites) + 1],
        "frame_of": _padded(frame_of, NUM_SLOTS),
        "top": _padded(slots(setup.top), ROW),
        "num_top": len(setup.top),
        "answer": _padded(slots(setup.answer), ANSWER),
        "num_answer": len(setup.answer),
        "left": _table([slots(left) for left, _ in setup.rules], SIDE, NUM_RULES),
        "right": _table([slots(right) for _, right in setup.rules], SIDE, NUM_RULES),
        "usable": _padded([t[0] for t in translated], NUM_RULES, False),
        "consumed": _padded([t[2] for t in translated], NUM_RULES, 0),
        "result": _table([slots(t[3]) for t in translated], RESULT, NUM_RULES),
        "lit": lit.tolist(),
        "tree": bool(data.get("tree_translation")),
    }
    return Level(
        tuple(sprites + cursor + frames),
        DATA.levels[number].grid_size,
        memory,
        DATA.levels[number].name,
    )


LEVELS = tuple(_level(n) for n in range(len(DATA.levels)))
