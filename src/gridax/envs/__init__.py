"""gridax environments, one package each."""
