"""The command line runs (smoke-sized)."""

from gridax import cli


def test_bench_smoke(capsys):
    assert cli.main(["bench", "--num-envs", "2", "--steps", "3"]) == 0
    out = capsys.readouterr().out
    assert "steps/s" in out
    row = out.strip().splitlines()[-1].split()
    assert row[0] == "2" and float(row[1].replace(",", "")) > 0
