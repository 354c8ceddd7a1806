"""``python -m rehydrate``."""

from .cli import entry

entry()
