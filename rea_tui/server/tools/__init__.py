"""Tool handlers, one module per role; each module declares its tools once in `TOOLS`.

`rea_tui.server.tool_catalog` puts them together into the registry.
"""
