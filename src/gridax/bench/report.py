"""Benchmark output: the table, the JSON and CSV files, the plot."""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path

from gridax.bench.percall import CallTime
from gridax.bench.timing import Row


def format_table(rows: Sequence[Row]) -> str:
    header = (
        f"{'env':<10}{'variant':<24}{'rollout':<8}{'envs':>6}{'steps/s':>13}"
        f"{'of roofline':>12}{'compile s':>10}{'bytes/state':>12}"
    )
    lines = [header]
    for r in rows:
        fraction = "" if r.roofline_fraction is None else f"{r.roofline_fraction:.3f}"
        # Envs that are not JAX (ARCLE) have neither a compilation nor a state pytree.
        compiled = f"{r.compile_seconds:.2f}" if r.compile_seconds else "-"
        size = f"{r.bytes_per_state:,}" if r.bytes_per_state else "-"
        lines.append(
            f"{r.env:<10}{r.variant:<24}{r.rollout:<8}{r.num_envs:>6}"
            f"{r.steps_per_second:>13,.0f}{fraction:>12}{compiled:>10}{size:>12}"
        )
    return "\n".join(lines)


def format_ratios(
    rows: Sequence[Row],
    ours: str,
    anchors: Sequence[str],
    match: Callable[[Row], Hashable] = lambda row: (row.variant, row.num_envs),
) -> str:
    """A table of the rows of env ``ours``: steps/s, and beside it each anchor's row that
    ``match`` pairs it with (by default the same variant and batch size) and the speed-up
    over it; empty when no anchor was measured."""
    theirs = {(r.env, match(r)): r.steps_per_second for r in rows if r.env in anchors}
    present = [a for a in anchors if any(env == a for env, _ in theirs)]
    mine = [r for r in rows if r.env == ours]
    if not mine or not present:
        return ""
    header = f"{'variant':<24}{'envs':>6}{'gridax':>13}" + "".join(
        f"{a:>13}{'gridax/' + a:>18}" for a in present
    )
    lines = [header]
    for r in mine:
        line = f"{r.variant:<24}{r.num_envs:>6}{r.steps_per_second:>13,.0f}"
        for a in present:
            anchor = theirs.get((a, match(r)))
            if anchor is None:
                line += f"{'-':>13}{'-':>18}"
            else:
                line += f"{anchor:>13,.0f}{r.steps_per_second / anchor:>17.1f}x"
        lines.append(line)
    return "\n".join(lines)


def format_calls(calls: Sequence[CallTime]) -> str:
    """Microseconds per call from a Python loop (see :mod:`gridax.bench.percall`)."""
    arcle = any(c.arcle_us is not None for c in calls)
    header = (
        f"{'per call from Python, us':<30}{'envs':>6}{'gridax':>9}{'jax.jit':>9}"
        f"{'floor':>8}{'gridax/jit':>12}" + (f"{'ARCLE':>9}" if arcle else "")
    )
    lines = [header]
    for c in calls:
        line = (
            f"{c.env + ' ' + c.function:<30}{c.num_envs:>6}{c.gridax_us:>9.1f}{c.jit_us:>9.1f}"
            f"{c.floor_us:>8.1f}{c.gridax_us / c.jit_us:>12.2f}"
        )
        if arcle:
            line += f"{c.arcle_us:>9.1f}" if c.arcle_us is not None else f"{'-':>9}"
        lines.append(line)
    return "\n".join(lines)


def write_rows(
    rows: Sequence[Row],
    out_dir: Path,
    metadata: dict,
    name: str = "bench",
    calls: Sequence[CallTime] = (),
) -> list[Path]:
    """Writes ``<name>.json`` (rows, per-call times and run metadata) and ``<name>.csv``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [dataclasses.asdict(r) for r in rows]
    json_path, csv_path = out_dir / f"{name}.json", out_dir / f"{name}.csv"
    document = {"metadata": metadata, "rows": records}
    document["per_call"] = [dataclasses.asdict(c) for c in calls]
    json_path.write_text(json.dumps(document, indent=2))
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    return [json_path, csv_path]


def plot(rows: Sequence[Row], path: Path) -> Path:
    """Log-log plot of steps/s against batch size, one line per (env, format, rollout)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    series: dict[str, list[Row]] = {}
    for r in rows:
        if r.env == "roofline":
            label = "roofline"
        elif r.env == "forage":
            label = f"forage {r.variant}"
        else:
            label = f"{r.variant} ({r.rollout})"
        series.setdefault(label, []).append(r)
    for label, points in series.items():
        style = "k--" if label == "roofline" else "o-"
        axes.plot(
            [p.num_envs for p in points], [p.steps_per_second for p in points], style, label=label
        )
    axes.set(
        xscale="log",
        yscale="log",
        xlabel="environments",
        ylabel="env-steps per second",
        title="gridax throughput",
    )
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
