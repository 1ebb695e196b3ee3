"""``Arc3Env``: an ARC-AGI-3 game behind :class:`gridax.Env`, and its ids
``Arc3-<Game>-v0`` (``games.GAMES``).

An episode is one play of the whole game from its first level. The observation is the
last frame the action made (64x64 ``int8``), and ``info["frame_count"]`` says how many
it made (the functional ``arc3.step`` returns them all). The reward is the change in
levels completed (so an episode's return is the levels completed at its end; a RESET
that restarts the whole game gives back what it had). The episode terminates when the
game is won or lost (``GAME_OVER``) and is truncated after ``max_episode_steps``
actions; a finished episode is absorbing. Actions are :class:`~gridax.envs.arc3.Action`
(``id`` 0-7, click ``x``/``y`` 0-63); one the game does not offer, or a click off the
screen, is a flagged no-op (``info["invalid_action"]``), or an error with
``strict=True``.

Where an episode starts: ``start_level`` (an :class:`Arc3Config` field, a ``make``
option): a level number (0-based; arcengine's ``set_level`` on a new game, so a RESET
before any action still restarts the whole game), a tuple of levels drawn per episode
with the reset's key, or ``"random"`` for any of the game's levels (curricula).

Scoring: ``info["score"]`` is ARC Prize's score of the episode so far, as arc-agi
0.9.9's scorecard computes it (:mod:`gridax.envs.arc3.tools.scoring`) with the game's human
baselines (a ported game's ``metadata.json``; an invented game's reference solutions):
a play's actions are charged to the level being played (RESETs that restart a level
included), a RESET that restarts the whole game begins a new play, and the score is the
best play's. ``info["level_actions"]`` counts the actions sent while each level was
current, RESETs and no-ops included; ``episode_metrics`` reports both with
``efficiency``, the mean over levels of ``min(1, reference / actions) ** 2`` for
completed levels (0 for the others), where ``reference`` is the length of the game's
reference solution of the level.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import ClassVar, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float32, Int32, UInt8, UInt32

from gridax import prng, spaces
from gridax.dispatch import per_config
from gridax.envs.arc3 import env as functional
from gridax.envs.arc3.engine.camera import SCREEN
from gridax.envs.arc3.engine.checks import is_over, is_valid
from gridax.envs.arc3.engine.game import Game
from gridax.envs.arc3.engine.types import NUM_ACTIONS, STATUS_NAMES, WIN, Action, Arc3State
from gridax.envs.arc3.games import GAMES
from gridax.envs.arc3.tools import official, pictures, scoring
from gridax.fields import as_dtype
from gridax.interface import Env
from gridax.pictures import write as write_picture
from gridax.validation import require_known, require_options, require_type

IDS = {f"Arc3-{name}-v0": name for name in GAMES}
NO_ACTION = -1  # an action id no game offers


@dataclasses.dataclass(frozen=True)
class Arc3Config:
    """An ARC-AGI-3 env's settings.

    Attributes:
        game: the game (``games.GAMES`` has the registered ones; any :class:`Game` works).
        max_episode_steps: actions after which an episode is truncated (None: never).
        strict: raise through ``eqx.error_if`` on an action the game does not offer or a
            click off the screen instead of treating it as a flagged no-op.
        start_level: where episodes start (module docstring): a level, a tuple of levels
            to draw from per episode, or ``"random"`` for any level.
    """

    game: Game
    max_episode_steps: int | None = 500
    strict: bool = False
    start_level: int | tuple[int, ...] | str = 0

    def __post_init__(self):
        require_type("game", self.game, Game, "an arc3.Game")
        if self.max_episode_steps is not None and self.max_episode_steps < 1:
            raise ValueError(
                f"max_episode_steps must be >= 1 or None; got {self.max_episode_steps}"
            )
        self.start_levels  # noqa: B018 (a named error for a bad start_level)

    @property
    def start_levels(self) -> tuple[int, ...]:
        """The levels an episode may start on."""
        count = len(self.game.levels)
        given = self.start_level
        if isinstance(given, str):
            if given != "random":
                raise ValueError(
                    f'start_level must be a level, a tuple of levels or "random"; got {given!r}'
                )
            return tuple(range(count))
        levels = tuple(given) if isinstance(given, tuple | list) else (given,)
        bad = [v for v in levels if not isinstance(v, int | np.integer) or not 0 <= v < count]
        if bad or not levels:
            raise ValueError(f"start_level {given!r}: {self.game.name} has levels 0-{count - 1}")
        return tuple(int(v) for v in levels)


class Arc3EnvState(eqx.Module):
    """The game's state, the env's PRNG key (games are deterministic: it only keeps the
    contract), and the actions taken this episode and per level. The observation is the
    game's last frame shown, drawn from ``game_state`` (``arc3.frame``)."""

    game_state: Arc3State
    key: UInt32[Array, "*b 2"] = eqx.field(converter=as_dtype(jnp.uint32))
    steps: Int32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.int32))
    level_actions: Int32[Array, "*b L"] = eqx.field(converter=as_dtype(jnp.int32))
    # The scorecard's accounting (module docstring): the play's actions per scored level
    # (one per baseline), and the best score of the plays before it this episode.
    play_actions: Int32[Array, "*b B"] = eqx.field(converter=as_dtype(jnp.int32))
    best_play_score: Float32[Array, "*b"] = eqx.field(converter=as_dtype(jnp.float32))


def episode_end(state: Arc3EnvState, config: Arc3Config) -> tuple[Bool[Array, "..."], ...]:
    """``(terminated, truncated)``: the game is won or lost; or, before that, the episode
    ran out of steps. ``step`` and the env's hooks all ask this."""
    limit = config.max_episode_steps
    terminated = is_over(state.game_state)
    out_of_steps = False if limit is None else state.steps >= limit
    return terminated, out_of_steps & ~terminated


def reference_actions(game: Game) -> tuple[int, ...]:
    """The length of the game's reference solution of each level."""
    return tuple(len(moves) for moves in game.solutions)


def baseline_actions(game: Game) -> tuple[int, ...]:
    """The actions a level is scored against: the game's human baselines, or (an
    invented game without them) the lengths of its reference solutions."""
    return game.baseline_actions or reference_actions(game)


def play_score(state: Arc3EnvState, game: Game) -> Float32[Array, "*b"]:
    """ARC Prize's score of the play in progress (:mod:`gridax.envs.arc3.tools.scoring`)."""
    baselines = jnp.asarray(baseline_actions(game), jnp.int32)
    return scoring.game_score_jax(state.play_actions, state.game_state.score, baselines)


def _start_level(key, config: Arc3Config) -> Int32[Array, ""]:
    """The level an episode from ``key`` starts on (the env's level generator)."""
    levels = config.start_levels
    if len(levels) == 1:
        return jnp.int32(levels[0])
    return jax.random.choice(key, jnp.asarray(levels, jnp.int32))


def _mutate_level(key, level, config: Arc3Config) -> Int32[Array, ""]:
    """A neighbouring level of the game: one before or after ``level``, within the game."""
    step = jnp.where(jax.random.bernoulli(key), 1, -1)
    return jnp.clip(level + step, 0, len(config.game.levels) - 1).astype(jnp.int32)


def _reset(key, config: Arc3Config) -> tuple[Arc3EnvState, Array]:
    return _reset_to_level(key, _start_level(key, config), config)


def _reset_to_level(key, level, config: Arc3Config) -> tuple[Arc3EnvState, Array]:
    game = config.game
    game_state, frame = functional.reset(game, level)
    levels = jnp.zeros(len(game.levels), jnp.int32)
    scored = jnp.zeros(len(baseline_actions(game)), jnp.int32)
    state = Arc3EnvState(
        game_state, prng.key_data(key), jnp.int32(0), levels, scored, jnp.float32(0)
    )
    return state, frame


def _step(state: Arc3EnvState, action: Action, config: Arc3Config):
    game = config.game
    valid = is_valid(action, game)
    # A finished episode is absorbing: its game gets an action no game offers, a no-op
    # that changes nothing and makes no frame.
    was_finished = jnp.logical_or(*episode_end(state, config))
    idle = eqx.tree_at(lambda a: a.id, action, jnp.where(was_finished, NO_ACTION, action.id))
    new_game, drawn, info = functional.step(state.game_state, idle, game, frames="last")
    counted = jnp.where(was_finished, 0, 1)
    # A RESET that restarts the whole game ends the play: its score is kept if the best,
    # and the new play starts with no action charged (not even this RESET).
    new_play = info["full_reset"]
    best = jnp.maximum(state.best_play_score, jnp.where(new_play, play_score(state, game), 0.0))
    charged = state.play_actions.at[state.game_state.score].add(counted)  # past the end: dropped
    new = Arc3EnvState(
        new_game,
        state.key,
        state.steps + counted,
        state.level_actions.at[state.game_state.level].add(counted),
        jnp.where(new_play, 0, charged),
        best,
    )
    terminated, truncated = episode_end(new, config)
    info = {
        **info,
        "invalid_action": ~valid,
        "level_actions": new.level_actions,
        "score": jnp.maximum(best, play_score(new, game)),
        "terminated": terminated,
        "truncated": truncated,
    }
    reward = (new_game.score - state.game_state.score).astype(jnp.float32)
    if config.strict:  # on the reward, as the ARC env's checks (EQX_ON_ERROR=nan: NaN)
        reward = eqx.error_if(
            reward,
            ~valid,
            f"action not offered by {game.name!r} (RESET and "
            f"{list(game.available_actions)}) or a click off the 64x64 screen",
        )
    return new, drawn[-1], reward, terminated | truncated, info


class _Compiled(NamedTuple):
    reset: Callable
    step: Callable
    batch_reset: Callable
    batch_step: Callable
    reset_to_level: Callable


def _compile(config: Arc3Config) -> _Compiled:
    def reset(key):
        return _reset(key, config)

    def step(state, action):
        return _step(state, action, config)

    def reset_to_level(key, level):
        return _reset_to_level(key, level, config)

    # Strict checks raise through eqx.error_if: eqx.filter_jit names their failure
    # (EquinoxRuntimeError), as the ARC env's do.
    jit = eqx.filter_jit if config.strict else jax.jit
    return _Compiled(
        jit(reset), jit(step), jit(jax.vmap(reset)), jit(jax.vmap(step)), jit(reset_to_level)
    )


_compiled = per_config(_compile)


class Arc3Env(Env):
    """An ARC-AGI-3 game (module docstring)."""

    env_id: str = eqx.field(static=True)
    config: Arc3Config = eqx.field(static=True)

    kind: ClassVar[str] = "arc3"
    has_levels: ClassVar[bool] = True  # a level is the game's level an episode starts on

    @property
    def game(self) -> Game:
        return self.config.game

    @property
    def default_params(self) -> None:
        return None  # the levels are part of the game, compiled in

    def reset(self, key, params=None):
        return _compiled(self.config).reset(key)

    def step(self, state, action):
        return _compiled(self.config).step(state, action)

    def batch_reset(self, keys, params=None):
        return _compiled(self.config).batch_reset(keys)

    def batch_step(self, states, actions):
        return _compiled(self.config).batch_step(states, actions)

    def sample_level(self, key, params=None) -> Int32[Array, ""]:
        return _start_level(key, self.config)

    def reset_to_level(self, key, level, params=None):
        functional.check_start_level(level, self.game)  # a concrete level, by name
        return _compiled(self.config).reset_to_level(key, jnp.asarray(level, jnp.int32))

    def mutate_level(self, key, level, params=None) -> Int32[Array, ""]:
        return _mutate_level(key, level, self.config)

    def observe(self, state):
        return functional.frame(state.game_state, self.game)

    def terminated(self, state):
        return episode_end(state, self.config)[0]

    def truncated(self, state):
        return episode_end(state, self.config)[1]

    @property
    def metadata(self) -> dict:
        """What the env is: the game, its levels and actions, the baselines it is scored
        against, and for a port of ARC Prize's game the version it follows (the official
        file's id, version and sha256, and the arcengine it is exact against)."""
        game = self.game
        about = {
            "game": game.name,
            "levels": len(game.levels),
            "available_actions": list(game.available_actions),
            "baseline_actions": list(baseline_actions(game)),
        }
        if game.name in official.available():
            data = official.load(game.name)
            about.update(
                source=f"{data.game_id}-{data.version}",
                version=data.version,
                source_sha256=data.source_sha256,
                arcengine=data.arcengine,
                title=data.title,
            )
        return about

    @property
    def available_actions(self) -> Bool[Array, " 8"]:
        """Which action ids the game offers (RESET always): a mask for a policy."""
        return self.game.offers(jnp.arange(NUM_ACTIONS))

    def action_mask(self, state) -> dict[str, Bool[Array, "... 8"]]:
        batch = jnp.shape(state.steps)
        return {"id": jnp.broadcast_to(self.available_actions, (*batch, NUM_ACTIONS))}

    def observation_image(self, obs) -> UInt8[Array, "... 64 64 3"]:
        return pictures.colours(obs)

    def reference_actions(self) -> np.ndarray:
        """The length of the game's reference solution of each level."""
        return np.array(reference_actions(self.game), np.int32)

    def episode_metrics(self, info, length):
        shape = jnp.shape(info["level_actions"])  # [..., levels]
        level = jnp.broadcast_to(jnp.arange(shape[-1]), shape)
        completed = level < info["levels_completed"][..., None]
        spent = jnp.maximum(info["level_actions"], 1)
        reference = jnp.broadcast_to(jnp.asarray(self.reference_actions()), shape)
        ratio = jnp.minimum(1.0, reference / spent) ** 2
        return {
            "levels_completed": info["levels_completed"],
            "won": info["status"] == WIN,
            "score": info["score"],
            "level_actions": info["level_actions"],
            "efficiency": jnp.mean(jnp.where(completed, ratio, 0.0), axis=-1),
        }

    def invariant_violations(self, states):
        game, levels = states.game_state, len(self.game.levels)
        screen = functional.frame(states.game_state, self.game)
        colours = jnp.all((screen >= 0) & (screen < 16), axis=(-1, -2))
        checks = {
            "level_in_range": (game.level >= 0) & (game.level < levels),
            "score_in_range": (game.score >= 0) & (game.score <= levels),
            "status_known": (game.status >= 0) & (game.status < len(STATUS_NAMES)),
            "undo_stack_in_range": (game.history_size >= 0)
            & (game.history_size <= max(self.game.undo_depth, 1)),
            "frame_colours": colours,
            "steps_counted": jnp.sum(states.level_actions, axis=-1) == states.steps,
        }
        return {name: jnp.sum(~ok, dtype=jnp.int32) for name, ok in checks.items()}

    def render(self, state, *, env: int = 0, cell: int = 8, path=None):
        """The state's last frame as RGB (``cell`` pixels per frame pixel)."""
        game_state = state.game_state
        if game_state.level.ndim:  # a batch: only env ``env`` is drawn
            game_state = jax.tree.map(lambda leaf: leaf[env], game_state)
        frame = functional.frame(game_state, self.game)
        image = pictures.picture(frame, cell)
        if path is not None:
            write_picture(image, path)
        return image

    def checkpoint_filter(self, state):
        require_type("state", state, Arc3EnvState, "an Arc3EnvState")
        return jax.tree.map(lambda _: True, state)  # the state holds the whole game

    def restore_task_data(self, state, params=None):
        return state

    def params_identity(self, params=None) -> dict:
        return {}

    @property
    def observation_space(self) -> spaces.Box:
        return spaces.Box(0, 15, (SCREEN, SCREEN), jnp.int8)

    @property
    def action_space(self) -> spaces.Dict:
        fields = {
            "id": spaces.Discrete(NUM_ACTIONS),
            "x": spaces.Discrete(SCREEN),
            "y": spaces.Discrete(SCREEN),
        }
        return spaces.Dict(fields, cls=Action)


def registered_ids() -> list[str]:
    return list(IDS)


def make_env(env_id: str, **overrides) -> Arc3Env:
    """The game registered as ``env_id``, with :class:`Arc3Config` fields overridden
    (``max_episode_steps``, ``strict``, ``start_level``)."""
    require_known("ARC-AGI-3 id", env_id, IDS)
    options = {field.name for field in dataclasses.fields(Arc3Config)} - {"game"}
    require_options(env_id, overrides, options)
    return Arc3Env(env_id, Arc3Config(GAMES[IDS[env_id]], **overrides))
