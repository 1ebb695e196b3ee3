"""An independent NumPy reference of the ARC environment, written from docs/arc-operations.md.

It works on unpadded grids and plain Python data (the clipboard is a dict of cells), with
loops instead of vectorised tricks, so that it shares no code or structure with gridax.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

CANVAS = 30
MOVES = {20: (-1, 0), 21: (1, 0), 22: (0, -1), 23: (0, 1)}


@dataclass
class RefState:
    grid: np.ndarray  # (h, w) int
    input: np.ndarray
    target: np.ndarray
    clipboard: dict = field(default_factory=dict)  # (row, col) -> colour, absolute positions
    clip_origin: tuple = (0, 0)
    steps: int = 0
    done: bool = False


def selected_cells(canvas_mask: np.ndarray, shape) -> list[tuple[int, int]]:
    h, w = shape
    return [(r, c) for r in range(h) for c in range(w) if canvas_mask[r, c]]


def similarity(grid, target) -> float:
    (h, w), (th, tw) = grid.shape, target.shape
    matches = sum(
        1 for r in range(min(h, th)) for c in range(min(w, tw)) if grid[r, c] == target[r, c]
    )
    union = h * w + th * tw - min(h, th) * min(w, tw)
    return matches / union


def flood(grid, seeds):
    h, w = grid.shape
    region = set()
    for seed in seeds:
        if seed in region:
            continue
        colour = grid[seed]
        queue = deque([seed])
        region.add(seed)
        while queue:
            r, c = queue.popleft()
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nr, nc = r + dr, c + dc
                inside = 0 <= nr < h and 0 <= nc < w
                if inside and (nr, nc) not in region and grid[nr, nc] == colour:
                    region.add((nr, nc))
                    queue.append((nr, nc))
    return region


def is_invalid(op, canvas_mask, within_canvas, shape) -> bool:
    if not 0 <= op <= 34:
        return True
    if op in (32, 34):
        return False
    if not within_canvas:
        return True
    if op == 33:
        return not canvas_mask.any()
    return not selected_cells(canvas_mask, shape)


def apply(state: RefState, op: int, canvas_mask: np.ndarray) -> None:
    """Applies a valid operation in place."""
    grid = state.grid
    h, w = grid.shape
    cells = selected_cells(canvas_mask, (h, w))
    if cells:
        top = min(r for r, _ in cells)
        bottom = max(r for r, _ in cells)
        left = min(c for _, c in cells)
        right = max(c for _, c in cells)
    new = grid.copy()

    def place(moves):
        for r, c in cells:
            new[r, c] = 0
        for (r, c), (nr, nc) in moves:
            if 0 <= nr < h and 0 <= nc < w:
                new[nr, nc] = grid[r, c]

    if op < 10:
        for cell in cells:
            new[cell] = op
    elif op < 20:
        for cell in flood(grid, cells):
            new[cell] = op - 10
    elif op in MOVES:
        dr, dc = MOVES[op]
        place([((r, c), (r + dr, c + dc)) for r, c in cells])
    elif op == 24:  # clockwise: (i, j) -> (j, height - 1 - i) inside the box
        height = bottom - top + 1
        place([((r, c), (top + c - left, left + height - 1 - (r - top))) for r, c in cells])
    elif op == 25:  # counter-clockwise: (i, j) -> (width - 1 - j, i)
        width = right - left + 1
        place([((r, c), (top + width - 1 - (c - left), left + r - top)) for r, c in cells])
    elif op == 26:
        place([((r, c), (r, left + right - c)) for r, c in cells])
    elif op == 27:
        place([((r, c), (top + bottom - r, c)) for r, c in cells])
    elif op in (28, 30):
        state.clipboard = {cell: int(grid[cell]) for cell in cells}
        state.clip_origin = (top, left)
        if op == 30:
            for cell in cells:
                new[cell] = 0
    elif op == 29:
        origin_r, origin_c = state.clip_origin
        for (r, c), colour in state.clipboard.items():
            nr, nc = r - origin_r + top, c - origin_c + left
            if 0 <= nr < h and 0 <= nc < w:
                new[nr, nc] = colour
    elif op == 31:
        for cell in cells:
            new[cell] = 0
    elif op == 32:
        new = state.input.copy()
    elif op == 33:
        rows, cols = np.nonzero(canvas_mask)
        new = np.zeros((rows.max() + 1, cols.max() + 1), dtype=grid.dtype)
        ch, cw = min(h, new.shape[0]), min(w, new.shape[1])
        new[:ch, :cw] = grid[:ch, :cw]
    state.grid = new


def step(state: RefState, op, canvas_mask, within_canvas, max_steps, rewards):
    """One step; returns (reward, invalid). ``rewards`` holds the dense reward knobs."""
    if state.done:
        return 0.0, False
    invalid = is_invalid(op, canvas_mask, within_canvas, state.grid.shape)
    before = similarity(state.grid, state.target)
    if not invalid:
        apply(state, op, canvas_mask)
    after = similarity(state.grid, state.target)
    submitted = not invalid and op == 34
    solved = state.grid.shape == state.target.shape and bool((state.grid == state.target).all())
    state.steps += 1
    state.done = submitted or state.steps >= max_steps
    reward = rewards["similarity_weight"] * (after - before) + rewards["step_penalty"]
    if submitted:
        reward += rewards["success_bonus"] if solved else rewards["failed_submit_penalty"]
    if invalid:
        reward += rewards["invalid_action_penalty"]
    return reward, invalid
