"""The left column: servers, and under each its prompts, tools, resources and templates.

`filter(text)` narrows every server's sections to the entries whose label
contains the text (any case); the servers themselves always show.

A label that does not fit gives way at its name, never at its tail: a server's
status and a prompt's argument count and required marks stay whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from rea_tui.ui.messages import NodeRef
from rea_tui.ui.text import NAME_LIMIT, join, plain_line

if TYPE_CHECKING:
    from rea_tui.host import Prompt, ServerCatalogs

# Leaves shown per section: past this, one line says how many more there are and the filter finds them.
# The tree's cost is per node (adding, removing, laying out), so this bounds a refill on every keystroke.
LEAF_LIMIT = 200
STATUS_STYLES = {"connecting": "yellow", "ready": "green", "failed": "red", "exited": "red", "closed": "dim"}


def prompt_tail(prompt: Prompt) -> Text:
    """`  6 args, 1*`: what a prompt's label must never lose."""
    required = len(prompt.required_arguments)
    count = len(prompt.arguments)
    detail = f"  {count} arg{'s' if count != 1 else ''}"
    if required:
        detail += f", {required}*"
    return Text(detail, style="dim")


def fit(head: Text, tail: Text, width: int) -> Text:
    """`head` cut with an ellipsis so `head + tail` fits `width` cells; the tail is kept whole."""
    room = width - tail.cell_len
    if head.cell_len > room:
        head = head.copy()
        head.truncate(max(room, 1), overflow="ellipsis")
    return join(head, tail)


def search_texts(server: str, catalogs: ServerCatalogs) -> dict[NodeRef, str]:
    """What the filter matches for each entry: its name (or URI) and its title, case-folded."""
    texts: dict[NodeRef, str] = {}
    for p in catalogs.prompts.items:
        texts[NodeRef("prompt", server, p.name)] = f"{p.name}\n{p.label}".casefold()
    for t in catalogs.tools.items:
        texts[NodeRef("tool", server, t.name)] = f"{t.name}\n{t.label}".casefold()
    for r in catalogs.resources.items:
        texts[NodeRef("resource", server, r.uri)] = f"{r.uri}\n{r.name}".casefold()
    for template in catalogs.templates.items:
        uri = template.uri_template
        texts[NodeRef("template", server, uri)] = f"{uri}\n{template.name}".casefold()
    return texts


# A section of a server's subtree: its title and its entries' labels.
Section = tuple[str, list[tuple[Text, NodeRef]]]


class ServerTree(Tree[NodeRef]):
    """One subtree per server; rebuilt from its catalogs, keeping the selection."""

    def __init__(self, *, id: str | None = None) -> None:
        # Per node: the label's part that stays whole (status, argument counts); the node's label is the rest.
        self._tails: dict[int, Text] = {}
        super().__init__(Text("servers"), id=id)
        self.show_root = False
        self.guide_depth = 2
        # Each server's labelled sections as last filled, and what the filter matches in them,
        # so a new filter shows them again without building a label.
        self._sections: dict[str, list[Section]] = {}
        self._search: dict[str, dict[NodeRef, str]] = {}
        self._catalogs: dict[str, ServerCatalogs] = {}
        # Per server, per section: the indexes of the entries the current filter matches.
        self._matches: dict[str, list[list[int]]] = {}
        self.filter_text = ""

    def filter(self, text: str) -> None:
        """Show only the entries whose name or title contains `text` (any case); empty shows them all."""
        folded = text.strip().casefold()
        if folded == self.filter_text:
            return
        # Typing on narrows what the last filter found; anything else starts from every entry.
        narrowing = bool(self.filter_text) and self.filter_text in folded
        self.filter_text = folded
        for server in self._sections:
            self._show_sections(server, narrowing=narrowing)

    def render_label(self, node: TreeNode[NodeRef], base_style: Style, style: Style) -> Text:
        tail = self._tails.get(node.id)
        label = super().render_label(node, base_style, style)
        if tail is None:
            return label
        width = self._label_room(node)
        styled = tail.copy()
        styled.stylize(style)
        return fit(label, styled, width) if width > styled.cell_len else join(label, styled)

    def get_label_width(self, node: TreeNode[NodeRef]) -> int:
        """`render_label`'s width, counted instead of drawn: the tree asks it of every line whenever its
        lines change (twenty servers' fills drew 2,200 labels, 200 ms)."""
        label = node.label
        width = label.cell_len if isinstance(label, Text) else cell_len(str(label))
        if node.allow_expand:
            width += cell_len(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE)
        tail = self._tails.get(node.id)
        if tail is None:
            return width
        room = self._label_room(node) - tail.cell_len
        if room <= 0 or width <= room:
            return width + tail.cell_len
        # Cut with an ellipsis (`fit`): rich's truncate pads a split wide character, so the cut is exactly `room`.
        return max(room, 1) + tail.cell_len

    def _label_room(self, node: TreeNode[NodeRef]) -> int:
        """The cells a node's label (with its tail) has, right of its guides."""
        return self.scrollable_content_region.width - self._depth(node) * self.guide_depth

    @staticmethod
    def _depth(node: TreeNode[NodeRef]) -> int:
        """Levels above the node, the hidden root left out (its guides' width is this times guide_depth)."""
        depth, parent = 0, node.parent
        while parent is not None and parent.parent is not None:
            depth, parent = depth + 1, parent.parent
        return depth

    def server_node(self, server: str) -> TreeNode[NodeRef] | None:
        return next((n for n in self.root.children if n.data is not None and n.data.name == server), None)

    def set_server(self, server: str, status: str, detail: str = "") -> TreeNode[NodeRef]:
        label = join(Text("● ", style=STATUS_STYLES.get(status, "")), plain_line(server, NAME_LIMIT, style="bold"))
        # Ready says enough (the header and the server's details give the protocol); trouble gives its detail.
        shown = detail if detail and status != "ready" else ""
        tail = Text(f"  {status}{' · ' + shown if shown else ''}", style="dim")
        node = self.server_node(server)
        if node is None:
            node = self.root.add(label, data=NodeRef("server", server, server), expand=True)
        else:
            node.set_label(label)
        self._tails[node.id] = tail
        return node

    def fill_server(self, server: str, catalogs: ServerCatalogs) -> None:
        """Rebuild a server's sections from its catalogs."""
        if self.server_node(server) is None:
            return
        sections: list[Section] = [
            (
                "Prompts",
                [(plain_line(p.label, NAME_LIMIT), NodeRef("prompt", server, p.name)) for p in catalogs.prompts.items],
            ),
            (
                "Tools",
                [(plain_line(t.label, NAME_LIMIT), NodeRef("tool", server, t.name)) for t in catalogs.tools.items],
            ),
            (
                "Resources",
                [
                    (plain_line(r.name or r.uri, NAME_LIMIT), NodeRef("resource", server, r.uri))
                    for r in catalogs.resources.items
                ],
            ),
            (
                "Templates",
                [
                    (plain_line(t.name or t.uri_template, NAME_LIMIT), NodeRef("template", server, t.uri_template))
                    for t in catalogs.templates.items
                ],
            ),
        ]
        self._sections[server] = sections
        self._catalogs[server] = catalogs
        self._search.pop(server, None)
        self._matches.pop(server, None)
        self._show_sections(server)

    def _matching(self, server: str, narrowing: bool) -> list[list[int]]:
        """Each section's entries (indexes) that contain the filter text, from the last matches when narrowing."""
        texts = self._search.get(server)
        if texts is None:
            texts = self._search[server] = search_texts(server, self._catalogs[server])
        previous = self._matches.get(server) if narrowing else None
        folded = self.filter_text
        matches: list[list[int]] = []
        for number, (_title, items) in enumerate(self._sections[server]):
            candidates = previous[number] if previous is not None else range(len(items))
            matches.append([i for i in candidates if folded in texts.get(items[i][1], "")])
        self._matches[server] = matches
        return matches

    def _show_sections(self, server: str, *, narrowing: bool = False) -> None:
        """Put a server's sections in the tree, as the filter has them, keeping the selection."""
        node = self.server_node(server)
        if node is None:
            return
        selected = self.cursor_node.data if self.cursor_node is not None else None
        stack = list(node.children)
        while stack:
            child = stack.pop()
            self._tails.pop(child.id, None)
            stack.extend(child.children)
        node.remove_children()
        prompts = self._catalogs[server].prompts
        matches = self._matching(server, narrowing) if self.filter_text else None
        for number, (title, items) in enumerate(self._sections[server]):
            total = len(items)
            count = f"{total}"
            if matches is not None:
                items = [items[i] for i in matches[number]]
                count = f"{len(items)} of {total}"
            # A section the server has nothing in is left out; under a filter, "Prompts (0 of N)" says that
            # the server's prompts are there and none matches.
            if total == 0 or (not items and title != "Prompts"):
                continue
            section = node.add(
                Text(f"{title} ({count})", style="bold"),
                data=NodeRef("section", server, title),
                expand=title == "Prompts" or bool(self.filter_text and items),
            )
            for label, ref in items[:LEAF_LIMIT]:
                leaf = section.add_leaf(label, data=ref)
                prompt = prompts.get(ref.name) if ref.kind == "prompt" else None
                if prompt is not None:
                    self._tails[leaf.id] = prompt_tail(prompt)
            if len(items) > LEAF_LIMIT:
                section.add_leaf(Text(f"… {len(items) - LEAF_LIMIT:,} more: filter with ctrl+f", style="dim italic"))
        node.expand()
        if selected is not None:
            # Now, not after the next refresh (one frame instead of two per filter key): asking for a
            # line builds the tree's lines, so the new nodes have a line for the cursor to move to.
            self.get_node_at_line(0)
            self.select_ref(selected, move_only=True)

    def move_to_first_entry(self) -> None:
        """The cursor to the first prompt, tool, resource or template shown (the first match of a filter)."""
        for server in self.root.children:
            for section in server.children:
                leaf = next((n for n in section.children if n.data is not None), None)
                if leaf is not None:
                    section.expand()
                    self.move_cursor(leaf)
                    return

    def find(self, ref: NodeRef) -> TreeNode[NodeRef] | None:
        stack = list(self.root.children)
        while stack:
            node = stack.pop(0)
            if node.data == ref:
                return node
            stack.extend(node.children)
        return None

    def select_ref(self, ref: NodeRef, *, move_only: bool = False) -> bool:
        node = self.find(ref)
        if node is None:
            return False
        if node.parent is not None:
            node.parent.expand()
        self.move_cursor(node)
        if not move_only:
            self.select_node(node)
        return True
