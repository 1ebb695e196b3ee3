"""Every game, frame for frame, against its reference written on ARC Prize's engine
(``tests/envs/arc3/arcengine/games.py``): recorded traces
(tests/fixtures/arc3/<game>_trace.json.gz) always, fresh ones live where arcengine is
installed (``make arc3-parity``)."""

from __future__ import annotations

import dataclasses
import gzip
import json

import jax
import numpy as np
import pytest

from gridax.dispatch import per_config
from gridax.envs.arc3 import env, games
from gridax.envs.arc3.engine.game import to_json
from gridax.envs.arc3.engine.levels import bank_of
from gridax.envs.arc3.engine.painting import DRAWN_FIELDS
from gridax.envs.arc3.engine.types import STATUS_NAMES, UNDO, Action
from gridax.envs.arc3.games import GAMES
from gridax.envs.arc3.tools import official
from tests.tools.arc3_sample import INVENTED, last_sampled, sampled_episodes
from tests.tools.record_traces import (
    OFFICIAL_GAMES,
    ask_official,
    ask_reference,
    official_episodes,
    random_episodes,
    trace_path,
)

from .test_engine import arcengine_python, hex_frame

RECORD = "python tests/tools/record_traces.py PYTHON_WITH_ARCENGINE"


LAST_EVERY = 4  # frames="last" is held against every 4th action of a trace (test time)


def replay(game, episodes: list, where: str, start_levels=None, last=True) -> None:
    """Each episode stepped with every frame drawn, held against the record, and (with
    ``last``, every ``LAST_EVERY``-th action) with the last frame alone
    (``frames="last"``), held against the first: the same state and the last frame."""
    for number, episode in enumerate(episodes):
        state, _ = env.reset(game, start_levels[number] if start_levels else 0)
        for t, record in enumerate(episode):
            action = Action(*record["action"])
            before = state
            state, frames, info = env.step(state, action, game)
            frames = np.asarray(frames)
            at = f"{where}, episode {number}, action {t} ({record['action']})"
            if last and t % LAST_EVERY == 0:
                last_state, drawn, _ = env.step(before, action, game, frames="last")
                np.testing.assert_array_equal(drawn[0], frames[-1], err_msg=f"{at}: last frame")
                leaves = zip(jax.tree.leaves(state), jax.tree.leaves(last_state), strict=True)
                for a, b in leaves:
                    np.testing.assert_array_equal(a, b, err_msg=f"{at}: the last frame's state")
            count = int(info["frame_count"])
            assert count == len(record["frames"]), f"{at}: frame count"
            for k, expected in enumerate(record["frames"]):
                np.testing.assert_array_equal(
                    frames[k], hex_frame(expected), err_msg=f"{at}: frame {k}"
                )
            assert STATUS_NAMES[int(info["status"])] == record["state"], at
            assert int(info["levels_completed"]) == record["levels_completed"], at
            assert int(info["level"]) == record["level"], at
            assert bool(info["full_reset"]) == record["full_reset"], at
            one_env = jax.tree.map(lambda x: np.asarray(x)[None], state)  # on the host
            assert_static_slots_unchanged(game, one_env, at)


PORTED = sorted(module.GAME.name for module in games.PORTED)
# The agents' path (frames="last": alone in the replays, and batched) is held on a sample
# of games in make test, among them two whose animations end in one call (Game.finish),
# and on every game in make arc3-parity (tests/tools/arc3_sample.py).
LAST_SAMPLE = [name for name in sorted(GAMES) if last_sampled(name)]


@pytest.mark.parametrize("name", INVENTED)
def test_recorded_traces(name):
    game = GAMES[name]
    recorded = json.loads(gzip.decompress(trace_path(name).read_bytes()))
    assert recorded["levels"] == json.loads(json.dumps(to_json(game))), (
        f"{name}'s levels changed since its trace was recorded: record it again ({RECORD})"
    )
    replay(game, recorded["episodes"], f"recorded {name}")
    # The last episode plays every level's solution: the reference wins, then resets.
    solved = recorded["episodes"][-1]
    assert solved[-3]["state"] == "WIN" and solved[-3]["levels_completed"] == len(game.levels)
    assert solved[-2]["frames"] == [] and solved[-1]["full_reset"]


@pytest.mark.parametrize("name", INVENTED)
def test_live_traces(name):
    game = GAMES[name]
    answer = ask_reference(arcengine_python(), game, random_episodes(game, seed=1, count=40))
    replay(game, answer, f"live {name} (seed 1)", last=False)  # the recorded ones check it


@pytest.mark.parametrize("name", PORTED)
def test_recorded_official_traces(name):
    """A port of a real game against ARC Prize's own file: from every level, random play
    (clicks on sprites and off them, RESETs, undo where offered), the scripted episodes
    and the winning run (in ``make test`` a sample: ``arc3_sample.sampled_episodes``)."""
    game = GAMES[name]
    recorded = json.loads(gzip.decompress(trace_path(name).read_bytes()))
    assert recorded["source_sha256"] == official.load(name).source_sha256, (
        f"{name}'s data was extracted from another file than its trace: record it again ({RECORD})"
    )
    assert recorded["start_levels"][: len(game.levels)] == list(range(len(game.levels)))
    undo = UNDO in game.available_actions
    chosen = sampled_episodes(recorded["episodes"], len(game.levels), undo)
    starts = [recorded["start_levels"][number] for number, _ in chosen]
    episodes = [episode for _, episode in chosen]
    replay(game, episodes, f"recorded {name}", starts, last=name in LAST_SAMPLE)
    solved = recorded["episodes"][-1]
    assert solved[-3]["state"] == "WIN" and solved[-3]["levels_completed"] == len(game.levels)


@pytest.mark.parametrize("name", PORTED)
def test_live_official_traces(name):
    game = GAMES[name]
    python = arcengine_python()
    if not (OFFICIAL_GAMES / name).is_dir():
        pytest.skip(f"ARC Prize's game files are not at {OFFICIAL_GAMES} (GRIDAX_ARC3_REFERENCE)")
    episodes = official_episodes(game, seed=1, count=40)
    answer = ask_official(python, game, episodes)
    starts = [e["start_level"] for e in episodes]
    replay(game, answer, f"live {name} (seed 1)", starts, last=False)  # the recorded check it


def test_batch_step_equals_single_steps():
    game = GAMES["Keys"]
    actions = np.random.default_rng(0).integers(0, 5, (12, 4))
    states, _ = env.batch_reset(4, game)
    singles = [env.reset(game)[0] for _ in range(4)]
    for row in actions:
        zeros = np.zeros_like(row)
        states, frames, _ = env.batch_step(states, Action(row, zeros, zeros), game)
        for i in range(4):
            singles[i], single_frames, _ = env.step(singles[i], Action(row[i]), game)
            np.testing.assert_array_equal(frames[i], single_frames)
    for i, single in enumerate(singles):
        batched = jax.tree.leaves(jax.tree.map(lambda x, i=i: x[i], states))
        for a, b in zip(batched, jax.tree.leaves(single), strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", LAST_SAMPLE)
def test_a_batch_steps_as_its_envs_one_by_one(name):
    """16 envs stepped together for 40 steps of random actions (the benchmark's mix,
    clicks anywhere, and 10 % actions no game offers), as an agent steps them
    (``frames="last"``), equal each env stepped alone: the batch's own paths (levels
    loaded, animations run and frames painted the slow way for a few envs at a time)
    change nothing. An env that made no frame shows its last one again, and every
    game's static slots stay as their level started."""
    from gridax.bench.arc3 import draw_actions

    game = GAMES[name]
    states, shown = env.batch_reset(16, game)
    singles = {i: env.reset(game) for i in range(0, 16, 3)}  # a few envs, alone: (state, frame)
    actions = draw_actions(game, 40, 16, seed=3)
    unoffered = np.random.default_rng(3).random(actions.id.shape) < 0.1
    actions = dataclasses.replace(actions, id=np.where(unoffered, -1, actions.id))
    # Traced, so that actions no game offers are flagged no-ops.
    batch_step = jax.jit(lambda s, a: env.batch_step(s, a, game, "last"))
    for t in range(40):
        step_actions = jax.tree.map(lambda leaf, t=t: leaf[t], actions)
        states, frames, info = batch_step(states, step_actions)
        at = f"{name}, step {t}"
        for i in singles:
            one = jax.tree.map(lambda leaf, i=i: int(leaf[i]), step_actions)
            if one.id >= 0:  # a concrete action no game offers is an error, alone
                single, drawn, _ = env.step(singles[i][0], one, game, "last")
                singles[i] = (single, drawn[-1])
            np.testing.assert_array_equal(frames[i], singles[i][1][None], err_msg=at)
        idle = np.asarray(info["frame_count"]) == 0  # made no frame: shows the last again
        np.testing.assert_array_equal(frames[idle, 0], shown[idle], err_msg=at)
        shown = frames[:, -1]
        assert_static_slots_unchanged(game, states, at)


REPAINTED_FIELDS = ("pixels", "height", "width")


@per_config  # by identity first: hashing a game walks all its levels
def _levels_on_host(game):
    """The drawn fields of ``game``'s levels as they start, ``[L, N, ...]``, which of
    their slots move and which keep their pixels in the level bank (the rule never
    repaints them), ``[L, N]``, as NumPy arrays (read once per game)."""
    bank = bank_of(game)
    moving = np.zeros(np.shape(bank.table.x), bool)
    for number, slots in enumerate(np.asarray(bank.backdrop.moving)):
        moving[number, slots[slots >= 0]] = True
    held = np.zeros_like(moving) if bank.static is None else np.asarray(bank.static)
    fields = {name: np.asarray(getattr(bank.table, name)) for name in (*DRAWN_FIELDS, "pixels")}
    return fields, moving, held


def assert_static_slots_unchanged(game, states, where: str) -> None:
    """Every slot ``Game.static_kinds`` declares static is as its level started, and
    every slot whose pixels the level bank holds (``Game.held_kinds``) keeps them."""
    fields, moving, held = _levels_on_host(game)
    level = np.asarray(states.level)
    for name, starts in fields.items():
        now = np.asarray(getattr(states.table, name))
        differs = (now != starts[level]).reshape(now.shape[0], now.shape[1], -1).any(axis=-1)
        wrong = differs & ~moving[level]
        if name in REPAINTED_FIELDS:
            wrong = wrong | (differs & held[level])
        assert not wrong.any(), (
            f"{where}: {name} of static or unrepainted slots {np.argwhere(wrong).tolist()} "
            "(env, slot) changed"
        )


def test_undo_restores_the_level_before_the_last_actions():
    """Keys with ACTION7 and a stack of 2: undo pops snapshots (sprites, memory), counts as
    an action, does nothing on an empty stack, and a RESET clears the stack."""
    game = dataclasses.replace(
        GAMES["Keys"], name="KeysUndo", available_actions=(1, 2, 3, 4, 7), undo_depth=2
    )
    state, start = env.reset(game)
    seen = [start]
    for action in (4, 4, 4):  # right, onto the key on the third move
        state, frames, _ = env.step(state, Action(action), game)
        seen.append(frames[0])
    assert int(state.memory["keys_held"]) == 1
    for back in (2, 1):  # two snapshots kept: back to after the first move, no further
        state, frames, info = env.step(state, Action(7), game)
        np.testing.assert_array_equal(frames[0], seen[back])
        assert int(info["frame_count"]) == 1
    assert int(state.memory["keys_held"]) == 0 and int(state.action_count) == 5
    state, frames, _ = env.step(state, Action(7), game)  # empty stack: nothing changes
    np.testing.assert_array_equal(frames[0], seen[1])
    state, _, _ = env.step(state, Action(0), game)  # level reset clears the stack
    assert int(state.history_size) == 0


def test_a_game_first_met_inside_a_jit():
    """The per-game bundle (its level bank) may be built inside a caller's trace: it must
    hold constants, not that trace's tracers, or the next call fails."""
    game = dataclasses.replace(GAMES["Keys"], name="KeysInsideJit")
    state, _ = env.reset(GAMES["Keys"])  # same shapes, another game: nothing built yet
    jitted = jax.jit(lambda s: env.step(s, Action(2), game)[0])
    jax.block_until_ready(jitted(state))
    state, frames, _ = env.step(state, Action(2), game)  # outside: reuses the bundle
    assert frames.shape == (game.max_frames, 64, 64)
