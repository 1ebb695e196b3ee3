"""Pictures of ARC states, tasks and episodes (NumPy and Pillow, outside jit).

``render(state)`` returns an RGB ``uint8`` array of panels side by side (the episode's
input, the working grid with the last action's selection outlined, the clipboard, and
the target when asked), each cell in the standard ARC palette with grid lines, and
writes it when ``path`` ends in ``.png`` or ``.svg``. ``render_task`` draws a task's
demonstration pairs as one sheet, ``episode_gif`` an episode, one frame per step, and
``terminal`` a quick coloured view for ``rich``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from PIL import Image, ImageDraw

from gridax import pictures
from gridax.envs.arc.actions import BboxAction, PointAction
from gridax.envs.arc.history import recorded_masks
from gridax.envs.arc.operations import OPERATION_NAMES, ignores_selection
from gridax.envs.arc.tasks import augmentation
from gridax.envs.arc.tasks.bank import TaskBank
from gridax.envs.arc.types import ArcState

# The ARC palette: black, blue, red, green, yellow, grey, magenta, orange, azure, maroon.
PALETTE = np.array(
    [
        [0, 0, 0],
        [0, 116, 217],
        [255, 65, 54],
        [46, 204, 64],
        [255, 220, 0],
        [170, 170, 170],
        [240, 18, 190],
        [255, 133, 27],
        [127, 219, 255],
        [135, 12, 37],
    ],
    dtype=np.uint8,
)
GRID_LINE = np.array([85, 85, 85], np.uint8)
BACKGROUND = np.array([255, 255, 255], np.uint8)
SELECTION = np.array([255, 255, 255], np.uint8)  # outline, drawn over a dark rim
TITLE_HEIGHT = 14
GAP = 10


def _one(state: ArcState, env: int) -> ArcState:
    """One env of a (possibly batched) state, as NumPy arrays."""
    if state.step_count.ndim:
        state = jax.tree.map(lambda x: x[env], state)
    return jax.tree.map(np.asarray, state)


def last_selection(state: ArcState) -> np.ndarray | None:
    """The selection mask of the last recorded action of one env's state; None before
    the first step and after an operation that ignores its selection."""
    steps = int(state.step_count)
    if steps == 0:
        return None
    slot = (steps - 1) % state.history.length
    record = np.asarray(state.history.selection[slot])
    operation = int(state.history.operation[slot])
    if bool(ignores_selection(jnp.asarray(operation))):  # submit and copy-input: nothing to outline
        return None
    if record.shape[-1] == 2:
        action = PointAction(operation, int(record[0]), int(record[1]))
    elif record.shape[-1] == 4:
        action = BboxAction(operation, *(int(v) for v in record))
    else:
        return np.asarray(recorded_masks(state.history))[slot]
    return np.asarray(action.to_selection_mask())


def grid_image(grid, shape, cell: int = 16, selection: np.ndarray | None = None) -> np.ndarray:
    """The live part of a canvas grid as RGB pixels with 1-pixel grid lines; the cells of
    ``selection`` get a two-pixel outline."""
    height, width = (int(v) for v in shape)
    height, width = max(height, 1), max(width, 1)
    pitch = cell + 1
    colours = PALETTE[np.clip(np.asarray(grid)[:height, :width], 0, 9)]
    image = np.empty((height * pitch + 1, width * pitch + 1, 3), np.uint8)
    image[1:, 1:] = np.repeat(np.repeat(colours, pitch, axis=0), pitch, axis=1)
    image[::pitch], image[:, ::pitch] = GRID_LINE, GRID_LINE
    if selection is not None:
        for r, c in zip(*np.nonzero(np.asarray(selection)[:height, :width]), strict=True):
            top, left = r * pitch, c * pitch
            block = image[top : top + pitch + 1, left : left + pitch + 1]
            block[:2], block[-2:], block[:, :2], block[:, -2:] = (SELECTION,) * 4
    return image


def _sheet(panels: Sequence[tuple[str, np.ndarray]]) -> np.ndarray:
    """Titled panels side by side on a white background, each as wide as its title."""
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    widths = [max(p.shape[1], int(measure.textlength(t)) + 2) for t, p in panels]
    height = TITLE_HEIGHT + max(p.shape[0] for _, p in panels)
    sheet = Image.new("RGB", (sum(widths) + GAP * (len(panels) + 1), height + GAP), "white")
    draw = ImageDraw.Draw(sheet)
    left = GAP
    for (title, panel), width in zip(panels, widths, strict=True):
        draw.text((left, 1), title, fill=(0, 0, 0))
        sheet.paste(Image.fromarray(panel), (left, TITLE_HEIGHT))
        left += width + GAP
    return np.asarray(sheet)


def render(
    state: ArcState,
    path: str | Path | None = None,
    *,
    env: int = 0,
    show_target: bool = False,
    cell: int = 16,
) -> np.ndarray:
    """One env of ``state`` as an RGB array (module docstring); written to ``path``
    (``.png`` or ``.svg``) when given."""
    one = _one(state, env)
    selection = last_selection(one)
    panels = [
        ("input", grid_image(one.input_grid, one.input_shape, cell)),
        (f"working, step {int(one.step_count)}",
         grid_image(one.working_grid, one.working_shape, cell, selection)),
    ]  # fmt: skip
    if one.clipboard_mask.any():
        rows, cols = np.nonzero(one.clipboard_mask)
        shape = (rows.max() + 1, cols.max() + 1)
        panels.append(
            ("clipboard", grid_image(one.clipboard, shape, cell, np.asarray(one.clipboard_mask)))
        )
    if show_target:
        panels.append(("target", grid_image(one.target_grid, one.target_shape, cell)))
    if one.augmentation is not None:  # the grids above are in the augmented frame
        title = "augmented: " + augmentation.describe(one.augmentation)
        panels.append((title, np.full((1, 1, 3), BACKGROUND, np.uint8)))
    image = _sheet(panels)
    if path is not None:
        pictures.write(image, path)
    return image


def render_task(
    tasks: TaskBank, task: int | str, path: str | Path | None = None, cell: int = 12
) -> np.ndarray:
    """A task's demonstration pairs (input above output), then its test inputs."""
    index = tasks.index_of(task) if isinstance(task, str) else int(task)
    train, test = tasks.pairs("train"), tasks.pairs("test")
    columns = []
    for i in range(int(train.count[index])):
        top = grid_image(train.inputs[index, i], train.input_shapes[index, i], cell)
        bottom = grid_image(train.outputs[index, i], train.output_shapes[index, i], cell)
        columns.append((f"pair {i + 1}", _stack(top, bottom)))
    for i in range(int(test.count[index])):
        columns.append(
            (f"test {i + 1}", grid_image(test.inputs[index, i], test.input_shapes[index, i], cell))
        )
    image = _sheet(columns)
    if path is not None:
        pictures.write(image, path)
    return image


def answer_sheet(
    rows: Sequence[tuple[str, Sequence[tuple[str, np.ndarray]]]],
    path: str | Path | None = None,
    cell: int = 10,
) -> np.ndarray:
    """Rows of titled grids (live parts, as NumPy arrays), one row per answer: e.g.
    ``("task 1 test 0", [("input", x), ("expected", y), ("attempt 1", a)])``."""
    images = []
    for title, grids in rows:
        panels = [(name, grid_image(g, g.shape, cell)) for name, g in grids]
        images.append(_sheet([(title, np.full((1, 1, 3), BACKGROUND, np.uint8)), *panels]))
    width = max(image.shape[1] for image in images)
    padded = [
        np.pad(i, ((0, 0), (0, width - i.shape[1]), (0, 0)), constant_values=255) for i in images
    ]
    image = np.concatenate(padded, axis=0)
    if path is not None:
        pictures.write(image, path)
    return image


def _stack(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    width = max(top.shape[1], bottom.shape[1])
    out = np.empty((top.shape[0] + GAP + bottom.shape[0], width, 3), np.uint8)
    out[:] = BACKGROUND
    out[: top.shape[0], : top.shape[1]] = top
    out[top.shape[0] + GAP :, : bottom.shape[1]] = bottom
    return out


def episode_gif(
    states: Sequence[ArcState] | ArcState,
    path: str | Path,
    operations: Sequence[int] | None = None,
    rewards: Sequence[float] | None = None,
    *,
    env: int = 0,
    show_target: bool = True,
    milliseconds: int = 600,
) -> Path:
    """An animated GIF with one frame per state (a list, or states stacked on a leading
    time axis), captioned with the operation and reward that led to it."""
    if isinstance(states, ArcState):
        steps = states.step_count.shape[0]
        states = [jax.tree.map(lambda x, t=t: x[t], states) for t in range(steps)]
    captions = []
    for t in range(len(states)):
        caption = "reset" if t == 0 else f"step {t}"
        if operations is not None and t > 0:
            caption += f": {OPERATION_NAMES[int(operations[t - 1])]}"
        if rewards is not None and t > 0:
            caption += f", reward {float(rewards[t - 1]):+.2f}"
        captions.append(caption)
    frames = [render(s, env=env, show_target=show_target) for s in states]
    return pictures.write_gif(frames, path, captions, milliseconds)


def terminal(state: ArcState, env: int = 0):
    """The working grid as ``rich`` text: one coloured block per cell."""
    from rich.text import Text

    one = _one(state, env)
    height, width = (int(v) for v in one.working_shape)
    text = Text()
    for r in range(height):
        for c in range(width):
            red, green, blue = PALETTE[int(one.working_grid[r, c])]
            text.append("  ", style=f"on rgb({red},{green},{blue})")
        text.append("\n")
    return text
