"""ARC Prize's own scorecard (``arc-agi`` 0.9.9, Python 3.12+) scoring given plays, for
tests/envs/arc3/test_scoring.py to hold gridax.envs.arc3.tools.scoring against.

A case is one scorecard: a list of games, each with its ``baseline_actions`` (``null``:
the game has no metadata at all) and its plays (none: the game was never played), each
play as ``level_actions`` (the actions charged to each level) and ``levels_completed``.
The script writes each play on a card the way the toolkit does (a completion record of
the running action count for each level completed; the first level not completed gets
the remaining actions), asks ``EnvironmentScorecard.from_scorecard`` and prints, for each
case, its input and the toolkit's answer: the scorecard's score and, for each game
played, its score and each play's score and level scores.

    python tests/tools/arc_agi_scores.py --seed 0 --cases 300 > scoring_cases.json
    python tests/tools/arc_agi_scores.py < cases.json   # {"cases": [{"games": [...]}]}
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from importlib.metadata import version

from arc_agi import EnvironmentInfo
from arc_agi.scorecard import Card, EnvironmentScorecard, Scorecard
from arcengine import GameState

MAX_LEVELS = 10


def card_of(game: dict) -> Card:
    """The toolkit's card for the game's plays, one guid per play."""
    card = Card(game_id=game["game_id"])
    for number, play in enumerate(game["plays"]):
        card.inc_play_count(f"{game['game_id']}-play-{number}")
        running = 0
        for level in range(play["levels_completed"]):
            running += play["level_actions"][level]
            card.actions_by_level[number].append((level + 1, running))
        unfinished = play["levels_completed"]
        if unfinished < len(play["level_actions"]):
            running += play["level_actions"][unfinished]
        card.actions[number] = running
        card.levels_completed[number] = play["levels_completed"]
        baselines = game["baseline_actions"] or []
        won = 0 < len(baselines) <= play["levels_completed"]
        card.states[number] = GameState.WIN if won else GameState.NOT_FINISHED
    return card


def answer(case: dict) -> dict:
    scorecard = Scorecard(card_id="gridax-scoring-case")
    infos = []
    for game in case["games"]:
        if game["plays"]:
            scorecard.cards[game["game_id"]] = card_of(game)
        if game["baseline_actions"] is not None:
            infos.append(
                EnvironmentInfo(game_id=game["game_id"], baseline_actions=game["baseline_actions"])
            )
    scored = EnvironmentScorecard.from_scorecard(scorecard, infos)
    return {
        "score": scored.score,
        "games": {
            environment.id: {
                "score": environment.score,
                "plays": [
                    {"score": run.score, "level_scores": run.level_scores}
                    for run in environment.runs
                ],
            }
            for environment in scored.environments
        },
    }


def random_case(rng: random.Random) -> dict:
    """A scorecard of 1-5 games: up to 10 baselines (sometimes none, sometimes no
    metadata), 0-3 plays each, actions around the baselines (a factor of 0.25 to 4, so
    that some levels reach the 115 ceiling), some 0, some plays completing more levels
    than there are baselines."""
    games = []
    for index in range(rng.randint(1, 5)):
        level_count = rng.choice([0, *range(1, MAX_LEVELS + 1), *range(1, MAX_LEVELS + 1)])
        baselines = [rng.choice([0, 1, 2, *range(5, 400)]) for _ in range(level_count)]
        if level_count == 0 and rng.random() < 0.5:
            baselines = None  # no metadata for the game
        plays = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            most = min(level_count + 2, MAX_LEVELS)
            levels_completed = rng.choice([rng.randint(0, most), min(level_count, most)])
            level_actions = []  # the levels completed and the one after: the others get none
            for level in range(min(levels_completed + 1, MAX_LEVELS)):
                baseline = baselines[level] if baselines and level < len(baselines) else 20
                factor = 2 ** rng.uniform(-2, 2)
                actions = 0 if rng.random() < 0.05 else max(1, round(max(baseline, 1) * factor))
                level_actions.append(actions)
            plays.append({"level_actions": level_actions, "levels_completed": levels_completed})
        games.append({"game_id": f"g{index:02d}", "baseline_actions": baselines, "plays": plays})
    return {"games": games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="make random cases instead of reading stdin")
    parser.add_argument("--cases", type=int, default=300)
    options = parser.parse_args()
    if options.seed is None:
        cases = json.load(sys.stdin)["cases"]
    else:
        rng = random.Random(options.seed)
        cases = [random_case(rng) for _ in range(options.cases)]
    json.dump(
        {
            "arc_agi": version("arc-agi"),
            "seed": options.seed,
            "cases": [{"input": case, "output": answer(case)} for case in cases],
        },
        sys.stdout,
        separators=(",", ":"),
    )


if __name__ == "__main__":
    main()
