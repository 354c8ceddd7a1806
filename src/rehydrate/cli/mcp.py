"""``rehydrate mcp``: serve the ledgers, the writers and the command check over MCP (stdio)."""

from __future__ import annotations

import click


@click.command("mcp")
@click.option(
    "--repo",
    "repo_dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="The repository to serve (default: the working directory's).",
)
def command(repo_dir: str | None) -> int:
    """Run an MCP server on stdin/stdout for the repository (docs/mcp.md).

    Its tools are the writers (fail_add, task_next, decision_add, constraint_add, ...),
    prompt, status and check_command; its resources rehydrate://prompt and
    rehydrate://state; its prompt `rehydrate`. Needs the extra:
    pip install 'rehydrate[mcp]' (exits 2 without it).
    """
    from ..errors import EXIT_OK, RehydrateError
    from ..git import find_repo

    repo = find_repo(repo_dir)
    try:
        from ..mcp_server.server import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "mcp_types", "pydantic", "anyio"):
            raise
        raise RehydrateError(
            f"the MCP server needs the MCP Python SDK, which is not installed ({exc.name})",
            code="mcp_missing",
            fix="pip install 'rehydrate[mcp]' into the environment rehydrate runs from "
            "(the same interpreter: python -m pip install 'rehydrate[mcp]')",
        ) from None
    serve(repo.root)
    return EXIT_OK
