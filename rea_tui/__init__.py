"""rea-tui: a terminal MCP host for guided investigations."""

__version__ = "0.1.0"
