"""The audit engine against a server that breaks one rule per argument (tests/support/audit_server.py).

Each broken argument must be flagged for exactly its rule and nothing else,
in each profile; the well-behaved arguments for nothing. Every rule of
`rea_tui.host.audit.rules` is broken by some argument or mode here.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from rea_tui.host.audit import RULES_BY_ID, Audit, AuditOptions, AuditProgress, AuditReport
from rea_tui.host.config.config import ServerSpec
from rea_tui.host.hosted import HostedServer
from tests.conftest import REPO
from tests.support.audit_server import PROMPTS, RULE_ARGUMENTS

Key = tuple[str | None, str | None]

# (target, argument) -> the checks that must fire there; None for the target (or server) as a whole.
BROKEN_BOTH: dict[Key, set[str]] = {
    ("rules", "too_many"): {"mcp.max-values"},
    ("rules", "non_string"): {"mcp.string-values"},
    ("rules", "duplicates"): {"mcp.duplicates"},
    ("rules", "bad_total"): {"mcp.total"},
    ("rules", "bad_has_more"): {"mcp.has-more"},
    ("rules", "bad_shape"): {"mcp.reply-shape"},
    ("rules", "nondeterministic"): {"determinism.repeat"},
    ("rules", "narrowing_leak"): {"narrowing.subset"},
    ("rules", "total_grows"): {"narrowing.total"},
    ("rules", "kept_dropped"): {"narrowing.kept"},
    ("rules", "hang"): {"transport.timeout"},
    ("rules", "exits"): {"transport.exited"},
    ("rules", "stalls"): {"errors.alive"},
    ("render_fails", None): {"prompt.render"},
    ("dangling_step", None): {"prompt.unknown-tool"},
    ("placeholder_rejected", None): {"prompt.render"},
}
EXPECTED_MCP: dict[Key, set[str]] = {
    **BROKEN_BOTH,
    ("rules", "not_prefix"): {"mcp.prefix"},
    ("rules", "error_reply"): {"mcp.error-reply"},
    ("unknown_offered", None): {"errors.unknown-argument"},
}
EXPECTED_REA: dict[Key, set[str]] = {
    **BROKEN_BOTH,
    ("rules", "no_total"): {"rea.total"},
    ("rules", "not_prefix"): {"rea.prefix-match"},
    ("rules", "unsorted"): {"rea.code-point-order"},
    ("rules", "case_sensitive"): {"rea.case-insensitive"},
    ("rules", "no_nfkc"): {"rea.nfkc"},
    ("rules", "folded_spelling"): {"rea.original-spelling"},
    ("rules", "long_value"): {"rea.value-length"},
    ("rules", "error_reply"): {"rea.empty-not-error"},
    ("rules", "over_long_accepted"): {"rea.over-long-rejected"},
    ("rules", "over_long_no_diagnostics"): {"rea.over-long-rejected"},
    ("no_steps", None): {"rea.prompt-steps"},
    ("unknown_offered", None): {"rea.unknown-argument-rejected"},
}
TEMPLATE = "audit://things/{good}"


def audit_spec(*flags: str) -> ServerSpec:
    return ServerSpec(
        name="audit-server",
        transport="stdio",
        command=sys.executable,
        args=("-m", "tests.support.audit_server", *flags),
        cwd=str(REPO),
        protocol="legacy",
    )


async def run_audit(
    *flags: str, on_progress: Callable[[AuditProgress], None] | None = None, **options: Any
) -> AuditReport:
    hosted = HostedServer(audit_spec(*flags), timeout=5)
    await hosted.start()
    try:
        options.setdefault("timeout_s", 1.0)
        return await Audit(hosted, AuditOptions(**options), on_progress=on_progress).run()
    finally:
        await hosted.close()


def every_key() -> dict[Key, set[str]]:
    """Every argument and target of the server, with no findings expected."""
    keys: dict[Key, set[str]] = {(None, None): set(), (TEMPLATE, None): set(), (TEMPLATE, "good"): set()}
    for prompt in PROMPTS:
        keys[(prompt["name"], None)] = set()
        for argument in prompt.get("arguments", []):
            keys[(prompt["name"], argument["name"])] = set()
    return keys


def found(report: AuditReport) -> dict[Key, set[str]]:
    table = every_key()
    for finding in report.findings:
        key = (None if finding.ref is None else finding.ref.name, finding.argument)
        table.setdefault(key, set()).add(finding.check)
    return table


def assert_cites_the_wire(report: AuditReport) -> None:
    """Each finding cites JSON-RPC messages as sent and received: same id, the right method."""
    for finding in report.findings:
        if finding.check == "mcp.capability":
            continue
        assert finding.exchanges, finding
        for exchange in finding.exchanges:
            request = exchange.request
            assert request["jsonrpc"] == "2.0" and request["method"] in ("completion/complete", "prompts/get")
            assert exchange.request_seq is not None
            if exchange.reply is not None:
                assert exchange.reply["id"] == request["id"] and exchange.reply_seq is not None
            else:
                assert exchange.outcome in ("timeout", "exited"), finding


@pytest.fixture(scope="module")
def reports() -> dict[str, AuditReport]:
    async def both() -> dict[str, AuditReport]:
        return {"mcp": await run_audit(profile="mcp"), "rea": await run_audit(profile="rea")}

    return asyncio.run(both())


@pytest.mark.parametrize("profile", ["mcp", "rea"])
def test_each_broken_argument_is_flagged_for_exactly_its_rule(reports: dict[str, AuditReport], profile: str) -> None:
    report = reports[profile]
    expected = every_key() | (EXPECTED_MCP if profile == "mcp" else EXPECTED_REA)
    assert found(report) == expected
    assert report.status == "complete" and report.reconnects == 2  # after `exits` and `stalls`
    assert_cites_the_wire(report)


def test_severities_follow_the_profile(reports: dict[str, AuditReport]) -> None:
    def severities(report: AuditReport) -> dict[str, str]:
        return {f"{f.where} {f.check}": f.severity for f in report.findings}

    mcp, rea = severities(reports["mcp"]), severities(reports["rea"])
    assert mcp["rules / too_many mcp.max-values"] == rea["rules / too_many mcp.max-values"] == "error"
    assert mcp["rules / narrowing_leak narrowing.subset"] == "warning"
    assert rea["rules / narrowing_leak narrowing.subset"] == "error"
    assert mcp["rules / not_prefix mcp.prefix"] == "info"
    assert rea["rules / not_prefix rea.prefix-match"] == "error"
    # A render that failed on a made-up value is not held against the server.
    assert mcp["placeholder_rejected prompt.render"] == rea["placeholder_rejected prompt.render"] == "info"
    assert rea["render_fails prompt.render"] == "error"


def test_findings_cite_both_sides_of_a_comparison(reports: dict[str, AuditReport]) -> None:
    report = reports["rea"]
    subset = next(f for f in report.findings if f.check == "narrowing.subset")
    child, parent = (e.params["argument"]["value"] for e in subset.exchanges)
    assert len(child) > len(parent) and child.startswith(parent)
    over_long = next(f for f in report.findings if f.check == "rea.over-long-rejected")
    assert len(over_long.exchanges[0].params["argument"]["value"]) > 4096


def test_a_well_behaved_argument_gets_the_whole_battery(reports: dict[str, AuditReport]) -> None:
    rules = next(t for t in reports["rea"].targets if t.ref.name == "rules")
    good = rules.argument("good")
    assert 20 <= good.requests <= 50 and not good.capped and good.stopped == ""
    assert good.p50_ms is not None and good.p95_ms is not None and good.p50_ms <= good.p95_ms
    assert good.context and good.context_sensitive is False  # this server ignores context
    assert rules.argument("hang").stopped == "timeout"
    assert all(a.requests <= 50 for t in reports["rea"].targets for a in t.arguments)


def test_every_rule_is_broken_by_some_argument_here() -> None:
    covered = {check for checks in [*EXPECTED_MCP.values(), *EXPECTED_REA.values()] for check in checks}
    # Broken by the servers of other tests here: no completions, and a prompt that crashes the server.
    assert covered | {"mcp.capability", "transport.given-up"} == set(RULES_BY_ID)
    assert set(RULE_ARGUMENTS) - {k[1] for k in [*EXPECTED_MCP, *EXPECTED_REA]} == {"good"}


async def test_a_server_without_completions_is_only_rendered() -> None:
    report = await run_audit("--no-completions", profile="rea")
    assert {f.check for f in report.findings if f.ref is None} == {"mcp.capability"}
    assert next(f for f in report.findings if f.check == "mcp.capability").severity == "error"
    assert all(a.requests == 0 for t in report.targets for a in t.arguments)
    assert {f.check for f in report.findings} <= {
        "mcp.capability",
        "prompt.render",
        "prompt.unknown-tool",
        "rea.prompt-steps",
    }


async def test_a_hanging_server_is_audited_within_the_budget() -> None:
    started = time.monotonic()
    report = await run_audit("--hang-all", profile="mcp", budget_s=2.5, timeout_s=1.0)
    elapsed = time.monotonic() - started
    assert report.duration_s < 2.5 + 0.5, report.duration_s
    assert elapsed < 2.5 + 4.0  # plus starting and stopping the server
    assert report.status == "partial" and report.stop_reason == "budget"
    hangs = [f for f in report.findings if f.check == "transport.timeout"]
    assert len(hangs) == 2 and {f.argument for f in hangs} == {"good", "too_many"}
    assert all(f.exchanges[0].reply is None and f.exchanges[0].outcome == "timeout" for f in hangs)


async def test_max_requests_bounds_each_argument() -> None:
    report = await run_audit(profile="rea", prompts=("unknown_offered",), max_requests=6)
    (target,) = report.targets
    assert target.argument("good").requests == 6 and target.argument("good").capped
    assert report.status == "complete"


async def test_progress_counts_up_to_the_requests_sent() -> None:
    seen: list[AuditProgress] = []
    report = await run_audit(profile="mcp", templates=(TEMPLATE,), on_progress=seen.append)
    dones = [p.done for p in seen]
    assert dones == sorted(dones) and dones[-1] == report.requests > 10
    assert all(p.done <= p.total for p in seen) and seen[-1].total == report.requests
    assert seen[1].target == TEMPLATE and seen[1].argument == "good"


@pytest.fixture
async def hanging() -> AsyncIterator[HostedServer]:
    hosted = HostedServer(audit_spec("--hang-all"), timeout=5)
    await hosted.start()
    yield hosted
    await hosted.close()


async def test_cancel_returns_the_partial_report_at_once(hanging: HostedServer) -> None:
    audit = Audit(hanging, AuditOptions(timeout_s=20, budget_s=60))
    asyncio.get_running_loop().call_later(0.5, audit.cancel)
    started = time.monotonic()
    report = await audit.run()
    assert time.monotonic() - started < 2.0
    assert report.status == "partial" and report.stop_reason == "cancelled" and report.requests == 1
    # The request in flight was cancelled on the wire.
    sent = [e.method for e in hanging.connection.traffic.entries() if e.direction == "out"]
    assert sent[-1] == "notifications/cancelled"


async def test_cancelling_the_task_leaves_a_partial_report(hanging: HostedServer) -> None:
    audit = Audit(hanging, AuditOptions(timeout_s=20, budget_s=60))
    task = asyncio.create_task(audit.run())
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert audit.report.status == "partial" and audit.report.stop_reason == "cancelled"


def test_a_reply_given_while_the_target_opens_is_not_held_as_nondeterminism() -> None:
    from rea_tui.host.audit.checks import determinism_issues
    from rea_tui.host.audit.report import Exchange

    def reply(values: list[str], meta: dict[str, Any] | None = None) -> Exchange:
        completion = {"values": values, "total": len(values), "hasMore": False}
        result: dict[str, Any] = {"completion": completion, **({"_meta": meta} if meta else {})}
        return Exchange("completion/complete", {}, {}, {"result": result}, "result", result=result)

    opening = reply([], {"rea/target": {"state": "opening"}})
    ready, changed = reply(["libc.so.6", "python3.11"]), reply(["python3.11"])
    assert determinism_issues(opening, ready) == determinism_issues(ready, opening) == []
    assert [issue.check for issue in determinism_issues(ready, changed)] == ["determinism.repeat"]


async def test_a_prompt_that_crashes_the_server_is_given_up_and_the_rest_is_audited() -> None:
    # `crashes` comes first, and the server exits on every request about it.
    report = await run_audit("--crash-prompt", profile="mcp")
    assert report.status == "complete", report.stop_reason
    by_name = {t.ref.name: t for t in report.targets}
    assert not by_name["crashes"].finished
    assert all(t.finished for name, t in by_name.items() if name != "crashes")
    # Every other target has exactly the findings it has without the crashing prompt.
    expected = every_key() | EXPECTED_MCP
    got = found(report)
    assert {k: v for k, v in got.items() if k[0] != "crashes"} == expected
    crashes = [f for f in report.findings if f.ref is not None and f.ref.name == "crashes"]
    assert {f.check for f in crashes} == {"transport.exited", "transport.given-up"}
    assert all(f.severity == "error" for f in crashes)
    assert any("was given up: the server exited 4 times" in f.message for f in crashes)
    # Each exit cites the request the server exited on.
    cited = [e for f in crashes if f.check == "transport.exited" for e in f.exchanges]
    assert cited and all(e.outcome == "exited" for e in cited)
    assert_cites_the_wire(report)
