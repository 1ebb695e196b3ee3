"""``gridax evaluate | score``: an ARC policy scored as ARC Prize scores it, a
submission file scored, and (``evaluate --arc3``) a policy on the ARC-AGI-3 games. The
work is :func:`gridax.envs.arc.evaluate`, :func:`gridax.envs.arc.score_submission` and
:mod:`gridax.envs.arc3.tools.evaluation`; here are the command line's parts: reading the
``--tasks`` and ``--policy`` specs, the progress bar and the report files.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path
from typing import cast

import numpy as np

from gridax.envs import arc


def tasks_from_spec(spec: str) -> arc.TaskBank:
    """``"arc-agi-1:evaluation"``, ``"arc-agi-2:training"`` (a built-in source and split)
    or a folder of ARC JSON files."""
    source, _, split = spec.partition(":")
    if source in arc.BUILTIN_SOURCES:
        return arc.load_tasks(source, split or "evaluation")
    return arc.load_tasks(spec)


def policy_from_spec(spec: str, tasks: arc.TaskBank, config: arc.ArcConfig):
    """``"random"``, ``"oracle"`` or ``"module:function"`` (a policy ``(obs, key) ->
    action``, imported)."""
    if spec == "random":
        return arc.random_policy(config)
    if spec == "oracle":
        return arc.Oracle(tasks)
    return imported_policy(spec, "'random', 'oracle'")


def imported_policy(spec: str, builtins: str):
    """The callable ``"module:function"`` names (``builtins``: the other choices, for the
    error)."""
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise ValueError(f"--policy is {builtins} or 'module:function'; got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"--policy {spec!r}: cannot import {module_name!r} ({error})") from None
    policy = getattr(module, name, None)
    if not callable(policy):
        raise ValueError(f"--policy {spec!r}: {module_name} has no callable {name!r}")
    return policy


def failures(tasks: arc.TaskBank, evaluation: arc.Evaluation, limit: int = 6) -> list:
    """Up to ``limit`` unsolved test outputs as rows of ``arc.render.answer_sheet``."""
    pairs = tasks.pairs("test")
    rows = []
    for task_id, solved in evaluation.score.solved.items():
        index = tasks.index_of(task_id)
        for pair, ok in enumerate(solved):
            if ok or len(rows) == limit:
                continue
            height, width = (int(v) for v in pairs.input_shapes[index, pair])
            answer = np.asarray(pairs.outputs[index, pair])
            out_h, out_w = (int(v) for v in pairs.output_shapes[index, pair])
            grids = [
                ("input", np.asarray(pairs.inputs[index, pair])[:height, :width]),
                ("expected", answer[:out_h, :out_w]),
            ]
            grids += [
                (f"attempt {k + 1}", grid)
                for k, grid in enumerate(evaluation.attempts[task_id][pair])
            ]
            rows.append((f"{task_id} test {pair}", grids))
    return rows


def evaluate_command(
    tasks_spec: str,
    policy_spec: str,
    out: str | Path,
    selection_format: str,
    max_steps: int,
    attempts: int,
    seed: int,
) -> int:
    """``gridax evaluate``: prints the score, writes ``report.json`` (score, per-task
    scores, the answers as an ARC Prize submission) and ``failures.png``."""
    from rich.progress import track

    tasks = tasks_from_spec(tasks_spec)
    config = arc.ArcConfig(
        mode="eval", selection_format=selection_format, max_episode_steps=max_steps
    )
    policy = policy_from_spec(policy_spec, tasks, config)
    batches = lambda xs: track(xs, "evaluating", transient=True)  # noqa: E731
    evaluation = arc.evaluate(policy, tasks, config, attempts, seed, progress=batches)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "tasks": tasks.source,
        "policy": policy_spec,
        "config": {f.name: getattr(config, f.name) for f in dataclasses.fields(config)},
        "attempts": attempts,
        "seed": seed,
        "score": evaluation.score.score,
        "task_scores": evaluation.score.tasks,
        "submission": arc.scoring.to_submission(evaluation.attempts),
    }
    (out / "report.json").write_text(json.dumps(report))
    rows = failures(tasks, evaluation)
    written = [out / "report.json"]
    if rows:
        arc.render.answer_sheet(rows, out / "failures.png")
        written.append(out / "failures.png")
    print(f"{tasks.source}, policy {policy_spec}: {evaluation.score}")
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def score_command(submission: str | Path, tasks_spec: str) -> int:
    """``gridax score``: prints the score of an ARC Prize submission file and the tasks it
    left out."""
    tasks = tasks_from_spec(tasks_spec)
    score = arc.score_submission(submission, tasks)
    print(f"{tasks.source}: {score}")
    if score.missing:
        print("missing (scored 0): " + ", ".join(score.missing))
    return 0


def arc3_command(
    games: list[str], policy_spec: str, episodes: int, max_steps: int, seed: int, out
) -> int:
    """``gridax evaluate --arc3 [GAME ...]``: ``policy_spec`` (``"random"``,
    ``"solutions"`` or ``"module:function"``, a policy ``(obs, key) -> arc3.Action``) on
    each game (every ported game of ARC Prize's by default); prints per-game and overall
    ARC Prize scores and writes ``report.json``."""
    from gridax.envs.arc3 import evaluation
    from gridax.envs.arc3 import games as arc3_games

    names = games or [module.GAME.name for module in arc3_games.PORTED]
    unknown = sorted(set(names) - set(arc3_games.GAMES))
    if unknown:
        raise ValueError(f"--arc3: unknown games {unknown}; there is {sorted(arc3_games.GAMES)}")
    policy: evaluation.Policy | str = policy_spec
    if policy_spec not in ("random", "solutions"):
        policy = cast(evaluation.Policy, imported_policy(policy_spec, "'random', 'solutions'"))
    results = []
    for name in names:
        results.append(evaluation.evaluate_game(name, policy, episodes, max_steps, seed))
        print(results[-1])
    overall = evaluation.overall_score(results)
    print(f"overall ARC Prize score, policy {policy_spec}: {overall:.2f} over {len(results)} games")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "policy": policy_spec,
        "episodes": episodes,
        "max_steps": max_steps,
        "seed": seed,
        "score": overall,
        "games": [dataclasses.asdict(r) for r in results],
    }
    (out / "arc3_report.json").write_text(json.dumps(report, indent=1))
    print(f"wrote {out / 'arc3_report.json'}")
    return 0
