"""The forage package's layers (docs/design.md): data leaves at the bottom import no rule
(tests/test_architecture.py checks every package for circles and ``TYPE_CHECKING``)."""

import ast
from pathlib import Path

import pytest

from gridax.envs import forage

PACKAGE = Path(forage.__file__).parent
# What the rules, env.py and interface.py stand on: config, state, vocabularies, helpers.
LEAVES = {
    "arithmetic",
    "config",
    "kinds",
    "objects",
    "params",
    "structure",
    "temperatures",
    "types",
}


def _forage_imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "gridax.envs.forage":
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "gridax.envs.forage."
        ):
            names.add(node.module.split(".")[3])
    return names


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_data_leaves_import_only_leaves(name):
    assert _forage_imports(PACKAGE / f"{name}.py") <= LEAVES
