"""Where an episode's task comes from and what it shows: task sources (``bank``: the
``TaskSource`` questions and ``TaskBank``; ``loading``: ARC JSON into banks;
``generators`` over the records of ``families``: tasks made from a seed), the
demonstration ``context`` and the per-episode ``augmentation``. Data and rules only: no
module here imports the env."""
