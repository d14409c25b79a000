"""MCP features as the host uses them: catalogs, completion, workflows, tool calls, tasks, elicitation,
roots, logging."""
