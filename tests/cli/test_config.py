"""Config files: `mcpServers` and VS Code `servers`, `--server NAME`, look-up order."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli import PYTHON, raw_entry, rea, rea_many, sample_entry, write_config


def test_mcp_servers_config_selection_and_servers_command(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "claude.json",
        {
            "mcpServers": {
                "sample": sample_entry(),
                "lint": raw_entry("lint"),
                "broken": {"command": "/nonexistent/rea-test-server", "args": []},
            }
        },
    )
    # Cheap failures first: nothing is started for these.
    several = rea("prompts", "--config", str(config)).expect(2)
    assert "several servers are configured (sample, lint, broken)" in several.err
    assert "--server NAME" in several.err
    unknown = rea("prompts", "--config", str(config), "--server", "nope").expect(2)
    assert "no server named 'nope'" in unknown.err
    assert "sample, lint, broken" in unknown.err
    missing = rea("prompts", "--config", str(tmp_path / "absent.json")).expect(2)
    assert "config file not found" in missing.err

    picked, servers, servers_json = rea_many(
        ("prompts", "--json", "--config", str(config), "--server", "sample"),
        ("servers", "--config", str(config)),
        ("servers", "--json", "--config", str(config)),
    )
    assert [p["name"] for p in picked.expect(0).json()["prompts"]] == ["review_code", "investigate"]

    # `servers` lists every configured server and connects to each; one broken server
    # is reported without failing the command.
    servers.expect(0)
    assert servers.out.index("sample  (stdio:") < servers.out.index("lint  (stdio:")
    assert servers.out.index("lint  (stdio:") < servers.out.index("broken  (stdio:")
    assert "sample-server 1.0.0" in servers.out
    assert "raw-lint 0" in servers.out
    assert "cannot start" in servers.out
    rows = {row["rea"]["name"]: row for row in servers_json.expect(0).json()["servers"]}
    assert list(rows) == ["sample", "lint", "broken"]
    assert rows["sample"]["rea"]["status"] == "ok"
    assert rows["sample"]["serverInfo"]["name"] == "sample-server"
    assert rows["lint"]["rea"]["status"] == "ok"
    assert rows["lint"]["serverInfo"]["name"] == "raw-lint"
    assert rows["broken"]["rea"]["status"] == "error"
    assert rows["broken"]["rea"]["exitCode"] == 3
    assert "cannot start" in rows["broken"]["error"]["message"]


def test_vs_code_servers_config_with_http_and_stdio(tmp_path: Path, sample_http_url: str) -> None:
    config = write_config(
        tmp_path / "mcp.json",
        {
            "servers": {
                "web": {
                    "type": "http",
                    "url": sample_http_url,
                    "headers": {"Authorization": "Bearer ${env:REA_TEST_TOKEN}"},
                },
                "local": {"type": "stdio", **sample_entry()},
            },
            "inputs": [],
        },
    )
    env = {"REA_TEST_TOKEN": "t0ken-value-123"}
    tools, complete, servers = rea_many(
        ("tools", "--json", "--config", str(config), "--server", "web", "--trace"),
        ("complete", "--json", "investigate", "document", "", "--config", str(config), "--server", "local"),
        ("servers", "--json", "--config", str(config)),
        env=env,
    )
    assert "echo" in [t["name"] for t in tools.expect(0).json()["tools"]]
    assert "tools/list" in tools.trace_methods()
    assert "t0ken-value-123" not in tools.out + tools.err
    assert complete.expect(0).json()["completion"]["values"] == ["Helper", "Notes", "libsearch"]
    rows = servers.expect(0).json()["servers"]
    assert [(r["rea"]["name"], r["rea"]["transport"], r["rea"]["status"]) for r in rows] == [
        ("web", "http", "ok"),
        ("local", "stdio", "ok"),
    ]
    assert "t0ken-value-123" not in servers.out
    # An unset ${env:VAR} is a usage error that names the variable.
    assert "REA_TEST_TOKEN" not in os.environ
    unset = rea("servers", "--no-connect", "--config", str(config)).expect(2)
    assert "REA_TEST_TOKEN" in unset.err


def test_config_look_up_order_and_bad_files(tmp_path: Path, isolated_user_dirs: Path) -> None:
    user_config = isolated_user_dirs / "xdg_config_home" / "rea-tui" / "config.json"
    user_config.parent.mkdir(parents=True)
    write_config(user_config, {"mcpServers": {"from-user": sample_entry()}})
    local_dir = tmp_path / "project"
    local_dir.mkdir()

    from_user = rea("servers", "--no-connect", "--json", cwd=local_dir).expect(0)
    assert [r["rea"]["name"] for r in from_user.json()["servers"]] == ["from-user"]

    write_config(local_dir / ".rea-tui.json", {"mcpServers": {"from-project": raw_entry("lint")}})
    untrusted = rea("servers", "--no-connect", "--json", cwd=local_dir).expect(0)
    assert [r["rea"]["name"] for r in untrusted.json()["servers"]] == ["from-user"]
    assert "not used: .rea-tui.json (the folder is not trusted)" in untrusted.err
    rea("trust", "--yes", cwd=local_dir).expect(0)
    from_local = rea("servers", "--no-connect", "--json", cwd=local_dir).expect(0)
    assert [r["rea"]["name"] for r in from_local.json()["servers"]] == ["from-user", "from-project"]

    explicit = write_config(tmp_path / "explicit.json", {"mcpServers": {"explicit": sample_entry()}})
    chosen = rea("servers", "--no-connect", "--json", "--config", str(explicit), cwd=local_dir).expect(0)
    assert [r["rea"]["name"] for r in chosen.json()["servers"]] == ["explicit"]

    # With a single configured server, a single-server command needs no --server.
    single = rea("prompts", "--json", "--config", str(explicit)).expect(0)
    assert len(single.json()["prompts"]) == 2

    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    bad = rea("prompts", "--config", str(broken)).expect(2)
    assert "is not valid JSON" in bad.err
    wrong_type = write_config(tmp_path / "wrong.json", {"mcpServers": {"x": {"type": "websocket", "url": "ws://u"}}})
    assert "unsupported type" in rea("prompts", "--config", str(wrong_type)).expect(2).err
    no_command = write_config(tmp_path / "nocmd.json", {"mcpServers": {"x": {"args": [PYTHON]}}})
    assert "needs a command" in rea("prompts", "--config", str(no_command)).expect(2).err
