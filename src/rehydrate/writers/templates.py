"""Shipped templates: ledgers, the AGENTS.md section, the prompt's working protocol."""

from __future__ import annotations

from pathlib import Path

LEDGER_TEMPLATES = {"spec": "Spec.md", "task": "Task.md", "failures": "Failed_Attempts.md"}


def template_dir() -> Path:
    """Inside the wheel: rehydrate/templates; in a source checkout: <repo>/templates."""
    package = Path(__file__).resolve().parents[1]
    packaged = package / "templates"
    if packaged.is_dir():
        return packaged
    return package.parents[1] / "templates"


def read_template(name: str) -> str:
    path = template_dir() / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        from ..errors import RehydrateError

        raise RehydrateError(
            f"template {name} is missing ({exc.strerror})",
            file=str(path),
            code="template_missing",
            fix="reinstall rehydrate",
        ) from None
