"""``rehydrate mcp``: the ledgers, the writers and the command check as an MCP server.

``core`` answers every tool, resource and prompt with the functions the CLI commands call
(no SDK import there); ``server`` is the one module that imports the MCP SDK (the ``mcp``
extra) and turns ``core``'s answers and refusals into tool results (docs/mcp.md).
"""
