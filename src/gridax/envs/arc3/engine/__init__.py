"""The engine: arcengine's semantics in JAX. Sprites and their table (``sprites``,
``editing``, ``changes``, ``collision``), the level bank and a level's (re)start
(``levels``), the game loop with RESET, multi-frame actions and undo (``loop``,
``undo``, ``checks``), and the picture drawn from the final state (``camera``,
``painting``, ``drawing``). A game declares itself with ``game.Game`` and calls the
engine only through :mod:`gridax.envs.arc3.rules`; the engine imports no game, no tool
and not ``rules``."""
