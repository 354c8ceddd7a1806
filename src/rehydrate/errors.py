"""Exception types and the exit codes they map to (see docs/exit-codes.md)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1  # a verdict said no: guard refusal, failed verification, CAS conflict
EXIT_USAGE = 2  # bad arguments or input, unreadable repository or ledger
EXIT_BLOCKED = 3  # blocked on reconciliation: an external write's outcome is unknown
EXIT_INTERNAL = 70  # a bug in rehydrate
EXIT_INTERRUPTED = 130


class RehydrateError(Exception):
    """Base error: carries where (file, line, item ID), which rule, and the fix."""

    exit_code = EXIT_USAGE

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        item_id: str | None = None,
        code: str = "error",
        fix: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.item_id = item_id
        self.code = code
        self.fix = fix

    def __str__(self) -> str:
        """The error in one line for a reader: its values are the raw ones (ledger cells,
        paths), so the line goes through ``quote.line`` (redacted, nothing hidden)."""
        from .quote import line

        # each value on its own: joined first, a path ending in `passwd` and the code after
        # it would read as one `passwd: value` assignment, and the code would be redacted
        where = ""
        if self.file:
            where = line(self.file) + (f":{self.line}" if self.line else "") + ": "
        ident = f"{line(self.item_id)}: " if self.item_id else ""
        text = f"{where}{line(self.code)}: {ident}{line(self.message)}"
        if self.fix:
            text += f"; {line(self.fix)}"
        return text

    def to_json(self) -> dict[str, object]:
        from .quote import line

        return {
            "code": self.code,
            "file": None if self.file is None else line(self.file),
            "line": self.line,
            "id": None if self.item_id is None else line(self.item_id),
            "message": line(self.message),
            "fix": None if self.fix is None else line(self.fix),
        }


class LedgerParseError(RehydrateError):
    """A ledger cannot be read: never treated as empty."""


class GitError(RehydrateError):
    """git failed or the repository cannot be read."""


class ConfigError(RehydrateError):
    """Invalid [tool.rehydrate] / .rehydrate.toml."""


class CASConflict(RehydrateError):
    """A compare-and-swap precondition did not hold; nothing was written."""

    exit_code = EXIT_REFUSED


class Refused(RehydrateError):
    """A verdict said no (a writer refusing what the guard would refuse)."""

    exit_code = EXIT_REFUSED
    codes: tuple[str, ...] = ()  # every rule code behind the refusal, the first one first
