"""The layers of the ARC package (docs/design.md): each module imports only from its own
layer or those below (tests/test_architecture.py checks every package for circles and
imports under ``TYPE_CHECKING``)."""

import ast
from pathlib import Path

import pytest

ARC = Path(__file__).resolve().parents[3] / "src" / "gridax" / "envs" / "arc"
# Bottom to top; a subpackage is one part.
LAYERS = (
    {"grid", "config", "actions", "history", "types"},  # data
    {"operations", "reward", "legality", "termination", "tasks"},  # rules, task sources
    {"checks", "env", "render"},  # the step wired, pictures
    {"interface", "tools"},  # the env behind gridax.Env; what is built on the env
)
MODULES = sorted(p for p in ARC.rglob("*.py") if p.name != "__init__.py" or p.parent != ARC)


def _part(path: Path) -> str:
    return path.relative_to(ARC).parts[0].removesuffix(".py")


def _layer(part: str) -> int:
    return next(number for number, layer in enumerate(LAYERS) if part in layer)


def _imported_parts(tree: ast.Module) -> set[str]:
    parts = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gridax.envs.arc"):
            inside = node.module.split(".")[3:]
            parts |= {inside[0]} if inside else {alias.name for alias in node.names}
    return parts


def _name(path: Path) -> str:
    return str(path.relative_to(ARC))


def test_every_part_has_a_layer():
    assert {_part(p) for p in MODULES} == set().union(*LAYERS)


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_a_module_imports_only_from_its_layer_or_below(path):
    tree = ast.parse(path.read_text())
    above = {p for p in _imported_parts(tree) if _layer(p) > _layer(_part(path))}
    assert not above, f"{_name(path)} imports {above}, above its layer"
