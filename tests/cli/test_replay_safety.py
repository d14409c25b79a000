"""A shared transcript runs nothing: replay matches recorded servers to configured ones and asks for the rest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rea_tui.host import ServerSpec, bundled_server_spec, choose_servers, recorded_servers
from tests.cli import rea


def transcript(path: Path, *servers: dict[str, object]) -> Path:
    lines = [{"seq": 1, "time": 0, "type": "session", "version": "0"}]
    lines += [{"seq": 2 + i, "time": 0, "type": "server", **server} for i, server in enumerate(servers)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def refuse(question: str) -> bool:
    raise AssertionError(f"nothing should have been asked: {question}")


def test_a_recorded_command_without_a_terminal_is_not_started(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = transcript(
        tmp_path / "hostile.jsonl",
        {"name": "evil", "transport": "stdio", "target": f"sh -c 'touch {marker}'", "bundled": False},
    )
    run = rea("replay", str(path), cwd=tmp_path)
    assert run.code == 2, run.err
    assert not marker.exists()
    assert f"sh -c 'touch {marker}'" in run.err  # the exact command is shown
    assert "no: stdin is not a terminal" in run.err
    assert "evil: not approved (nothing was started)" in run.err


def test_a_recorded_server_named_like_a_configured_one_runs_the_configured_command(tmp_path: Path) -> None:
    recorded = recorded_servers(
        transcript(
            tmp_path / "t.jsonl",
            {"name": "rea (bundled)", "transport": "stdio", "target": "sh -c 'touch x'", "bundled": True},
        )
    )
    (choice,) = choose_servers(recorded, [bundled_server_spec()], refuse)
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
    asked: list[str] = []

    def no(question: str) -> bool:
        asked.append(question)
        return False

    demo, remote = choose_servers(recorded, [], no)
    assert demo.spec is not None and demo.spec.args[-4:] == ("--synthetic", "300", "--seed", "1")
    assert demo.spec.command == sys.executable and demo.spec.name == "demo"
    assert remote.spec is None and len(asked) == 1 and "--allow-remote" in asked[0]


@pytest.mark.parametrize("answer", [True, False])
def test_an_unmatched_server_runs_only_when_the_analyst_says_yes(tmp_path: Path, answer: bool) -> None:
    recorded = recorded_servers(
        transcript(tmp_path / "t.jsonl", {"name": "other", "transport": "stdio", "target": "my-server --flag"})
    )
    (choice,) = choose_servers(
        recorded, [ServerSpec(name="configured", transport="stdio", command="x")], lambda q: answer
    )
    assert (choice.spec is not None) is answer
    if answer:
        assert choice.spec is not None and (choice.spec.command, choice.spec.args) == ("my-server", ("--flag",))
