"""The audit report as plain text for a terminal: a table per target, then the findings.

Every server string goes through `sanitize_line`; the cited JSON is printed
with every non-ASCII character escaped, so nothing a server sent can reach
the terminal as a control or escape sequence.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from rea_tui.host.audit.report import ArgumentStats, AuditReport, Exchange, Finding, TargetReport
from rea_tui.host.trust.safe_text import sanitize_line

NAME_WIDTH: Final = 24
JSON_LINE_LIMIT: Final = 400
MESSAGE_LIMIT: Final = 600
STOP_REASONS: Final = {
    "budget": "the time budget ran out",
    "cancelled": "interrupted",
    "server-exited": "the server went away",
}
HEADERS: Final = ("argument", "requests", "values", "total", "more", "p50 ms", "p95 ms", "context", "findings")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _opt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _context(stats: ArgumentStats) -> str:
    if not stats.context:
        return "-"
    changed = [name for name, differs in stats.context.items() if differs]
    return "yes: " + ", ".join(sanitize_line(n, 40) for n in changed) if changed else "no"


def _finding_counts(findings: Sequence[Finding]) -> str:
    counts = {"error": 0, "warning": 0, "info": 0}
    for finding in findings:
        counts[finding.severity] += 1
    parts = [f"{n} {kind}" for kind, n in counts.items() if n]
    return ", ".join(parts) or "-"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.ljust(widths[i]) if i in (0, 7, 8) else cell.rjust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def _target_lines(report: AuditReport, target: TargetReport) -> list[str]:
    kind = "prompt" if target.ref.kind == "prompt" else "template"
    lines = [f"{kind} {sanitize_line(target.ref.name, 200)}"]
    if not target.finished and report.partial:
        reached = target.requests or any(a.requests for a in target.arguments)
        lines.append("  (the audit stopped in this " + kind + ")" if reached else "  (not reached)")
        if not reached:
            return lines
    if target.arguments:
        rows: list[tuple[str, ...]] = [HEADERS]
        for stats in target.arguments:
            requests = f"{stats.requests}{' (limit)' if stats.capped else ''}"
            name = sanitize_line(stats.name, NAME_WIDTH)
            if stats.stopped:
                name += f" [{stats.stopped}]"
            rows.append(
                (
                    name,
                    requests,
                    _opt(stats.values),
                    _opt(stats.total),
                    _opt(stats.has_more),
                    _ms(stats.p50_ms),
                    _ms(stats.p95_ms),
                    _context(stats),
                    _finding_counts(report.findings_for(target.ref, stats.name)),
                )
            )
        lines += _table(rows)
    elif target.ref.kind == "prompt":
        lines.append("  (no arguments)")
    render = target.render
    if render is not None:
        if render.ok:
            steps = ", ".join(sanitize_line(s, 60) for s in render.steps) or "none"
            lines.append(f"  rendered: yes; steps: {steps}")
        else:
            lines.append(f"  rendered: no ({sanitize_line(render.error, 200)})")
        if render.placeholders:
            lines.append(f"  placeholder for: {', '.join(sanitize_line(p, 60) for p in render.placeholders)}")
    own = report.findings_for(target.ref, None)
    if own:
        lines.append(f"  findings about the {kind} itself: {_finding_counts(own)}")
    return lines


def json_line(value: Any, limit: int = JSON_LINE_LIMIT) -> str:
    """Compact, ASCII-only JSON on one line, cut at `limit` characters."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def _exchange_lines(exchange: Exchange) -> list[str]:
    lines = [f"      request: {json_line(exchange.request)}"]
    if exchange.reply is not None:
        lines.append(f"      reply:   {json_line(exchange.reply)}")
    else:
        lines.append(f"      reply:   none ({sanitize_line(exchange.note or exchange.outcome, 200)})")
    return lines


def _finding_lines(number: int, finding: Finding) -> list[str]:
    times = f" (x{finding.occurrences})" if finding.occurrences > 1 else ""
    lines = [
        f"  {number}. [{finding.severity}] {finding.check}  {sanitize_line(finding.where, 200)}{times}",
        f"      {sanitize_line(finding.message, MESSAGE_LIMIT)}",
    ]
    for exchange in finding.exchanges:
        lines += _exchange_lines(exchange)
    return lines


def render_audit_text(report: AuditReport) -> str:
    server = f"{sanitize_line(report.server_name, 100)} {sanitize_line(report.server_version, 40)}".strip()
    lines = [
        f"rea-tui audit of {server or 'the server'} (protocol {sanitize_line(report.protocol_version, 40) or '?'}),"
        f" profile {report.profile}",
    ]
    if report.partial:
        why = STOP_REASONS.get(report.stop_reason or "", "stopped")
        lines.append(f"PARTIAL REPORT ({why}): what was found before the audit stopped")
    plural = "" if report.requests == 1 else "s"
    lines.append(
        f"{report.requests:,} request{plural} in {report.duration_s:.1f} s; limits: {report.max_requests} requests per "
        f"argument, budget {report.budget_s:g} s, timeout {report.timeout_s:g} s"
        + (f"; {report.reconnects} reconnects" if report.reconnects else "")
    )
    for target in report.targets:
        lines += ["", *_target_lines(report, target)]
    server_findings = report.findings_for(None, None)
    if server_findings:
        lines += ["", f"findings about the server: {_finding_counts(server_findings)}"]
    counts = report.counts()
    lines += ["", f"findings: {counts['error']} errors, {counts['warning']} warnings, {counts['info']} info"]
    for number, finding in enumerate(report.findings, 1):
        lines += _finding_lines(number, finding)
    verdict = "errors found" if report.has_errors else "no errors"
    lines += ["", f"audit {'partial' if report.partial else 'complete'}: {verdict}"]
    return "\n".join(lines)
