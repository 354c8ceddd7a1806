"""Integrations: native git hooks and agent-runtime hook adapters (Claude Code)."""
