"""Where the time of a rollout goes, per part of the step.

Runs the ``gridax bench`` scan rollout under ``jax.profiler.trace``, then attributes each
executed XLA kernel to the innermost ``jax.named_scope`` of the step it came from
(ARC: selection, paint, flood_fill, transform, shape, clipboard, reward, history;
forage: random, move, collect, center, regrow, respawn, expire, biomes, observe, hint;
arc3: level_reset, undo, rule, render) using the
compiled HLO's metadata, and prints milliseconds per batch step for each part.

``--timing`` (arc3 only) needs no profiler: it times the batched step of a game (any,
gridax's own or ported, by name or id: ``Keys``, ``cn04``, ``Arc3-ft09-v0``) whole,
without rendering, and without RESETs, beside the frames roofline, in turns in one
process (:func:`arc3_timing`); the differences are what rendering and level resets cost.

    python benchmarks/profile.py --env arc --format point --num-envs 1024 --steps 50
    python benchmarks/profile.py --env forage --id ForagaxBig-v5 --num-envs 1024
    python benchmarks/profile.py --env arc3 --id Keys --num-envs 1024
    python benchmarks/profile.py --env arc3 --id cn04 --num-envs 1024 --timing --frames all
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gzip
import json
import re
import statistics
import tempfile
from pathlib import Path

import jax

from gridax import bench
from gridax.envs import arc, forage

SCOPES = (
    "selection",
    "flood_fill",
    "paint",
    "transform",
    "shape",
    "clipboard",
    "reward",
    "history",
    "random_actions",
    "move",
    "collect",
    "center",
    "regrow",
    "respawn",
    "expire",
    "biomes",
    "observe",
    "hint",
    "random",
    "render",
    "rule",
    "undo",
    "level_reset",
)
CONTAINERS = {"while", "call", "conditional"}
# An instruction: its name, opcode and op_name (where it has one). A shape may be a
# tuple (a sort, a multi-output fusion): missing those hid s5i5's sorts (RESULTS.md).
INSTRUCTION = re.compile(
    r"^\s*(?:ROOT )?%([\w.\-]+) = (?:\([^()]*\)|\S+) (\w[\w-]*)\((?:.*?op_name=\"([^\"]*)\")?"
)


def scope_of(op_name: str) -> str:
    """The innermost known scope on an HLO op's path, or 'other'."""
    parts = op_name.split("/")
    for part in reversed(parts):
        while part.startswith("vmap(") and part.endswith(")"):  # scopes traced under vmap
            part = part[len("vmap(") : -1]
        if part in SCOPES:
            return part
    return "other"


def kernel_scopes(hlo_text: str) -> dict[str, str | None]:
    """HLO instruction name -> scope (None for loops, whose bodies are counted instead)."""
    scopes = {}
    for line in hlo_text.splitlines():
        match = INSTRUCTION.match(line)
        if match:
            name, opcode, op_name = match.groups()
            scopes[name] = None if opcode in CONTAINERS else scope_of(op_name or "")
    return scopes


def arc_rollout(fmt: str, num_envs: int, num_steps: int):
    tasks = arc.load_tasks("arc-agi-1")
    config = arc.ArcConfig(selection_format=fmt, max_episode_steps=num_steps)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    draws = bench.draw_rollout_actions(num_steps, num_envs)
    return bench.make_rollout(config, num_steps), states, draws


def forage_rollout(env_id: str, num_envs: int, num_steps: int):
    config = forage.make_config(env_id)
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), num_envs), config)
    moves = bench.draw_moves(num_steps, num_envs)
    return bench.make_forage_rollout(config, num_steps), states, moves


def arc3_rollout(name: str, num_envs: int, num_steps: int, frames: str):
    from gridax.bench import arc3 as arc3_bench
    from gridax.envs import arc3

    game = arc3.games.GAMES[arc3_bench.game_named(name)]
    states, _ = arc3.batch_reset(num_envs, game)
    actions = arc3_bench.draw_actions(game, num_steps, num_envs)
    return arc3_bench.make_arc3_rollout(game, num_steps, frames), states, actions


@contextlib.contextmanager
def frames_not_drawn():
    """The game loop with its drawing replaced by a blank frame, while a rollout
    is traced: what is left is the step without rendering (its frames are wrong; only
    its time counts)."""
    from gridax.envs.arc3.engine import loop

    def shown(state, game, bank=None):
        return jax.numpy.zeros((64, 64), jax.numpy.int8)

    saved = loop.draw_frame
    loop.draw_frame = shown
    try:
        yield
    finally:
        loop.draw_frame = saved


def traced_arc3_rollout(game, num_steps: int, frames: str):
    """:func:`gridax.bench.arc3.make_arc3_rollout` traced afresh (not through the game's
    cached jitted step), so that :func:`frames_not_drawn` reaches it."""
    from gridax.bench.rollout import make_scan_rollout
    from gridax.envs.arc3.engine import levels, loop

    bank = levels.bank_of(game)
    step_one = jax.vmap(lambda s, a: loop.perform_action(s, a, game, bank, frames))

    def step(states, actions):
        states, frames, info = step_one(states, actions)
        return states, (frames, info["levels_completed"])

    return make_scan_rollout(step, num_steps)


def arc3_timing(name: str, num_envs: int, num_steps: int, frames: str, repeats: int = 7) -> dict:
    """Milliseconds per batch step of game ``name``: the bench's step, the same without
    rendering, without RESETs (each replaced by the game's first action), and the frames
    roofline; compiled, then timed in turns, ``repeats`` rounds, medians."""
    from gridax.bench import arc3 as arc3_bench
    from gridax.bench.timing import compile_scan, time_in_turns
    from gridax.envs import arc3

    name = arc3_bench.game_named(name)
    game = arc3.games.GAMES[name]
    states, _ = arc3.batch_reset(num_envs, game)
    actions = arc3_bench.draw_actions(game, num_steps, num_envs)
    first = game.available_actions[0]
    no_reset = arc3.Action(
        jax.numpy.where(actions.id == arc3.RESET, first, actions.id), actions.x, actions.y
    )
    rollout = traced_arc3_rollout(game, num_steps, frames)
    benchmarks = {"step": compile_scan("arc3", name, rollout, states, actions, num_steps)}
    with frames_not_drawn():
        undrawn = traced_arc3_rollout(game, num_steps, frames)
        benchmarks["step, no render"] = compile_scan(
            "arc3", name, undrawn, states, actions, num_steps
        )
    benchmarks["step, no RESET"] = compile_scan("arc3", name, rollout, states, no_reset, num_steps)
    benchmarks["frames roofline"] = bench.frames_roofline(game.max_frames, num_envs, num_steps)
    timings = time_in_turns([b.run for b in benchmarks.values()], repeats)
    columns = zip(*timings, strict=True)
    return {
        label: (1e3 * statistics.median(seconds) / num_steps, b.compile_seconds)
        for (label, b), seconds in zip(benchmarks.items(), columns, strict=True)
    }


def print_arc3_timing(name: str, num_envs: int, num_steps: int, frames: str) -> None:
    from gridax.bench import arc3 as arc3_bench

    name = arc3_bench.game_named(name)
    times = arc3_timing(name, num_envs, num_steps, frames)
    whole = times["step"][0]
    print(f"arc3 {name}, {num_envs} envs, frames={frames!r}: ms per batch step (median of 7)")
    for label, (ms, seconds) in times.items():
        print(f"  {label:<26} {ms:8.3f} ms {100 * ms / whole:6.1f} %   compile {seconds:.1f} s")
    print(f"  {'render (step - no render)':<26} {whole - times['step, no render'][0]:8.3f} ms")
    print(f"  {'RESETs (step - no RESET)':<26} {whole - times['step, no RESET'][0]:8.3f} ms")


def profile(jitted, states, inputs, num_steps: int, top: int = 10):
    """Milliseconds per batch step by scope, and the ``top`` kernels."""
    scopes = kernel_scopes(jitted.lower(states, inputs).compile().as_text())
    jax.block_until_ready(jitted(states, inputs))
    with tempfile.TemporaryDirectory() as trace_dir:
        jax.profiler.start_trace(trace_dir, create_perfetto_trace=True)
        jax.block_until_ready(jitted(states, inputs))
        jax.profiler.stop_trace()
        trace = next(Path(trace_dir).rglob("*.trace.json.gz"))
        with gzip.open(trace) as f:
            events = json.load(f)["traceEvents"]
    totals: dict[str, float] = collections.Counter()
    kernels: dict[str, float] = collections.Counter()
    for event in events:
        name = event.get("name", "")
        if event.get("ph") == "X" and name in scopes and scopes[name] is not None:
            totals[scopes[name]] += event["dur"] / 1e3 / num_steps
            kernels[f"{scopes[name]}: {name}"] += event["dur"] / 1e3 / num_steps
    return dict(totals), kernels.most_common(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=["arc", "forage", "arc3"], default="arc")
    parser.add_argument("--format", choices=list(bench.FORMATS), default="point")
    parser.add_argument(
        "--id", default="ForagaxDiwali-v5", help="forage id (--env forage), game (--env arc3)"
    )
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--top", type=int, default=10, help="how many single kernels to list")
    parser.add_argument(
        "--frames", choices=["last", "all"], default="last", help="arc3: frames drawn per action"
    )
    parser.add_argument(
        "--timing", action="store_true", help="arc3: step, no render, no RESET (no profiler)"
    )
    args = parser.parse_args()
    if args.timing:
        if args.env != "arc3":
            parser.error("--timing is for --env arc3")
        print_arc3_timing(args.id, args.num_envs, args.steps, args.frames)
        return
    if args.env == "arc":
        jitted, states, inputs = arc_rollout(args.format, args.num_envs, args.steps)
        what = f"arc {args.format}"
    elif args.env == "arc3":
        jitted, states, inputs = arc3_rollout(args.id, args.num_envs, args.steps, args.frames)
        what = f"arc3 {args.id}"
    else:
        jitted, states, inputs = forage_rollout(args.id, args.num_envs, args.steps)
        what = args.id
    totals, kernels = profile(jitted, states, inputs, args.steps, args.top)
    whole = sum(totals.values())
    print(f"{what}, {args.num_envs} envs: ms per batch step by part of the step")
    for scope, ms in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"  {scope:<14} {ms:8.3f} ms  {100 * ms / whole:5.1f} %")
    print(f"  {'all kernels':<14} {whole:8.3f} ms")
    print("slowest kernels (scope: HLO name), ms per batch step")
    for kernel, ms in kernels:
        print(f"  {ms:8.3f}  {kernel}")


if __name__ == "__main__":
    main()
