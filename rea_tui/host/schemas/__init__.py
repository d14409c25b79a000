"""Server schemas as data: checking values against them (guard), and reading them as form fields (fields).

Reached through the `rea_tui.host` facade like every host module.
"""
