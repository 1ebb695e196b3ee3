"""Levels drawn as text maps: one character per world cell, ``#`` for walls."""

from __future__ import annotations

from gridax.envs.arc3.engine.sprites import Sprite


def cells(rows: tuple[str, ...], symbols: str) -> list[tuple[str, int, int]]:
    """``(symbol, x, y)`` of every cell holding one of ``symbols``, row by row."""
    return [
        (symbol, x, y)
        for y, row in enumerate(rows)
        for x, symbol in enumerate(row)
        if symbol in symbols
    ]


def wall(rows: tuple[str, ...], colour: int, kind: str = "wall", symbol: str = "#") -> Sprite:
    """All the map's ``symbol`` cells as one pixel-perfect sprite at the origin."""
    pixels = tuple(tuple(colour if cell == symbol else -1 for cell in row) for row in rows)
    return Sprite(pixels, kind)


def dots(
    rows: tuple[str, ...],
    kinds: dict[str, str],
    colours: dict[str, int],
    layers: dict[str, int],
    collidable: bool = True,
) -> list[Sprite]:
    """One 1x1 sprite per cell whose symbol is in ``kinds`` (symbol -> kind), row by row,
    coloured and layered by kind; ``collidable=False`` for markers that do not block."""
    return [
        Sprite(
            ((colours[kinds[s]],),),
            kinds[s],
            x=x,
            y=y,
            layer=layers[kinds[s]],
            collidable=collidable,
        )
        for s, x, y in cells(rows, "".join(kinds))
    ]


def size(rows: tuple[str, ...]) -> tuple[int, int]:
    """``(width, height)`` of a map (every row as long as the first)."""
    if any(len(row) != len(rows[0]) for row in rows):
        raise ValueError(f"map rows differ in length: {[len(row) for row in rows]}")
    return len(rows[0]), len(rows)


def actions(solutions: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    """Solutions written as strings of action digits (``"4412"``), as ``Game`` takes them."""
    return tuple(tuple(int(a) for a in moves) for moves in solutions)
