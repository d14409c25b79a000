"""Workspace trust, tried as a cloned repository would: every command in a hostile folder, then trust.

The folder holds each config kind (`tests.support.hostile_folder`): stdio
servers that create a marker file, HTTP servers on a loopback listener that
records every request and its Authorization header. Before trust nothing is
started and nothing is sent; after `rea-tui trust --yes` exactly the listed
commands run and the listed URL gets the header; a changed file is untrusted
again; revoke undoes it; the user's own config keeps a name; replay refuses.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rea_tui.cli.commands import COMMANDS
from tests.cli import PYTHON, UNSAFE_CHARACTER, rea, sample_entry, write_config
from tests.support.hostile_folder import (
    KINDS,
    SECRET,
    SECRET_VARIABLE,
    HostileFolder,
    RecordingListener,
    hostile_folder,
)

# Commands that do not read server config: the bundled server parses its own options, `web` re-runs
# `rea-tui` itself for each page (through the same gate), `trust` is what this file tests.
NOT_CONFIG_COMMANDS = {"server", "web", "trust"}
# Arguments each command needs to get as far as picking its server.
COMMAND_ARGS: dict[str, tuple[str, ...]] = {
    "get": ("investigate",),
    "complete": ("investigate", "document", "x"),
    "call": ("echo", "text=hi"),
    "read": ("sample://x",),
    "tasks": ("list",),
    "auth": ("login", "--no-browser"),
    "export": ("absent-session",),
    "servers": ("--no-connect",),
    "session": ("start",),
}
ENV = {"SECRET": SECRET}


@pytest.fixture
def listener() -> Iterator[RecordingListener]:
    with RecordingListener() as running:
        yield running


@pytest.fixture
def folder(tmp_path: Path, listener: RecordingListener) -> HostileFolder:
    return hostile_folder(tmp_path, listener)


def transcript(path: Path, folder: HostileFolder) -> Path:
    """A shared transcript that names every server of the folder, with the folder's commands as its targets."""
    lines: list[dict[str, object]] = [{"seq": 1, "time": 0, "type": "session", "version": "0"}]
    for index, name in enumerate(folder.stdio_names + folder.http_names):
        http = name.endswith("-http")
        target = folder.listener.url(name) if http else f"sh -c 'touch {folder.marker(name)}'"
        lines.append({"seq": 2 + index, "time": 0, "type": "server", "name": name, "target": target,
                      "transport": "http" if http else "stdio"})  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def assert_nothing_ran(folder: HostileFolder) -> None:
    assert folder.marked() == [], "a folder's command ran before the folder was trusted"
    assert folder.listener.hits == 0, "a folder's URL was contacted before the folder was trusted"


def test_every_command_in_an_untrusted_folder_starts_nothing_and_sends_nothing(folder: HostileFolder) -> None:
    names = {c.name for c in COMMANDS}
    # Every command is run below unless it is named as one that reads no config.
    assert names >= NOT_CONFIG_COMMANDS and not [c for c in COMMANDS if not c.server_options and c.name != "trust"
                                                 and c.name not in NOT_CONFIG_COMMANDS]  # fmt: skip
    hostile = folder.stdio_names + folder.http_names
    shared = str(transcript(folder.root / "shared.jsonl", folder))
    script = folder.root / "script.txt"
    script.write_text("tools\n", encoding="utf-8")
    arguments = {**COMMAND_ARGS, "replay": (shared,), "run": (str(script),)}
    runs: list[tuple[str, ...]] = []
    for index, name in enumerate(sorted(names - NOT_CONFIG_COMMANDS)):
        # Each command once by a hostile name (they take turns).
        runs.append((name, *arguments.get(name, ()), "--server", hostile[index % len(hostile)]))
    # The forms that take no name, where they are quick.
    plain = [("servers", "--no-connect"), ("servers", "--discover"), ("auth", "status"), ("sessions",)]
    runs += [*plain, ("replay", shared)]
    # Every hostile name by --server, once more through the command the issue named.
    runs += [("tools", "--server", name) for name in hostile]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda run: rea(*run, cwd=folder.root, env=ENV), runs))
    for run in results:
        assert SECRET not in run.out + run.err
        assert not UNSAFE_CHARACTER.search(run.out + run.err)
        if "--server" in run.args:
            name = run.args[run.args.index("--server") + 1]
            run.expect(2)
            assert f"server '{name}' is in" in run.err and "which is not used: the folder is not trusted" in run.err
    assert_nothing_ran(folder)
    by_args = {run.args: run for run in results}
    listed = by_args[("servers", "--no-connect")]
    assert [line.split()[0] for line in listed.out.splitlines()] == ["rea"]  # the bundled server only
    assert "not used: .rea-tui.json (the folder is not trusted), .mcp.json" in listed.err
    discovered = by_args[("servers", "--discover")].out
    assert discovered.count("not used: the folder is not trusted") == 8  # the other clients' files
    replay = by_args[("replay", shared)]
    replay.expect(2)
    for name in hostile:
        assert f"replay: {name}: refused: server '{name}' is in {folder.root}" in replay.err


def test_trust_lists_exactly_what_runs_and_then_only_that_runs(folder: HostileFolder) -> None:
    # No terminal and no --yes: listed, not trusted.
    asked = rea("trust", cwd=folder.root, env=ENV).expect(2)
    assert "no terminal to ask on (give --yes" in asked.err
    assert_nothing_ran(folder)
    listing = asked.out
    for file, _ in KINDS:
        assert f"{folder.root / file} (" in listing
    for name in folder.stdio_names:
        assert '"-c" "import pathlib' in listing and json.dumps(str(folder.marker(name))) in listing
    for name in folder.http_names:
        assert f"connects to: {folder.listener.url(name)}" in listing
    assert listing.count("headers: Authorization") == 5 and listing.count("expands: ") == 10
    # Each client's own way of naming the secret is listed as what its entries expand (Gemini's bare $SECRET too).
    for prefix, written in SECRET_VARIABLE.items():
        assert listing.count(f"expands: {written}\n") >= 2, prefix
    assert listing.count("env: FOLDER_SAYS") == 5
    assert SECRET not in listing
    assert "no trusted folders" in rea("trust", "--list").out

    trusted = rea("trust", "--yes", cwd=folder.root, env=ENV).expect(0)
    assert trusted.out.splitlines()[:-1] == listing.splitlines()  # what was asked about is what was trusted
    store = next(Path(os.environ["XDG_CONFIG_HOME"]).rglob("trusted-folders.json"))
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert json.loads(store.read_text())["folders"].keys() == {str(folder.root.resolve())}

    # Trusted: the listed command runs (and serves), the listed URL gets the listed header.
    prompts = rea("prompts", "--json", "--server", "cc-stdio", cwd=folder.root, env=ENV).expect(0)
    assert "review_code" in [p["name"] for p in prompts.json()["prompts"]]
    assert folder.marked() == ["cc-stdio"]
    rea("tools", "--server", "vscode-http", cwd=folder.root, env=ENV)
    assert folder.listener.hits >= 1 and f"Bearer {SECRET}" in folder.listener.authorizations
    # Gemini CLI's bare `$SECRET`, listed above as what the entry expands, is expanded once trusted.
    rea("tools", "--server", "gemini-http", "--protocol", "legacy", cwd=folder.root, env=ENV)
    gemini = [h for path, h in folder.listener.requests if path == "/gemini-http/mcp"]
    assert gemini and gemini[0]["Authorization"] == f"Bearer {SECRET}"
    # With no name, the trusted folder's own .rea-tui.json servers are configured (with the user's, none here).
    listed = rea("servers", "--no-connect", "--json", cwd=folder.root, env=ENV).expect(0).json()["servers"]
    assert [r["rea"]["name"] for r in listed] == ["rt-stdio", "rt-http"]

    # A changed file is not trusted any more (the others still are).
    mcp = folder.root / ".mcp.json"
    mcp.write_text(mcp.read_text() + " ", encoding="utf-8")
    changed = rea("prompts", "--server", "cc-stdio", cwd=folder.root, env=ENV).expect(2)
    assert "it changed since the folder was trusted" in changed.err
    assert ".mcp.json: it changed since the folder was trusted" in rea("trust", "--list").out
    rea("prompts", "--server", "cursor-stdio", cwd=folder.root, env=ENV).expect(0)
    assert folder.marked() == ["cc-stdio", "cursor-stdio"]

    # Revoked: nothing of the folder is used again.
    assert "no longer trusted" in rea("trust", "--revoke", str(folder.root)).expect(0).out
    rea("prompts", "--server", "cursor-stdio", cwd=folder.root, env=ENV).expect(2)
    assert folder.marked() == ["cc-stdio", "cursor-stdio"]
    assert "no trusted folders" in rea("trust", "--list").out


def test_trust_is_kept_by_real_path(tmp_path: Path, folder: HostileFolder) -> None:
    link = tmp_path / "link-to-repo"
    link.symlink_to(folder.root, target_is_directory=True)
    rea("trust", "--yes", str(link)).expect(0)
    assert str(folder.root.resolve()) in rea("trust", "--list").out
    rea("prompts", "--server", "gemini-stdio", cwd=folder.root, env=ENV).expect(0)
    assert folder.marked() == ["gemini-stdio"]


def test_the_users_own_config_keeps_a_name_the_folder_also_defines(
    tmp_path: Path, folder: HostileFolder, isolated_user_dirs: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # The analyst's own servers under two of the folder's names: Claude Code's user file and rea-tui's config.
    write_config(home / ".claude.json", {"mcpServers": {"cc-stdio": sample_entry()}})
    user_config = isolated_user_dirs / "xdg_config_home" / "rea-tui" / "config.json"
    user_config.parent.mkdir(parents=True)
    write_config(user_config, {"mcpServers": {"rt-stdio": sample_entry()}})
    env = {**ENV, "HOME": str(home)}
    for trusted in (False, True):
        if trusted:
            rea("trust", "--yes", cwd=folder.root, env=env).expect(0)
        for name in ("cc-stdio", "rt-stdio"):
            rea("prompts", "--server", name, cwd=folder.root, env=env).expect(0)
        listed = rea("servers", "--no-connect", "--json", cwd=folder.root, env=env).expect(0).json()["servers"]
        assert [r["rea"]["name"] for r in listed] == (["rt-stdio", "rt-http"] if trusted else ["rt-stdio"])
        assert listed[0]["rea"]["target"].endswith("-m tests.support.sample_server")
    assert folder.marked() == []


def test_replay_runs_a_trusted_folders_server_as_configured_never_the_recorded_command(
    folder: HostileFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rea_tui.host import choose_servers, find_configured, recorded_servers

    monkeypatch.chdir(folder.root)
    monkeypatch.setenv("SECRET", SECRET)
    recorded = recorded_servers(transcript(folder.root / "t.jsonl", folder))
    assert all(choice.spec is None for choice in choose_servers(recorded, find_configured))
    rea("trust", "--yes", cwd=folder.root).expect(0)
    chosen = {c.recorded.name: c for c in choose_servers(recorded, find_configured)}
    stdio = chosen["cc-stdio"].spec
    assert stdio is not None and chosen["cc-stdio"].reason == "configured under the same name"
    assert (stdio.command, stdio.args[-1]) == (PYTHON, str(folder.marker("cc-stdio")))  # the folder's, as listed
    assert all(c.spec is not None for c in chosen.values())
    assert_nothing_ran(folder)  # choosing starts nothing


def test_a_hostile_folder_name_and_unreadable_files_are_shown_safely(tmp_path: Path) -> None:
    root = tmp_path / "evil\x1b[31m\u202eforged\nhost: accounts.example"
    root.mkdir()
    write_config(root / ".mcp.json", {"mcpServers": {"x\x1b]8;;http://a\x07y": {"command": "c\ntrusted: yes"}}})
    (root / ".cursor").mkdir()
    (root / ".cursor" / "mcp.json").write_bytes(b"\xff\xfe not utf-8")
    listed = rea("trust", "--yes", str(root)).expect(0)
    assert not UNSAFE_CHARACTER.search(listed.out + listed.err)
    assert "\u202e" not in listed.out and "<U+202E>" in listed.out
    assert all(not line.startswith(("host:", "trusted:")) for line in listed.out.splitlines())
    assert "it cannot be read (not UTF-8 text)" in listed.out
