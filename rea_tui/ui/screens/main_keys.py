"""The main screen's keys: its bindings, in footer order, and those that need a server.

Kept apart from the screen so the whole keyboard reads in one place; the
The key table in docs/tui.md follows this list.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

# Keys chosen so none is taken by a focused Input or TextArea (ctrl+e/k/x/u/w are editing keys there).
# Each has an alt+ twin: a browser keeps ctrl+n/t/w/r/l/p/s, f5 and f6 for itself (`rea-tui web`).
MAIN_SCREEN_BINDINGS: list[BindingType] = [
    # In footer order: what the narrow layout's footer must still show comes first.
    Binding("ctrl+r,alt+r", "render", "Render", id="render", tooltip="Render the prompt (prompts/get) into a workflow"),
    Binding("f6,alt+p", "next_pane", "Next pane", id="next-pane", tooltip="Move to the next pane (narrow: show it)"),
    Binding("ctrl+g,alt+g", "focus_evidence", "Evidence", id="focus-evidence", tooltip="Filter the evidence ledger"),
    Binding("ctrl+n,alt+n", "notes", "Notes", id="notes", tooltip="Observations, inferences and unknowns"),
    Binding(
        "f7,alt+j",
        "toggle_view",
        "JSON",
        id="toggle-view",
        tooltip="The evidence as listing and tables, or as JSON",
    ),
    Binding("f8,alt+z", "zoom", "Zoom", id="zoom", tooltip="Widen the evidence detail to the whole screen, and back"),
    Binding(
        "f10,alt+e",
        "toggle_form",
        "Form",
        id="toggle-form",
        tooltip="The prompt's form: open it again after rendering, or fold it to one line",
        # The summary line above the workflow names it: the footer is full at 160 columns.
        show=False,
    ),
    Binding("escape", "unzoom", "Unzoom", id="unzoom", show=False, tooltip="Back from the widened evidence"),
    Binding("ctrl+b,alt+b", "cancel_call", "Cancel call", id="cancel-call", tooltip="Cancel the running tool call"),
    Binding("f5,alt+c", "reconnect", "Reconnect", id="reconnect", tooltip="Retry or reconnect the selected server"),
    Binding(
        "ctrl+t,alt+t",
        "export_report",
        "Report",
        id="export-report",
        tooltip="Write a Markdown report of this session next to its transcript",
    ),
    Binding(
        "ctrl+f,alt+f",
        "filter_sidebar",
        "Filter",
        id="filter-sidebar",
        tooltip="Filter the prompts, tools and resources on the left (Escape clears)",
        # The filter field names its key: the footer is full at 160 columns.
        show=False,
    ),
    Binding("ctrl+l,alt+l", "protocol_log", "Log", id="protocol-log", tooltip="Show the JSON-RPC traffic"),
    Binding(
        "ctrl+o,alt+o",
        "completion_inspector",
        "Completions",
        id="completion-inspector",
        tooltip="Show every completion request and how the server answered",
    ),
    # Not in the footer (it is full at 160 columns): the palette lists them, and the screen says when they matter.
    Binding(
        "f2,alt+d",
        "server_details",
        "Server",
        id="server-details",
        tooltip="The selected server: instructions, capabilities, log level, roots, sign-in",
        show=False,
    ),
    Binding("f3,alt+k", "tasks", "Tasks", id="tasks", tooltip="Tools running as tasks: status, cancel", show=False),
    Binding(
        "f4,alt+w",
        "resource_view",
        "Watch resource",
        id="resource-view",
        tooltip="The selected (or last read) resource, live: subscribe to its updates",
        show=False,
    ),
    Binding(
        "f9,alt+u",
        "sign_in",
        "Sign in",
        id="sign-in",
        tooltip="Sign in to the selected server (OAuth) and reconnect",
        show=False,
    ),
    Binding(
        "f12,alt+y",
        "discovered_servers",
        "Discovered",
        id="discovered-servers",
        tooltip="Add servers set up in other MCP clients' configs",
        show=False,
    ),
]

# Keys that do nothing in an offline replay (there is no server), hidden there.
ONLINE_ACTIONS = (
    "render",
    "reconnect",
    "cancel_call",
    "protocol_log",
    "completion_inspector",
    "sign_in",
    "resource_view",
    "tasks",
    "discovered_servers",
)
