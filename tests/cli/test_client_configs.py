"""Other clients' configs read as each client reads them, through the real `rea-tui` command.

One realistic file per client (Cursor, Windsurf, Codex, Claude Code with its
settings files, Gemini CLI, VS Code's JSONC, Zed's JSONC `context_servers`),
in an isolated HOME and XDG config directory. Each has a server its client
turns off, whose command would create a marker file: it is listed as
disabled (with the file that says so), `--server NAME` refuses it naming that
file, and the marker is never created. Variables are expanded in each
client's dialect: what reaches a loopback listener (headers, URL) and the
command line a stdio entry resolves to are checked, and an unset variable is
listed with what its client does then.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli import PYTHON, REPO, Run, rea
from tests.support.hostile_folder import MARKING_SERVER, RecordingListener

# Set for every run; MISSING_VAR never is.
ENV = {
    "CURSOR_TOKEN": "cursor-tok",
    "WS_TOKEN": "windsurf-tok",
    "CODEX_TOKEN": "codex-tok",
    "CODEX_TEAM": "red",
    "CC_TOKEN": "cc-tok",
    "GEMINI_TOKEN": "gemini-tok",
    "VSC_TOKEN": "vscode-tok",
}


@dataclass
class Clients:
    home: Path
    project: Path
    config_dir: Path
    markers: Path
    listener: RecordingListener

    @property
    def env(self) -> dict[str, str]:
        return {**ENV, "HOME": str(self.home), "GEMINI_PORT": str(self.listener.port)}

    def url(self, name: str) -> str:
        return self.listener.url(name)

    def marking(self, name: str) -> dict[str, object]:
        return {"command": PYTHON, "args": ["-c", MARKING_SERVER, str(self.markers / name)], "cwd": str(REPO)}

    def headers_sent(self, name: str) -> dict[str, str]:
        sent = [headers for path, headers in self.listener.requests if path == f"/{name}/mcp"]
        assert sent, f"{name}: nothing reached the listener"
        return sent[0]

    def rea(self, *args: str) -> Run:
        return rea(*args, cwd=self.project, env=self.env)

    def many(self, *commands: tuple[str, ...]) -> list[Run]:
        """Independent commands two at a time, in the project folder."""
        with ThreadPoolExecutor(max_workers=2) as pool:
            return list(pool.map(lambda command: self.rea(*command), commands))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def populate(c: Clients) -> None:
    port = c.listener.port
    gemini_off = json.dumps(c.marking("gemini-off"))
    zed_off = json.dumps({**c.marking("zed-off"), "enabled": False})
    vscode_url, zed_url = c.url("vscode-remote"), c.url("zed-remote")
    codex_url, codex_no_token = c.url("codex-remote"), c.url("codex-no-token")
    codex_marker = json.dumps(str(c.markers / "codex-off"))
    write(
        c.home / ".cursor" / "mcp.json",
        json.dumps({"mcpServers": {
            "cursor-files": {"command": "srv",
                             "args": ["${workspaceFolder}/src", "${userHome}/notes", "${env:MISSING_VAR}end"]},
            "cursor-remote": {"url": c.url("cursor-remote"),
                              "headers": {"Authorization": "Bearer ${env:CURSOR_TOKEN}", "X-Home": "${userHome}"}},
            "cursor-off": {**c.marking("cursor-off"), "disabled": True},
        }}, indent=2),
    )  # fmt: skip
    write(
        c.home / ".codeium" / "windsurf" / "mcp_config.json",
        json.dumps({"mcpServers": {
            "windsurf-remote": {"serverUrl": c.url("windsurf-remote"),
                                "headers": {"Authorization": "Bearer ${env:WS_TOKEN}"}},
            "windsurf-unset": {"command": "srv", "args": ["${env:MISSING_VAR}"]},
            "windsurf-off": {**c.marking("windsurf-off"), "disabled": True},
        }}),
    )  # fmt: skip
    write(
        c.home / ".codex" / "config.toml",
        f"""model = "o4-mini"

[mcp_servers.codex-remote]
url = "{codex_url}"
bearer_token_env_var = "CODEX_TOKEN"
http_headers = {{ "X-Static" = "static" }}
env_http_headers = {{ "X-Team" = "CODEX_TEAM", "X-Absent" = "MISSING_VAR" }}

[mcp_servers.codex-no-token]
url = "{codex_no_token}"
bearer_token_env_var = "MISSING_VAR"

[mcp_servers.codex-off]
command = {json.dumps(PYTHON)}
args = ["-c", {json.dumps(MARKING_SERVER)}, {codex_marker}]
cwd = {json.dumps(str(REPO))}
enabled = false
""",
    )
    # Claude Code: the folder's .mcp.json (trusted below), its local settings, and ~/.claude.json.
    write(
        c.project / ".mcp.json",
        json.dumps({"mcpServers": {
            "cc-remote": {"type": "http", "url": "${CC_BASE:-http://127.0.0.1:" + str(port) + "}/cc-remote/mcp",
                          "headers": {"Authorization": "Bearer ${CC_TOKEN}", "X-Default": "${CC_MODE:-fast}"}},
            "cc-unset": {"command": "srv", "args": ["${MISSING_VAR}"]},
            "cc-off": c.marking("cc-off"),
        }}),
    )  # fmt: skip
    write(c.project / ".claude" / "settings.local.json", json.dumps({"disabledMcpjsonServers": ["cc-off"]}))
    write(
        c.home / ".claude.json",
        json.dumps({
            "numStartups": 12,
            "mcpServers": {"cc-user-off": c.marking("cc-user-off")},
            "projects": {str(c.project): {"allowedTools": [], "disabledMcpServers": ["cc-user-off"]}},
        }),
    )  # fmt: skip
    write(
        c.home / ".gemini" / "settings.json",
        """// Gemini CLI settings: comments are allowed here
{
  "theme": "GitHub",
  "mcpServers": {
    "gemini-remote": {
      "httpUrl": "http://127.0.0.1:$GEMINI_PORT/gemini-remote/mcp",
      "headers": {"Authorization": "Bearer $GEMINI_TOKEN", "X-Kept": "${MISSING_VAR}"}
    },
    "gemini-off": MARK
  },
  "mcp": {"excluded": ["gemini-off"]}
}""".replace("MARK", gemini_off),
    )
    write(
        c.config_dir / "Code" / "User" / "mcp.json",
        f"""{{
  // Servers for every workspace (VS Code writes this file as JSONC)
  "inputs": [],
  "servers": {{
    "vscode-files": {{
      "type": "stdio",
      "command": "srv",
      "args": ["${{workspaceFolder}}", "${{userHome}}", "${{env:MISSING_VAR}}x", "${{workspaceFolderBasename}}"],
    }},
    /* a remote one */
    "vscode-remote": {{"type": "http", "url": "{vscode_url}",
                      "headers": {{"Authorization": "Bearer ${{env:VSC_TOKEN}}"}},}},
    "vscode-config": {{"command": "srv", "args": ["${{config:python.defaultInterpreterPath}}"]}},
  }},
}}
""",
    )
    write(
        c.config_dir / "zed" / "settings.json",
        f"""// Zed settings
{{
  "theme": "One Dark",
  "context_servers": {{
    "zed-object": {{"source": "custom", "command": {{"path": "zedsrv", "args": ["--home", "$HOME"], "env": {{}}}}}},
    "zed-flat": {{"command": "flat", "args": ["--port", "1"], "env": {{"A": "b"}}}},
    "zed-remote": {{"url": "{zed_url}", "headers": {{"Authorization": "Bearer literal-token"}}}},
    "zed-off": {zed_off},
    "zed-extension": {{"source": "extension", "settings": {{"database_url": "postgres://x"}}}},
  }},
}}
""",
    )


@pytest.fixture
def clients(tmp_path: Path, isolated_user_dirs: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Clients]:
    home, project, markers = tmp_path / "home", (tmp_path / "project"), tmp_path / "markers"
    for folder in (home, project, markers):
        folder.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MISSING_VAR", raising=False)
    with RecordingListener() as listener:
        c = Clients(home, project.resolve(), isolated_user_dirs / "xdg_config_home", markers, listener)
        populate(c)
        yield c


# (server, where its client turns it off)
DISABLED = {
    "cursor-off": '"disabled": true in {home}/.cursor/mcp.json',
    "windsurf-off": '"disabled": true in {home}/.codeium/windsurf/mcp_config.json',
    "codex-off": "enabled = false in {home}/.codex/config.toml",
    "cc-off": "turned off by disabledMcpjsonServers of {project}/.claude/settings.local.json",
    "cc-user-off": "turned off by disabledMcpServers of {home}/.claude.json",
    "gemini-off": "turned off by mcp.excluded of {home}/.gemini/settings.json",
    "zed-off": '"enabled": false in {config}/zed/settings.json',
    "zed-extension": "a Zed extension's server (rea-tui cannot start one) in {config}/zed/settings.json",
}


def test_each_clients_file_is_read_as_that_client_reads_it(clients: Clients) -> None:
    c = clients
    c.rea("trust", "--yes").expect(0)  # the folder's .mcp.json
    listed = c.rea("servers", "--discover", "--json").expect(0).json()
    assert listed["problems"] == []
    rows = {r["name"]: r for r in listed["servers"]}
    where = {"home": c.home, "project": c.project, "config": c.config_dir}
    assert {n: r["disabled"] for n, r in rows.items() if "disabled" in r} == {
        n: reason.format(**where) for n, reason in DISABLED.items()
    }
    assert not any(rows[n]["picked"] for n in DISABLED)
    # An unset variable is listed with what its client does then.
    assert rows["cursor-files"]["unsetVariables"] == [
        "${env:MISSING_VAR} is not set: Cursor sends it empty, and so does rea-tui"
    ]
    assert rows["vscode-files"]["unsetVariables"] == [
        "${env:MISSING_VAR} is not set: VS Code sends it empty, and so does rea-tui"
    ]
    assert rows["windsurf-unset"]["unsetVariables"] == [
        "${env:MISSING_VAR} is not set: Windsurf refuses the entry, and so does rea-tui"
    ]
    assert rows["cc-unset"]["unsetVariables"] == [
        "${MISSING_VAR} is not set: Claude Code refuses the entry, and so does rea-tui"
    ]
    assert "unsetVariables" not in rows["cc-remote"]  # CC_BASE and CC_MODE have defaults
    assert rows["gemini-remote"]["unsetVariables"] == [
        "${MISSING_VAR} is not set: Gemini CLI sends it as written, and so does rea-tui"
    ]
    assert rows["codex-remote"]["unsetVariables"] == [
        "MISSING_VAR (header X-Absent) is not set: Codex sends no such header, nor does rea-tui"
    ]
    text = c.rea("servers", "--discover").expect(0).out
    assert f"  disabled: {DISABLED['gemini-off'].format(**where)}; rea-tui does not start it" in text

    # Stdio entries resolve to the command line their client would run.
    targets = {
        "cursor-files": f"srv {c.project}/src {c.home}/notes end",
        "vscode-files": f"srv {c.project} {c.home} x {c.project.name}",
        "zed-object": "zedsrv --home '$HOME'",
        "zed-flat": "flat --port 1",
    }
    runs = c.many(*(("servers", "--no-connect", "--json", "--server", n) for n in targets))
    for (name, target), run in zip(targets.items(), runs, strict=True):
        assert run.expect(0).json()["servers"][0]["rea"]["target"] == target, name

    # HTTP entries: what reaches the listener.
    remote = ["cursor-remote", "windsurf-remote", "codex-remote", "cc-remote", "gemini-remote", "vscode-remote",
              "zed-remote"]  # fmt: skip
    for run in c.many(*(("tools", "--server", n, "--protocol", "legacy") for n in remote)):
        assert "not set" not in run.err, run.err
    sent = {name: c.headers_sent(name) for name in remote}
    assert sent["cursor-remote"]["Authorization"] == "Bearer cursor-tok"
    assert sent["cursor-remote"]["X-Home"] == str(c.home)
    assert sent["windsurf-remote"]["Authorization"] == "Bearer windsurf-tok"
    codex = sent["codex-remote"]
    assert (codex["Authorization"], codex["X-Static"], codex["X-Team"]) == ("Bearer codex-tok", "static", "red")
    assert "X-Absent" not in codex
    assert (sent["cc-remote"]["Authorization"], sent["cc-remote"]["X-Default"]) == ("Bearer cc-tok", "fast")
    assert sent["gemini-remote"]["Authorization"] == "Bearer gemini-tok"  # $VAR in a header, and in the URL
    assert sent["gemini-remote"]["X-Kept"] == "${MISSING_VAR}"
    assert sent["vscode-remote"]["Authorization"] == "Bearer vscode-tok"
    assert sent["zed-remote"]["Authorization"] == "Bearer literal-token"

    # Refused as the client refuses them, saying why; nothing is sent raw.
    refused = {
        "windsurf-unset": "environment variable MISSING_VAR is not set",
        "cc-unset": "environment variable MISSING_VAR is not set",
        "codex-no-token": "environment variable MISSING_VAR (bearer_token_env_var of server 'codex-no-token') is "
        "not set",
        "vscode-config": "${config:python.defaultInterpreterPath} is a VS Code variable rea-tui does not support",
    }
    runs = c.many(*(("servers", "--no-connect", "--server", n) for n in refused))
    for (name, message), run in zip(refused.items(), runs, strict=True):
        assert message in run.expect(2).err, name
    assert not any(path == "/codex-no-token/mcp" for path, _ in c.listener.requests)

    # A disabled server: `--server NAME` names the file that turns it off; nothing is started.
    runs = c.many(*(("prompts", "--server", n) for n in DISABLED))
    for (name, reason), run in zip(DISABLED.items(), runs, strict=True):
        run.expect(2)
        assert f"server '{name}' is disabled: {reason.format(**where)}" in run.err, run.err
        assert "rea-tui does not start it" in run.err
    assert sorted(os.listdir(c.markers)) == []


def test_a_disabled_folder_server_is_not_started_once_the_folder_is_trusted(clients: Clients) -> None:
    """The folder's `.mcp.json` server that its `.claude/settings.local.json` turns off stays off after trust."""
    c = clients
    refused = c.rea("prompts", "--server", "cc-off").expect(2)
    assert "which is not used: the folder is not trusted" in refused.err  # the trust gate comes first
    c.rea("trust", "--yes").expect(0)
    c.rea("prompts", "--server", "cc-off").expect(2)
    (c.project / ".claude" / "settings.local.json").write_text(json.dumps({"disabledMcpjsonServers": []}))
    started = c.rea("prompts", "--json", "--server", "cc-off").expect(0)
    assert "review_code" in [p["name"] for p in started.json()["prompts"]]
    assert os.listdir(c.markers) == ["cc-off"]  # the marker is real: it is made once the switch is gone
