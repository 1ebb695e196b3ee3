"""Golden episodes on small text maps: moves, collection, regrowth, edges, apertures."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs import forage
from gridax.envs.forage.objects import Biome, ObjectType, fourier

from .helpers import world

DOWN, RIGHT, UP, LEFT = forage.DOWN, forage.RIGHT, forage.UP, forage.LEFT


def run(config, state, actions):
    rewards, collected = [], []
    for action in actions:
        state, _, reward, done, info = forage.step(state, action, config)
        assert not bool(done)
        rewards.append(float(reward))
        collected.append(int(info["collected"]))
    return state, rewards, collected


@pytest.mark.parametrize(
    ("action", "expected"), [(DOWN, (2, 1)), (RIGHT, (1, 2)), (UP, (0, 1)), (LEFT, (1, 0))]
)
def test_moves_follow_foragax_numbering(action, expected):
    config, state = world(". . .\n. A .\n. . .")
    state, _, _ = run(config, state, [action])
    assert tuple(np.asarray(state.position)) == expected


def test_collecting_pays_and_regrows_after_its_delay():
    config, state = world(". . . .\n. A F .\n. . . .")
    state, rewards, collected = run(config, state, [RIGHT])
    assert rewards == [5.0] and collected == [1]
    # Delay 3: absent from the 4 states returned at times 1..4, back at time 5.
    seen = []
    for _ in range(4):
        seen.append(int(state.visible()[1, 2]))
        state, rewards, _ = run(config, state, [UP if _ % 2 == 0 else DOWN])
    seen.append(int(state.visible()[1, 2]))
    assert seen == [0, 0, 0, 0, 1]


def test_walking_onto_a_cell_as_it_regrows_does_not_collect_it():
    config, state = world(". A F .")
    state, rewards, _ = run(config, state, [RIGHT, LEFT, RIGHT, LEFT, RIGHT])
    # collected at time 0 (ready at 5); the move at time 4 lands as it regrows
    assert rewards == [5.0, 0.0, 0.0, 0.0, 0.0]
    assert int(state.visible()[0, 2]) == 1 and tuple(np.asarray(state.position)) == (0, 2)
    state, rewards, _ = run(config, state, [UP])  # a 1-row torus: UP lands on itself
    assert rewards == [5.0]


def test_walls_block_and_a_blocked_agent_collects_what_lies_under_it():
    config, state = world(". A # .")
    state, rewards, _ = run(config, state, [RIGHT])
    assert tuple(np.asarray(state.position)) == (0, 1) and rewards == [0.0]
    state = eqx.tree_at(
        lambda s: s.cells.object, state, state.cells.object.at[0, 1].set(2)
    )  # poison
    state, rewards, collected = run(config, state, [RIGHT])
    assert rewards == [-2.0] and collected == [2]


def test_torus_wraps_and_walled_world_stops_at_the_edge():
    text = ". . F\n. . A\n. . ."
    config, state = world(text)
    state, _, _ = run(config, state, [RIGHT])
    assert tuple(np.asarray(state.position)) == (1, 0)
    config, state = world(text, wrap=False)
    state, rewards, _ = run(config, state, [RIGHT, UP, UP])
    assert tuple(np.asarray(state.position)) == (0, 2)
    assert rewards == [0.0, 5.0, 0.0]


def test_aperture_wraps_on_a_torus():
    config, state = world("F . . . P\n. . . . A\n. . . . .", aperture=3)
    obs = forage.observe(state, config)
    ids = np.argmax(np.asarray(obs), axis=-1)  # channels: empty, F, P, wall
    np.testing.assert_array_equal(ids, [[0, 2, 1], [0, 0, 0], [0, 0, 0]])


def test_aperture_shows_padding_beyond_a_walled_edge():
    config, state = world("A F .\n. # .\n. . .", aperture=3, wrap=False)
    obs = np.asarray(forage.observe(state, config))
    assert obs.shape == (3, 3, 5)  # empty, F, P, wall, padding
    ids = np.argmax(obs, axis=-1)
    np.testing.assert_array_equal(ids, [[4, 4, 4], [4, 0, 1], [4, 0, 3]])
    colour = forage.observe(state, forage.config.replace(config, observation="color"))
    # F, P, wall get channels 0, 1, 2; padding shares the wall's black.
    assert colour.shape == (3, 3, 3)
    np.testing.assert_array_equal(np.asarray(colour)[0, 0], [0, 0, 1])
    rgb = np.asarray(forage.observe(state, forage.config.replace(config, observation="rgb")))
    np.testing.assert_allclose(rgb[1, 1], [1, 1, 1])  # the agent's empty cell is white
    np.testing.assert_allclose(rgb[1, 2], np.array([200, 0, 0]) / 255, rtol=1e-6)
    np.testing.assert_allclose(rgb[0, 0], [0, 0, 0])


def test_world_view_has_object_channels_and_the_agent():
    config, state = world("F . A\n. # P", aperture=None)
    obs = np.asarray(forage.observe(state, config))
    assert obs.shape == (2, 3, 4)  # F, P, wall, agent
    assert obs[0, 0, 0] == 1 and obs[1, 2, 1] == 1 and obs[1, 1, 2] == 1 and obs[0, 2, 3] == 1
    assert obs.sum() == 4


def test_random_respawn_moves_the_object_within_its_biome():
    roaming = ObjectType("roaming", reward=1.0, regen=("uniform", 0, 0), random_respawn=True)
    config, state = world(". . . . .\n. A R . .\n. . . . .", legend={"R": roaming})
    state, rewards, _ = run(config, state, [RIGHT])
    assert rewards == [1.0]
    assert int(np.sum(np.asarray(state.cells.object) == 3)) == 1  # ids: F, P, R


def test_biome_regenerates_after_its_consumption_threshold():
    food = fourier("food", repeat=1, regen=("uniform", 50, 50))
    config = forage.ForageConfig(
        name="regen",
        width=6,
        height=6,
        objects=(food,),
        biomes=(Biome(None, None, (0.5,)),),
        deterministic_spawn=True,
        biome_threshold=2,
        biome_spawn_empty=1.0,
        observation="object",
    )
    state, _ = forage.reset(jax.random.key(1), config)
    assert int(np.sum(np.asarray(state.visible()) == 1)) == 18
    rng = np.random.default_rng(0)
    for _ in range(400):
        before = state
        state, _, _, _, info = forage.step(state, int(rng.integers(4)), config)
        if int(state.biomes.generation[0]) == 1:
            break
    assert int(before.biomes.consumed[0]) == 1 and int(info["collected"]) == 1
    assert int(state.biomes.consumed[0]) == 0 and int(state.biomes.spawned[0]) == 18
    # spawn_empty 1: every object on the map is new, visible now, of generation 1
    objects = np.asarray(state.cells.object) > 0
    assert objects.sum() == 18 and (np.asarray(state.cells.generation)[objects] == 1).all()
    assert int(np.sum(np.asarray(state.visible()) > 0)) == 18
    assert not np.allclose(state.biomes.curves[0, 1], state.biomes.curves[0, 0])


def test_expiry_removes_one_overdue_object_per_step_highest_index_first():
    old = ObjectType("old", reward=1.0, regen=("uniform", 9, 9), expiry_time=3)
    config, state = world("O . O\n. A .\nO . .", legend={"O": old})
    ids = []
    for action in [UP, DOWN] * 3:
        state, _, _, _, _ = forage.step(state, action, config)
        ids.append(np.argwhere(np.asarray(state.visible()) == 3).tolist())
    # ages reach 3 in the step starting at time 3: (2,0) goes first, then (0,2), (0,0)
    assert ids[2] == [[0, 0], [0, 2], [2, 0]]
    assert ids[3] == [[0, 0], [0, 2]] and ids[4] == [[0, 0]] and ids[5] == []


def test_static_rewards_ignore_the_clock_and_episode_length_ends_episodes():
    config, state = world("A F F F", episode_length=3)
    env = forage.ForageEnv("golden", config)
    dones = []
    for _ in range(3):
        state, _, reward, done, _ = forage.step(state, RIGHT, config)
        dones.append(bool(done))
        assert float(reward) == 5.0
        # The env's hooks and the step ask one termination function.
        assert not bool(env.terminated(state)) and bool(env.truncated(state)) == bool(done)
    assert dones == [False, False, True]
    assert jnp.issubdtype(state.time.dtype, jnp.integer)
