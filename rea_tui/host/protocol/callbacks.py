"""What a connection answers and hears from its server outside its own requests.

The SDK calls these: elicitation (form or URL) and sampling requests go to
the handler the front end installed (none: declined, nothing is answered on
the analyst's behalf), each while the connection's request clocks are
stopped (`AnalystWaits`); `roots/list` is answered with the server's
configured roots; log messages, resource updates and list changes become
host events.

`ServerCallbacks` is a part of `Connection`; it is kept here so each module has one role.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rea_tui.host.features.interaction import (
    SAMPLING_DECLINED,
    ElicitationAnswer,
    ElicitationHandler,
    ElicitationRequest,
    SamplingHandler,
    SamplingMessage,
    SamplingRequest,
)
from rea_tui.host.protocol.events import (
    BadOutputReceived,
    HostEvent,
    ListChanged,
    ListKind,
    LogMessageReceived,
    ResourceUpdated,
)

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientRequestContext

    from rea_tui.host.features.roots import Roots
    from rea_tui.host.features.server_log import ServerLog
    from rea_tui.host.features.waiting import AnalystWaits
    from rea_tui.host.transports.traffic import TrafficLog

# Notification classes of the SDK, by name, so this module can load before the SDK does.
_LIST_CHANGED: dict[str, ListKind] = {
    "PromptListChangedNotification": "prompts",
    "ToolListChangedNotification": "tools",
    "ResourceListChangedNotification": "resources",
}
_RESOURCE_UPDATED = "ResourceUpdatedNotification"


class ServerCallbacks:
    """The SDK's callbacks for one connection (a part of `Connection`)."""

    elicitation_handler: ElicitationHandler | None
    sampling_handler: SamplingHandler | None
    waits: AnalystWaits
    roots: Roots
    log: ServerLog
    traffic: TrafficLog

    @property
    def name(self) -> str:
        raise NotImplementedError

    def _emit(self, event: HostEvent) -> None:
        raise NotImplementedError

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._emit(BadOutputReceived(self.name, str(message)))
            return
        kind = _LIST_CHANGED.get(type(message).__name__)
        if kind is not None:
            self._emit(ListChanged(self.name, kind))
        elif type(message).__name__ == _RESOURCE_UPDATED:
            uri = getattr(getattr(message, "params", None), "uri", None)
            if isinstance(uri, str):
                self._emit(ResourceUpdated(self.name, uri))

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        # Redacted here, where every view of a log message (Logs tab, `--log-level`, toasts) gets it from.
        redact = self.traffic.redact
        logger = None if params.logger is None else redact(params.logger)
        event = LogMessageReceived(self.name, str(params.level), logger, self.traffic.redact_data(params.data))
        self.log.add(event)
        self._emit(event)

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the analyst (through the installed handler) with the clocks stopped; declined without one."""
        return await self.waits.elicitation(self.elicitation_handler, request)

    async def _on_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        import mcp_types as types

        if isinstance(params, types.ElicitRequestURLParams):
            request = ElicitationRequest(
                server=self.name,
                message=params.message,
                mode="url",
                url=params.url,
                elicitation_id=params.elicitation_id,
            )
        else:
            raw_schema: Any = params.requested_schema
            schema = (
                raw_schema if isinstance(raw_schema, dict) else raw_schema.model_dump(by_alias=True, exclude_none=True)
            )
            request = ElicitationRequest(server=self.name, message=params.message, mode="form", requested_schema=schema)
        answer = await self.elicit(request)
        content = answer.content if answer.action == "accept" and request.mode == "form" else None
        return types.ElicitResult(action=answer.action, content=content)

    async def _on_sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        import mcp_types as types

        declined = types.ErrorData(code=types.INVALID_REQUEST, message=SAMPLING_DECLINED)
        messages = tuple(
            SamplingMessage(role=m.role, text=getattr(m.content, "text", f"[{getattr(m.content, 'type', '?')}]"))
            for m in params.messages
        )
        request = SamplingRequest(self.name, messages, params.system_prompt, params.max_tokens)
        answer = await self.waits.sampling(self.sampling_handler, request)
        if answer.text is None:
            return declined
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=answer.text), model=answer.model
        )

    async def _on_list_roots(self, context: ClientRequestContext) -> types.ListRootsResult | types.ErrorData:
        import mcp_types as types

        self.roots.listed += 1
        return types.ListRootsResult.model_validate({"roots": self.roots.to_json()}, by_name=False)
