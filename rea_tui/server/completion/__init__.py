"""Completion and name resolution: folded text forms, the engine, narrowing."""
