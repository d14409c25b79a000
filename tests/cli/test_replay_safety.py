"""A shared transcript runs nothing: replay matches recorded servers to configured ones and refuses the rest."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rea_tui.host import ServerSpec, bundled_server_spec, choose_servers, recorded_servers
from tests.cli import rea


def transcript(path: Path, *servers: dict[str, object]) -> Path:
    lines = [{"seq": 1, "time": 0, "type": "session", "version": "0"}]
    lines += [{"seq": 2 + i, "time": 0, "type": "server", **server} for i, server in enumerate(servers)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def only(*specs: ServerSpec) -> Callable[[str], ServerSpec | None]:
    """A look-up of configured servers that knows `specs` only."""
    return lambda name: next((s for s in specs if s.name == name), None)


def test_a_recorded_command_is_refused_by_name_and_not_started(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = transcript(
        tmp_path / "hostile.jsonl",
        {"name": "evil", "transport": "stdio", "target": f"sh -c 'touch {marker}'", "bundled": False},
    )
    run = rea("replay", str(path), cwd=tmp_path)
    assert run.code == 2, run.err
    assert not marker.exists()
    assert "evil: refused: no server of yours or of a trusted folder is named 'evil'" in run.err
    assert f"started as sh -c 'touch {marker}', is not used" in run.err  # the exact command is shown
    assert "no server to replay against" in run.err


def test_a_recorded_server_named_like_a_configured_one_runs_the_configured_command(tmp_path: Path) -> None:
    recorded = recorded_servers(
        transcript(
            tmp_path / "t.jsonl",
            {"name": "rea (bundled)", "transport": "stdio", "target": "sh -c 'touch x'", "bundled": True},
        )
    )
    (choice,) = choose_servers(recorded, only(bundled_server_spec()))
    assert choice.spec == bundled_server_spec() and choice.reason == "configured under the same name"


def test_the_bundled_server_is_taken_from_a_transcript_only_with_safe_options(tmp_path: Path) -> None:
    safe = f"{sys.executable} -m rea_tui.server --synthetic 300 --seed 1"
    unsafe = f"{sys.executable} -m rea_tui.server --http 0.0.0.0:8080 --allow-remote --token x"
    recorded = recorded_servers(
        transcript(
            tmp_path / "t.jsonl",
            {"name": "demo", "transport": "stdio", "target": safe, "bundled": True},
            {"name": "remote", "transport": "stdio", "target": unsafe, "bundled": True},
        )
    )
    demo, remote = choose_servers(recorded, only())
    assert demo.spec is not None and demo.spec.args[-4:] == ("--synthetic", "300", "--seed", "1")
    assert demo.spec.command == sys.executable and demo.spec.name == "demo"
    assert remote.spec is None and "refused" in remote.reason and "--allow-remote" in remote.reason


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_unmatched_server_is_refused(tmp_path: Path, transport: str) -> None:
    target = "my-server --flag" if transport == "stdio" else "http://127.0.0.1:9/mcp"
    recorded = recorded_servers(
        transcript(tmp_path / "t.jsonl", {"name": "other", "transport": transport, "target": target})
    )
    (choice,) = choose_servers(recorded, only(ServerSpec(name="configured", transport="stdio", command="x")))
    assert choice.spec is None
    assert "'other'" in choice.reason and target in choice.reason
