"""Tool handlers, one module per role; each module maps its tools' names to their handlers in `HANDLERS`.

What each tool is (its schemas and hints) is declared in `rea_tui.server.toolkit.tool_declarations`;
`rea_tui.server.toolkit.tool_catalog` binds the two into the registry.
"""
