"""Built on the env, not part of it: expert ``demonstrations``, reference ``policies``,
``evaluation`` of a policy on a bank's test inputs and ARC Prize ``scoring``. They use
the env through its public functions (``reset``, ``batch_step``); the env imports none
of them."""
