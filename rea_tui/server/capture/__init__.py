"""Capturing a running process's output under a policy."""
