"""The trust listing under hostile config files: what a folder would run is shown whole, one value a line.

Names, commands, arguments, URLs, env and header names full of escape
sequences, bidi and zero-width controls and line breaks are fuzzed
(hypothesis): no line of the listing carries a control or an invisible
character, no value makes a line of its own (the count and the shape of the
lines follow from the entries alone), and every argument is there, quoted.
The gate's store and hashing are tried on real files.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rea_tui.host import TrustGate, TrustStore, folder_listing, trust_gate
from rea_tui.host.trust.safe_text import has_hidden, sanitize_line
from rea_tui.host.trust.trust_store import FolderFile, digest, folder_servers

# Characters an attacker reaches for: ESC and other C0/C1 controls, CR/LF, bidi overrides and isolates,
# zero-width characters, the line separator, a tag character; mixed with ordinary text.
HOSTILE = st.sampled_from(
    ["\x1b", "\x1b[2J", "\x1b]8;;http://evil\x07", "\x07", "\r", "\n", "\t", "\x9b", "\u202e", "\u2066",
     "\u200b", "\u2028", "\U000e0041", "  runs: ", "host: ", '"', "\\"]
)  # fmt: skip
TEXT = st.lists(st.one_of(HOSTILE, st.text(max_size=8)), max_size=6).map("".join)
DETAIL = re.compile(r"^    (runs|in|env|connects to|headers|oauth|expands): ")


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    servers: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 4))):
        name = draw(TEXT)
        if draw(st.booleans()):
            entry: dict[str, Any] = {"command": draw(TEXT), "args": draw(st.lists(TEXT, max_size=4))}
            if draw(st.booleans()):
                entry["cwd"] = draw(TEXT)
            entry["env"] = {draw(TEXT): draw(TEXT) for _ in range(draw(st.integers(0, 2)))}
        else:
            entry = {"url": draw(TEXT), "headers": {draw(TEXT): draw(TEXT) for _ in range(draw(st.integers(0, 2)))}}
        servers[name] = entry
    return {"mcpServers": servers}


def folder_file(folder: Path, data: dict[str, Any]) -> FolderFile:
    text = json.dumps(data)
    return FolderFile(".mcp.json", "Claude Code", folder / ".mcp.json", text, digest(text.encode()), "untrusted")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=entries())
def test_hostile_entries_are_listed_safely_one_value_a_line(tmp_path: Path, data: dict[str, Any]) -> None:
    file = folder_file(tmp_path, data)
    lines = folder_listing(TrustGate(tmp_path, (file,)))
    for line in lines:
        assert not has_hidden(line), repr(line)
        assert "\n" not in line and "\r" not in line and "\t" not in line
    servers = folder_servers(file)
    assert len(servers) == len(data["mcpServers"])
    # The shape follows from the entries alone: a file line, then per server its line and its details.
    expected = 1 + sum(len(server.lines()) for server in servers)
    assert len(lines) == expected
    for line in lines[1:]:
        assert (line.startswith("  ") and line[2] != " ") or DETAIL.match(line), repr(line)
    for server, (name, entry) in zip(servers, data["mcpServers"].items(), strict=True):
        assert server.name == name
        if "command" in entry:
            assert server.command == (entry["command"], *entry["args"])
            words = [sanitize_line(json.dumps(w, ensure_ascii=False), None) for w in server.command]
            assert "  runs: " + " ".join(words) in server.lines(limit=None)
            assert server.env_names == tuple(entry["env"])
        else:
            assert server.url == entry["url"] and server.header_names == tuple(entry["headers"])


def test_the_gate_hashes_what_it_read_and_asks_again_on_a_change(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    (folder / ".vscode").mkdir(parents=True)
    (folder / ".mcp.json").write_text('{"mcpServers": {"a": {"command": "a"}}}')
    gate = trust_gate(folder)
    assert [(f.name, f.state) for f in gate.files] == [(".mcp.json", "untrusted")]
    store = TrustStore()
    store.trust(gate.folder, gate.files)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [f.state for f in trust_gate(folder).files] == ["trusted"]
    (folder / ".vscode" / "mcp.json").write_text('{"servers": {}}')
    assert [(f.name, f.state) for f in trust_gate(folder).files] == [
        (".mcp.json", "trusted"),
        (".vscode/mcp.json", "new"),
    ]
    (folder / ".mcp.json").write_text('{"mcpServers": {"a": {"command": "b"}}}')
    changed = trust_gate(folder)
    assert changed.files[0].state == "changed" and changed.usable_file(".mcp.json") is None
    assert store.revoke(changed.folder) and not store.revoke(changed.folder)
    assert [f.state for f in trust_gate(folder).files] == ["untrusted", "untrusted"]


def test_an_unreadable_store_trusts_nothing(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{}")
    store = TrustStore()
    store.trust(trust_gate(tmp_path).folder, trust_gate(tmp_path).files)
    store.path.write_text("{not json")
    assert [f.state for f in trust_gate(tmp_path).files] == ["untrusted"]


def test_a_folder_file_that_is_the_users_own_is_not_asked_about(tmp_path: Path, monkeypatch: Any) -> None:
    # In the home directory, ./.cursor/mcp.json is the user's own ~/.cursor/mcp.json.
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {}}')
    (home / ".mcp.json").write_text('{"mcpServers": {}}')
    monkeypatch.setenv("HOME", str(home))
    assert [f.name for f in trust_gate(home).files] == [".mcp.json"]


def test_the_gate_reads_every_folder_file_that_discovery_reads(tmp_path: Path) -> None:
    from rea_tui.host.config.client_configs import config_sources
    from rea_tui.host.trust.trust_store import FOLDER_FILES

    repo = tmp_path / "repo"
    sources = config_sources(cwd=repo)
    inside = [p.relative_to(repo).as_posix() for _, _, p, _ in sources if repo in p.parents]
    assert inside and set(inside) <= {name for name, _ in FOLDER_FILES}
