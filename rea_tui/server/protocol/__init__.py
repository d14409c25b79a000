"""MCP on the wire: stdio and HTTP serving, the early answers before the SDK loads, sessions and errors."""
