"""Tools: declarations, schemas, registry, outcomes, and the evidence ledger and unknowns they write."""
