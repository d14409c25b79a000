"""The lowlevel MCP server: handlers, middleware and change notifications.

Serves both protocol generations the SDK supports: the legacy `initialize`
handshake (server-to-client elicitation, list_changed notifications on the
connection) and 2026-07-28 (`server/discover`, elicitation through
`InputRequiredResult`, list changes on `subscriptions/listen` streams).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, PromptsListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError

from rea_tui.server.completion.completion_engine import DISCOVERY_META_KEY
from rea_tui.server.completion.name_resolver import Narrowing
from rea_tui.server.completion.text_forms import to_json
from rea_tui.server.limits import MAX_VALUE_CHARS, OPENING_READ_WAIT_SECONDS
from rea_tui.server.prompts.guided_prompts import description, render, target_sentence
from rea_tui.server.prompts.prompt_declarations import PROMPTS, PROMPTS_BY_NAME, Family
from rea_tui.server.protocol.client_notices import ConnectionNotices, evidence_changed, session_mark
from rea_tui.server.protocol.protocol_errors import ErrorMapping, FieldError, InvalidParams, field_error, logger
from rea_tui.server.protocol.server_identity import (
    INSTRUCTIONS,
    MODERN_PROTOCOL_VERSIONS,
    SERVER_DESCRIPTION,
    SERVER_NAME,
    SERVER_TITLE,
    SERVER_VERSION,
)
from rea_tui.server.protocol.server_lists import (
    EVIDENCE_TEMPLATE,
    PROCEDURE_TEMPLATE,
    SESSION_URI,
    prompt_items,
    resource_items,
    resource_template_items,
    tool_items,
)
from rea_tui.server.protocol.session_state import ServerOptions
from rea_tui.server.target.workspaces import SCOPE_SENTENCES, Workspace, Workspaces
from rea_tui.server.toolkit.tool_catalog import build_registry
from rea_tui.server.toolkit.tool_outcomes import CallContext, Evidence, Failure, NeedsInput, Plain, internal_context

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from rea_tui.server.target.target_paths import StartupTarget
    from rea_tui.server.target.workspaces import Hold

_PROCEDURE_URI = re.compile(r"^rea://documents/([^/]+)/procedures/([^/]+)$")
_EVIDENCE_URI = re.compile(r"^rea://evidence/([^/]+)$")

TEMPLATE_FAMILIES: dict[str, dict[str, Family]] = {
    PROCEDURE_TEMPLATE: {"document": "document", "procedure": "procedure"},
    EVIDENCE_TEMPLATE: {"evidence": "evidence"},
}


def _is_modern(ctx: ServerRequestContext[Any, Any]) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def _can_elicit_form(ctx: ServerRequestContext[Any, Any]) -> bool:
    caps = ctx.session.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    # A bare `elicitation: {}` (before modes existed) counts as form support; url-only does not.
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


class _Server(Server[Any]):
    """Advertises `listChanged` for prompts and tools on every transport, and `logging` on legacy connections.

    The streamable-HTTP session manager builds initialization options itself
    (without notification options), so the defaults live here.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(prompts_changed=True, tools_changed=True)
        return super().create_initialization_options(options, experimental_capabilities, extensions)

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        """The SDK's derivation, without `logging` on 2026-07-28 (deprecated there, SEP-2577)."""
        found = super().get_capabilities(
            notification_options, experimental_capabilities, extensions, protocol_version=protocol_version
        )
        if protocol_version in MODERN_PROTOCOL_VERSIONS:
            return found.model_copy(update={"logging": None})
        return found


class WorkspaceRouting:
    """Middleware that remembers which legacy connections use which workspace, so a change of its target
    can be announced on them later (a target that finishes opening in the background has no request to
    answer on)."""

    def __init__(self, workspaces: Workspaces) -> None:
        self.workspaces = workspaces

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        # An HTTP initialize has no session id yet: that connection is remembered from its next request.
        opening_http_session = self.workspaces.per_session and ctx.method == "initialize"
        if not _is_modern(ctx) and not opening_http_session:
            self.workspaces.for_request(ctx).remember(ctx)
        return await call_next(ctx)


class ReaServer:
    """Answers every MCP request against the workspace (session state) of the client that sent it."""

    def __init__(self, options: ServerOptions, *, per_session: bool = False) -> None:
        self.workspaces = Workspaces(options, per_session=per_session)
        self.registry = build_registry()
        self.bus = InMemorySubscriptionBus()
        self.workspaces.announce_with(self.target_changed)
        self.server: Server[Any] = _Server(
            SERVER_NAME,
            version=SERVER_VERSION,
            title=SERVER_TITLE,
            description=SERVER_DESCRIPTION,
            instructions=INSTRUCTIONS,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
            on_completion=self.complete,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_resource_templates,
            on_read_resource=self.read_resource,
            on_subscriptions_listen=ListenHandler(self.bus),
            on_subscribe_resource=self.subscribe_resource,
            on_unsubscribe_resource=self.unsubscribe_resource,
        )
        # Not `on_set_logging_level=`: that warns on every start that 2026-07-28 deprecates logging (SEP-2577);
        # legacy connections still have it, and `_Server` leaves it out of a 2026-07-28 declaration.
        self.server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, self.set_logging_level)
        self.server.middleware = [
            *self.server.middleware,
            WorkspaceRouting(self.workspaces),
            ErrorMapping(),
            # Seals the requestState of multi-round-trip results; the client echoes it back verbatim.
            RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=SERVER_NAME),
        ]

    def initialization_options(self) -> InitializationOptions:
        return self.server.create_initialization_options()

    async def open_startup_target(self, startup: StartupTarget, tasks: TaskGroup, hold: Hold | None = None) -> None:
        """The target the server was started with: opened before requests are served with `--open-first`
        (`startup.first`), otherwise in the background, in `tasks`, once `hold` returns (if given); from
        this call on the session says it is opening."""
        workspaces = self.workspaces
        if startup.first:
            await workspaces.open_startup(startup.opener, startup.label)
        else:
            workspaces.begin_startup(startup.label)
            tasks.start_soon(workspaces.finish_startup, startup.opener, hold)

    # -- change notifications -----------------------------------------------------------------

    async def target_changed(self, workspace: Workspace) -> None:
        """Prompt descriptions name the active target, so every change updates the prompt list: on the
        legacy connections of that workspace, and on every 2026-07-28 listener (those carry no session, so
        one may hear of another's change and list again for nothing)."""
        await self.bus.publish(PromptsListChanged())
        await self.bus.publish(ResourceUpdated(uri=SESSION_URI))
        await workspace.prompts_changed()
        await workspace.resource_updated(SESSION_URI)
        await self._log_target(workspace)

    @staticmethod
    async def _log_target(workspace: Workspace) -> None:
        session = workspace.session
        if session.state == "ready" and session.target is not None:
            await workspace.log("info", f"target ready: {session.target.path}")
        elif session.state == "failed":
            await workspace.log("error", f"the target could not be opened: {session.open_error}")
        elif session.state == "opening":
            await workspace.log("info", f"opening the target: {session.opening_label}")
        else:
            await workspace.log("info", "no target is open")

    # -- logging and subscriptions (legacy connections; 2026-07-28 listens instead) ---------------------

    async def set_logging_level(
        self, ctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        workspace = self.workspaces.for_request(ctx)
        notices = workspace.notices_for(ctx)
        if notices is not None:
            notices.level = params.level
            session = workspace.session
            await workspace.log("debug", f"log level {params.level}; the target is {session.state}")
        return types.EmptyResult()

    async def subscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        notices = self._subscribable(ctx, params.uri)
        if notices is not None:
            notices.subscriptions.add(params.uri)
        return types.EmptyResult()

    async def unsubscribe_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        notices = self._subscribable(ctx, params.uri)
        if notices is not None:
            notices.subscriptions.discard(params.uri)
        return types.EmptyResult()

    def _subscribable(self, ctx: ServerRequestContext[Any, Any], uri: str) -> ConnectionNotices | None:
        if uri != SESSION_URI:
            raise InvalidParams([field_error("uri", f"only {SESSION_URI} changes; other resources are fixed")])
        return self.workspaces.for_request(ctx).notices_for(ctx)

    # -- prompts ----------------------------------------------------------------------------------

    @staticmethod
    def _no_cursor(params: types.PaginatedRequestParams | None) -> None:
        if params is not None and params.cursor is not None:
            raise InvalidParams([field_error("cursor", "this server returns everything in one page; omit cursor")])

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        self._no_cursor(params)
        session = self.workspaces.for_request(ctx).session
        return types.ListPromptsResult.model_validate({"prompts": prompt_items(target_sentence(session))})

    async def get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        spec = PROMPTS_BY_NAME.get(params.name)
        if spec is None:
            raise InvalidParams(
                [field_error("name", f"unknown prompt; available: {', '.join(p.name for p in PROMPTS)}")]
            )
        args = dict(params.arguments or {})
        errors: list[FieldError] = []
        for key, value in args.items():
            if spec.argument(key) is None:
                errors.append(field_error(f"arguments.{key}", "unknown argument for this prompt"))
            elif len(value) > MAX_VALUE_CHARS:
                errors.append(field_error(f"arguments.{key}", f"longer than {MAX_VALUE_CHARS} characters"))
        for arg in spec.arguments:
            if arg.required and not args.get(arg.name, "").strip():
                errors.append(field_error(f"arguments.{arg.name}", "required"))
        if errors:
            raise InvalidParams(errors)
        session = self.workspaces.for_request(ctx).session
        # A rendered workflow names the target: a short wait spares a cold client a stale "still opening".
        await session.wait_until_settled(OPENING_READ_WAIT_SECONDS)
        text = render(spec, args, session, self.registry.names())
        return types.GetPromptResult(
            description=description(spec, session),
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )

    # -- completion ---------------------------------------------------------------------------------

    def _family(self, params: types.CompleteRequestParams, errors: list[FieldError]) -> Family | None:
        ref = params.ref
        if isinstance(ref, types.PromptReference):
            spec = PROMPTS_BY_NAME.get(ref.name)
            if spec is None:
                errors.append(field_error("ref.name", "unknown prompt"))
                return None
            arg = spec.argument(params.argument.name)
            if arg is None:
                errors.append(field_error("argument.name", f"prompt {spec.name} has no such argument"))
                return None
            return arg.family
        variables = TEMPLATE_FAMILIES.get(ref.uri)
        if variables is None:
            errors.append(field_error("ref.uri", "unknown resource template"))
        elif params.argument.name not in variables:
            errors.append(field_error("argument.name", "the template has no such variable"))
        else:
            return variables[params.argument.name]
        return None

    async def complete(
        self, ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        errors: list[FieldError] = []
        if len(params.argument.value) > MAX_VALUE_CHARS:
            errors.append(field_error("argument.value", f"longer than {MAX_VALUE_CHARS} characters"))
        context = dict(params.context.arguments or {}) if params.context else {}
        for key, value in context.items():
            if len(value) > MAX_VALUE_CHARS:
                errors.append(field_error(f"context.arguments.{key}", f"longer than {MAX_VALUE_CHARS} characters"))
        family = self._family(params, errors)
        if errors:
            raise InvalidParams(errors)
        workspace = self.workspaces.for_request(ctx)
        answer = await workspace.completion.complete_when_open(family, params.argument.value, context)
        await self._log_discovery(workspace, answer.meta.get(DISCOVERY_META_KEY))
        page = answer.page
        return types.CompleteResult(
            completion=types.Completion(values=page.values, total=page.total, has_more=page.has_more),
            _meta=answer.meta or None,
        )

    @staticmethod
    async def _log_discovery(workspace: Workspace, discovery: Any) -> None:
        """How far procedure discovery went for a completion: debug when whole, a warning when a bound cut it."""
        if not isinstance(discovery, dict):
            return
        addresses, limit = discovery.get("addresses"), discovery.get("limit")
        if discovery.get("complete"):
            await workspace.log("debug", f"discovery complete: {addresses} addresses")
        else:
            reason = discovery.get("reason") or "a bound"
            await workspace.log("warning", f"discovery cut by {reason}: {addresses} addresses (limit {limit})")

    # -- tools -------------------------------------------------------------------------------------

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self._no_cursor(params)
        return types.ListToolsResult.model_validate({"tools": tool_items()})

    def _call_context(self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> CallContext:
        async def elicit(message: str, schema: dict[str, Any]) -> types.ElicitResult | None:
            try:
                return await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)
            except MCPError:
                logger.info("elicitation failed", exc_info=True)
                return None

        async def progress(done: float, total: float, message: str) -> None:
            try:
                await ctx.session.report_progress(done, total, message)
            except Exception:  # advisory: progress must never fail the call
                logger.debug("progress notification dropped", exc_info=True)

        return CallContext(
            modern=_is_modern(ctx),
            elicit=elicit,
            progress=progress,
            input_responses=dict(params.input_responses) if params.input_responses else None,
            request_state=params.request_state,
            can_elicit=_can_elicit_form(ctx),
        )

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if params.name not in self.registry:
            names = ", ".join(self.registry.names())
            raise InvalidParams([field_error("name", f"unknown tool; available: {names}")])
        arguments = dict(params.arguments or {})
        workspace = self.workspaces.for_request(ctx)
        session = workspace.session
        before = session_mark(session)
        try:
            return await self._call(params, arguments, ctx, workspace)
        finally:
            if evidence_changed(before, session_mark(session)):
                await workspace.resource_updated(SESSION_URI)
                # 2026-07-28 listeners carry no session: one may hear of another's change and read again.
                await self.bus.publish(ResourceUpdated(uri=SESSION_URI))

    async def _call(
        self,
        params: types.CallToolRequestParams,
        arguments: dict[str, Any],
        ctx: ServerRequestContext[Any, Any],
        workspace: Workspace,
    ) -> types.CallToolResult | types.InputRequiredResult:
        session = workspace.session
        outcome = await self.registry.call(params.name, arguments, self._call_context(ctx, params), workspace.services)
        if isinstance(outcome, NeedsInput):
            return outcome.result
        if isinstance(outcome, Failure):
            return types.CallToolResult(content=[types.TextContent(text=outcome.message)], is_error=True)
        if isinstance(outcome, Narrowing):
            structured = outcome.reply()
        elif isinstance(outcome, Evidence):
            evidence = session.ledger.retain(params.name, arguments, session.target_path, outcome.payload)
            structured = {"evidence_id": evidence, **outcome.payload}
        else:
            assert isinstance(outcome, Plain)
            structured = outcome.payload
        return types.CallToolResult(
            content=[types.TextContent(text=to_json(structured))], structured_content=structured
        )

    # -- resources ------------------------------------------------------------------------------------

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        self._no_cursor(params)
        return types.ListResourcesResult.model_validate({"resources": resource_items()})

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        self._no_cursor(params)
        return types.ListResourceTemplatesResult.model_validate({"resourceTemplates": resource_template_items()})

    async def read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = params.uri
        workspace = self.workspaces.for_request(ctx)
        session = workspace.session
        data: Any
        if uri == SESSION_URI:
            # A short wait spares a cold client a stale "still opening"; past it, the reply says what opens.
            await session.wait_until_settled(OPENING_READ_WAIT_SECONDS)
            data = {**session.describe(), "scope": SCOPE_SENTENCES[workspace.scope]}
        elif (m := _EVIDENCE_URI.match(uri)) is not None:
            entry = session.ledger.get(unquote(m.group(1)))
            if entry is None:
                raise InvalidParams([field_error("uri", "no such evidence in this session")])
            data = {
                "evidence_id": entry.id,
                "operation": entry.operation,
                "arguments": entry.arguments,
                "target": entry.target,
                "result": entry.result,
            }
        elif (m := _PROCEDURE_URI.match(uri)) is not None:
            args = {"document": unquote(m.group(1)), "procedure": unquote(m.group(2))}
            outcome = await self.registry.call("inspect_procedure", args, internal_context(), workspace.services)
            if isinstance(outcome, Narrowing):
                raise InvalidParams([field_error("uri", outcome.ask_user)])
            if isinstance(outcome, Failure):
                raise InvalidParams([field_error("uri", outcome.message)])
            assert isinstance(outcome, Evidence)
            data = outcome.payload
        else:
            raise InvalidParams([field_error("uri", "unknown resource")])
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=json.dumps(data))]
        )
