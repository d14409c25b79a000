"""Starting and reaching servers: stdio processes, streamable HTTP, SSE, reply bounds and traffic."""
