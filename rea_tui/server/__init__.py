"""The reference REA MCP server bundled with rea-tui.

It implements the guided-prompt, completion and progressive-narrowing contract
described in the seed documents, over real binaries (LIEF + capstone) and a
deterministic synthetic target. It never imports Textual and is never imported
by `rea_tui.host` or `rea_tui.ui`: the host spawns it as a process.
"""
