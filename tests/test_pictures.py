"""Pictures of real states: sizes, palette, selection outline, agent, GIF frames, errors."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from PIL import Image

import gridax
from gridax.actions import PointAction
from gridax.envs import arc, forage
from gridax.envs.arc import render as arc_render
from gridax.envs.forage import render as forage_render

CELL = 16
PITCH = CELL + 1


@pytest.fixture(scope="module")
def arc_state(arc_agi_1):
    config = arc.ArcConfig()
    state, _ = arc.reset(jax.random.key(0), config, arc_agi_1, task_index=0)
    return arc.step(state, PointAction(2, 1, 1), config)[0]  # fill_2 at (1, 1)


def cell_centre(image, top, row, col):
    """The pixel at the centre of cell (row, col) of a panel whose grid starts at top."""
    return image[top + row * PITCH + PITCH // 2, row_offset(image, top) + col * PITCH + PITCH // 2]


def row_offset(image, top):
    """Left edge of the first grid-line pixel on row ``top`` (the first panel's)."""
    return int(np.flatnonzero((image[top] == arc_render.GRID_LINE).all(axis=1))[0])


def test_every_arc_colour_maps_to_its_palette_entry(arc_state):
    colours = jnp.zeros((30, 30), jnp.int8).at[0, :10].set(jnp.arange(10, dtype=jnp.int8))
    state = eqx.tree_at(lambda s: (s.input_grid, s.input_shape), arc_state,
                        (colours, jnp.array([1, 10], jnp.int32)))  # fmt: skip
    image = arc_render.render(state, cell=CELL)
    top = arc_render.TITLE_HEIGHT
    for colour in range(10):
        np.testing.assert_array_equal(
            cell_centre(image, top, 0, colour), arc_render.PALETTE[colour]
        )
    assert len({tuple(c) for c in arc_render.PALETTE}) == 10


def test_selection_is_outlined_where_the_action_was(arc_state):
    selection = arc_render.last_selection(jax.tree.map(np.asarray, arc_state))
    assert selection.sum() == 1 and selection[1, 1]
    panel = arc_render.grid_image(arc_state.working_grid, arc_state.working_shape, CELL, selection)
    top, left = 1 * PITCH, 1 * PITCH
    np.testing.assert_array_equal(panel[top + 1, left + PITCH // 2], arc_render.SELECTION)
    np.testing.assert_array_equal(panel[top + PITCH // 2, left + PITCH // 2], arc_render.PALETTE[2])
    # The neighbouring cell is not outlined.
    assert not (panel[top + 1, left + PITCH + PITCH // 2] == arc_render.SELECTION).all()


def test_png_svg_and_sizes(arc_state, tmp_path):
    image = arc_render.render(arc_state, tmp_path / "s.png", show_target=True)
    with Image.open(tmp_path / "s.png") as png:
        assert png.size == (image.shape[1], image.shape[0]) and png.mode == "RGB"
    # Input (3x3), working (3x3) and target (9x9) panels: the target sets the height.
    assert image.shape[0] == arc_render.TITLE_HEIGHT + 9 * PITCH + 1 + arc_render.GAP
    arc_render.render(arc_state, tmp_path / "s.svg")
    assert (tmp_path / "s.svg").read_text().startswith("<svg") and "<rect" in (
        tmp_path / "s.svg"
    ).read_text()
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        arc_render.render(arc_state, tmp_path / "s.jpg")


def test_batched_state_renders_the_chosen_env(arc_agi_1):
    config = arc.ArcConfig()
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), 3), config, arc_agi_1)
    one = jax.tree.map(lambda x: x[2], states)
    np.testing.assert_array_equal(arc_render.render(states, env=2), arc_render.render(one))


def test_task_sheet_gif_and_terminal(arc_agi_1, arc_state, tmp_path):
    sheet = arc_render.render_task(arc_agi_1, "007bbfb7", tmp_path / "task.png")
    assert sheet.shape[1] > 5 * 9 * 13  # five demonstration pairs side by side
    config = arc.ArcConfig()
    states = [arc.reset(jax.random.key(0), config, arc_agi_1, task_index=0)[0]]
    for op in (1, 2, 3):
        states.append(arc.step(states[-1], PointAction(op, 0, 0), config)[0])
    arc_render.episode_gif(states, tmp_path / "e.gif", [1, 2, 3], [0.1, 0.2, 0.3])
    with Image.open(tmp_path / "e.gif") as gif:
        assert gif.n_frames == 4
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
    arc_render.episode_gif(stacked, tmp_path / "s.gif")
    with Image.open(tmp_path / "s.gif") as gif:
        assert gif.n_frames == 4
    text = arc_render.terminal(arc_state)
    assert text.plain.count("\n") == 3 and len(text.spans) == 9


@pytest.fixture(scope="module")
def big():
    config = forage.make_config("ForagaxBig-v5")
    state, _ = forage.reset(jax.random.key(0), config)
    return config, state


def test_forage_world_shows_agent_objects_and_aperture(big):
    config, state = big
    cell = 12
    image = np.asarray(forage_render.render(state, config, cell=cell))
    assert image.shape == (config.height * cell, config.width * cell, 3)
    assert image.dtype == np.uint8
    row, col = (int(v) for v in state.position)
    np.testing.assert_array_equal(image[row * cell + cell // 2, col * cell + cell // 2],
                                  forage_render.AGENT)  # fmt: skip
    # The 5x5 aperture's top-left corner pixel is outlined.
    corner = (row - 2) * cell, (col - 2) * cell
    np.testing.assert_array_equal(image[corner], forage_render.APERTURE)
    # Every other cell shows its visible object's colour (empty white, walls black).
    visible = np.asarray(state.visible())
    colours = np.asarray(state.params.colour)
    for r, c in [(0, 0), (3, 4), (config.height - 1, config.width - 1)]:
        if (r, c) != (row, col) and abs(r - row) > 2:
            np.testing.assert_array_equal(image[r * cell + cell // 2, c * cell + cell // 2],
                                          colours[visible[r, c]])  # fmt: skip


def test_forage_aperture_view_and_overlay(big):
    config, state = big
    aperture = forage_render.render(state, config, "aperture", cell=10)
    assert aperture.shape == (50, 50, 3)
    np.testing.assert_array_equal(aperture[25, 25], forage_render.AGENT)
    overlay = forage_render.render(state, config, reward_overlay=True)
    assert not np.array_equal(overlay, forage_render.render(state, config))


def test_forage_render_is_jittable_and_gifs_have_one_frame_per_state(tmp_path):
    env = gridax.make("ForagaxTwoBiome-v1")
    state, _ = env.reset(jax.random.key(0))
    jitted = jax.jit(lambda s: forage_render.render(s, env.config))(state)
    np.testing.assert_array_equal(jitted, env.render(state))
    states = [state]
    for move in (0, 1, 2):
        states.append(env.step(states[-1], move)[0])
    forage_render.episode_gif(states, env.config, tmp_path / "f.gif", [0.0, 1.0, 0.0])
    with Image.open(tmp_path / "f.gif") as gif:
        assert gif.n_frames == 4
    with pytest.raises(ValueError, match="view must be one of"):
        env.render(state, view="map")
    world = gridax.make("ForagaxTwoBiome-v1", aperture=None)
    with pytest.raises(ValueError, match="needs a config with an aperture"):
        world.render(world.reset(jax.random.key(0))[0], view="aperture")
