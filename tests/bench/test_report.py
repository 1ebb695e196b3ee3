"""The ratio table beside the anchors, from made-up rows."""

from gridax.bench.report import format_ratios
from gridax.bench.timing import Row


def _row(env: str, variant: str, num_envs: int, steps_per_second: float) -> Row:
    return Row(env, variant, "scan", num_envs, 100, steps_per_second, 1.0, 100)


def test_each_row_is_divided_by_its_anchor_at_the_same_size():
    rows = [_row("arc", "point", 1, 300), _row("arc", "point", 16, 6000)]
    rows += [_row("jaxarc", "point", 1, 100), _row("arcle", "point", 16, 2000)]
    lines = format_ratios(rows, "arc", ("jaxarc", "arcle")).splitlines()
    header = "variant envs gridax jaxarc gridax/jaxarc arcle gridax/arcle"
    assert lines[0].split() == header.split()
    assert lines[1].split() == ["point", "1", "300", "100", "3.0x", "-", "-"]
    assert lines[2].split() == ["point", "16", "6,000", "-", "-", "2,000", "3.0x"]
    assert format_ratios(rows, "forage", ("foragax",)) == ""  # nothing to compare


def test_an_anchor_measured_once_per_game_stands_beside_every_size():
    rows = [_row("arc3", "Keys", 1, 5000), _row("arc3", "Keys", 1024, 150_000)]
    rows += [_row("arcengine", "Keys", 1, 25_000)]
    table = format_ratios(rows, "arc3", ("arcengine",), match=lambda r: r.variant)
    assert [line.split()[-1] for line in table.splitlines()[1:]] == ["0.2x", "6.0x"]
