"""ARC Prize's own toolkit, ``arc-agi`` 0.9.9, on gridax's ARC-AGI-3 games (extra
``arc-agi``; it and ``arcengine`` need Python 3.12 or later).

Code written for the toolkit changes one line::

    from arc_agi import Arcade                    # ARC Prize's engine, in Python
    from gridax.wrappers.arc_agi import Arcade    # the same games, in JAX

    arcade = Arcade()
    env = arcade.make("ls20")                     # or "ls20-9607627b", or "keys"
    frame = env.step(GameAction.ACTION1)          # arcengine's FrameDataRaw
    card = arcade.close_scorecard()               # arc_agi's EnvironmentScorecard

:class:`Arcade` is the toolkit's own ``Arcade``, offline, whose environments are
gridax's games (the ported ones under their ids and versions, titles, tags and human
baselines from ``metadata.json``; gridax's own under their names, scored against their
reference solutions). Its ``make`` returns a :class:`GridaxEnvironmentWrapper`, the
toolkit's ``EnvironmentWrapper`` whose ``reset`` and ``step`` answer as
``LocalEnvironmentWrapper`` does on the official file: the same ``FrameDataRaw``, field
for field and frame for frame (every frame of the action), through the toolkit's own
recordings, renderers and ``ScorecardManager``. :func:`make` gives one without an
``Arcade``, for any :class:`~gridax.envs.arc3.Game`. :class:`PlayBatch` plays many
plays of one game at once and answers each as its own wrapper would.

What differs from the toolkit, by design (docs/interop.md):

- ``guid`` is a new uuid per play, as the toolkit's; recordings differ in it and their
  timestamps only.
- An action the game does not offer, a click without integer ``x`` and ``y`` in 0-63,
  or an action that is not a ``GameAction`` changes nothing: ``step`` logs an error
  that names it and what is allowed, and returns ``None`` (the toolkit's answer to an
  action that fails). arcengine hands such an action to the game's own code, whose
  answer differs from game to game (some count it, some act on it).
- ``seed`` is accepted and unused: gridax's games are deterministic, and no official
  file of a ported game takes a seed.
- arcengine's ``ONLY_RESET_LEVELS`` environment variable is not read.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

try:  # the extra arc-agi: Python 3.12+ only
    import arc_agi  # pyright: ignore[reportMissingImports]
    from arc_agi import EnvironmentInfo, OperationMode  # pyright: ignore[reportMissingImports]
    from arcengine import (  # pyright: ignore[reportMissingImports]
        ActionInput,
        FrameData,
        FrameDataRaw,
        GameAction,
        GameState,
    )
except ImportError as error:  # pragma: no cover - depends on the Python
    raise ImportError(
        "gridax.wrappers.arc_agi needs ARC Prize's toolkit: pip install 'gridax[arc-agi]' "
        "(Python 3.12 or later)"
    ) from error

from gridax.envs.arc3 import CLICK, RESET, Game, baseline_actions, official, plays
from gridax.envs.arc3 import games as game_modules

__all__ = ["Arcade", "GridaxEnvironmentWrapper", "PlayBatch", "environment_info", "make"]

GAMES_FOLDER = str(Path(game_modules.__file__).parent)


def environment_info(game: Game) -> EnvironmentInfo:
    """What the toolkit lists of ``game``: a ported game as its ``metadata.json`` says
    (id with version, title, tags, frame rate, human baselines, download date); one of
    gridax's own under its name in lower case, its baselines its reference solutions."""
    if game.name in official.available():
        data = official.load(game.name)
        return EnvironmentInfo(
            game_id=f"{data.game_id}-{data.version}",
            title=data.title,
            default_fps=data.default_fps,
            tags=list(data.game_tags),
            baseline_actions=list(data.baseline_actions),
            date_downloaded=data.date_downloaded,  # pyright: ignore[reportArgumentType]
            local_dir=str(official.DATA),
        )
    return EnvironmentInfo(
        game_id=game.name.lower(),
        title=game.name,
        tags=list(game.tags),
        baseline_actions=list(baseline_actions(game)),
        local_dir=GAMES_FOLDER,
    )


def _game_of(game: str | Game) -> Game:
    """A gridax game by the toolkit's id (``"ls20"``, ``"ls20-9607627b"``), by gridax's
    name, or as given."""
    if not isinstance(game, str):
        return game
    by_id = {g.name.lower(): g for g in game_modules.GAMES.values()}
    found = by_id.get(game.split("-", 1)[0].lower())
    if found is None:
        raise ValueError(f"no gridax ARC-AGI-3 game {game!r}; there are {sorted(by_id)}")
    listed = environment_info(found).game_id
    if "-" in game and listed != game.lower():
        raise ValueError(f"gridax has {listed}, not {game!r}")
    return found


def _action_of(game: Game, action: Any, data: dict | None) -> tuple[int, int, int]:
    """``(id, x, y)`` of a toolkit action, or a ``ValueError`` that names what is wrong."""
    if not isinstance(action, GameAction):
        raise ValueError(f"an action is an arcengine GameAction; got {action!r}")
    offered = (RESET, *game.available_actions)
    if action.value not in offered:
        names = ", ".join(GameAction.from_id(a).name for a in offered)
        raise ValueError(f"{game.name} offers {names}; got {action.name}")
    if action.value != CLICK:
        return action.value, 0, 0
    x, y = (data or {}).get("x"), (data or {}).get("y")
    if not (_is_pixel(x) and _is_pixel(y)):
        raise ValueError(f"ACTION6 takes data {{'x': 0-63, 'y': 0-63}}; got {data!r}")
    return action.value, x, y


def _is_pixel(value) -> TypeGuard[int]:
    """An integer (not a bool) in 0-63: a click's ``x`` or ``y``."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 64


def _frame_data(
    answer: plays.Answer, action_input: ActionInput, game_id: str, guid: str, game: Game
):
    """The toolkit's answer to one action, from gridax's."""
    if answer.refused:  # arcengine's own answer to an action on a finished game
        out = FrameData(
            game_id=game_id,
            frame=[],
            state=GameState(answer.state),
            action_input=action_input,
            available_actions=list(game.available_actions),
        )
    else:
        out = FrameDataRaw(
            game_id=game_id,
            state=GameState(answer.state),
            levels_completed=answer.levels_completed,
            win_levels=answer.win_levels,
            action_input=action_input,
            full_reset=answer.full_reset,
            available_actions=list(game.available_actions),
        )
        out.frame = answer.frames
    out.guid = guid
    return out


def _begin_play(record: arc_agi.EnvironmentWrapper) -> None:
    """A new play's guid and, where it records, its recording file, as
    ``LocalEnvironmentWrapper`` begins one."""
    record._guid = str(uuid.uuid4())
    if record.save_recording:
        record._setup_recording_file()


def _answer_all(
    records: Sequence[arc_agi.EnvironmentWrapper],
    lockstep: plays.Plays,
    actions: Sequence,
    data: Sequence,
    reasoning: Sequence,
) -> list | None:
    """Action ``actions[i]`` in play ``i`` of ``lockstep``, answered as the toolkit
    answers: each answer through ``records[i]._set_last_response`` (the toolkit's own
    recording, renderer and scorecard of play ``i``). A bad action is logged by name and
    no play moves (``None``)."""
    game = lockstep.game
    game_id = records[0].environment_info.game_id
    checked = []
    for action, d in zip(actions, data, strict=True):
        try:
            checked.append(_action_of(game, action, d))
        except ValueError as bad:
            records[0].logger.error(f"{game_id}: {bad}")
    if len(checked) < len(actions):
        return None
    ids, xs, ys = np.asarray(checked, np.int32).T
    answers = lockstep.act(ids, xs, ys)
    out = []
    for answer, record, action, d, r in zip(
        answers, records, actions, data, reasoning, strict=True
    ):
        action_input = ActionInput(id=action, data=d or {}, reasoning=r)
        frame_data = _frame_data(answer, action_input, game_id, record._guid or "", game)
        record._set_last_response(frame_data, reasoning=r)
        out.append(frame_data)
    return out


class GridaxEnvironmentWrapper(arc_agi.EnvironmentWrapper):
    """The toolkit's ``EnvironmentWrapper`` backed by a gridax game (module docstring):
    made as ``LocalEnvironmentWrapper`` is, and reset once on construction as it is."""

    def __init__(
        self,
        environment_info: EnvironmentInfo,
        logger: logging.Logger,
        scorecard_id: str,
        game: Game,
        seed: int = 0,
        save_recording: bool = False,
        include_frame_data: bool = True,
        recordings_dir: str = "recordings",
        scorecard_manager: arc_agi.ScorecardManager | None = None,
        renderer: Callable[[int, FrameDataRaw], None] | None = None,
    ) -> None:
        super().__init__(
            environment_info,
            logger,
            scorecard_id,
            save_recording,
            include_frame_data,
            recordings_dir,
            scorecard_manager,
            renderer,
        )
        self.game = game
        _begin_play(self)
        self._plays = plays.Plays(game)
        self.reset()

    def reset(self) -> FrameDataRaw | None:
        """RESET: the level again, or the whole game where no action was taken since."""
        return self.step(GameAction.RESET)

    def step(
        self,
        action: GameAction,
        data: dict[str, Any] | None = None,
        reasoning: dict[str, Any] | None = None,
    ) -> FrameDataRaw | None:
        """One action: its ``FrameDataRaw``, or ``None`` (logged) for a bad one."""
        out = _answer_all([self], self._plays, [action], [data], [reasoning])
        return None if out is None else out[0]


class PlayBatch:
    """``num_plays`` plays of one game at once, for agents that choose actions one play
    at a time: ``step`` takes an action per play and returns a ``FrameDataRaw`` per
    play, each what its own :class:`GridaxEnvironmentWrapper` would answer (its own
    guid, recording, renderer call and scorecard entry, through the toolkit's code).
    Plays start reset, as a wrapper does; a bad action in any play is logged and no play
    moves (``step`` returns ``None``)."""

    def __init__(
        self,
        environment_info: EnvironmentInfo,
        game: Game,
        num_plays: int,
        logger: logging.Logger | None = None,
        scorecard_id: str = "",
        save_recording: bool = False,
        include_frame_data: bool = True,
        recordings_dir: str = "recordings",
        scorecard_manager: arc_agi.ScorecardManager | None = None,
        renderer: Callable[[int, FrameDataRaw], None] | None = None,
    ) -> None:
        self.game = game
        self.environment_info = environment_info
        self.logger = logger or logging.getLogger(__name__)
        self._plays = plays.Plays(game, num_plays)
        # The toolkit's own bookkeeping, once per play: recording file, renderer, scorecard.
        self.records = [
            arc_agi.EnvironmentWrapper(
                environment_info,
                self.logger,
                scorecard_id,
                save_recording,
                include_frame_data,
                recordings_dir,
                scorecard_manager,
                renderer,
            )
            for _ in range(num_plays)
        ]
        for record in self.records:
            _begin_play(record)
        self.reset()

    @property
    def num_plays(self) -> int:
        return self._plays.num_plays

    @property
    def guids(self) -> list[str]:
        return [record._guid or "" for record in self.records]

    def reset(self) -> list[FrameDataRaw] | None:
        """RESET in every play."""
        return self.step([GameAction.RESET] * self.num_plays)

    def step(
        self,
        actions: Sequence[GameAction],
        data: Sequence[dict[str, Any] | None] | None = None,
        reasoning: Sequence[dict[str, Any] | None] | None = None,
    ) -> list[FrameDataRaw] | None:
        """Action ``actions[i]`` (with ``data[i]``, ``reasoning[i]``) in play ``i``."""
        count = self.num_plays
        data = list(data) if data is not None else [None] * count
        reasoning = list(reasoning) if reasoning is not None else [None] * count
        if not len(actions) == len(data) == len(reasoning) == count:
            self.logger.error(
                f"{self.environment_info.game_id}: a batch of {count} plays takes {count} "
                f"actions, data and reasoning; got {len(actions)}, {len(data)}, {len(reasoning)}"
            )
            return None
        return _answer_all(self.records, self._plays, actions, data, reasoning)


def make(
    game: str | Game,
    seed: int = 0,
    scorecard_id: str = "",
    save_recording: bool = False,
    include_frame_data: bool = True,
    logger: logging.Logger | None = None,
    recordings_dir: str = "recordings",
    scorecard_manager: arc_agi.ScorecardManager | None = None,
    renderer: Callable[[int, FrameDataRaw], None] | None = None,
) -> GridaxEnvironmentWrapper:
    """A wrapper for ``game`` (a toolkit id such as ``"ls20"``, or any
    :class:`~gridax.envs.arc3.Game`) without an :class:`Arcade`; an unknown id is a
    ``ValueError`` that names the games there are."""
    resolved = _game_of(game)
    return GridaxEnvironmentWrapper(
        environment_info(resolved),
        logger or logging.getLogger(__name__),
        scorecard_id,
        resolved,
        seed=seed,
        save_recording=save_recording,
        include_frame_data=include_frame_data,
        recordings_dir=recordings_dir,
        scorecard_manager=scorecard_manager,
        renderer=renderer,
    )


class Arcade(arc_agi.Arcade):
    """The toolkit's ``Arcade``, always offline, whose environments are gridax's
    ARC-AGI-3 games (all registered ones, and ``games`` besides): ``make``,
    ``get_environments`` and the scorecards are the toolkit's own; ``make`` returns a
    :class:`GridaxEnvironmentWrapper`, and :meth:`make_batch` a :class:`PlayBatch`."""

    def __init__(
        self,
        recordings_dir: str = "recordings",
        logger: logging.Logger | None = None,
        games: Sequence[Game] = (),
    ) -> None:
        self._games = {**game_modules.GAMES, **{g.name: g for g in games}}
        super().__init__(
            operation_mode=OperationMode.OFFLINE, recordings_dir=recordings_dir, logger=logger
        )

    def _parse_operation_mode_from_env(self) -> OperationMode:
        return OperationMode.OFFLINE  # gridax's games are local: OPERATION_MODE is not read

    def _scan_for_environments(self) -> None:
        self.available_environments = [environment_info(g) for g in self._games.values()]

    def _game_for(self, env_info: EnvironmentInfo) -> Game:
        by_id = {environment_info(g).game_id: g for g in self._games.values()}
        return by_id[env_info.game_id]

    def _create_wrapper(
        self,
        env_info: EnvironmentInfo,
        scorecard_id: str,
        save_recording: bool,
        include_frame_data: bool,
        seed: int = 0,
        render_mode: str | None = None,
        renderer: Callable[[int, FrameDataRaw], None] | None = None,
    ) -> GridaxEnvironmentWrapper:
        return GridaxEnvironmentWrapper(
            env_info,
            self.logger,
            scorecard_id,
            self._game_for(env_info),
            seed=seed,
            save_recording=save_recording,
            include_frame_data=include_frame_data,
            recordings_dir=self.recordings_dir,
            scorecard_manager=self.scorecard_manager,
            renderer=self._create_renderer_from_mode(render_mode, renderer, env_info),
        )

    def make_batch(
        self,
        game_id: str,
        num_plays: int,
        scorecard_id: str | None = None,
        save_recording: bool = False,
        include_frame_data: bool = True,
        render_mode: str | None = None,
        renderer: Callable[[int, FrameDataRaw], None] | None = None,
    ) -> PlayBatch:
        """``num_plays`` plays of ``game_id`` at once (:class:`PlayBatch`), scored on
        ``scorecard_id`` (default: the arcade's own, as ``make``)."""
        game = _game_of(game_id)
        info = environment_info(game)
        if scorecard_id is None:
            with self._lock:
                scorecard_id = self._default_scorecard_id or self._create_scorecard_no_lock()
                self._default_scorecard_id = scorecard_id
        return PlayBatch(
            info,
            game,
            num_plays,
            logger=self.logger,
            scorecard_id=scorecard_id,
            save_recording=save_recording,
            include_frame_data=include_frame_data,
            recordings_dir=self.recordings_dir,
            scorecard_manager=self.scorecard_manager,
            renderer=self._create_renderer_from_mode(render_mode, renderer, info),
        )
