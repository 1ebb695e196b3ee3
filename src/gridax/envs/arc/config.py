"""Static configuration of the ARC environment."""

from __future__ import annotations

import math

import equinox as eqx

from gridax.envs.arc.grid import GRID_SHAPE
from gridax.validation import require_int

SELECTION_FORMATS = ("point", "bbox", "mask")
MODES = ("train", "eval")
INITIAL_GRIDS = ("input", "empty")
REWARD_MODES = ("dense", "sparse")


def _require_choice(field: str, value, choices: tuple[str, ...]) -> None:
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"ArcConfig.{field} must be one of {allowed}; got {value!r}")


def _require_float(field: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"ArcConfig.{field} must be a finite number; got {value!r}")


class ArcConfig(eqx.Module):
    """Everything that fixes shapes or Python branches; static under ``eqx.filter_jit``.

    A new config compiles once; swapping tasks, keys or states never recompiles.

    Attributes:
        max_episode_steps: steps before the episode is truncated.
        selection_format: ``"point"``, ``"bbox"`` or ``"mask"``: the action class that
            ``step`` accepts and the width of the action-history record.
        mode: ``"train"`` plays a random demonstration pair of the task; ``"eval"``
            plays a test pair.
        initial_grid: the working grid at reset: ``"input"`` (a copy of the pair's
            input) or ``"empty"`` (zeros with the input's shape).
        reward_mode: ``"dense"`` (similarity gain, step penalty, submit bonus/penalty)
            or ``"sparse"`` (``success_bonus`` on a correct submit, 0 otherwise).
        similarity_weight, step_penalty, success_bonus, failed_submit_penalty,
        invalid_action_penalty: the dense reward's terms (see ``docs/arc.md``).
        history_length: records kept in the action history; ``None`` keeps one per step.
        context: add the task's demonstration pairs to the observation as
            ``obs.context`` (the episode's own pair masked out in ``"train"`` mode;
            ``docs/arc.md``).
        augment: per episode, one of the 8 dihedral transforms and a permutation of the
            colours 1-9, applied to every grid of the episode's task (docs/arc.md).
        augment_all_colours: with ``augment``, permute all ten colours (0 included).
        augment_translate: with ``augment``, also pad every grid of the task with the
            same random number of background rows and columns at the top and left.
        strict: raise through ``eqx.error_if`` on an invalid action or a broken invariant
            instead of treating the action as a flagged no-op.

    >>> ArcConfig(max_episode_steps=50, selection_format="bbox").history_size
    50
    """

    max_episode_steps: int = 100
    selection_format: str = "point"
    mode: str = "train"
    initial_grid: str = "input"
    reward_mode: str = "dense"
    similarity_weight: float = 1.0
    step_penalty: float = -0.01
    success_bonus: float = 10.0
    failed_submit_penalty: float = -1.0
    invalid_action_penalty: float = 0.0
    history_length: int | None = None
    strict: bool = False
    context: bool = False
    augment: bool = False
    augment_all_colours: bool = False
    augment_translate: bool = False

    def __check_init__(self):
        require_int("ArcConfig.max_episode_steps", self.max_episode_steps, 1)
        _require_choice("selection_format", self.selection_format, SELECTION_FORMATS)
        _require_choice("mode", self.mode, MODES)
        _require_choice("initial_grid", self.initial_grid, INITIAL_GRIDS)
        _require_choice("reward_mode", self.reward_mode, REWARD_MODES)
        for field in (
            "similarity_weight",
            "step_penalty",
            "success_bonus",
            "failed_submit_penalty",
            "invalid_action_penalty",
        ):
            _require_float(field, getattr(self, field))
        if self.history_length is not None:
            require_int("ArcConfig.history_length", self.history_length, 1)
        for field in ("strict", "context", "augment", "augment_all_colours", "augment_translate"):
            if not isinstance(getattr(self, field), bool):
                raise ValueError(
                    f"ArcConfig.{field} must be True or False; got {getattr(self, field)!r}"
                )

        for field in ("augment_all_colours", "augment_translate"):
            if getattr(self, field) and not self.augment:
                raise ValueError(f"ArcConfig.{field} needs augment=True")

    @property
    def grid_shape(self) -> tuple[int, int]:
        return GRID_SHAPE

    @property
    def part(self) -> str:
        """The pairs an episode plays: a task's ``"train"`` (demonstration) or ``"test"``
        pairs."""
        return "train" if self.mode == "train" else "test"

    @property
    def history_size(self) -> int:
        """Number of action-history records kept per environment."""
        return self.max_episode_steps if self.history_length is None else self.history_length
