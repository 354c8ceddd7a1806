"""rehydrate: keep an AI coding agent's working state in three git-committed ledgers."""

__version__ = "0.1.0"
