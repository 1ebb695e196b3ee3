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


@pytest.mark.parametrize(
    ("heading", "needs"),
    [
        ("Gymnasium", "gymnasium"),
        ("Jumanji", "jumanji"),
        ("Stoa", "stoa"),
        ("A third-party trainer", "rejax"),
    ],
)
def test_snippet_runs(heading, needs):
    pytest.importorskip(needs)
    with jax.numpy_dtype_promotion("standard"):  # as users run it
        exec(compile(snippet(heading), f"interop.md: {heading}", "exec"), {})
