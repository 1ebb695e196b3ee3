"""Prints a Markdown table of a ``gridax bench`` JSON file, for RESULTS.md.

python benchmarks/results_table.py out/bench/bench.json
"""

import json
import sys


def main(path: str) -> None:
    with open(path) as f:
        data = json.load(f)
    meta = data["metadata"]
    print(
        f"{meta['date']}, jax {meta['jax']} on {meta['device']} ({meta['cpu_count']} cores); "
        f"{meta['tasks']}; {meta['action_mix']}.\n"
    )
    print("| env | variant | rollout | envs | steps/s | of roofline | compile s | bytes/state |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for r in data["rows"]:
        fraction = "" if r["roofline_fraction"] is None else f"{r['roofline_fraction']:.3f}"
        variant = r.get("variant", r.get("selection_format"))  # its name before issue 30
        print(
            f"| {r['env']} | {variant} | {r['rollout']} | {r['num_envs']:,} | "
            f"{r['steps_per_second']:,.0f} | {fraction} | {r['compile_seconds']:.2f} | "
            f"{r['bytes_per_state']:,} |"
        )


if __name__ == "__main__":
    main(sys.argv[1])
