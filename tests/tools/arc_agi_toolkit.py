"""ARC Prize's toolkit (``arc-agi`` 0.9.9) on the official game files against
``gridax.wrappers.arc_agi`` on gridax's ports: run by a Python 3.12+ that has gridax, the
toolkit and arcengine (``make arc3-parity``'s ``.venv-arcengine``).

    python tests/tools/arc_agi_toolkit.py compare [GAME ...]   # prints JSON: the differences
    python tests/tools/arc_agi_toolkit.py record [GAME ...]    # and, if none, records them
                                                               # (the games not named kept)

Per game, the same seeded episodes go through both ``Arcade``s (the toolkit's offline on
``../shared/reference/arc-agi-3`` or GRIDAX_ARC3_REFERENCE, and gridax's), one
``make`` each, recordings saved and one scorecard per arcade: random play (the game's
actions, RESET now and then, clicks half on the level's sprites), the winning run with
an action on the won game and a RESET, and for a game with undo an episode that fills
and empties the undo stack. ``compare`` checks every answer field for field and frame
for frame, the recordings line for line and the scorecards score for score, all but
the fields named in ``UNEQUAL``. ``record`` writes the toolkit's side as
``tests/fixtures/arc3/toolkit_answers.json.gz`` (frames as 64 bits of sha256), which
``tests/wrappers/test_arc_agi.py`` replays where Python 3.12 is absent.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from arc_agi import Arcade as ToolkitArcade  # noqa: E402
from arc_agi import OperationMode  # noqa: E402
from arcengine import GameAction  # noqa: E402

from gridax.bench.arc3 import official_games_folder  # noqa: E402
from gridax.envs.arc3.engine.types import CLICK, UNDO  # noqa: E402
from gridax.envs.arc3.games import GAMES, PORTED  # noqa: E402
from gridax.wrappers.arc_agi import Arcade  # noqa: E402
from tests.tools.record_traces import (  # noqa: E402
    random_actions,
    random_episodes,
    solving_episode,
    sprite_pixels,
)

FIXTURE = ROOT / "tests" / "fixtures" / "arc3" / "toolkit_answers.json.gz"
# What cannot be equal, by name: a play's uuid, the scorecard's, and the recordings' times.
UNEQUAL = {"guid", "card_id", "timestamp", "open_at", "last_update"}


def toolkit_episodes(game, seed: int = 0, count: int = 80) -> list[list[list[int]]]:
    """The episodes (module docstring), each a list of ``[id, x, y]``."""
    rng = np.random.default_rng(seed)
    episodes = [random_actions(rng, game, count, sprite_pixels(game, 0), reset_rate=0.04)]
    episodes.append(solving_episode(game) + random_actions(rng, game, 5))
    if UNDO in game.available_actions:
        episodes.append(random_episodes(game, seed, 20)[-1])
    return episodes


def play(arcade, game_id: str, actions: list[list[int]]) -> list:
    """One ``make`` (its reset's answer first), then each action's answer."""
    env = arcade.make(game_id, save_recording=True)
    answers = [env.observation_space]
    for action_id, x, y in actions:
        data = {"x": x, "y": y} if action_id == CLICK else None
        answers.append(env.step(GameAction.from_id(action_id), data=data))
    return answers


def frame_digest(frame) -> str:
    """A frame's first 64 bits of sha256: what the fixture keeps of it."""
    return hashlib.sha256(np.asarray(frame, np.int8).tobytes()).hexdigest()[:16]


def answer_record(answer, hashed: bool) -> dict:
    """An answer as JSON: its fields but ``guid``, its type, and its frames (or their
    sha256)."""
    fields = answer.model_dump(mode="json", exclude={"guid", "frame"})
    frames = [np.asarray(f) for f in answer.frame]
    fields["type"] = type(answer).__name__
    fields["frame_dtypes"] = sorted({str(f.dtype) for f in frames})
    if hashed:
        fields["frames"] = [frame_digest(f) for f in frames]
    else:
        fields["frames"] = [f.tolist() for f in frames]
    return fields


def without_unequal(value):
    """``value`` (JSON) with the fields of ``UNEQUAL`` dropped at every depth."""
    if isinstance(value, dict):
        return {k: without_unequal(v) for k, v in value.items() if k not in UNEQUAL}
    if isinstance(value, list):
        return [without_unequal(v) for v in value]
    return value


def recordings(folder: Path) -> list[list[dict]]:
    """Each play's recording (one JSONL file a play), in the order the plays were made."""
    files = sorted(folder.rglob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
    return [[json.loads(line) for line in f.read_text().splitlines()] for f in files]


def run(arcade_type, name: str, episodes, folder: Path, reference: Path | None):
    logger = logging.getLogger(f"arc_agi_toolkit.{arcade_type.__name__}")
    logger.setLevel(logging.WARNING)
    if reference is None:
        arcade = arcade_type(recordings_dir=str(folder), logger=logger)
    else:
        arcade = arcade_type(
            operation_mode=OperationMode.OFFLINE,
            environments_dir=str(reference),
            recordings_dir=str(folder),
            logger=logger,
        )
    answers = [play(arcade, name, actions) for actions in episodes]
    card = arcade.get_scorecard()
    return answers, recordings(folder), card.model_dump(mode="json")


def both(name: str):
    """``(name, episodes, toolkit's, gridax's)``: each side's answers, recordings and
    scorecard for the episodes of ``name``."""
    episodes = toolkit_episodes(GAMES[name])
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        toolkit = run(ToolkitArcade, name, episodes, Path(a), official_games_folder())
        ours = run(Arcade, name, episodes, Path(b), None)
    return name, episodes, toolkit, ours


def differences(played) -> list[str]:
    """What differs between the two arcades' ``played`` (:func:`both`; empty: nothing)."""
    name, episodes, toolkit, ours = played
    found = []
    if len(toolkit[1]) != len(episodes) or not all(toolkit[1]):
        found.append(f"{name}: the toolkit made {len(toolkit[1])} recordings, not one a play")
    for e, (theirs, mine) in enumerate(zip(toolkit[0], ours[0], strict=True)):
        for i, (t, m) in enumerate(zip(theirs, mine, strict=True)):
            if answer_record(t, hashed=False) != answer_record(m, hashed=False):
                action = episodes[e][i - 1] if i else "make"
                found.append(f"{name} episode {e} answer {i} ({action}) differs")
                break
    if without_unequal(toolkit[1]) != without_unequal(ours[1]):
        found.append(f"{name}: the recordings differ")
    if without_unequal(toolkit[2]) != without_unequal(ours[2]):
        found.append(f"{name}: the scorecards differ: {toolkit[2]} vs {ours[2]}")
    return found


def recorded(played) -> dict:
    """The toolkit's side of ``played`` for the fixture: the episodes, every answer
    (frames as digests) and the scorecard."""
    _, episodes, toolkit, _ = played
    return {
        "episodes": episodes,
        "answers": [[answer_record(a, hashed=True) for a in play] for play in toolkit[0]],
        "scorecard": without_unequal(toolkit[2]),
    }


def main() -> None:
    mode, names = sys.argv[1], sys.argv[2:] or [m.GAME.name for m in PORTED]
    if mode not in ("compare", "record"):
        raise SystemExit(__doc__)
    played = [both(name) for name in names]
    found = [d for p in played for d in differences(p)]
    print(json.dumps({"differences": found}))
    if mode == "record":
        if found:
            raise SystemExit("not recorded: the two arcades differ")
        # The games named are recorded again, the others kept as they were.
        data = json.loads(gzip.decompress(FIXTURE.read_bytes())) if FIXTURE.exists() else {}
        data.update({p[0]: recorded(p) for p in played})
        FIXTURE.write_bytes(gzip.compress(json.dumps(data).encode(), mtime=0))
        print(FIXTURE)


if __name__ == "__main__":
    main()
