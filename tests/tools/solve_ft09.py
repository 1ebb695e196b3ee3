"""Finds ft09's winning runs (``games/ft09.py``'s SOLUTIONS): the fewest clicks that
satisfy every goal of each level.

A tile's colour is its starting colour moved on, around the level's cycle of k colours
(k = 2 or 3, both prime), once per click that changes it, so a run is described by how
many times each tile is clicked, modulo k: every goal check is a linear equation over
Z_k ("this tile shows colour c"), or, for "must not show c", one of k - 1 such equations.
Each choice among those is solved by Gaussian elimination; the lightest solution over
the choices and the null space wins.

    python tests/tools/solve_ft09.py
"""

from __future__ import annotations

import itertools

import numpy as np

from gridax.envs.arc3.games import ft09


def solve_mod(matrix: np.ndarray, rhs: np.ndarray, k: int) -> np.ndarray | None:
    """The lightest ``x`` in Z_k with ``matrix @ x == rhs`` (mod k), or None."""
    m, b = matrix % k, rhs % k
    n, rank, pivots = m.shape[1], 0, []
    for column in range(n):
        row = next((i for i in range(rank, len(m)) if m[i, column]), None)
        if row is None:
            continue
        m[[rank, row]], b[[rank, row]] = m[[row, rank]], b[[row, rank]]
        inverse = pow(int(m[rank, column]), -1, k)
        m[rank], b[rank] = m[rank] * inverse % k, b[rank] * inverse % k
        for i in range(len(m)):
            if i != rank and m[i, column]:
                factor = m[i, column]
                m[i], b[i] = (m[i] - factor * m[rank]) % k, (b[i] - factor * b[rank]) % k
        pivots.append(column)
        rank += 1
    if b[rank:].any():
        return None
    free = [c for c in range(n) if c not in pivots and m[:rank, c].any()]
    best = None
    for values in itertools.product(range(k), repeat=len(free)):
        x = np.zeros(n, int)
        x[free] = values
        for i, column in enumerate(pivots):
            x[column] = (b[i] - m[i] @ x) % k
        if best is None or x.sum() < best.sum():
            best = x
    return best


def solve(level: int) -> list[tuple[int, int, int]]:
    """The clicks of a lightest winning run of ``level``."""
    sprites, cycle = ft09.STARTS[level], ft09.OFFICIAL.levels[level].data["cwU"]
    flips, k = ft09.FLIPS[level], len(cycle)
    tiles = [i for i in range(len(sprites)) if (flips[i] >= 0).any()]
    effect = np.zeros((len(sprites), len(tiles)), int)  # tile t changes per click of j
    for j, tile in enumerate(tiles):
        for changed in flips[tile][flips[tile] >= 0]:
            effect[changed, j] += 1
    checks = [c for c in ft09.GOAL_CHECKS[level] if c[0] >= 0]
    wanted = []  # per check, the colour indices the tile may end on
    for _, colour, same in checks:
        target = cycle.index(colour) if colour in cycle else None
        wanted.append([target] if same else [v for v in range(k) if v != target])
    best = None
    for choice in itertools.product(*wanted):
        if None in choice:
            continue
        rows = [effect[tile] for tile, _, _ in checks]
        rhs = [
            v - cycle.index(sprites[tile].pixels[1][1])
            for (tile, _, _), v in zip(checks, choice, strict=True)
        ]
        x = solve_mod(np.array(rows), np.array(rhs), k)
        if x is not None and (best is None or x.sum() < best.sum()):
            best = x
    assert best is not None, f"level {level} has no solution"
    return [
        ft09.tile_click(sprites[tile].x, sprites[tile].y)
        for tile, times in zip(tiles, best, strict=True)
        for _ in range(times)
    ]


if __name__ == "__main__":
    for level in range(len(ft09.OFFICIAL.levels)):
        print(f"    {tuple(solve(level))},")
