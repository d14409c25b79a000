"""The audit report as Markdown: server text escaped, cited JSON in fences it cannot close."""

from __future__ import annotations

import time
from typing import Any, Final

from rea_tui.host.audit.render_text import STOP_REASONS
from rea_tui.host.audit.report import ArgumentStats, AuditReport, Finding, TargetReport
from rea_tui.host.audit.visible import visible_json
from rea_tui.host.records.report import md_code, md_text

JSON_LIMIT: Final = 20_000


def _json_block(value: Any) -> str:
    text = visible_json(value, indent=2)
    if len(text) > JSON_LIMIT:
        text = f"{text[:JSON_LIMIT]}\n... ({len(text) - JSON_LIMIT:,} more characters)"
    return md_code(text, "json")


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _context(stats: ArgumentStats) -> str:
    if not stats.context:
        return "-"
    changed = [md_text(name, 100) for name, differs in stats.context.items() if differs]
    return "yes: " + ", ".join(changed) if changed else "no"


def _target_section(report: AuditReport, target: TargetReport) -> list[str]:
    kind = "Prompt" if target.ref.kind == "prompt" else "Template"
    lines = [f"## {kind} {md_text(target.ref.name, 300)}", ""]
    if not target.finished and report.partial:
        reached = target.requests or any(a.requests for a in target.arguments)
        lines += [f"The audit stopped in this {kind.lower()}." if reached else "Not reached.", ""]
        if not reached:
            return lines
    if target.arguments:
        lines += [
            "| argument | requests | values | total | hasMore | p50 ms | p95 ms | context | findings |",
            "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: |",
        ]
        for stats in target.arguments:
            requests = f"{stats.requests}{' (limit)' if stats.capped else ''}"
            name = md_text(stats.name, 200) + (f" ({md_text(stats.stopped, 40)})" if stats.stopped else "")
            count = len(report.findings_for(target.ref, stats.name))
            lines.append(
                f"| {name} | {requests} | {_cell(stats.values)} | {_cell(stats.total)} | {_cell(stats.has_more)} "
                f"| {_cell(stats.p50_ms)} | {_cell(stats.p95_ms)} | {_context(stats)} | {count} |"
            )
        lines.append("")
    render = target.render
    if render is not None:
        if render.ok:
            steps = ", ".join(md_text(s, 100) for s in render.steps) or "none"
            lines.append(f"Rendered with its required arguments; steps: {steps}.")
        else:
            lines.append(f"Not rendered: {md_text(render.error, 500)}")
        if render.placeholders:
            lines.append(f"Placeholder values for: {', '.join(md_text(p, 100) for p in render.placeholders)}.")
        lines.append("")
    return lines


def _finding_section(number: int, finding: Finding) -> list[str]:
    times = f" ({finding.occurrences} times)" if finding.occurrences > 1 else ""
    lines = [
        f"### {number}. {finding.severity}: {finding.check}",
        "",
        f"Where: {md_text(finding.where, 400)}{times}",
        "",
        md_text(finding.message, 2_000),
        "",
    ]
    for index, exchange in enumerate(finding.exchanges):
        label = "The request that shows it" if index == 0 else "Compared with"
        lines += [f"{label} ({exchange.outcome}):", "", _json_block(exchange.request), ""]
        if exchange.reply is not None:
            lines += ["Reply:", "", _json_block(exchange.reply), ""]
        else:
            lines += [f"No reply: {md_text(exchange.note or exchange.outcome, 500)}", ""]
    return lines


def render_audit_markdown(report: AuditReport) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(report.started))
    server = f"{md_text(report.server_name, 200)} {md_text(report.server_version, 50)}".strip()
    counts = report.counts()
    lines = [f"# Completion audit of {server or 'the server'}", ""]
    status = "complete"
    if report.partial:
        status = f"**partial** ({STOP_REASONS.get(report.stop_reason or '', 'stopped')})"
    lines += [
        f"Audited {when} with profile {report.profile}, protocol {md_text(report.protocol_version, 40) or '?'}: "
        f"{status}, {report.requests:,} requests in {report.duration_s:.1f} s.",
        "",
        f"Limits: {report.max_requests} requests per argument, a budget of {report.budget_s:g} s, "
        f"a timeout of {report.timeout_s:g} s per request.",
        "",
        f"**{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info.**",
        "",
    ]
    for target in report.targets:
        lines += _target_section(report, target)
    lines += ["## Findings", ""]
    if not report.findings:
        lines += ["None.", ""]
    for number, finding in enumerate(report.findings, 1):
        lines += _finding_section(number, finding)
    return "\n".join(lines).rstrip() + "\n"
