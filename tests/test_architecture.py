"""The house rules of docs/design.md, checked on the source: shared code sees an env only
through :class:`gridax.Env` and the env packages' public names, and modules stay small."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gridax"
ENV_PACKAGES = ("arc", "arc3", "forage")
SHARED = sorted(p for p in SRC.rglob("*.py") if "envs" not in p.relative_to(SRC).parts)


def _public(package: str) -> set[str]:
    return set(importlib.import_module(f"gridax.envs.{package}").__all__)


def _env_classes() -> set[str]:
    """Every class an env package exports (envs, states, configs, banks, generators...)."""
    names = set()
    for package in ENV_PACKAGES:
        module = importlib.import_module(f"gridax.envs.{package}")
        names |= {n for n in module.__all__ if inspect.isclass(getattr(module, n))}
    return names


def _name(path: Path) -> str:
    return str(path.relative_to(SRC.parent))


@pytest.mark.parametrize("path", SHARED, ids=_name)
def test_shared_code_imports_env_packages_only_by_their_public_names(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gridax.envs."):
            parts = node.module.split(".")
            assert len(parts) == 3, f"{_name(path)} imports {node.module}, inside an env package"
            private = {a.name for a in node.names} - _public(parts[2])
            assert not private, f"{_name(path)} imports {private} from {node.module}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.count(".") < 3 or not alias.name.startswith("gridax.envs."), (
                    f"{_name(path)} imports {alias.name}, inside an env package"
                )


@pytest.mark.parametrize("path", SHARED, ids=_name)
def test_shared_code_never_asks_which_env_it_holds(path):
    env_classes = _env_classes()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            named = {getattr(n, "id", getattr(n, "attr", None)) for n in ast.walk(node.args[1])}
            assert not named & env_classes, (
                f"{_name(path)}:{node.lineno} asks isinstance(..., {named & env_classes}); "
                "add a method to gridax.Env instead"
            )


def test_no_module_is_over_450_lines():
    sizes = {_name(p): len(p.read_text().splitlines()) for p in SRC.rglob("*.py")}
    assert not {name: n for name, n in sizes.items() if n > 450}
