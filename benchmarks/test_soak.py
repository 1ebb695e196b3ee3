"""The short soak run (``soak.py --quick``): random and adversarial steps, invariants checked."""

import json

import pytest
import soak


def test_quick_soak_finds_no_violation_and_no_growth(tmp_path):
    out = tmp_path / "soak.json"
    assert soak.main(["--quick", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert [r["name"] for r in results] == list(soak.QUICK)
    for result in results:
        assert result["env_steps"] >= 10_000
        assert set(result["invariant_violations"].values()) == {0}
        assert result["non_finite_rewards"] == result["type_changes"] == 0
    assert results[0]["episodes_ended"] > 0  # ARC episodes ended and restarted


def test_unknown_env_names_are_refused(capsys):
    with pytest.raises(SystemExit) as exit:
        soak.main(["ArcAgi3"])
    assert exit.value.code == 2
    assert "unknown env 'ArcAgi3'; choose from arc-point" in capsys.readouterr().err
