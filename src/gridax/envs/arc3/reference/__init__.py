"""The arcengine side of gridax's ARC-AGI-3 parity: scripts run by a Python 3.12+ that
has ARC Prize's engine (``arcengine``), never imported by gridax.

- ``engine_cases.py`` asks arcengine about random sprites, cameras, collisions, clicks
  and merges (tests/envs/arc3/test_engine.py replays its answers);
- ``games.py`` is every gridax game written again against arcengine, to play episodes
  (tests/envs/arc3/test_games.py) and to time the engine (``gridax bench --arc3``).
"""

from pathlib import Path

FOLDER = Path(__file__).parent
GAMES_SCRIPT = FOLDER / "games.py"
CASES_SCRIPT = FOLDER / "engine_cases.py"
