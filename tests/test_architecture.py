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


# Modules imported for type checking only, because importing them needs an optional extra
# (the package imports them on first use).
OPTIONAL_EXTRAS = {"gridax.wrappers.gymnax"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in SRC.rglob("*.py")}


def _type_checking_blocks(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield node


@pytest.mark.parametrize("path", sorted(MODULES.values()), ids=_name)
def test_no_module_imports_gridax_for_type_checking_only(path):
    """An import kept under ``TYPE_CHECKING`` hides a circle between modules: the layers
    (data, rules, wiring, interface) must not need one."""
    for block in _type_checking_blocks(ast.parse(path.read_text())):
        for node in ast.walk(block):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gridax"):
                assert node.module in OPTIONAL_EXTRAS, (
                    f"{_name(path)}:{node.lineno} imports {node.module} under TYPE_CHECKING"
                )


def _imports(path: Path) -> set[str]:
    """The gridax modules ``path`` imports when it is imported (not inside functions or
    ``TYPE_CHECKING`` blocks): ``from package import module`` names the module."""
    tree = ast.parse(path.read_text())
    deferred = [*_type_checking_blocks(tree)]
    deferred += [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    hidden = {id(n) for block in deferred for n in ast.walk(block)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gridax"):
            for alias in node.names:
                module = f"{node.module}.{alias.name}"
                found.add(module if module in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & set(MODULES)


def test_modules_import_each_other_without_a_circle():
    """The module graph (a package's ``__init__`` importing its modules included) has no
    cycle: every module can be read after the ones it imports."""
    graph = {name: _imports(path) for name, path in MODULES.items()}
    done, visiting = set(), []

    def visit(name):
        if name in visiting:
            cycle = visiting[visiting.index(name) :] + [name]
            pytest.fail("import circle: " + " -> ".join(cycle))
        if name not in done:
            visiting.append(name)
            for imported in sorted(graph[name]):
                visit(imported)
            visiting.pop()
            done.add(name)

    for name in sorted(graph):
        visit(name)


def test_games_take_everything_from_the_authoring_facade():
    """An ARC-AGI-3 game imports the engine only through ``rules`` (docs/arc3.md)."""
    games = SRC / "envs" / "arc3" / "games"
    games_package = "gridax.envs.arc3.games"
    allowed = {"gridax.envs.arc3", "gridax.envs.arc3.rules", games_package}
    for path in games.glob("*.py"):
        source = path.read_text()
        # The state and its sprite table are written through rules (lay_out, update_memory).
        assert "tree_at" not in source, f"{_name(path)} writes the state itself"
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gridax"):
                names = {f"{node.module}.{a.name}" for a in node.names}
                # A game's own modules count too: its data prepared (ls20_levels), parts
                # of its rules (sk48_arms).
                game = path.stem.split("_")[0]
                own = node.module.startswith(f"{games_package}.{game}_")
                assert (node.module in allowed or own) and (
                    node.module != "gridax.envs.arc3" or names <= {"gridax.envs.arc3.rules"}
                ), f"{_name(path)} imports {node.module}"


def test_the_arc3_engine_imports_no_game_tool_or_facade():
    """``envs/arc3/engine`` is the bottom layer: games reach it through ``rules``, tools
    and the env build on it, and it imports none of them (docs/design.md)."""
    engine = SRC / "envs" / "arc3" / "engine"
    for path in engine.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gridax.envs"):
                assert node.module.startswith("gridax.envs.arc3.engine"), (
                    f"{_name(path)} imports {node.module}"
                )
