"""The rendered prompt: its messages (text as Markdown, other blocks as cards) and its steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Label, ListItem, ListView, Markdown, Static

from rea_tui.host import EmbeddedResourceBlock, MediaBlock, ResourceLinkBlock, TextBlock, UnknownBlock, sanitize
from rea_tui.ui.messages import ResourceLinkOpened, StepChosen
from rea_tui.ui.text import (
    BODY_LIMIT,
    LINE_LIMIT,
    MESSAGE_LIMIT,
    NAME_LIMIT,
    PARAGRAPH_LIMIT,
    WORD_LIMIT,
    join,
    notify_plain,
    plain,
    plain_line,
)

if TYPE_CHECKING:
    from rea_tui.host import ContentBlock, Workflow

MARKDOWN_LIMIT = 200_000


def size_text(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


class SafeMarkdown(Markdown):
    """Server Markdown: links are shown, never followed."""

    async def _on_markdown_link_clicked(self, message: Markdown.LinkClicked) -> None:
        message.prevent_default()
        message.stop()
        notify_plain(self, f"Link not opened: {message.href}", title="Server link")


class StepItem(ListItem):
    def __init__(self, server: str, tool: str, number: int, description: str) -> None:
        label = join(Text(f"{number}. ", style="bold"), plain_line(tool, NAME_LIMIT, style="bold"))
        if description:
            label.append("  ")
            label.append_text(plain_line(description, LINE_LIMIT, style="dim"))
        super().__init__(Label(label), classes="step-item")
        self.server = server
        self.tool = tool


class LinkButton(Button):
    """Opens a resource link with `resources/read` into the evidence pane."""

    def __init__(self, server: str, uri: str) -> None:
        super().__init__("Open into evidence", classes="open-link", compact=True)
        self.tooltip = "resources/read this URI; the result goes to the evidence pane"
        self.server = server
        self.uri = uri


def block_card(server: str, block: ContentBlock) -> Vertical:
    """A labelled card for a non-text content block."""
    card = Vertical(classes="content-card")
    if isinstance(block, MediaBlock):
        card.border_title = block.kind
        card.compose_add_child(Static(plain(f"{block.mime_type}, {size_text(block.size_bytes)} (not shown)")))
    elif isinstance(block, ResourceLinkBlock):
        card.border_title = "resource link"
        body = join(
            Text(), plain_line(block.uri, LINE_LIMIT, style="underline"), Text("  "), plain_line(block.name, NAME_LIMIT)
        )
        if block.description:
            body.append("\n")
            body.append_text(plain(block.description, MESSAGE_LIMIT))
        card.compose_add_child(Static(body))
        card.compose_add_child(LinkButton(server, block.wire))
    elif isinstance(block, EmbeddedResourceBlock):
        card.border_title = "embedded resource"
        head = Text()
        head.append_text(plain_line(block.uri or "(no uri)", LINE_LIMIT, style="underline"))
        if block.text is not None:
            head.append("\n")
            head.append_text(plain(block.text, BODY_LIMIT))
        else:
            head.append(f"\nbinary, {size_text(block.blob_size or 0)} (not shown)", style="dim")
        card.compose_add_child(Static(head))
    elif isinstance(block, UnknownBlock):
        card.border_title = "unknown block"
        card.compose_add_child(Static(plain(f"type {block.kind!r} is not known to rea-tui")))
    return card


class WorkflowView(Vertical):
    """Top right: the rendered workflow: its heading, then one scroller of its steps (where the analyst
    starts) and the server's guidance (the messages, a `user` message without its role label)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.workflow: Workflow | None = None
        self.server = ""
        self.border_title = "Workflow"

    def compose(self) -> ComposeResult:
        # The heading and the steps' title stay; the steps and the guidance under them scroll, as one.
        yield Static(Text("Render a prompt to see its workflow here.", style="dim"), id="workflow-empty")
        yield Static("", id="workflow-steps-title")
        with VerticalScroll(id="workflow-scroll"):
            yield ListView(id="workflow-steps")
            yield Vertical(id="workflow-messages")

    async def show_error(self, message: Text) -> None:
        self.workflow = None
        await self.query_one("#workflow-messages", Vertical).remove_children()
        await self.query_one("#workflow-steps", ListView).clear()
        self.query_one("#workflow-steps-title", Static).update("")
        self.query_one("#workflow-empty", Static).update(message)

    async def show(self, server: str, workflow: Workflow) -> None:
        self.workflow = workflow
        self.server = server
        heading = join(Text("Workflow: ", style="bold"), plain_line(workflow.prompt, NAME_LIMIT, style="bold"))
        texts = [b.text for m in workflow.messages for b in m.blocks if isinstance(b, TextBlock)]
        description = workflow.description.strip()
        # Its first sentence is enough to know it again (a REA description adds the target, worded otherwise).
        first_sentence = description.split(". ")[0].rstrip(".")
        if description and not any(first_sentence in text for text in texts):
            # Shown once: the server's guidance usually opens with the description itself.
            heading.append("\n")
            heading.append_text(plain(description, PARAGRAPH_LIMIT, style="dim"))
        self.query_one("#workflow-empty", Static).update(heading)
        messages = self.query_one("#workflow-messages", Vertical)
        await messages.remove_children()
        widgets: list[Static | Markdown | Vertical] = []
        for message in workflow.messages:
            if message.role != "user":
                # A prompt's messages are the user's by default; another role is worth saying.
                role = plain_line(message.role, WORD_LIMIT, style="bold italic")
                widgets.append(Static(role, classes="message-role"))
            for block in message.blocks:
                if isinstance(block, TextBlock):
                    widgets.append(SafeMarkdown(sanitize(block.text, MARKDOWN_LIMIT), classes="message-text"))
                else:
                    widgets.append(block_card(server, block))
        await messages.mount_all(widgets)
        title = Text(f"Steps ({len(workflow.steps)})", style="bold")
        if workflow.steps:
            title.append("  optional starting points; enter opens one", style="dim")
        else:
            title.append("  no tool of this server is named in the prompt", style="dim")
        self.query_one("#workflow-steps-title", Static).update(title)
        steps = self.query_one("#workflow-steps", ListView)
        await steps.clear()
        await steps.extend([StepItem(server, s.tool, n, s.description) for n, s in enumerate(workflow.steps, 1)])
        self.query_one("#workflow-scroll", VerticalScroll).scroll_home(animate=False)

    def on_list_view_selected(self, event: ListView.Selected) -> None:
        item = event.item
        if isinstance(item, StepItem):
            event.stop()
            self.post_message(StepChosen(item.server, item.tool))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if isinstance(event.button, LinkButton):
            event.stop()
            self.post_message(ResourceLinkOpened(event.button.server, event.button.uri))
