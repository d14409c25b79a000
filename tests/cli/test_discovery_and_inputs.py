"""Other clients' configs (`servers --discover`, `--server NAME`), `${input:NAME}`, and the protocol pin."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rea_tui.host.config.config import ConfigError, ServerSelection, parse_config, resolve_servers
from rea_tui.host.config.discovery import discover
from rea_tui.host.config.inputs import InputSpec
from tests.cli import PYTHON, REPO, raw, rea, rea_many, sample_entry, write_config


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def trust_folder(folder: Path) -> None:
    from rea_tui.host import TrustStore, trust_gate

    gate = trust_gate(folder)
    TrustStore().trust(gate.folder, gate.files)


def populate(home: Path, project: Path, config_dir: Path) -> None:
    """One server in each known client's config file (shared name `shared` in two of them)."""
    write(project / ".mcp.json", {"mcpServers": {"shared": sample_entry(), "cc-project": sample_entry()}})
    write(
        home / ".claude.json",
        {
            "mcpServers": {"cc-user": {"type": "sse", "url": "http://h/sse"}},
            "projects": {str(project): {"mcpServers": {"cc-local": {"command": "local-server"}}}},
        },
    )
    write(project / ".cursor" / "mcp.json", {"mcpServers": {"cursor-project": {"command": "c"}}})
    write(project / ".vscode" / "mcp.json", {"servers": {"vscode-project": {"type": "http", "url": "http://v/mcp"}}})
    write(project / ".gemini" / "settings.json", {"mcpServers": {"gemini-project": {"httpUrl": "http://g/mcp"}}})
    write(
        config_dir / "Claude" / "claude_desktop_config.json",
        {"mcpServers": {"shared": {"command": "/nonexistent/desktop-shared"}}},
    )
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"cursor-user": {"url": "http://cu/sse"}}})
    write(config_dir / "Code" / "User" / "mcp.json", {"servers": {"vscode-user": {"command": "vs"}}})
    write(
        home / ".codeium" / "windsurf" / "mcp_config.json", {"mcpServers": {"windsurf": {"serverUrl": "http://w/mcp"}}}
    )
    write(home / ".gemini" / "settings.json", {"mcpServers": {"gemini-user": {"url": "http://gu/events"}}})
    write(
        home / ".codex" / "config.toml",
        '[mcp_servers.codex]\ncommand = "npx"\nargs = ["-y", "srv"]\n\n'
        '[mcp_servers.codex-http]\nurl = "http://cx/mcp"\nbearer_token_env_var = "CODEX_TOKEN"\n',
    )


@pytest.fixture
def homes(tmp_path: Path, isolated_user_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    config_dir = isolated_user_dirs / "xdg_config_home"
    project.mkdir()
    populate(home, project, config_dir)
    monkeypatch.setenv("HOME", str(home))
    return home, project, config_dir


def test_discovery_reads_every_client_in_precedence_order(homes: tuple[Path, Path, Path]) -> None:
    home, project, _ = homes
    found = discover(home=home, cwd=project)
    assert not found.problems
    rows = [(s.name, s.client, s.scope) for s in found.servers]
    assert [r[0] for r in rows] == [
        "shared", "cc-project", "cc-local", "cursor-project", "vscode-project", "gemini-project",
        "cc-user", "shared", "cursor-user", "vscode-user", "windsurf", "gemini-user", "codex", "codex-http",
    ]  # fmt: skip
    # The folder's own files are listed, not used, until the folder is trusted; the user's own wins a name.
    folder_rows = [(s.name, s.untrusted) for s in found.servers if s.from_folder]
    assert [name for name, _ in folder_rows] == ["shared", "cc-project", "cursor-project", "vscode-project", "gemini-project"]  # fmt: skip
    assert all(reason == "the folder is not trusted" for _, reason in folder_rows)
    with pytest.raises(ConfigError, match="not used: the folder is not trusted"):
        found.servers[0].spec()
    shared = found.find("shared")
    assert shared is not None and shared.client == "Claude Desktop"
    assert found.find("cc-project") is None
    trust_folder(project)
    found = discover(home=home, cwd=project)
    assert found.find("cc-project") is not None and not any(s.untrusted for s in found.servers)
    shared = found.find("shared")
    assert shared is not None and shared.client == "Claude Desktop"  # the user's own, even after trust
    by_name = {s.name: s for s in reversed(found.servers)}
    specs = {name: by_name[name].spec(environ={"CODEX_TOKEN": "tok-123456"}) for name in by_name}
    assert (specs["cc-user"].transport, specs["cursor-user"].transport) == ("sse", "sse")
    assert (specs["gemini-project"].transport, specs["gemini-project"].url) == ("http", "http://g/mcp")
    assert (specs["gemini-user"].transport, specs["gemini-user"].url) == ("sse", "http://gu/events")
    assert specs["windsurf"].url == "http://w/mcp"
    assert (specs["codex"].command, specs["codex"].args) == ("npx", ("-y", "srv"))
    assert specs["codex-http"].headers == {"Authorization": "Bearer tok-123456"}
    assert "tok-123456" in specs["codex-http"].secret_values()


def test_servers_discover_and_server_name_fallback(homes: tuple[Path, Path, Path]) -> None:
    home, project, _ = homes
    env = {"HOME": str(home)}
    listed = rea("servers", "--discover", cwd=project, env=env).expect(0)
    assert f"Claude Code, project: {project / '.mcp.json'}" in listed.out
    assert "not used: the folder is not trusted" in listed.out
    assert str(home / ".codex" / "config.toml") in listed.out
    rows = rea("servers", "--discover", "--json", cwd=project, env=env).expect(0).json()["servers"]
    assert len(rows) == 14 and [r["picked"] for r in rows if r["name"] == "shared"] == [False, True]
    assert [r["trusted"] for r in rows if r["scope"] == "project" and r["client"] != "Claude Code (local)"] == [
        False
    ] * 5
    # --server NAME: a name only the untrusted folder defines is refused, saying why.
    refused = rea("prompts", "--server", "cc-project", cwd=project, env=env).expect(2)
    assert "which is not used: the folder is not trusted" in refused.err and "rea-tui trust" in refused.err
    rea("trust", "--yes", cwd=project, env=env).expect(0)
    # Trusted, the folder's server is found; a name the user's own config defines stays the user's.
    found = rea("prompts", "--json", "--server", "cc-project", cwd=project, env=env).expect(0)
    assert "review_code" in [p["name"] for p in found.json()["prompts"]]
    users = rea("prompts", "--server", "shared", cwd=project, env=env).expect(3)
    assert "/nonexistent/desktop-shared" in users.err
    # The rea-tui config (here the trusted folder's, once its new file is trusted too) comes before a folder's
    # other files, but never before the user's own.
    write(project / ".rea-tui.json", {"mcpServers": {"cc-project": {"command": "/nonexistent/rea-tui-own"}}})
    assert "it is new since the folder was trusted" in rea("servers", "--no-connect", cwd=project, env=env).err
    rea("trust", "--yes", cwd=project, env=env).expect(0)
    own = rea("prompts", "--server", "cc-project", cwd=project, env=env).expect(3)
    assert "/nonexistent/rea-tui-own" in own.err
    # An explicit --config is the only place looked in.
    explicit = write(project / "only.json", {"mcpServers": {}})
    missing = rea("prompts", "--server", "shared", "--config", str(explicit), cwd=project, env=env).expect(2)
    assert "no server named 'shared'" in missing.err


def test_input_variables_are_asked_never_sent_literally(tmp_path: Path) -> None:
    data = {
        "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": True}],
        "servers": {
            "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "k ${input:api-key}"}},
            "local": {"command": "srv", "args": ["--key=${input:api-key}", "${input:other}"]},
        },
    }
    asked: list[tuple[str, str, bool]] = []

    def resolver(spec: InputSpec, server: str) -> str:
        asked.append((spec.id, server, spec.password))
        return f"value-of-{spec.id}"

    remote, local = parse_config(data, resolver=resolver)
    assert remote.headers == {"X-Key": "k value-of-api-key"}
    assert local.args == ("--key=value-of-api-key", "value-of-other")
    assert asked == [("api-key", "remote", True), ("other", "local", True)]  # each input once
    assert "value-of-other" in local.secret_values()
    # Only the server picked is resolved.
    asked.clear()
    config = write_config(tmp_path / "vscode.json", data)
    [spec] = resolve_servers(ServerSelection(server="local", config=str(config)), resolver)[0]
    assert spec.name == "local" and [a[0] for a in asked] == ["api-key", "other"]

    def refuse(spec: InputSpec, server: str) -> str:
        raise ConfigError("no")

    with pytest.raises(ConfigError):
        parse_config(data, resolver=refuse)
    # Without a terminal the CLI says what is missing and sends nothing.
    refused = rea("servers", "--no-connect", "--config", str(config)).expect(2)
    assert "${input:api-key} (API key)" in refused.err and "terminal" in refused.err


def test_protocol_pin_is_an_error_when_the_server_cannot_speak_it() -> None:
    legacy, modern = rea_many(
        ("prompts", "--protocol", "2026-07-28", *raw("lint")),
        ("prompts", "--json", "--protocol", "2026-07-28", "--", PYTHON, "-m", "tests.support.sample_server"),
    )
    legacy.expect(4)
    assert "cannot speak protocol 2026-07-28" in legacy.err and "error -32022" in legacy.err
    assert "review_code" in [p["name"] for p in modern.expect(0).json()["prompts"]]


def test_timeout_applies_to_connecting(tmp_path: Path) -> None:
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    started = time.monotonic()
    run = rea("prompts", "--timeout", "1.5", "--", PYTHON, str(silent))
    elapsed = time.monotonic() - started
    run.expect(5)
    assert "connect timed out after 1.5 s" in run.err
    assert elapsed < 8, elapsed  # not the old 10 s floor
    assert REPO.is_dir()
