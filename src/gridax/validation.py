"""Checks of Python arguments, with messages that name the argument, the value and what
is allowed (and, for names, the closest allowed ones)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_matches(name: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """``"did you mean 'a', 'b'?"`` for the choices closest to ``name``, or ``""``."""
    close = difflib.get_close_matches(name, sorted(choices), n=3, cutoff=cutoff)
    return f"did you mean {', '.join(map(repr, close))}?" if close else ""


def require_known(what: str, name: str, choices: Iterable[str], listing: str | None = None):
    """Raises ``ValueError`` unless ``name`` is one of ``choices``: ``unknown <what>
    'x'; did you mean ...? (<listing>)``, the listing defaulting to every choice."""
    choices = sorted(choices)
    if name in choices:
        return
    hint = close_matches(name, choices)
    listing = listing or f"choices: {', '.join(choices)}"
    raise ValueError(f"unknown {what} {name!r}{'; ' + hint if hint else ''} ({listing})")


class UnknownOptionError(ValueError, TypeError):
    """An option (keyword argument) an env does not take. Also a ``TypeError``, as
    Python's own "unexpected keyword argument": libraries that try a constructor with an
    option and retry without it on that error (TorchRL's ``GymEnv`` and ``frameskip``)
    work unchanged."""


def require_options(owner: str, options: Iterable[str], allowed: Iterable[str]) -> None:
    """Raises :class:`UnknownOptionError` for the first of ``options`` not in
    ``allowed``: ``<owner>: unexpected keyword argument 'x'; did you mean ...? (options:
    ...)``."""
    allowed = sorted(allowed)
    for name in sorted(options):
        if name not in allowed:
            hint = close_matches(name, allowed)
            raise UnknownOptionError(
                f"{owner}: unexpected keyword argument {name!r}{'; ' + hint if hint else ''} "
                f"(options: {', '.join(allowed)})"
            )


def is_integer(value) -> bool:
    """A Python int, and not a bool."""
    return not isinstance(value, bool) and isinstance(value, int)


def require_int(name: str, value, minimum: int | None = None, maximum: int | None = None):
    """Raises ``ValueError`` unless ``value`` is an integer in ``[minimum, maximum]``."""
    low_ok = minimum is None or (is_integer(value) and value >= minimum)
    high_ok = maximum is None or (is_integer(value) and value <= maximum)
    if is_integer(value) and low_ok and high_ok:
        return
    if minimum is not None and maximum is not None:
        allowed = f"an integer in {minimum}..{maximum}"
    elif minimum is not None:
        allowed = f"an integer >= {minimum}"
    elif maximum is not None:
        allowed = f"an integer <= {maximum}"
    else:
        allowed = "an integer"
    raise ValueError(f"{name} must be {allowed}; got {value!r}")


def require_type(name: str, value, cls: type | tuple[type, ...], description: str | None = None):
    """Raises ``TypeError`` unless ``isinstance(value, cls)``."""
    if not isinstance(value, cls):
        description = description or f"a {cls.__name__}"  # type: ignore[union-attr]
        raise TypeError(f"{name} must be {description}, got {type(value).__name__}")


def require_batch_shape(batch_shape: tuple[int, ...], batched: bool) -> tuple[int, ...]:
    """Checks that states of ``batch_shape`` fit ``step`` (no batch axis) or
    ``batch_step`` (one); returns the shape."""
    if batched and len(batch_shape) != 1:
        raise ValueError(
            f"batch_step needs a batch of states (one leading axis), got {batch_shape}"
        )
    if not batched and batch_shape:
        raise ValueError(
            f"step takes one state, got a batch of shape {batch_shape}; use batch_step for batches"
        )
    return batch_shape
