"""What an audit found: findings that cite their exchanges, and per-argument statistics.

The report is built while the audit runs (a cancelled or interrupted audit
still has everything found so far) and is plain data: renderers turn it into
text, JSON or Markdown. Server strings are kept as they came; every renderer
makes them safe for its medium.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from rea_tui.host.audit.rules import SEVERITIES, Profile, Severity
from rea_tui.host.features.completion import CompletionRef

Outcome = Literal["result", "error", "timeout", "exited", "unavailable", "cancelled"]
Status = Literal["running", "complete", "partial"]
StopReason = Literal["budget", "cancelled", "server-exited"]

REPORT_VERSION = 1


@dataclass(frozen=True)
class Exchange:
    """One request and what came back, as the traffic log recorded them."""

    method: str
    params: dict[str, Any]
    request: Any
    reply: Any | None
    outcome: Outcome
    latency_ms: float | None = None
    result: dict[str, Any] | None = None
    error_code: int | None = None
    error_data: Any = None
    note: str = ""
    request_seq: int | None = None
    """The request's `TrafficEntry.seq` in the connection's traffic log (for a UI to open it)."""
    reply_seq: int | None = None

    @property
    def answered(self) -> bool:
        return self.outcome in ("result", "error")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "outcome": self.outcome,
            "request": self.request,
            "reply": self.reply,
            "latencyMs": None if self.latency_ms is None else round(self.latency_ms, 2),
        }
        if self.note:
            data["note"] = self.note
        return data


@dataclass
class Finding:
    check: str
    severity: Severity
    ref: CompletionRef | None
    """The prompt or template; None for the server as a whole."""
    argument: str | None
    message: str
    exchanges: tuple[Exchange, ...] = ()
    occurrences: int = 1

    @property
    def where(self) -> str:
        if self.ref is None:
            return "(server)"
        return self.ref.name if self.argument is None else f"{self.ref.name} / {self.argument}"

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "severity": self.severity,
            "target": None if self.ref is None else {"kind": self.ref.kind, "name": self.ref.name},
            "argument": self.argument,
            "message": self.message,
            "occurrences": self.occurrences,
            "exchanges": [e.to_json() for e in self.exchanges],
        }


def percentile(samples: Iterable[float], pct: float) -> float | None:
    """Nearest-rank percentile, or None without samples."""
    ordered = sorted(samples)
    if not ordered:
        return None
    rank = max(1, math.ceil(pct / 100.0 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class ArgumentStats:
    name: str
    requests: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    values: int | None = None
    """How many values the empty prefix got (None: no usable reply)."""
    total: int | None = None
    has_more: bool | None = None
    context: dict[str, bool] = field(default_factory=dict)
    """Other argument -> whether filling it in (with its first suggestion) changed the values."""
    capped: bool = False
    """The battery had more requests to send than `max_requests` allowed."""
    stopped: str = ""
    """Why the battery stopped early, if it did (timeout, server exited, budget, cancelled)."""

    @property
    def p50_ms(self) -> float | None:
        return percentile(self.latencies_ms, 50)

    @property
    def p95_ms(self) -> float | None:
        return percentile(self.latencies_ms, 95)

    @property
    def context_sensitive(self) -> bool | None:
        return any(self.context.values()) if self.context else None

    def to_json(self) -> dict[str, Any]:
        p50, p95 = self.p50_ms, self.p95_ms
        return {
            "name": self.name,
            "requests": self.requests,
            "values": self.values,
            "total": self.total,
            "hasMore": self.has_more,
            "p50Ms": None if p50 is None else round(p50, 2),
            "p95Ms": None if p95 is None else round(p95, 2),
            "contextSensitive": self.context_sensitive,
            "context": dict(self.context),
            "capped": self.capped,
            "stopped": self.stopped or None,
        }


@dataclass
class RenderOutcome:
    """How `prompts/get` went with the required arguments filled."""

    ok: bool
    arguments: dict[str, str] = field(default_factory=dict)
    placeholders: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "arguments": dict(self.arguments),
            "placeholders": list(self.placeholders),
            "steps": list(self.steps),
            "error": self.error or None,
        }


@dataclass
class TargetReport:
    """One prompt or resource template."""

    ref: CompletionRef
    arguments: list[ArgumentStats] = field(default_factory=list)
    requests: int = 0
    """Requests about the target as a whole (unknown-argument probe, prompts/get)."""
    render: RenderOutcome | None = None
    finished: bool = False
    """Every check of the target ran (False in a partial report for targets it did not reach or finish)."""

    def argument(self, name: str) -> ArgumentStats:
        for stats in self.arguments:
            if stats.name == name:
                return stats
        stats = ArgumentStats(name)
        self.arguments.append(stats)
        return stats

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.ref.kind,
            "name": self.ref.name,
            "requests": self.requests,
            "finished": self.finished,
            "arguments": [a.to_json() for a in self.arguments],
            "render": None if self.render is None else self.render.to_json(),
        }


@dataclass
class AuditReport:
    profile: Profile
    server_name: str = ""
    server_version: str = ""
    protocol_version: str = ""
    max_requests: int = 0
    budget_s: float = 0.0
    timeout_s: float = 0.0
    started: float = field(default_factory=time.time)
    duration_s: float = 0.0
    status: Status = "running"
    stop_reason: StopReason | None = None
    requests: int = 0
    reconnects: int = 0
    targets: list[TargetReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return self.status != "complete"

    def target(self, ref: CompletionRef) -> TargetReport:
        for report in self.targets:
            if report.ref == ref:
                return report
        report = TargetReport(ref)
        self.targets.append(report)
        return report

    def add(
        self,
        check: str,
        severity: Severity,
        ref: CompletionRef | None,
        argument: str | None,
        message: str,
        exchanges: Iterable[Exchange] = (),
    ) -> Finding:
        """Record a finding; the same check on the same argument again only counts an occurrence."""
        for finding in self.findings:
            if finding.check == check and finding.ref == ref and finding.argument == argument:
                finding.occurrences += 1
                return finding
        finding = Finding(check, severity, ref, argument, message, tuple(exchanges))
        self.findings.append(finding)
        return finding

    def counts(self) -> dict[Severity, int]:
        counts: dict[Severity, int] = dict.fromkeys(SEVERITIES, 0)
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def findings_for(self, ref: CompletionRef | None, argument: str | None = None) -> list[Finding]:
        return [f for f in self.findings if f.ref == ref and f.argument == argument]

    def to_json(self) -> dict[str, Any]:
        return {
            "reportVersion": REPORT_VERSION,
            "server": {"name": self.server_name, "version": self.server_version, "protocol": self.protocol_version},
            "profile": self.profile,
            "status": self.status,
            "partial": self.partial,
            "stopReason": self.stop_reason,
            "started": self.started,
            "durationS": round(self.duration_s, 3),
            "requests": self.requests,
            "reconnects": self.reconnects,
            "limits": {"maxRequests": self.max_requests, "budgetS": self.budget_s, "timeoutS": self.timeout_s},
            "summary": self.counts(),
            "notes": list(self.notes),
            "targets": [t.to_json() for t in self.targets],
            "findings": [f.to_json() for f in self.findings],
        }
