"""The trust boundary: server text made safe, egress, URLs, schemas and workspace trust."""
