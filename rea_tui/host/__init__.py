"""The MCP host core, and its facade: the UI's and the CLI's one way in.

Import what you need from `rea_tui.host` itself (`from rea_tui.host import
Session, HostError`), never from its modules. Names load on first use (PEP
562), so importing the facade costs nothing before the first frame: the
modules behind a name, and the MCP SDK behind them, load when it is touched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each exported name and the module that defines it.
_EXPORTS: dict[str, str] = {
    # a session and its servers
    "Session": "session",
    "ServerState": "session",
    "FormTarget": "session",
    "FormValues": "session",
    "Allowances": "features.allowances",
    "HostedServer": "hosted",
    "ServerStatus": "hosted",
    "ProtocolMemory": "protocol.protocol_memory",
    # configuration
    "ConfigError": "config.config",
    "PROTOCOL_CHOICES": "config.config",
    "ServerSelection": "config.config",
    "ServerSpec": "config.config",
    "bundled_server_spec": "config.config",
    "resolve_servers": "config.config",
    "split_stdio_command": "config.config",
    "start_server_process": "transports.transport",
    "crowd_niceness": "transports.transport",
    "start_servers": "transports.server_start",
    # errors
    "FieldDiagnostic": "protocol.errors",
    "HostError": "protocol.errors",
    "ProtocolError": "protocol.errors",
    "RequestTimedOut": "protocol.errors",
    "ServerExited": "protocol.errors",
    "ServerUnavailable": "protocol.errors",
    # events a connection reports
    "BadOutputReceived": "protocol.events",
    "ConnectionLost": "protocol.events",
    "HostEvent": "protocol.events",
    "ListChanged": "protocol.events",
    "ListsPreviewed": "protocol.events",
    "TargetRead": "protocol.events",
    "LogMessageReceived": "protocol.events",
    # what a server offers
    "ContentBlock": "protocol.models",
    "EmbeddedResourceBlock": "protocol.models",
    "MediaBlock": "protocol.models",
    "Prompt": "protocol.models",
    "PromptArgument": "protocol.models",
    "Resource": "protocol.models",
    "ResourceLinkBlock": "protocol.models",
    "ResourceTemplate": "protocol.models",
    "TextBlock": "protocol.models",
    "Tool": "protocol.models",
    "UnknownBlock": "protocol.models",
    "block_json": "protocol.models",
    "block_text": "protocol.models",
    "parse_resource_contents": "protocol.models",
    # completion
    "CompletionFailure": "features.completion",
    "CompletionLog": "features.completion",
    "CompletionPage": "features.completion",
    "CompletionRecord": "features.completion",
    "CompletionRef": "features.completion",
    "context_for": "features.completion",
    # workflows, tool calls, evidence, narrowing, notes
    "Workflow": "features.workflow",
    "render_prompt": "features.workflow",
    "prompt_prefill": "features.workflow",
    "tool_completion_refs": "features.tool_completion",
    "EvidenceEntry": "evidence.evidence",
    "EvidenceLedger": "evidence.evidence",
    "OUTCOME_LABELS": "evidence.evidence",
    "DisassemblyListing": "evidence.evidence_views",
    "ResultTable": "evidence.evidence_views",
    "ResultView": "evidence.evidence_views",
    "result_views": "evidence.evidence_views",
    "RowFacts": "evidence.evidence_views",
    "InspectionHistory": "evidence.evidence_actions",
    "RowAction": "evidence.evidence_actions",
    "row_actions": "evidence.evidence_actions",
    "row_label": "evidence.evidence_actions",
    "run_tool_call": "features.tool_call",
    "MAX_CANDIDATES": "features.narrowing",
    "NarrowingCandidate": "features.narrowing",
    "NarrowingQuestion": "features.narrowing",
    "concerned_argument": "features.narrowing",
    "find_candidate": "features.narrowing",
    "pin": "features.narrowing",
    "Note": "evidence.notes",
    "NoteKind": "evidence.notes",
    "Notebook": "evidence.notes",
    # elicitation and sampling
    "ElicitationAnswer": "features.interaction",
    "ElicitationRequest": "features.interaction",
    "SamplingAnswer": "features.interaction",
    "SamplingMessage": "features.interaction",
    "SamplingRequest": "features.interaction",
    # tool arguments from typed text; schemas as data (checked off the loop, read as form fields)
    "UnreadableValue": "trust.schema_values",
    "coerce": "trust.schema_values",
    "property_schema": "trust.schema_values",
    "schema_types": "trust.schema_values",
    "SchemaVerdict": "schemas.guard",
    "check_against_schema": "schemas.guard",
    "CHECKED_FORMATS": "schemas.formats",
    "Choice": "schemas.fields",
    "FormField": "schemas.fields",
    "fits": "schemas.fields",
    "form_fields": "schemas.fields",
    "kind_of": "schemas.fields",
    "unknown_keys": "schemas.fields",
    "with_defaults": "schemas.fields",
    # transcripts, reports, replay
    "SessionRecorder": "records.transcript",
    "Transcript": "records.transcript",
    "TranscriptWriter": "records.transcript",
    "list_transcripts": "records.transcript",
    "new_transcript_path": "records.transcript",
    "prune_transcripts": "records.transcript",
    "read_transcript": "records.transcript",
    "sessions_dir": "records.transcript",
    "summarize": "records.transcript",
    "TRANSCRIPT_SUFFIX": "records.transcript",
    "render_json": "records.report",
    "render_markdown": "records.report",
    "ReplayPlan": "records.replay_plan",
    "choose_servers": "records.replay_servers",
    "recorded_servers": "records.replay_servers",
    "compare": "records.replay_plan",
    "entry_from_record": "records.replay_plan",
    "plan_replay": "records.replay_plan",
    "workflow_from_record": "records.replay_plan",
    # the lean one-shot clients of the CLI (HTTP, and stdio lists)
    "LeanFallback": "fastpath.lean_wire",
    "LeanSession": "fastpath.lean_call",
    "LeanStdio": "fastpath.lean_stdio",
    "LeanStdioFallback": "fastpath.lean_stdio",
    "known_modern": "fastpath.lean_stdio",
    "has_stored_sign_in": "auth.store",
    "kept_sign_ins": "auth.store",
    # the trust boundary
    "EgressViolation": "trust.egress",
    "UNSAFE_CHARACTER": "trust.egress",
    "has_unsafe": "trust.egress",
    "guard": "trust.egress",
    "strict_egress": "trust.egress",
    "sanitize": "trust.safe_text",
    "sanitize_line": "trust.safe_text",
    "UrlView": "trust.url_safety",
    "view_url": "trust.url_safety",
    "one_line_url": "trust.url_safety",
    # the completion audit
    "Audit": "audit",
    "AuditOptions": "audit",
    "AuditProgress": "audit",
    "AuditReport": "audit",
    "Finding": "audit",
    "Exchange": "audit",
    "RULES": "audit",
    "RULES_BY_ID": "audit",
    "UnknownTarget": "audit",
    "render_audit_markdown": "audit",
    "render_audit_text": "audit",
    "select_targets": "audit",
    # authorization (OAuth) and other clients' configs
    "AuthorizationRequired": "protocol.errors",
    "HttpStatusError": "protocol.errors",
    "auth_status": "auth",
    "logout": "auth",
    "login": "auth.signin",
    "needs_authorization": "auth.signin",
    "discover": "config.discovery",
    "DiscoveredServer": "config.discovery",
    "uses_oauth": "auth",
    "find_server": "config.discovery",
    # workspace trust: a folder's own config files
    "FolderFile": "trust.trust_store",
    "TrustGate": "trust.trust_store",
    "TrustStore": "trust.trust_store",
    "TrustStoreError": "trust.trust_store",
    "folder_listing": "trust.trust_store",
    "real_folder": "trust.trust_store",
    "trust_gate": "trust.trust_store",
    "trusted_folder_servers": "config.discovery",
    "find_configured": "records.replay_servers",
    # also needed by the UI and the CLI
    "Connection": "protocol.connection",
    "after_sdk_load": "protocol.sdk_loader",
    "DEFAULT_LIMIT": "trust.safe_text",
    "NOTE_KINDS": "evidence.notes",
    "NoteChanged": "evidence.notes",
    "ID_INITIALS": "evidence.notes",
    "ServerCatalogs": "features.catalog",
    # tools excluded for an invalid x-mcp-header (2026-07-28)
    "exclusion_warning": "features.catalog",
    "ListingNeedsSdk": "features.tool_headers",
    # the traffic log
    "TrafficEntry": "transports.traffic",
    "TrafficLog": "transports.traffic",
    # tasks, roots, logging, subscriptions, capabilities
    "TaskBoard": "features.task_board",
    "TaskState": "features.task_board",
    "TrackedTask": "features.task_board",
    "cancel_task": "features.tasks",
    "get_task": "features.tasks",
    "list_tasks": "features.tasks",
    "task_result": "features.tasks",
    "task_support": "features.tasks",
    "TaskSupport": "features.tasks",
    "Root": "features.roots",
    "RootError": "features.roots",
    "root_from": "features.roots",
    "LOG_LEVELS": "features.server_log",
    "LogRecord": "features.server_log",
    "ServerLog": "features.server_log",
    "at_least": "features.server_log",
    "CapabilityMissing": "protocol.errors",
    "ResourceUpdated": "protocol.events",
    "WatchedResource": "features.resource_watch",
    "can_subscribe": "features.server_settings",
    "require_capability": "features.server_settings",
    "set_log_level": "features.server_settings",
    "set_roots": "features.server_settings",
    "subscribe": "features.server_settings",
    "unsubscribe": "features.server_settings",
    "block_summary": "protocol.models",
    "DeferredInputs": "config.deferred_inputs",
    "pending_inputs": "config.deferred_inputs",
    "InputSpec": "config.inputs",
    "InputAsker": "session",
    "parse_content": "protocol.models",
    "required_url_elicitations": "features.url_elicitation",
    "DEFAULT_MAX_REPLY_BYTES": "transports.reply_limit",
    "ReplyTooLarge": "transports.reply_limit",
    "format_size": "transports.reply_limit",
    "parse_size": "transports.reply_limit",
    "set_max_reply_bytes": "transports.reply_limit",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rea_tui.host' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"rea_tui.host.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from rea_tui.host.audit import RULES as RULES
    from rea_tui.host.audit import RULES_BY_ID as RULES_BY_ID
    from rea_tui.host.audit import Audit as Audit
    from rea_tui.host.audit import AuditOptions as AuditOptions
    from rea_tui.host.audit import AuditProgress as AuditProgress
    from rea_tui.host.audit import AuditReport as AuditReport
    from rea_tui.host.audit import Exchange as Exchange
    from rea_tui.host.audit import Finding as Finding
    from rea_tui.host.audit import UnknownTarget as UnknownTarget
    from rea_tui.host.audit import render_audit_markdown as render_audit_markdown
    from rea_tui.host.audit import render_audit_text as render_audit_text
    from rea_tui.host.audit import select_targets as select_targets
    from rea_tui.host.auth import auth_status as auth_status
    from rea_tui.host.auth import logout as logout
    from rea_tui.host.auth import uses_oauth as uses_oauth
    from rea_tui.host.auth.signin import login as login
    from rea_tui.host.auth.signin import needs_authorization as needs_authorization
    from rea_tui.host.auth.store import has_stored_sign_in as has_stored_sign_in
    from rea_tui.host.auth.store import kept_sign_ins as kept_sign_ins
    from rea_tui.host.config.config import PROTOCOL_CHOICES as PROTOCOL_CHOICES
    from rea_tui.host.config.config import ConfigError as ConfigError
    from rea_tui.host.config.config import ServerSelection as ServerSelection
    from rea_tui.host.config.config import ServerSpec as ServerSpec
    from rea_tui.host.config.config import bundled_server_spec as bundled_server_spec
    from rea_tui.host.config.config import resolve_servers as resolve_servers
    from rea_tui.host.config.config import split_stdio_command as split_stdio_command
    from rea_tui.host.config.deferred_inputs import DeferredInputs as DeferredInputs
    from rea_tui.host.config.deferred_inputs import pending_inputs as pending_inputs
    from rea_tui.host.config.discovery import DiscoveredServer as DiscoveredServer
    from rea_tui.host.config.discovery import discover as discover
    from rea_tui.host.config.discovery import find_server as find_server
    from rea_tui.host.config.discovery import trusted_folder_servers as trusted_folder_servers
    from rea_tui.host.config.inputs import InputSpec as InputSpec
    from rea_tui.host.evidence.evidence import OUTCOME_LABELS as OUTCOME_LABELS
    from rea_tui.host.evidence.evidence import EvidenceEntry as EvidenceEntry
    from rea_tui.host.evidence.evidence import EvidenceLedger as EvidenceLedger
    from rea_tui.host.evidence.evidence_actions import InspectionHistory as InspectionHistory
    from rea_tui.host.evidence.evidence_actions import RowAction as RowAction
    from rea_tui.host.evidence.evidence_actions import row_actions as row_actions
    from rea_tui.host.evidence.evidence_actions import row_label as row_label
    from rea_tui.host.evidence.evidence_views import DisassemblyListing as DisassemblyListing
    from rea_tui.host.evidence.evidence_views import ResultTable as ResultTable
    from rea_tui.host.evidence.evidence_views import ResultView as ResultView
    from rea_tui.host.evidence.evidence_views import RowFacts as RowFacts
    from rea_tui.host.evidence.evidence_views import result_views as result_views
    from rea_tui.host.evidence.notes import ID_INITIALS as ID_INITIALS
    from rea_tui.host.evidence.notes import NOTE_KINDS as NOTE_KINDS
    from rea_tui.host.evidence.notes import Note as Note
    from rea_tui.host.evidence.notes import Notebook as Notebook
    from rea_tui.host.evidence.notes import NoteChanged as NoteChanged
    from rea_tui.host.evidence.notes import NoteKind as NoteKind
    from rea_tui.host.fastpath.lean_call import LeanSession as LeanSession
    from rea_tui.host.fastpath.lean_stdio import LeanStdio as LeanStdio
    from rea_tui.host.fastpath.lean_stdio import LeanStdioFallback as LeanStdioFallback
    from rea_tui.host.fastpath.lean_stdio import known_modern as known_modern
    from rea_tui.host.fastpath.lean_wire import LeanFallback as LeanFallback
    from rea_tui.host.features.allowances import Allowances as Allowances
    from rea_tui.host.features.catalog import ServerCatalogs as ServerCatalogs
    from rea_tui.host.features.catalog import exclusion_warning as exclusion_warning
    from rea_tui.host.features.completion import CompletionFailure as CompletionFailure
    from rea_tui.host.features.completion import CompletionLog as CompletionLog
    from rea_tui.host.features.completion import CompletionPage as CompletionPage
    from rea_tui.host.features.completion import CompletionRecord as CompletionRecord
    from rea_tui.host.features.completion import CompletionRef as CompletionRef
    from rea_tui.host.features.completion import context_for as context_for
    from rea_tui.host.features.interaction import ElicitationAnswer as ElicitationAnswer
    from rea_tui.host.features.interaction import ElicitationRequest as ElicitationRequest
    from rea_tui.host.features.interaction import SamplingAnswer as SamplingAnswer
    from rea_tui.host.features.interaction import SamplingMessage as SamplingMessage
    from rea_tui.host.features.interaction import SamplingRequest as SamplingRequest
    from rea_tui.host.features.narrowing import MAX_CANDIDATES as MAX_CANDIDATES
    from rea_tui.host.features.narrowing import NarrowingCandidate as NarrowingCandidate
    from rea_tui.host.features.narrowing import NarrowingQuestion as NarrowingQuestion
    from rea_tui.host.features.narrowing import concerned_argument as concerned_argument
    from rea_tui.host.features.narrowing import find_candidate as find_candidate
    from rea_tui.host.features.narrowing import pin as pin
    from rea_tui.host.features.resource_watch import WatchedResource as WatchedResource
    from rea_tui.host.features.roots import Root as Root
    from rea_tui.host.features.roots import RootError as RootError
    from rea_tui.host.features.roots import root_from as root_from
    from rea_tui.host.features.server_log import LOG_LEVELS as LOG_LEVELS
    from rea_tui.host.features.server_log import LogRecord as LogRecord
    from rea_tui.host.features.server_log import ServerLog as ServerLog
    from rea_tui.host.features.server_log import at_least as at_least
    from rea_tui.host.features.server_settings import can_subscribe as can_subscribe
    from rea_tui.host.features.server_settings import require_capability as require_capability
    from rea_tui.host.features.server_settings import set_log_level as set_log_level
    from rea_tui.host.features.server_settings import set_roots as set_roots
    from rea_tui.host.features.server_settings import subscribe as subscribe
    from rea_tui.host.features.server_settings import unsubscribe as unsubscribe
    from rea_tui.host.features.task_board import TaskBoard as TaskBoard
    from rea_tui.host.features.task_board import TaskState as TaskState
    from rea_tui.host.features.task_board import TrackedTask as TrackedTask
    from rea_tui.host.features.tasks import TaskSupport as TaskSupport
    from rea_tui.host.features.tasks import cancel_task as cancel_task
    from rea_tui.host.features.tasks import get_task as get_task
    from rea_tui.host.features.tasks import list_tasks as list_tasks
    from rea_tui.host.features.tasks import task_result as task_result
    from rea_tui.host.features.tasks import task_support as task_support
    from rea_tui.host.features.tool_call import run_tool_call as run_tool_call
    from rea_tui.host.features.tool_completion import tool_completion_refs as tool_completion_refs
    from rea_tui.host.features.tool_headers import ListingNeedsSdk as ListingNeedsSdk
    from rea_tui.host.features.url_elicitation import required_url_elicitations as required_url_elicitations
    from rea_tui.host.features.workflow import Workflow as Workflow
    from rea_tui.host.features.workflow import prompt_prefill as prompt_prefill
    from rea_tui.host.features.workflow import render_prompt as render_prompt
    from rea_tui.host.hosted import HostedServer as HostedServer
    from rea_tui.host.hosted import ServerStatus as ServerStatus
    from rea_tui.host.protocol.connection import Connection as Connection
    from rea_tui.host.protocol.errors import AuthorizationRequired as AuthorizationRequired
    from rea_tui.host.protocol.errors import CapabilityMissing as CapabilityMissing
    from rea_tui.host.protocol.errors import FieldDiagnostic as FieldDiagnostic
    from rea_tui.host.protocol.errors import HostError as HostError
    from rea_tui.host.protocol.errors import HttpStatusError as HttpStatusError
    from rea_tui.host.protocol.errors import ProtocolError as ProtocolError
    from rea_tui.host.protocol.errors import RequestTimedOut as RequestTimedOut
    from rea_tui.host.protocol.errors import ServerExited as ServerExited
    from rea_tui.host.protocol.errors import ServerUnavailable as ServerUnavailable
    from rea_tui.host.protocol.events import BadOutputReceived as BadOutputReceived
    from rea_tui.host.protocol.events import ConnectionLost as ConnectionLost
    from rea_tui.host.protocol.events import HostEvent as HostEvent
    from rea_tui.host.protocol.events import ListChanged as ListChanged
    from rea_tui.host.protocol.events import ListsPreviewed as ListsPreviewed
    from rea_tui.host.protocol.events import LogMessageReceived as LogMessageReceived
    from rea_tui.host.protocol.events import ResourceUpdated as ResourceUpdated
    from rea_tui.host.protocol.events import TargetRead as TargetRead
    from rea_tui.host.protocol.models import ContentBlock as ContentBlock
    from rea_tui.host.protocol.models import EmbeddedResourceBlock as EmbeddedResourceBlock
    from rea_tui.host.protocol.models import MediaBlock as MediaBlock
    from rea_tui.host.protocol.models import Prompt as Prompt
    from rea_tui.host.protocol.models import PromptArgument as PromptArgument
    from rea_tui.host.protocol.models import Resource as Resource
    from rea_tui.host.protocol.models import ResourceLinkBlock as ResourceLinkBlock
    from rea_tui.host.protocol.models import ResourceTemplate as ResourceTemplate
    from rea_tui.host.protocol.models import TextBlock as TextBlock
    from rea_tui.host.protocol.models import Tool as Tool
    from rea_tui.host.protocol.models import UnknownBlock as UnknownBlock
    from rea_tui.host.protocol.models import block_json as block_json
    from rea_tui.host.protocol.models import block_summary as block_summary
    from rea_tui.host.protocol.models import block_text as block_text
    from rea_tui.host.protocol.models import parse_content as parse_content
    from rea_tui.host.protocol.models import parse_resource_contents as parse_resource_contents
    from rea_tui.host.protocol.protocol_memory import ProtocolMemory as ProtocolMemory
    from rea_tui.host.protocol.sdk_loader import after_sdk_load as after_sdk_load
    from rea_tui.host.records.replay_plan import ReplayPlan as ReplayPlan
    from rea_tui.host.records.replay_plan import compare as compare
    from rea_tui.host.records.replay_plan import entry_from_record as entry_from_record
    from rea_tui.host.records.replay_plan import plan_replay as plan_replay
    from rea_tui.host.records.replay_plan import workflow_from_record as workflow_from_record
    from rea_tui.host.records.replay_servers import choose_servers as choose_servers
    from rea_tui.host.records.replay_servers import find_configured as find_configured
    from rea_tui.host.records.replay_servers import recorded_servers as recorded_servers
    from rea_tui.host.records.report import render_json as render_json
    from rea_tui.host.records.report import render_markdown as render_markdown
    from rea_tui.host.records.transcript import TRANSCRIPT_SUFFIX as TRANSCRIPT_SUFFIX
    from rea_tui.host.records.transcript import SessionRecorder as SessionRecorder
    from rea_tui.host.records.transcript import Transcript as Transcript
    from rea_tui.host.records.transcript import TranscriptWriter as TranscriptWriter
    from rea_tui.host.records.transcript import list_transcripts as list_transcripts
    from rea_tui.host.records.transcript import new_transcript_path as new_transcript_path
    from rea_tui.host.records.transcript import prune_transcripts as prune_transcripts
    from rea_tui.host.records.transcript import read_transcript as read_transcript
    from rea_tui.host.records.transcript import sessions_dir as sessions_dir
    from rea_tui.host.records.transcript import summarize as summarize
    from rea_tui.host.schemas.fields import Choice as Choice
    from rea_tui.host.schemas.fields import FormField as FormField
    from rea_tui.host.schemas.fields import fits as fits
    from rea_tui.host.schemas.fields import form_fields as form_fields
    from rea_tui.host.schemas.fields import kind_of as kind_of
    from rea_tui.host.schemas.fields import unknown_keys as unknown_keys
    from rea_tui.host.schemas.fields import with_defaults as with_defaults
    from rea_tui.host.schemas.formats import CHECKED_FORMATS as CHECKED_FORMATS
    from rea_tui.host.schemas.guard import SchemaVerdict as SchemaVerdict
    from rea_tui.host.schemas.guard import check_against_schema as check_against_schema
    from rea_tui.host.session import FormTarget as FormTarget
    from rea_tui.host.session import FormValues as FormValues
    from rea_tui.host.session import InputAsker as InputAsker
    from rea_tui.host.session import ServerState as ServerState
    from rea_tui.host.session import Session as Session
    from rea_tui.host.transports.reply_limit import DEFAULT_MAX_REPLY_BYTES as DEFAULT_MAX_REPLY_BYTES
    from rea_tui.host.transports.reply_limit import ReplyTooLarge as ReplyTooLarge
    from rea_tui.host.transports.reply_limit import format_size as format_size
    from rea_tui.host.transports.reply_limit import parse_size as parse_size
    from rea_tui.host.transports.reply_limit import set_max_reply_bytes as set_max_reply_bytes
    from rea_tui.host.transports.server_start import start_servers as start_servers
    from rea_tui.host.transports.traffic import TrafficEntry as TrafficEntry
    from rea_tui.host.transports.traffic import TrafficLog as TrafficLog
    from rea_tui.host.transports.transport import crowd_niceness as crowd_niceness
    from rea_tui.host.transports.transport import start_server_process as start_server_process
    from rea_tui.host.trust.egress import UNSAFE_CHARACTER as UNSAFE_CHARACTER
    from rea_tui.host.trust.egress import EgressViolation as EgressViolation
    from rea_tui.host.trust.egress import guard as guard
    from rea_tui.host.trust.egress import has_unsafe as has_unsafe
    from rea_tui.host.trust.egress import strict_egress as strict_egress
    from rea_tui.host.trust.safe_text import DEFAULT_LIMIT as DEFAULT_LIMIT
    from rea_tui.host.trust.safe_text import sanitize as sanitize
    from rea_tui.host.trust.safe_text import sanitize_line as sanitize_line
    from rea_tui.host.trust.schema_values import UnreadableValue as UnreadableValue
    from rea_tui.host.trust.schema_values import coerce as coerce
    from rea_tui.host.trust.schema_values import property_schema as property_schema
    from rea_tui.host.trust.schema_values import schema_types as schema_types
    from rea_tui.host.trust.trust_store import FolderFile as FolderFile
    from rea_tui.host.trust.trust_store import TrustGate as TrustGate
    from rea_tui.host.trust.trust_store import TrustStore as TrustStore
    from rea_tui.host.trust.trust_store import TrustStoreError as TrustStoreError
    from rea_tui.host.trust.trust_store import folder_listing as folder_listing
    from rea_tui.host.trust.trust_store import real_folder as real_folder
    from rea_tui.host.trust.trust_store import trust_gate as trust_gate
    from rea_tui.host.trust.url_safety import UrlView as UrlView
    from rea_tui.host.trust.url_safety import one_line_url as one_line_url
    from rea_tui.host.trust.url_safety import view_url as view_url
