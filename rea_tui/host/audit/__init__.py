"""`rea-tui audit`'s engine: a bounded completion battery and prompt checks, with findings that cite
the exact request and reply. No Textual import; the CLI and the TUI drive the same `Audit`.

    from rea_tui.host.audit import Audit, AuditOptions
    audit = Audit(hosted, AuditOptions(profile="rea", budget_s=30), on_progress=callback)
    report = await audit.run()      # audit.cancel() from elsewhere -> partial report
    render_audit_text(report) / report.to_json() / render_audit_markdown(report)
"""

from rea_tui.host.audit.channel import AuditProgress, ProgressCallback
from rea_tui.host.audit.render_markdown import render_audit_markdown
from rea_tui.host.audit.render_text import render_audit_text
from rea_tui.host.audit.report import ArgumentStats, AuditReport, Exchange, Finding, RenderOutcome, TargetReport
from rea_tui.host.audit.rules import PROFILES, RULES, RULES_BY_ID, Profile, Rule, Severity, rules_of, severity_of
from rea_tui.host.audit.runner import Audit, AuditOptions, UnknownTarget, select_targets

__all__ = [
    "PROFILES",
    "RULES",
    "RULES_BY_ID",
    "ArgumentStats",
    "Audit",
    "AuditOptions",
    "AuditProgress",
    "AuditReport",
    "Exchange",
    "Finding",
    "Profile",
    "ProgressCallback",
    "RenderOutcome",
    "Rule",
    "Severity",
    "TargetReport",
    "UnknownTarget",
    "render_audit_markdown",
    "render_audit_text",
    "rules_of",
    "select_targets",
    "severity_of",
]
