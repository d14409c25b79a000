"""What the server reads in a target: procedures' code, references, strings, listings."""
