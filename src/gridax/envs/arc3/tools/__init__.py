"""Built on the games, not part of the engine: ARC Prize's ``scoring``, the
``evaluation`` of a policy on the games, ``search`` for shortest solutions, ``pictures``
(PNG and GIF of frames) and the ``official`` level data of ARC Prize's games. They use
the engine and the env through their public functions; the engine imports none of
them."""
