"""The adapters' snippets in docs/interop.md run as written."""

import re
from pathlib import Path

import jax
import pytest

INTEROP = Path(__file__).resolve().parents[1] / "docs" / "interop.md"


def snippet(heading: str) -> str:
    """The first Python block under the section whose heading starts with ``heading``."""
    text = INTEROP.read_text()
    section = text[text.index(f"\n## {heading}") :]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def snippets(heading: str) -> list[str]:
    """Every Python block of the section whose heading starts with ``heading``."""
    text = INTEROP.read_text()
    section = text[text.index(f"\n## {heading}") + 1 :]
    section = section[: section.find("\n## ")]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


@pytest.mark.parametrize(
    ("heading", "needs"),
    [
        ("Gymnasium", "gymnasium"),
        ("Jumanji", "jumanji"),
        ("Stoa", "stoa"),
        ("Levels", "jaxued"),
        ("A third-party trainer", "rejax"),
    ],
)
def test_snippet_runs(heading, needs):
    pytest.importorskip(needs)
    with jax.numpy_dtype_promotion("standard"):  # as users run it
        exec(compile(snippet(heading), f"interop.md: {heading}", "exec"), {})


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")  # TorchRL's copy
@pytest.mark.filterwarnings("ignore::DeprecationWarning:torchrl")
def test_pytorch_snippets_run():
    for needs in ("stable_baselines3", "sb3_contrib", "torchrl"):
        pytest.importorskip(needs)
    blocks = snippets("PyTorch")
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, "interop.md: PyTorch", "exec"), {})
