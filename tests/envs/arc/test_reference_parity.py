"""Random episodes on real tasks: gridax agrees with the NumPy reference step by step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc

from . import reference

NUM_ENVS = 48
NUM_STEPS = 14


def random_actions(rng, fmt, shapes):
    """Mostly valid actions near the live grid, with some invalid ones mixed in."""
    n = len(shapes)
    ops = rng.integers(0, 34, size=n)  # submit is rare: it ends the episode
    ops = np.where(rng.random(n) < 0.05, 34, ops)
    ops = np.where(rng.random(n) < 0.05, rng.choice([-3, 35, 99], size=n), ops)
    h, w = shapes[:, 0], shapes[:, 1]
    rows = (rng.random(n) * (h + 2)).astype(int) - (rng.random(n) < 0.03)
    cols = (rng.random(n) * (w + 2)).astype(int) - (rng.random(n) < 0.03)
    if fmt == "point":
        return PointAction(ops, rows, cols)
    if fmt == "bbox":
        rows2 = np.clip(rows + rng.integers(-3, 4, size=n), -1, 31)
        cols2 = np.clip(cols + rng.integers(-3, 4, size=n), -1, 31)
        return BboxAction(ops, rows, cols, rows2, cols2)
    masks = rng.random((n, 30, 30)) < rng.choice([0.0, 0.02, 0.2, 0.6], size=(n, 1, 1))
    return MaskAction(ops, masks)


def canvas_masks(actions, fmt):
    """Independent canvas masks and on-canvas flags from the raw action fields."""
    n = actions.operation.shape[0]
    masks = np.zeros((n, 30, 30), dtype=bool)
    inside = np.ones(n, dtype=bool)
    for i in range(n):
        if fmt == "point":
            r, c = int(actions.row[i]), int(actions.col[i])
            inside[i] = 0 <= r < 30 and 0 <= c < 30
            if inside[i]:
                masks[i, r, c] = True
        elif fmt == "bbox":
            coords = [
                int(actions.r1[i]),
                int(actions.c1[i]),
                int(actions.r2[i]),
                int(actions.c2[i]),
            ]
            inside[i] = all(0 <= v < 30 for v in coords)
            r1, c1, r2, c2 = coords
            for r in range(min(r1, r2), max(r1, r2) + 1):
                for c in range(min(c1, c2), max(c1, c2) + 1):
                    if 0 <= r < 30 and 0 <= c < 30:
                        masks[i, r, c] = True
        else:
            masks[i] = np.asarray(actions.selection[i])
    return masks, inside


def unpadded(grid, shape):
    return np.asarray(grid)[: int(shape[0]), : int(shape[1])].astype(int)


def to_reference(states, i):
    return reference.RefState(
        grid=unpadded(states.working_grid[i], states.working_shape[i]),
        input=unpadded(states.input_grid[i], states.input_shape[i]),
        target=unpadded(states.target_grid[i], states.target_shape[i]),
    )


def clipboard_cells(states, i):
    mask = np.asarray(states.clipboard_mask[i])
    grid = np.asarray(states.clipboard[i])
    return {(int(r), int(c)): int(grid[r, c]) for r, c in zip(*np.nonzero(mask), strict=True)}


@pytest.mark.parametrize("fmt", ["point", "bbox", "mask"])
def test_random_episodes_match_reference(arc_agi_1, fmt):
    config = arc.ArcConfig(selection_format=fmt, max_episode_steps=10)
    rewards = {
        k: getattr(config, k)
        for k in ("similarity_weight", "step_penalty", "success_bonus", "failed_submit_penalty")
    }
    rewards["invalid_action_penalty"] = config.invalid_action_penalty
    rng = np.random.default_rng(7)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(3), NUM_ENVS), config, arc_agi_1)
    refs = [to_reference(states, i) for i in range(NUM_ENVS)]
    for _ in range(NUM_STEPS):
        actions = random_actions(rng, fmt, np.asarray(states.working_shape))
        masks, inside = canvas_masks(actions, fmt)
        states, _, rewards_out, dones, infos = arc.batch_step(states, actions, config)
        for i, ref in enumerate(refs):
            op = int(actions.operation[i])
            want_reward, want_invalid = reference.step(
                ref, op, masks[i], inside[i], config.max_episode_steps, rewards
            )
            where = f"env {i}, op {op}, step {ref.steps}"
            np.testing.assert_array_equal(
                unpadded(states.working_grid[i], states.working_shape[i]), ref.grid, err_msg=where
            )
            assert bool(infos["invalid_action"][i]) == want_invalid, where
            assert rewards_out[i] == pytest.approx(want_reward, abs=1e-5), where
            assert bool(dones[i]) == ref.done, where
            assert float(infos["similarity"][i]) == pytest.approx(
                reference.similarity(ref.grid, ref.target), abs=1e-6
            )
            if ref.clipboard:
                origin = np.asarray(states.clipboard_origin[i]).tolist()
                assert clipboard_cells(states, i) == ref.clipboard, where
                assert tuple(origin) == ref.clip_origin, where
        # Dead cells stay zero and colours stay in range, for every env.
        grids = np.asarray(states.working_grid)
        assert ((grids >= 0) & (grids <= 9)).all()
        assert not (grids * ~np.asarray(states.working_mask)).any()


def test_flood_fill_matches_breadth_first_search_on_real_grids(arc_agi_1):
    """Flood fill from random seeds over whole real grids: no iteration cap."""
    rng = np.random.default_rng(0)
    from gridax.envs.arc.grid import live_mask
    from gridax.envs.arc.operations import flood_fill_region

    grids = arc_agi_1.train_inputs[:, 0]
    shapes = arc_agi_1.train_input_shapes[:, 0]
    seeds_r = (rng.random(len(arc_agi_1)) * np.asarray(shapes[:, 0])).astype(int)
    seeds_c = (rng.random(len(arc_agi_1)) * np.asarray(shapes[:, 1])).astype(int)
    seeds = jnp.zeros((len(arc_agi_1), 30, 30), dtype=bool)
    seeds = seeds.at[jnp.arange(len(arc_agi_1)), seeds_r, seeds_c].set(True)
    regions = jax.jit(jax.vmap(flood_fill_region))(grids, seeds, live_mask(shapes))
    largest = 0
    for i in range(len(arc_agi_1)):
        grid = unpadded(grids[i], shapes[i])
        want = reference.flood(grid, [(seeds_r[i], seeds_c[i])])
        got = {(int(r), int(c)) for r, c in zip(*np.nonzero(np.asarray(regions[i])), strict=True)}
        assert got == want, arc_agi_1.task_ids[i]
        largest = max(largest, len(want))
    assert largest > 300  # the sample includes big regions, not just single cells
