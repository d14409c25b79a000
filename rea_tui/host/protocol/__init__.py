"""One connection to a server over the MCP SDK: requests, callbacks, models, errors and events."""
