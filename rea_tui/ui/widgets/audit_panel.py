"""The completion inspector's Audit tab: the completion audit of one server, live, and its findings.

`start(hosted)` runs `rea_tui.host.Audit` on the server (the REA profile for
a REA server, MCP's rules otherwise) with a progress bar; `cancel()` stops it
(the request in flight is cancelled on the wire) and what was found so far
is listed, marked as partial. Each finding shows its severity and check id;
the highlighted one shows its message and the exact requests and replies it
cites, as the traffic log recorded them (server text sanitized, JSON escaped).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable, ProgressBar, Static

from rea_tui.ui.flows.base import start_job
from rea_tui.ui.text import LINE_LIMIT, NAME_LIMIT, join, plain, plain_line

if TYPE_CHECKING:
    from textual.worker import Worker

    from rea_tui.host import Audit, AuditProgress, AuditReport, Finding, HostedServer

AUDIT_GROUP = "audit"
SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
JSON_LIMIT = 20_000
MESSAGE_LIMIT = 2_000
COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("severity", "severity", 9),
    ("check", "check", 26),
    ("where", "where", 28),
    ("count", "×", 4),
    ("message", "message", 60),
)


class AuditProgressed(Message, bubble=False):
    """The audit moved on (the newest progress is in the panel)."""


def finding_detail(finding: Finding) -> Text:
    """A finding in full: what it says, then each request and reply it cites."""
    text = join(
        Text(f"{finding.severity} ", style=SEVERITY_STYLES.get(finding.severity, "")),
        plain_line(finding.check, NAME_LIMIT, style="bold"),
        Text("  "),
        plain_line(finding.where, LINE_LIMIT, style="dim"),
    )
    text.append("\n")
    text.append_text(plain(finding.message, MESSAGE_LIMIT))
    if finding.occurrences > 1:
        text.append(f"\n(seen {finding.occurrences} times)", style="dim")
    for number, exchange in enumerate(finding.exchanges, 1):
        text.append(f"\n\nexchange {number}: {exchange.method}, {exchange.outcome}", style="bold")
        if exchange.latency_ms is not None:
            text.append(f", {exchange.latency_ms:.1f} ms", style="dim")
        for label, body in (("request", exchange.request), ("reply", exchange.reply)):
            text.append(f"\n{label}:\n", style="bold cyan")
            shown = "(none: no reply came)" if body is None else json.dumps(body, indent=2, ensure_ascii=True)
            text.append_text(plain(shown, JSON_LIMIT))
        if exchange.note:
            text.append_text(plain(f"\nnote: {exchange.note}", MESSAGE_LIMIT, style="dim"))
    if not finding.exchanges:
        text.append("\n\n(this finding cites no exchange)", style="dim")
    return text


def _profile_for(hosted: HostedServer) -> Literal["mcp", "rea"]:
    """The REA contract for a REA server (it names its target in rea://session), MCP's rules for any other."""
    return "rea" if hosted.spec.bundled or hosted.has_session_resource else "mcp"


class AuditPanel(Vertical):
    """Runs one audit at a time and lists its findings."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.audit: Audit | None = None
        self.report: AuditReport | None = None
        self._worker: Worker[Any] | None = None
        self._progress: AuditProgress | None = None
        self._progress_posted = False
        self._findings: list[Finding] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="audit-bar"):
            yield ProgressBar(id="audit-progress", show_eta=False)
            yield Static(id="audit-status")
        table: DataTable[Text] = DataTable(id="audit-table", cursor_type="row")
        yield table
        with VerticalScroll(id="audit-detail"):
            yield Static(id="audit-detail-text")

    def on_mount(self) -> None:
        table = self.query_one("#audit-table", DataTable)
        for key, label, width in COLUMNS:
            table.add_column(label, key=key, width=width)
        self._status(Text("Press a to audit how the selected server answers completion/complete.", style="dim"))
        self._show_detail()

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.is_running

    def start(self, hosted: HostedServer) -> bool:
        """Audit `hosted`; False if an audit is already running."""
        from rea_tui.host import Audit, AuditOptions

        if self.running:
            return False
        profile = _profile_for(hosted)
        self.audit = Audit(hosted, AuditOptions(profile=profile), on_progress=self._progressed)
        self.report = None
        self._findings = []
        self.query_one("#audit-table", DataTable).clear()
        self.query_one("#audit-progress", ProgressBar).update(total=None, progress=0)
        self._status(join(Text(f"auditing ({profile} rules) ", style="bold"), plain_line(hosted.name, NAME_LIMIT)))
        self._show_detail()
        self._worker = start_job(self.screen, self._run(self.audit), AUDIT_GROUP, hosted.name)
        return True

    def cancel(self) -> bool:
        if self.audit is None or not self.running:
            return False
        self.audit.cancel()
        self._status(Text("stopping: what was found so far follows", style="yellow"))
        return True

    async def _run(self, audit: Audit) -> None:
        report = await audit.run()
        if self.is_attached:
            self._finished(report)

    # ------------------------------------------------------------ progress

    def _progressed(self, progress: AuditProgress) -> None:
        """Called by the audit for each request: keep the newest, paint once per screen update."""
        self._progress = progress
        if not self._progress_posted:
            self._progress_posted = True
            self.post_message(AuditProgressed())

    @on(AuditProgressed)
    def _paint_progress(self) -> None:
        self._progress_posted = False
        progress = self._progress
        if progress is None or not self.running:
            return
        self.query_one("#audit-progress", ProgressBar).update(total=max(progress.total, 1), progress=progress.done)
        where = join(Text(f"{progress.done:,} of about {progress.total:,} requests  ", style="bold"))
        where.append_text(plain_line(progress.target, NAME_LIMIT))
        if progress.argument:
            where.append_text(plain_line(f" / {progress.argument}", NAME_LIMIT))
        where.append("   c cancels", style="dim")
        self._status(where)

    def _finished(self, report: AuditReport) -> None:
        self.report = report
        self._findings = sorted(report.findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 3), f.check))
        table = self.query_one("#audit-table", DataTable)
        table.clear()
        for index, finding in enumerate(self._findings):
            table.add_row(
                Text(finding.severity, style=SEVERITY_STYLES.get(finding.severity, "")),
                plain_line(finding.check, NAME_LIMIT),
                plain_line(finding.where, LINE_LIMIT),
                Text(str(finding.occurrences), justify="right"),
                plain_line(finding.message, LINE_LIMIT),
                key=str(index),
            )
        bar = self.query_one("#audit-progress", ProgressBar)
        bar.update(total=max(report.requests, 1), progress=report.requests)
        counts = {s: sum(1 for f in report.findings if f.severity == s) for s in SEVERITY_ORDER}
        summary = Text("partial: " if report.partial else "done: ", style="yellow" if report.partial else "green")
        summary.append(f"{report.requests:,} requests, ")
        summary.append(", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings")
        if report.stop_reason:
            summary.append(f" (stopped: {report.stop_reason})", style="dim")
        self._status(summary)
        self._show_detail()

    def _status(self, text: Text) -> None:
        self.query_one("#audit-status", Static).update(text)

    # ------------------------------------------------------------ findings

    def selected(self) -> Finding | None:
        table = self.query_one("#audit-table", DataTable)
        if table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0))
        index = int(row_key.value or 0)
        return self._findings[index] if index < len(self._findings) else None

    @on(DataTable.RowHighlighted, "#audit-table")
    def _show_detail(self) -> None:
        finding = self.selected()
        detail = self.query_one("#audit-detail-text", Static)
        if finding is not None:
            detail.update(finding_detail(finding))
        elif self.report is not None:
            detail.update(Text("No findings: every reply kept the rules checked.", style="green"))
        else:
            detail.update(Text("Findings show here with the request and reply each one cites.", style="dim"))
