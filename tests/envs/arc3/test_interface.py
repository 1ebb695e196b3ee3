"""ARC-AGI-3 games behind gridax.Env: ids, rewards and episode ends, scoring, the gymnax
adapter, AutoReset with EpisodeMetrics, strict mode, pictures."""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.envs import arc3
from gridax.envs.arc3.games import GAMES
from gridax.wrappers import AutoReset, EpisodeMetrics, GymnaxEnv
from tests.tools.record_traces import as_triples


def actions_of(triples) -> arc3.Action:
    return arc3.Action(*np.asarray(triples, np.int32).T)


def play(env, triples):
    state, _ = env.reset(jax.random.key(0))
    rewards, dones, infos = [], [], []
    for triple in triples:
        state, _, reward, done, info = env.step(state, arc3.Action(*triple))
        rewards.append(float(reward))
        dones.append(bool(done))
        infos.append(info)
    return state, rewards, dones, infos


def test_every_game_is_registered_with_its_spaces():
    ids = [i for i in gridax.registered_ids() if i.startswith("Arc3-")]
    assert ids == [f"Arc3-{name}-v0" for name in GAMES]
    env = gridax.make("Arc3-Lights-v0")
    assert env.observation_space.shape == (64, 64) and env.observation_space.dtype == jnp.int8
    assert set(env.action_space.spaces) == {"id", "x", "y"}
    assert np.flatnonzero(env.available_actions).tolist() == [0, 6]


def test_the_solution_wins_with_full_efficiency_and_the_episode_is_absorbing():
    env = gridax.make("Arc3-Keys-v0")
    solution = [a for moves in env.game.solutions for a in as_triples(moves)]
    state, rewards, dones, infos = play(env, solution + [[1, 0, 0], [0, 0, 0]])
    assert sum(rewards) == len(env.game.levels) and dones[len(solution) - 1]
    assert not any(dones[: len(solution) - 1]) and rewards[-2:] == [0.0, 0.0]
    assert int(state.game_state.status) == arc3.WIN and int(state.steps) == len(solution)
    # The RESET after the end changed nothing, and its info says so.
    assert int(infos[-1]["status"]) == arc3.WIN and not bool(infos[-1]["full_reset"])
    metrics = env.episode_metrics(infos[len(solution) - 1], jnp.int32(len(solution)))
    assert metrics["level_actions"].tolist() == env.reference_actions().tolist()
    assert float(metrics["efficiency"]) == 1.0 and bool(metrics["won"])


def test_efficiency_is_the_mean_of_squared_action_ratios_over_levels():
    """Level 0 solved in twice the reference's 2 actions (a step up and back first),
    levels 1 and 2 not solved: (2/4)**2 / 3 levels."""
    env = gridax.make("Arc3-Push-v0")
    reference = env.reference_actions()
    assert int(reference[0]) == 2
    wasted = [[1, 0, 0], [2, 0, 0]]
    _, _, _, infos = play(env, wasted + as_triples(env.game.solutions[0]) + [[2, 0, 0]])
    metrics = env.episode_metrics(infos[-1], jnp.int32(len(infos)))
    assert int(metrics["levels_completed"]) == 1
    assert metrics["level_actions"].tolist() == [2 * int(reference[0]), 1, 0]
    np.testing.assert_allclose(float(metrics["efficiency"]), 0.25 / 3)


def test_a_lost_game_terminates_and_a_long_one_is_truncated():
    lights = gridax.make("Arc3-Lights-v0")
    budget = int(lights.game.level_memory(0)["moves_left"])
    _, _, dones, infos = play(lights, [[6, 0, 63]] * budget)  # clicks on no cell
    assert dones[-1] and not any(dones[:-1]) and bool(infos[-1]["terminated"])
    assert arc3.STATUS_NAMES[int(infos[-1]["status"])] == "GAME_OVER"
    keys = gridax.make("Arc3-Keys-v0", max_episode_steps=3)
    _, _, dones, infos = play(keys, [[1, 0, 0]] * 3)
    assert dones == [False, False, True] and bool(infos[-1]["truncated"])


def test_gymnax_adapter_with_flat_actions():
    env = GymnaxEnv(gridax.make("Arc3-Keys-v0"))
    params = env.default_params
    obs, state = env.reset(jax.random.key(0), params)
    assert obs.shape == (64, 64)
    assert env.action_space(params).n == 8 * 64 * 64
    down = 2 * 64 * 64  # id 2 (ACTION2), x 0, y 0
    step = jax.jit(env.step)
    obs2, state, reward, terminated, truncated, _ = step(jax.random.key(1), state, down, params)
    assert not np.array_equal(obs, obs2) and float(reward) == 0.0 and not bool(terminated)


def test_auto_reset_and_episode_metrics_report_the_finished_game():
    env = gridax.make("Arc3-Push-v0")
    solution = [a for moves in env.game.solutions for a in as_triples(moves)]
    runner = EpisodeMetrics(AutoReset(env))
    state, _ = runner.reset(jax.random.key(0), 2)
    step = jax.jit(runner.step)
    for triple in solution:
        state, _, _, done, info = step(state, actions_of([triple, [1, 0, 0]]))
    assert done.tolist() == [True, False]
    assert info["returned_episode_efficiency"].tolist() == [1.0, 0.0]
    assert info["returned_episode_level_actions"][0].tolist() == env.reference_actions().tolist()
    assert info["returned_episode_returns"].tolist() == [3.0, 0.0]
    games = state.inner.env_state.game_state
    assert games.level.tolist() == [0, 0] and int(games.status[0]) == arc3.NOT_PLAYED


def test_strict_mode_names_the_bad_action():
    env = gridax.make("Arc3-Keys-v0", strict=True)
    state, _ = env.reset(jax.random.key(0))
    with pytest.raises(eqx.EquinoxRuntimeError, match=r"not offered by 'Keys' \(RESET and \[1, 2"):
        env.step(state, arc3.Action(6, 3, 3))
    lenient = gridax.make("Arc3-Keys-v0")
    same, obs, _, _, info = lenient.step(state, arc3.Action(6, 3, 3))
    assert bool(info["invalid_action"]) and int(info["frame_count"]) == 0
    np.testing.assert_array_equal(obs, lenient.observe(state))


def test_concrete_bad_actions_are_named_errors_of_the_functional_step():
    game = GAMES["Keys"]
    state, _ = arc3.reset(game)
    with pytest.raises(
        ValueError, match=r"'Keys' offers RESET and \[1, 2, 3, 4\]; got action id 6"
    ):
        arc3.step(state, arc3.Action(6, 3, 3), game)
    lights = GAMES["Lights"]
    state, _ = arc3.reset(lights)
    with pytest.raises(ValueError, match=r"clicks land on the 64x64 screen .* got \(64, 3\)"):
        arc3.step(state, arc3.Action(6, 64, 3), lights)
    states, _ = arc3.batch_reset(2, lights)
    with pytest.raises(ValueError, match=r"got action id 9"):
        arc3.batch_step(states, actions_of([[6, 1, 1], [9, 0, 0]]), lights)
    # Traced, the same actions are flagged no-ops.
    _, frames, info = jax.jit(lambda s: arc3.step(s, arc3.Action(6, 64, 3), lights))(state)
    assert bool(info["invalid_action"]) and int(info["frame_count"]) == 0


def test_unknown_ids_and_options_are_named():
    with pytest.raises(ValueError, match="did you mean 'Arc3-Keys-v0'"):
        gridax.make("Arc3-Key-v0")
    with pytest.raises(ValueError, match=r"unexpected keyword argument 'episode_length'"):
        gridax.make("Arc3-Keys-v0", episode_length=5)


def test_pictures_of_frames(tmp_path):
    env = gridax.make("Arc3-Explore-v0")
    state, obs = env.reset(jax.random.key(0))
    image = env.render(state, cell=2, path=tmp_path / "start.png")
    assert image.shape == (128, 128, 3) and image.dtype == jnp.uint8
    assert (tmp_path / "start.png").stat().st_size > 0
    np.testing.assert_array_equal(np.asarray(image)[::2, 1::2], arc3.pictures.PALETTE[obs])
    frames = [obs]
    for action in (2, 2, 4):
        state, obs, *_ = env.step(state, arc3.Action(action))
        frames.append(obs)
    gif = arc3.pictures.frames_gif(frames, tmp_path / "walk.gif", cell=2)
    assert gif.read_bytes()[:6] == b"GIF89a"


def test_search_finds_the_reference_solution_and_names_a_level_it_cannot_solve():
    game = GAMES["Push"]
    state, _ = arc3.reset(game)
    moves = [(a, 0, 0) for a in (1, 2, 3, 4)]
    assert arc3.search.shortest_solution(game, state, moves) == [(4, 0, 0), (4, 0, 0)]
    # Stepped three states at a time, the search finds the same.
    assert arc3.search.shortest_solution(game, state, moves, batch=3) == [(4, 0, 0)] * 2
    with pytest.raises(ValueError, match="game 'Push', level 0: no solution within 1 actions"):
        arc3.search.shortest_solution(game, state, moves, max_depth=1)


def test_beam_search_keeps_the_best_ranked_states():
    """With a rank, each depth keeps ``width`` states: the best-ranked still find the
    solution, the worst-ranked (ranked upside down, width 1) never do."""
    game = GAMES["Push"]
    state, _ = arc3.reset(game)
    moves = [(a, 0, 0) for a in (1, 2, 3, 4)]

    def rightwards(states):  # lower is better: the sprites' x, summed, the larger
        return -np.asarray(states.table.x).sum(axis=1)

    beam = arc3.search.shortest_solution(game, state, moves, rank=rightwards, width=1)
    assert beam == [(4, 0, 0)] * 2
    with pytest.raises(ValueError, match="no solution within 6 actions"):
        arc3.search.shortest_solution(
            game, state, moves, max_depth=6, rank=lambda s: -rightwards(s), width=1
        )


def test_solution_frames_start_at_the_level_and_end_on_the_next():
    game = GAMES["Push"]
    frames = arc3.pictures.solution_frames(game, 0)
    assert len(frames) == 1 + 1 + 2  # the start, one move, the last move's two frames
    np.testing.assert_array_equal(frames[0], arc3.reset(game)[1])
    state, _ = arc3.reset(game)
    for move in game.solutions[0]:
        state, drawn, _ = arc3.step(state, arc3.Action(move), game)
    np.testing.assert_array_equal(frames[-1], drawn[-1])
    np.testing.assert_array_equal(frames[-1], arc3.frame(state, game))  # a frame is its state's
    with pytest.raises(ValueError, match="levels 0-2; got level 3"):
        arc3.pictures.solution_frames(game, 3)


def test_malformed_levels_are_named_when_the_game_is_built():
    keys = GAMES["Keys"]

    def with_sprite(sprite):
        level = arc3.Level((sprite,))
        return dataclasses.replace(keys, name="Bad", levels=(level,), solutions=())

    too_big = arc3.Sprite(tuple((3,) * 13 for _ in range(13)), "door")
    with pytest.raises(ValueError, match=r"game 'Bad', level 0: sprite 'door' is 13x13 pixels"):
        with_sprite(too_big)
    with pytest.raises(ValueError, match=r"game 'Bad', level 0: sprite kind 'ghost' is not one"):
        with_sprite(arc3.Sprite(((1,),), "ghost"))
    with pytest.raises(ValueError, match=r"level 0: sprite 'wall' is drawn 13x13; reach is 12"):
        with_sprite(arc3.Sprite(((1,),), "wall", scale=13))
    with pytest.raises(ValueError, match=r"sprite 'wall' is on layer 200; layers are -128..127"):
        with_sprite(arc3.Sprite(((1,),), "wall", layer=200))
    with pytest.raises(ValueError, match=r"static_kinds \['lava'\] are not among its kinds"):
        dataclasses.replace(keys, static_kinds=("wall", "lava"))
    with pytest.raises(ValueError, match=r"moving kinds \['lava'\] are not among"):
        arc3.rules.kinds_but(keys.kinds, ("player", "lava"))


def test_a_static_sprite_larger_than_the_pixel_grids_is_held_per_level():
    """A static sprite larger than ``pixel_size`` (a wall layer) is held once per level in
    the level bank, not in the state; collisions, clicks and frames read it there."""
    checkers = tuple(tuple(3 if (r + c) % 2 == 0 else -1 for c in range(13)) for r in range(13))
    level = arc3.Level(
        (arc3.Sprite(checkers, "wall"), arc3.Sprite(((1,),), "player", x=1)), grid_size=(13, 13)
    )
    game = dataclasses.replace(
        GAMES["Keys"], name="BigWall", levels=(level,), solutions=(), reach=13
    )
    state, frame = arc3.reset(game)
    assert state.table.pixels.shape[-1] == game.pixel_size == 12
    assert arc3.engine.levels.bank_of(game).static_pixels.shape[-1] == 13
    assert int(arc3.rules.sprite_at(state, 12, 12, game)) == 0  # the wall's last pixel
    assert int(arc3.rules.sprite_at(state, 1, 0, game)) == 1  # the player, between
    # 13 cells drawn 4 pixels each, 6 from the screen's edge: cell (12, 12) is colour 3.
    assert int(frame[6 + 4 * 12, 6 + 4 * 12]) == 3
    moved, _, _ = arc3.step(state, arc3.Action(4), game)  # right: into the wall
    assert int(moved.table.x[1]) == 1


def test_pixel_grids_may_be_long_and_thin_for_sprites_held_lengthwise():
    """``pixel_size=(height, width)``: a moving bar held lengthwise in grids of 2 x 4,
    turned a quarter, is drawn as the same bar held upright in grids of 4 x 4; rules that
    write pixels keep the table's shape; a sprite that does not fit is a named error."""
    bar = np.arange(8).reshape(2, 4)
    turned = np.rot90(bar, -1)  # a quarter clockwise, as the engine turns
    upright = arc3.Sprite(tuple(map(tuple, turned.tolist())), "player", x=2)
    lengthwise = arc3.Sprite(tuple(map(tuple, bar.tolist())), "player", x=2, rotation=90)

    def game_of(sprite, pixel_size):
        level = arc3.Level((sprite,), grid_size=(8, 8))
        return dataclasses.replace(
            GAMES["Keys"], name="Bar", levels=(level,), solutions=(), pixel_size=pixel_size
        )

    (_, square_frame), (state, frame) = (
        arc3.reset(game_of(upright, 4)),
        arc3.reset(game_of(lengthwise, (2, 4))),
    )
    assert state.table.pixels.shape[-2:] == (2, 4)
    np.testing.assert_array_equal(frame, square_frame)
    bar_slot = np.arange(state.table.x.shape[-1]) == 0
    shorter = arc3.rules.resize(state, bar_slot, 2, 2)
    assert shorter.table.pixels.shape == state.table.pixels.shape
    assert int(arc3.rules.drawn_size(shorter)[0][0]) == 2
    with pytest.raises(ValueError, match=r"'player' is 4x2 pixels; the table holds at most 2x4"):
        game_of(upright, (2, 4))


def test_an_animation_a_game_finishes_in_one_call_ends_as_its_frames_do():
    """``Game.finish`` (ft09's flash after a click off its tiles: five frames): with
    ``frames="last"`` the engine calls it instead of the animation's later frames, and
    the state, the last frame and the frames counted are those of the frames one by one;
    every frame drawn (``frames="all"``) never calls it."""
    ft09 = GAMES["ft09"]
    calls = []

    def finish(state, action, game):
        calls.append(frames)
        return ft09.finish(state, action, game)

    counted = dataclasses.replace(ft09, finish=finish)
    one_by_one = dataclasses.replace(ft09, finish=None)
    click = arc3.Action(arc3.CLICK, 0, 0)
    for frames in ("all", "last"):
        results = [arc3.step(arc3.reset(g)[0], click, g, frames) for g in (counted, one_by_one)]
        (state, drawn, info), (expected, expected_drawn, expected_info) = results
        assert int(info["frame_count"]) == int(expected_info["frame_count"]) == 5
        np.testing.assert_array_equal(drawn, expected_drawn)
        for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(expected), strict=True):
            np.testing.assert_array_equal(a, b)
    assert calls == ["last"]


def test_start_level_starts_where_the_levels_before_it_lead():
    """An episode put on level 2 shows what playing levels 0 and 1 through leads to; a
    RESET before any action restarts the whole game (arcengine's set_level)."""
    game = GAMES["cn04"]
    env = gridax.make("Arc3-cn04-v0", start_level=2)
    state, frame = env.reset(jax.random.key(0))
    assert int(state.game_state.level) == 2 and int(state.game_state.score) == 0
    before = [a for moves in game.solutions[:2] for a in as_triples(moves)]
    reached, *_ = play(gridax.make("Arc3-cn04-v0"), before)
    np.testing.assert_array_equal(frame, arc3.frame(reached.game_state, game))
    state, frame, *_ = env.step(state, arc3.Action(arc3.RESET))
    assert int(state.game_state.level) == 0


def test_start_levels_are_drawn_per_episode_from_the_key():
    env = gridax.make("Arc3-cn04-v0", start_level=(1, 3))
    states, _ = env.batch_reset(jax.random.split(jax.random.key(0), 64))
    assert set(np.asarray(states.game_state.level).tolist()) == {1, 3}
    again, _ = env.batch_reset(jax.random.split(jax.random.key(0), 64))
    np.testing.assert_array_equal(states.game_state.level, again.game_state.level)
    anywhere = gridax.make("Arc3-cn04-v0", start_level="random")
    states, _ = anywhere.batch_reset(jax.random.split(jax.random.key(1), 64))
    assert set(np.asarray(states.game_state.level).tolist()) == set(range(5))


@pytest.mark.parametrize(
    ("start_level", "message"),
    [(5, "start_level 5: cn04 has levels 0-4"), ((0, -1), "has levels 0-4"), ("any", "random")],
)
def test_bad_start_levels_are_named(start_level, message):
    with pytest.raises(ValueError, match=message):
        gridax.make("Arc3-cn04-v0", start_level=start_level)


def test_score_is_the_scorecards_best_play():
    """cn04 won with its reference runs scores as arc_agi's scorecard does (6 baselines
    for 5 levels: at most 100 * 15 / 21); a RESET that restarts the whole game starts a
    new play and keeps the best score; a level reset is charged to the level."""
    env = gridax.make("Arc3-cn04-v0", max_episode_steps=None)
    game = env.game
    runs = [as_triples(moves) for moves in game.solutions]
    _, _, dones, infos = play(env, [a for run in runs for a in run])
    lengths = np.array([len(run) for run in runs] + [0])
    expected = arc3.scoring.game_score(lengths, 5, np.asarray(game.baseline_actions))
    assert dones[-1] and np.isclose(float(infos[-1]["score"]), expected, rtol=1e-6)
    assert np.isclose(expected, 100 * 15 / 21)
    metrics = env.episode_metrics(infos[-1], jnp.int32(len(infos)))
    assert np.isclose(float(metrics["score"]), expected, rtol=1e-6)
    # Level 0 won, a move and a level reset on level 1, then two RESETs: the second restarts
    # the game (no action since the level reset), a new play that scores 0 so far.
    moves = runs[0] + [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    state, _, _, infos = play(env, moves)
    baselines = np.asarray(game.baseline_actions)
    first = arc3.scoring.game_score(np.array([len(runs[0]), 2, 0, 0, 0, 0]), 1, baselines)
    assert bool(infos[-1]["full_reset"]) and int(state.play_actions.sum()) == 0
    assert np.isclose(float(infos[-1]["score"]), first, rtol=1e-6)
    assert np.isclose(float(infos[-2]["score"]), first, rtol=1e-6)


def test_a_ported_game_names_the_version_it_follows():
    about = gridax.make("Arc3-cn04-v0").metadata
    assert about["source"] == "cn04-65d47d14" and about["arcengine"] == "0.9.3"
    assert len(about["source_sha256"]) == 64 and about["baseline_actions"][0] == 16
    assert "source" not in gridax.make("Arc3-Keys-v0").metadata


def test_search_merges_states_that_differ_only_in_ignored_memory():
    """Lights counts its clicks down: with the budget ignored, two states that differ
    only in it are one to the search, which still finds a shortest solution."""
    game = GAMES["Lights"]
    state, _ = arc3.reset(game)
    spent = arc3.rules.set_memory(state, "moves_left", state.memory["moves_left"] - 1)
    both = jax.tree.map(lambda a, b: np.stack([a, b]), state, spent)
    assert len(set(arc3.search._keys(both))) == 2
    assert len(set(arc3.search._keys(both, ignored=("moves_left",)))) == 1
    clicks = arc3.games.lights.cell_centres()
    plain = arc3.search.shortest_solution(game, state, clicks)
    merged = arc3.search.shortest_solution(game, state, clicks, ignored=("moves_left",))
    assert len(merged) == len(plain)
