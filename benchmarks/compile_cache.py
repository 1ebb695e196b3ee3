"""Cold and warm compile times with JAX's persistent compilation cache.

Runs ``gridax bench --quick`` three times, each in a new process: with the cache off,
with an empty cache (cold: compiles and writes), and again on that cache (warm: loads).
Prints each row's compile seconds and each process's wall time; the figures are in
docs/performance.md and RESULTS.md.

    python benchmarks/compile_cache.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def bench(out: Path, cache: str) -> tuple[float, list[dict]]:
    command = [sys.executable, "-m", "gridax.cli", "bench", "--quick", "--repeats", "3",
               "--out", str(out), "--compile-cache", cache]  # fmt: skip
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - started
    return wall, json.loads((out / "bench.json").read_text())["rows"]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        runs = {
            "off": bench(root / "off", "off"),
            "cold": bench(root / "cold", str(root / "cache")),
            "warm": bench(root / "warm", str(root / "cache")),
        }
        cache_bytes = sum(f.stat().st_size for f in (root / "cache").rglob("*") if f.is_file())
    print("| rollout | envs | " + " | ".join(f"compile s, cache {n}" for n in runs) + " |")
    print("|---|---:|" + "---:|" * len(runs))
    for i, row in enumerate(runs["off"][1]):
        times = " | ".join(f"{rows[i]['compile_seconds']:.2f}" for _, rows in runs.values())
        print(f"| {row['env']} {row['variant']} | {row['num_envs']:,} | {times} |")
    walls = " | ".join(f"{wall:.1f}" for wall, _ in runs.values())
    print(f"| whole `gridax bench --quick` process, wall s | | {walls} |")
    print(f"cache size: {cache_bytes / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
