import json
import shlex
import sys
from pathlib import Path

import pytest

from rea_tui.host.config.config import (
    ConfigError,
    ServerSelection,
    ServerSpec,
    expand_variables,
    parse_config,
    parse_header,
    resolve_servers,
    short_server_name,
    user_config_path,
)


def test_claude_desktop_format_stdio_and_url() -> None:
    specs = parse_config(
        {
            "mcpServers": {
                "fs": {
                    "command": "npx",
                    "args": ["-y", "server-fs", "/tmp"],
                    "env": {"A": "1"},
                    "cwd": "/srv",
                },
                "remote": {"url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer abc123"}},
            }
        }
    )
    fs, remote = specs
    assert (fs.name, fs.transport, fs.command, fs.args, dict(fs.env), fs.cwd) == (
        "fs",
        "stdio",
        "npx",
        ("-y", "server-fs", "/tmp"),
        {"A": "1"},
        "/srv",
    )
    assert (remote.transport, remote.url, dict(remote.headers)) == (
        "http",
        "http://127.0.0.1:9000/mcp",
        {"Authorization": "Bearer abc123"},
    )


def test_vscode_servers_format_with_types() -> None:
    specs = parse_config(
        {
            "servers": {
                "a": {"type": "stdio", "command": "srv", "args": ["--x"]},
                "b": {"type": "http", "url": "http://localhost:1/mcp", "protocol": "legacy"},
            }
        }
    )
    assert [s.transport for s in specs] == ["stdio", "http"]
    assert specs[1].protocol == "legacy"


def test_variable_expansion_both_spellings() -> None:
    env = {"TOKEN": "s3cret", "HOME": "/home/x"}
    assert expand_variables("${TOKEN}-${env:HOME}", env) == "s3cret-/home/x"
    spec = parse_config({"mcpServers": {"s": {"command": "${HOME}/bin/srv", "env": {"K": "${env:TOKEN}"}}}}, env)[0]
    assert spec.command == "/home/x/bin/srv" and spec.env["K"] == "s3cret"


def test_unset_variable_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="NOPE is not set"):
        expand_variables("${NOPE}", {})


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"type": "websocket", "url": "x"}, "unsupported type"),  # sse is supported now
        ({"args": []}, "needs a command"),
        ({"type": "http"}, "needs a url"),
        ({"command": "x", "protocol": "2020"}, "protocol must be"),
        ({"command": "x", "args": "nope"}, "args must be a list"),
    ],
)
def test_bad_entries_are_named(entry: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config({"mcpServers": {"s": entry}})


def test_nothing_configured_means_the_bundled_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    specs, path = resolve_servers(ServerSelection())
    assert path is None
    assert len(specs) == 1 and specs[0].bundled
    assert specs[0].command == sys.executable and specs[0].args == ("-m", "rea_tui.server")


def write(path: Path, servers: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def trust_folder(folder: Path) -> None:
    from rea_tui.host import TrustStore, trust_gate

    gate = trust_gate(folder)
    TrustStore().trust(gate.folder, gate.files)


def test_lookup_order_explicit_then_user_then_trusted_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(user_config_path(), {"user": {"command": "u"}, "both": {"command": "user-both"}})
    assert [s.name for s in resolve_servers(ServerSelection())[0]] == ["user", "both"]
    write(tmp_path / ".rea-tui.json", {"local": {"command": "l"}, "both": {"command": "folder-both"}})
    # The folder's own file is not used until the folder is trusted.
    assert [s.name for s in resolve_servers(ServerSelection())[0]] == ["user", "both"]
    with pytest.raises(ConfigError, match="no server named 'local'"):
        resolve_servers(ServerSelection(server="local"))
    trust_folder(tmp_path)
    specs = resolve_servers(ServerSelection())[0]
    # Trusted, it adds its servers; the user's own keeps a name both define.
    assert [(s.name, s.command) for s in specs] == [("user", "u"), ("both", "user-both"), ("local", "l")]
    assert resolve_servers(ServerSelection(server="both"))[0][0].command == "user-both"
    assert resolve_servers(ServerSelection(server="local"))[0][0].command == "l"
    explicit = write(tmp_path / "other.json", {"x": {"command": "x"}, "y": {"command": "y"}})
    specs, path = resolve_servers(ServerSelection(config=str(explicit)))
    assert path == explicit and [s.name for s in specs] == ["x", "y"]
    specs, _ = resolve_servers(ServerSelection(config=str(explicit), server="y"))
    assert [s.name for s in specs] == ["y"]


def test_unknown_server_name_lists_the_known_ones(tmp_path: Path) -> None:
    config = write(tmp_path / "c.json", {"a": {"command": "a"}})
    with pytest.raises(ConfigError, match=r"no server named .b..*configured: a"):
        resolve_servers(ServerSelection(config=str(config), server="b"))


def test_missing_explicit_config_and_bad_json(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        resolve_servers(ServerSelection(config=str(tmp_path / "none.json")))
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ConfigError, match="not valid JSON"):
        resolve_servers(ServerSelection(config=str(bad)))


def test_url_and_stdio_options() -> None:
    specs, _ = resolve_servers(
        ServerSelection(url="http://127.0.0.1:1/mcp", headers=("X-Key: abc",), protocol="legacy")
    )
    assert specs[0].transport == "http" and dict(specs[0].headers) == {"X-Key": "abc"} and specs[0].protocol == "legacy"
    specs, _ = resolve_servers(ServerSelection(stdio=("python", "-m", "srv")))
    assert (specs[0].command, specs[0].args) == ("python", ("-m", "srv"))
    assert specs[0].name == "srv" and specs[0].display_target() == "python -m srv"
    with pytest.raises(ConfigError, match="either --url or --stdio"):
        resolve_servers(ServerSelection(url="http://x", stdio=("y",)))
    with pytest.raises(ConfigError, match="--header needs --url"):
        resolve_servers(ServerSelection(headers=("A: b",)))


def test_header_parsing() -> None:
    assert parse_header("Authorization: Bearer x y") == ("Authorization", "Bearer x y")
    with pytest.raises(ConfigError):
        parse_header("no colon")


def test_secret_values_cover_secret_env_and_all_headers() -> None:
    spec = ServerSpec(
        name="s",
        transport="http",
        url="http://x",
        headers={"Authorization": "Bearer tok-123456"},
        env={"API_KEY": "key-9999", "MODE": "fast"},
    )
    secrets = spec.secret_values()
    assert "Bearer tok-123456" in secrets and "tok-123456" in secrets and "key-9999" in secrets
    assert "fast" not in secrets


def test_stdio_servers_get_a_short_name_the_command_stays_whole() -> None:
    cases = {
        ("rea", "server", "--synthetic", "2000"): "rea (synthetic 2000)",
        ("npx", "-y", "@modelcontextprotocol/server-everything"): "server-everything",
        ("npx", "-y", "@modelcontextprotocol/server-everything@1.2.0", "stdio"): "server-everything (stdio)",
        # A package's script run by node: the package names it, not the node_modules folder it is in.
        (
            "node",
            "/srv/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        ): "server-everything",
        ("node", "/srv/node_modules/server-everything/dist/index.js", "stdio"): "server-everything (stdio)",
        ("node", "/home/ann@lab/tools/probe.js"): "probe",
        (
            "/usr/bin/python3.11",
            "-m",
            "rea_tui.server",
            "--target",
            "/usr/lib/libc.so.6",
        ): "rea_tui (target libc.so.6)",
        ("python", "-m", "weather_mcp", "--units", "metric"): "weather_mcp (units metric)",
        ("uvx", "mcp-server-fetch"): "mcp-server-fetch",
        ("uv", "run", "weather.py", "--port=8000"): "weather (port 8000)",
        ("docker", "run", "-i", "--rm", "mcp/github"): "github",
        ("node", "servers/files/index.js", "--root", "/srv/data"): "files (root data)",
        ("./my-server",): "my-server",
    }
    for command, expected in cases.items():
        specs, _ = resolve_servers(ServerSelection(stdio=command))
        assert specs[0].name == expected, command
        assert specs[0].display_target() == shlex.join(command)
    long = short_server_name("srv", ("--query", "x" * 100))
    assert long.startswith("srv (query x") and long.endswith("…)") and len(long) < 40
