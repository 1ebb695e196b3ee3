"""Shortest solutions of a game's levels by breadth-first search over its own step, a
batch of states at a time: how the games' reference solutions are found (and a check for
a new game's levels: a level with no solution within ``max_depth`` is reported)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import jax
import numpy as np

from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.types import GAME_OVER, Action, Arc3State

Triple = tuple[int, int, int]  # (action id, x, y)


def _keys(states: Arc3State, ignored: Sequence[str] = ()) -> list[bytes]:
    """What tells two states of one level apart: sprites, camera, memory (but the
    ``ignored`` variables), status."""
    memory = {name: value for name, value in states.memory.items() if name not in ignored}
    parts = [states.table, states.camera, memory, states.status]
    count = len(states.status)
    # Each leaf's bytes: memory may hold floats, which a cast to integers would merge.
    leaves = [np.ascontiguousarray(leaf).reshape(count, -1) for leaf in jax.tree.leaves(parts)]
    rows = np.concatenate([leaf.view(np.uint8).reshape(count, -1) for leaf in leaves], axis=1)
    # A digest per state: a level's sprite grids can make a state's bytes large.
    return [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in rows]


def _take(tree, index):
    return jax.tree.map(lambda leaf: np.asarray(leaf)[index], tree)


def _padded(count: int) -> int:
    """Batch sizes are powers of two, so that few sizes are compiled."""
    return 1 << max(count - 1, 0).bit_length()


Choices = Callable[[Arc3State], tuple[np.ndarray, np.ndarray]]
Keys = Callable[[Arc3State], list[bytes]]
Done = Callable[[Arc3State], np.ndarray]  # a batch of states -> which are the goal


def _fixed_choices(actions: Sequence[Triple]) -> Choices:
    """Every state of a batch with every one of ``actions``: ``(parents, triples)``."""
    triples = np.asarray(actions, np.int32).reshape(-1, 3)

    def choices(states):
        count = len(states.status)
        return np.repeat(np.arange(count), len(triples)), np.tile(triples, (count, 1))

    return choices


def _expand(game, frontier, choices: Choices, done: Done, seen, keys: Keys, batch):
    """One depth of the search: every state of ``frontier`` stepped by each of its
    choices. ``(solved, kept)``: ``solved`` the ``(parent, triple)`` of the first that
    is ``done``, else None; ``kept`` the new states not seen before nor lost,
    with their parents and triples."""
    parents, triples = choices(frontier)
    kept, kept_parents, kept_triples = [], [], []
    for start in range(0, len(parents), batch):
        parent, triple = parents[start : start + batch], triples[start : start + batch]
        size = _padded(len(parent))
        states = _take(frontier, np.resize(parent, size))
        chosen = np.resize(triple, (size, 3))
        # Only the states are kept: the last frame alone leaves them as every frame does.
        new, _, _ = env.batch_step(states, Action(*chosen.T), game, "last")
        new = _take(new, slice(len(parent)))
        solved = np.flatnonzero(np.asarray(done(new))[: len(parent)])
        if solved.size:
            first = int(solved[0])
            return (parent[first : first + 1], triple[first : first + 1]), None
        keep = []
        for i, key in enumerate(keys(new)):
            if key not in seen and new.status[i] != GAME_OVER:
                seen.add(key)
                keep.append(i)
        kept.append(_take(new, keep))
        kept_parents.append(parent[keep])
        kept_triples.append(triple[keep])
    states = jax.tree.map(lambda *leaves: np.concatenate(leaves), *kept)
    return None, (states, np.concatenate(kept_parents), np.concatenate(kept_triples))


def shortest_solution(
    game: Game,
    state: Arc3State,
    actions: Sequence[Triple] | Choices,
    max_depth: int = 80,
    ignored: Sequence[str] = (),
    batch: int = 4096,
    rank: Callable[[Arc3State], np.ndarray] | None = None,
    width: int = 1024,
    keys: Keys | None = None,
    done: Done | None = None,
) -> list[Triple]:
    """The fewest of ``actions`` that complete the level ``state`` is in (from one env's
    ``state``); ``ValueError`` when none does within ``max_depth``. ``actions`` are
    triples tried from every state, or a function of a batch of states giving
    ``(parents, triples)`` (choices that depend on the state: a click on a sprite where
    it lies now). States that differ only in the ``ignored`` memory variables (a budget
    counting down) count as one; ``keys`` (a batch of states -> a key each) tells states
    apart instead. At most ``batch`` states are stepped at a time (a game with large
    frames or sprite grids needs fewer). ``done`` (a batch of states -> a flag each)
    names another goal than the level's end: a step of a plan (a piece in its place).

    With ``rank`` (a batch of states -> a number each, lower is closer to done), the
    search is a beam search: each depth keeps only the ``width`` best-ranked states
    (ties in breadth-first order), for levels too deep to search whole; the run found is
    then short, not the shortest. Either way the run is the actions that reached its
    state: merging states by their keys prunes the search, never makes a run false."""
    score = int(state.score)
    done = done or (lambda states: np.asarray(states.score) > score)
    frontier = _take(state, None)
    keys = keys or (lambda states: _keys(states, ignored))
    seen = set(keys(frontier))
    trail: list[tuple[np.ndarray, np.ndarray]] = []  # per depth: (parent, triple) of each
    choices = actions if callable(actions) else _fixed_choices(actions)
    for _ in range(max_depth):
        solved, kept = _expand(game, frontier, choices, done, seen, keys, batch)
        if solved is not None:
            trail.append(solved)
            return _path(trail)
        assert kept is not None  # _expand returns one of the two
        frontier, parents, triples = kept
        if not len(parents):
            break
        if rank is not None and len(parents) > width:
            best = np.argsort(np.asarray(rank(frontier)), kind="stable")[:width]
            frontier, parents, triples = _take(frontier, best), parents[best], triples[best]
        trail.append((parents, triples))
    raise ValueError(
        f"game {game.name!r}, level {int(state.level)}: no solution within {max_depth} actions"
    )


def _path(trail) -> list[Triple]:
    path, last = [], 0
    for parent, triple in reversed(trail):
        path.append(tuple(int(v) for v in triple[last]))
        last = int(parent[last])
    return path[::-1]


def solve_game(
    game: Game,
    actions: Sequence[Triple],
    max_depth: int = 80,
    ignored: Sequence[str] = (),
    batch: int = 4096,
) -> list[list[Triple]]:
    """A shortest solution of every level, each played from the end of the one before."""
    state, _ = env.reset(game)
    solutions = []
    for _ in game.levels:
        moves = shortest_solution(game, state, actions, max_depth, ignored, batch)
        for triple in moves:
            state, _, _ = env.step(state, Action(*triple), game)
        solutions.append(moves)
    return solutions
