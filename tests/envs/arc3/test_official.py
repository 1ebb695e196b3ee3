"""The level data of ARC Prize's games as gridax ships it (``arc3.official``)."""

from __future__ import annotations

import pytest

from gridax.envs.arc3.games import PORTED
from gridax.envs.arc3.tools import official


def test_every_port_has_its_data_and_every_data_file_a_port():
    assert {module.GAME.name for module in PORTED} == set(official.available())


@pytest.mark.parametrize("name", official.available())
def test_the_data_names_its_source_and_holds_every_level(name):
    data = official.load(name)
    assert data.game_id == name and len(data.version) == 8 and len(data.source_sha256) == 64
    assert data.arcengine == "0.9.3"
    # The scorecard scores one level per baseline: at least one per level.
    assert len(data.baseline_actions) >= len(data.levels) > 0
    kinds = set(data.kinds)
    assert all(sprite.kind in kinds for level in data.levels for sprite in level.sprites)
    game = next(module.GAME for module in PORTED if module.GAME.name == name)
    assert len(game.levels) == len(data.levels) and game.baseline_actions == data.baseline_actions


def test_an_unknown_game_is_named_with_the_ones_there_are():
    with pytest.raises(ValueError, match=r"no ARC-AGI-3 game data for 'zz99'; there is \("):
        official.load("zz99")
    with pytest.raises(ValueError, match="no sprite is named 'nothing'"):
        official.load("cn04").kind("nothing")
