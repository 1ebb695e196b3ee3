"""gridax: fast vectorized grid environments in JAX."""

__version__ = "0.1.0"

from gridax.interface import Env  # noqa: E402
from gridax.registry import make, registered_ids  # noqa: E402

__all__ = ["Env", "__version__", "make", "registered_ids"]
