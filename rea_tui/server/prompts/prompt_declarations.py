"""The six guided prompts as declared (seed 002): names, titles, purposes, arguments, completion families.

Plain data and the standard library only: `prompts/list` is built from
`PROMPTS` (`server_lists.prompt_items`) both by the SDK's handler and by the
stdio front before the SDK has loaded. How a prompt renders against the
session is `guided_prompts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rea_tui.server.completion.text_forms import escape_unsafe

Family = Literal["document", "procedure", "provider", "evidence", "capture", "manifest", "occurrence", "unknown"]
"""The session-value families completion offers for an argument."""


@dataclass(frozen=True, slots=True)
class ArgumentSpec:
    name: str
    description: str
    required: bool = False
    family: Family | None = None


@dataclass(frozen=True, slots=True)
class PromptSpec:
    name: str
    title: str
    purpose: str
    arguments: tuple[ArgumentSpec, ...]

    def argument(self, name: str) -> ArgumentSpec | None:
        for arg in self.arguments:
            if arg.name == name:
                return arg
        return None


def _doc() -> ArgumentSpec:
    return ArgumentSpec(
        "document",
        "Optional document of the active target. Completes from list_documents.",
        family="document",
    )


def _proc() -> ArgumentSpec:
    return ArgumentSpec(
        "procedure",
        "Optional procedure name or address. Completes from the complete procedure inventory of the document "
        "in context, or of the whole target (a name in several documents comes qualified: malloc@libc.so.6).",
        family="procedure",
    )


def _provider() -> ArgumentSpec:
    return ArgumentSpec("provider", "Optional analysis provider: auto or a deep provider.", family="provider")


def _evidence() -> ArgumentSpec:
    return ArgumentSpec("evidence", "Optional evidence ID retained in this session's ledger.", family="evidence")


def _capture() -> ArgumentSpec:
    return ArgumentSpec("capture", "Optional Process Capture v4 evidence ID.", family="capture")


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec(
        "investigate_feature",
        "Investigate a feature",
        "Trace a feature from discovery into bounded function evidence.",
        (
            ArgumentSpec("feature", "The feature to trace, in your words (for example: offline search).", True),
            ArgumentSpec(
                "input_path",
                "Optional JavaScript/Electron application directory, analyzed directly instead of opening a binary.",
            ),
            _doc(),
            _proc(),
            _provider(),
            _evidence(),
        ),
    ),
    PromptSpec(
        "compare_application_versions",
        "Compare application versions",
        "Compare two shipped artifacts, with optional static and runtime follow-up.",
        (
            ArgumentSpec("baseline_path", "Path of the earlier version (file or .app bundle).", True),
            ArgumentSpec("candidate_path", "Path of the later version (file or .app bundle).", True),
            ArgumentSpec("focus", "Optional area to concentrate on."),
            ArgumentSpec("runtime", "Optional: 'yes' to include an approval-gated runtime follow-up."),
            ArgumentSpec("manifest", "Optional artifact manifest ID from a retained inventory.", family="manifest"),
            ArgumentSpec(
                "occurrence",
                "Optional artifact occurrence ID from a retained inventory page.",
                family="occurrence",
            ),
            _capture(),
            _evidence(),
        ),
    ),
    PromptSpec(
        "verify_reconstruction",
        "Verify a reconstruction",
        "Evaluate a finite reconstruction specification against retained comparison evidence.",
        (
            ArgumentSpec("specification", "The finite reconstruction specification to check, item by item.", True),
            _evidence(),
            _doc(),
            _proc(),
        ),
    ),
    PromptSpec(
        "trace_crash",
        "Trace a crash",
        "Correlate a crash symptom with static paths and optional Process Capture v4 evidence.",
        (
            ArgumentSpec("symptom", "The crash symptom: message, signal, faulting address or stack excerpt.", True),
            _capture(),
            _doc(),
            _proc(),
            _provider(),
            _evidence(),
        ),
    ),
    PromptSpec(
        "audit_residual_unknowns",
        "Audit residual unknowns",
        "Audit current residual-unknown heads and evidence-qualified resolution.",
        (
            ArgumentSpec("scope", "Optional theme or area to limit the audit to."),
            ArgumentSpec("unknown", "Optional residual-unknown head to start with.", family="unknown"),
            _evidence(),
        ),
    ),
    PromptSpec(
        "prepare_bounded_process_capture",
        "Prepare a bounded process capture",
        "Design an approval-gated, bounded process experiment before execution.",
        (
            ArgumentSpec("goal", "What the experiment should show.", True),
            _capture(),
            _doc(),
            _evidence(),
        ),
    ),
)

PROMPTS_BY_NAME: dict[str, PromptSpec] = {p.name: p for p in PROMPTS}


def target_sentence(active: str | None, opening: str | None = None) -> str:
    """What prompt descriptions say about the target: the active one's label, else the label of the one
    still opening ("" if it has none), else that none is open. It changes (list_changed) as the target does."""
    if active is not None:
        return f"Active target: {escape_unsafe(active)}."
    if opening is not None:
        return f"Active target: {escape_unsafe(opening or 'the startup target')} (still opening)."
    return "No target is open."


def prompt_description(spec: PromptSpec, sentence: str) -> str:
    """A prompt's description: its purpose, then what `target_sentence` says."""
    return f"{spec.purpose} {sentence}"
