"""The audit of real servers: the bundled reference server keeps the REA contract, the official
server-everything (pinned, from npm) keeps MCP's rules.

The reference server is being extended in parallel, so these tests assert
rules (no error finding, every battery within its limits, every prompt
rendered), not its values.
"""

from __future__ import annotations

from typing import Any

import pytest

from rea_tui.host.audit import Audit, AuditOptions, AuditReport
from rea_tui.host.config.config import ServerSpec, bundled_server_spec
from rea_tui.host.hosted import HostedServer
from tests.support.npm_servers import everything_command

MAX_REQUESTS = 50


async def audit(spec: ServerSpec, **options: Any) -> AuditReport:
    hosted = HostedServer(spec, timeout=10)
    await hosted.start()
    try:
        return await Audit(hosted, AuditOptions(max_requests=MAX_REQUESTS, budget_s=60, **options)).run()
    finally:
        await hosted.close()


def describe(report: AuditReport) -> str:
    return "\n".join(f"{f.severity} {f.check} {f.where}: {f.message}" for f in report.findings)


def assert_clean(report: AuditReport) -> None:
    errors = [f for f in report.findings if f.severity == "error"]
    assert not errors, describe(report)
    assert report.status == "complete", report.stop_reason
    for target in report.targets:
        assert target.finished
        for stats in target.arguments:
            assert 0 < stats.requests <= MAX_REQUESTS and stats.stopped == "", (target.ref, stats)


@pytest.mark.parametrize("extra", [(), ("--synthetic", "2000")], ids=["default-target", "synthetic-2000"])
async def test_the_reference_server_keeps_the_rea_contract(extra: tuple[str, ...]) -> None:
    report = await audit(bundled_server_spec(extra), profile="rea")
    assert_clean(report)
    prompts = [t for t in report.targets if t.ref.kind == "prompt"]
    templates = [t for t in report.targets if t.ref.kind == "template"]
    assert prompts and templates
    # Every rendered REA prompt names tools of the server (rea.prompt-steps would say otherwise).
    assert all(t.render is not None and t.render.ok and t.render.steps for t in prompts)
    # Some argument offers values, so the prefix battery really ran.
    assert any(a.values for t in report.targets for a in t.arguments)
    assert report.requests > 100


@pytest.fixture(scope="module")
def everything() -> ServerSpec:
    command, *args = everything_command()
    return ServerSpec(name="server-everything", transport="stdio", command=command, args=tuple(args))


async def test_server_everything_keeps_the_mcp_rules(everything: ServerSpec) -> None:
    report = await audit(everything, profile="mcp")
    assert_clean(report)
    assert report.server_name == "mcp-servers/everything"
    # Its completable prompt narrows `name` by `department`: the context probe sees it.
    team = next(t for t in report.targets if t.ref.name == "completable-prompt")
    assert team.argument("name").context == {"department": True}


async def test_server_everything_is_not_an_rea_server(everything: ServerSpec) -> None:
    report = await audit(everything, profile="rea", prompts=("completable-prompt",))
    checks = {(f.argument, f.check) for f in report.findings}
    # Its departments come in list order, not code-point order; unknown arguments get an empty list.
    assert ("department", "rea.code-point-order") in checks
    assert (None, "rea.unknown-argument-rejected") in checks
