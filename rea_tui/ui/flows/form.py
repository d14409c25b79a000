"""The argument form: showing a prompt's (or template's) fields, live completion, and rendering."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.screen import Screen
from textual.widget import Widget

from rea_tui.ui.flows.base import Flow
from rea_tui.ui.frame_hold import FrameHold
from rea_tui.ui.messages import NodeRef, PromptRendered, ResourceLinkOpened
from rea_tui.ui.text import join, plain, plain_line
from rea_tui.ui.widgets.argument_form import ArgumentField, ArgumentForm, ArgumentInput, FieldSpec

if TYPE_CHECKING:
    from rea_tui.host import (
        CompletionFailure,
        CompletionPage,
        FormTarget,
        HostedServer,
        Prompt,
        ResourceTemplate,
        Session,
    )

RENDER_GROUP = "render"
HEADING_LIMIT = 100
TEMPLATE_HEADING_LIMIT = 200
REJECTION_LIMIT = 500
FAILURE_LIMIT = 2_000
# How long a keystroke's frame waits for its suggestions: the reference server answers a
# 100,000-procedure completion, and the dropdown is filled, in about 7 ms; a frame is 16.7 ms at 60 Hz.
SAME_FRAME_WAIT = 0.010


def prompt_fields(prompt: Prompt) -> list[FieldSpec]:
    return [FieldSpec(a.name, a.label, a.description, a.required) for a in prompt.arguments]


def prompt_heading(prompt: Prompt) -> Text:
    heading = join(Text("Prompt  ", style="dim"), plain_line(prompt.label, HEADING_LIMIT, style="bold"))
    if prompt.title:
        heading.append_text(plain_line(f"  ({prompt.name})", HEADING_LIMIT, style="dim"))
    return heading


class FormFlow(Flow):
    def __init__(self, screen: Screen[Any], session: Session) -> None:
        super().__init__(screen, session)
        self._form: ArgumentForm | None = None
        self._frame = FrameHold(screen, SAME_FRAME_WAIT, self._hide_stale_values)

    @property
    def form(self) -> ArgumentForm:
        assert self._form is not None, "the form flow is attached on mount"
        return self._form

    def attach(self, form: ArgumentForm) -> None:
        self._form = form
        form.on_edit = self.edited

    # ------------------------------------------------------------ showing a form

    async def select(self, ref: NodeRef) -> bool:
        """Show the prompt's or template's form; False when the server no longer offers it."""
        hosted = self.session.browsable(ref.server)
        if hosted is None:
            return False
        if ref.kind == "prompt":
            prompt = hosted.catalogs.prompts.get(ref.name)
            if prompt is None:
                return False
            self.session.recorder.prompt_selected(ref.server, prompt.name)
            await self.show_prompt(ref.server, prompt)
            return True
        template = hosted.catalogs.templates.get(ref.name)
        if template is None:
            return False
        await self.show_template(ref.server, template)
        return True

    async def show_prompt(self, server: str, prompt: Prompt) -> None:
        from rea_tui.host import FormTarget

        target = FormTarget("prompt", server, prompt.name)
        await self.form.show(
            target,
            prompt_heading(prompt),
            prompt.description,
            prompt_fields(prompt),
            self.session.forms.of(target),
            "Render  ctrl+r",
        )

    async def show_template(self, server: str, template: ResourceTemplate) -> None:
        from rea_tui.host import FormTarget

        heading = join(
            Text("Resource template  ", style="dim"),
            plain_line(template.uri_template, TEMPLATE_HEADING_LIMIT, style="bold"),
        )
        specs = [FieldSpec(v, v, "", True) for v in template.variables]
        target = FormTarget("template", server, template.uri_template)
        await self.form.show(
            target, heading, template.description, specs, self.session.forms.of(target), "Read  ctrl+r"
        )

    async def definitions_changed(self, server: str) -> None:
        """After a list change, keep the selected prompt (and what was typed) if it still exists.

        A REA server announces its target's opening with a prompt list change: a dropdown that
        said "still opening" asks again.
        """
        target = self.form.target
        if target is None or target.server != server or target.kind != "prompt":
            return
        focused = self.screen.focused
        if isinstance(focused, ArgumentInput) and focused.field.dropdown.is_open:
            self.request_completion(focused.field)
        hosted = self.session.hosted(server)
        prompt = hosted.catalogs.prompts.get(target.name) if hosted is not None else None
        if prompt is None:
            self.form.set_message(Text("This prompt is no longer offered by the server.", style="yellow"))
        elif [f.spec for f in self.form.fields] != prompt_fields(prompt):
            await self.show_prompt(server, prompt)
        else:
            # The same fields, and what was typed in them, stay; what the server says of the prompt may not
            # (a REA server's description names its target, which was still opening).
            self.form.set_heading(prompt_heading(prompt), prompt.description)

    # ------------------------------------------------------------ completion

    def _completion_target(self) -> tuple[HostedServer, Any] | None:
        from rea_tui.host import CompletionRef

        target = self.form.target
        if target is None:
            return None
        hosted = self.session.browsable(target.server)
        if hosted is None or not hosted.completions.supported:
            return None
        return hosted, CompletionRef("prompt" if target.kind == "prompt" else "template", target.name)

    def request_completion(self, field: ArgumentField, *, hold_frame: bool = False) -> None:
        """Ask for the field's suggestions; with `hold_frame` (a keystroke), its frame waits for them (briefly)
        and the request goes out first."""
        from rea_tui.host import context_for

        found = self._completion_target()
        if found is None:
            return
        hosted, ref = found
        if hold_frame:
            self._frame.hold()
        value = field.value
        if not field.dropdown.is_open:
            self.form.make_room_for(field)
        # While the frame is held, the old values are hidden only if that frame comes before the answer.
        field.dropdown.expect(value, hide_stale=not self._frame.held)

        def deliver(page: CompletionPage | CompletionFailure) -> None:
            from rea_tui.host import CompletionPage

            try:
                if not field.is_attached:
                    return
                if isinstance(page, CompletionPage):
                    shown = field.dropdown.show_page(page, field.value)
                    if shown and field.input.has_focus:
                        field.input.show_ghost(field.dropdown.highlighted_value())
                else:
                    shown = field.dropdown.show_failure(page, field.value)
                if shown:
                    # Sized to the page now: keep it inside the pane.
                    self.form.make_room_for(field)
            finally:
                self._frame.release()

        hosted.completions.submit(
            ref, field.spec.name, value, context_for(field.spec.name, self.form.values()), deliver
        )

    def _hide_stale_values(self) -> None:
        """Before a held frame: no dropdown may show values that answer another value than its field's."""
        if self._form is not None:
            for field in self._form.fields:
                field.dropdown.hide_stale()

    def edited(self, field: ArgumentField) -> None:
        """Called by the field's input as soon as its value changes (not via a bubbled message: latency)."""
        target = self.form.target
        if target is not None:
            self.session.forms.of(target)[field.spec.name] = field.value
        field.set_error(None)
        if field.input.has_focus:
            self.request_completion(field, hold_frame=True)

    def focus_changed(self, widget: Widget) -> None:
        for other in self.form.fields:
            if other.dropdown.is_open and (not isinstance(widget, ArgumentInput) or widget.field is not other):
                other.dropdown.close()
        if isinstance(widget, ArgumentInput):
            self.request_completion(widget.field)

    def accept(self, field: ArgumentField, value: str) -> None:
        """A suggestion chosen: it only fills the field (no new request, nothing runs)."""
        from rea_tui.host import sanitize

        field.dropdown.close()
        with field.input.accepting():
            field.input.value = sanitize(value, None)
            field.input.cursor_position = len(field.input.value)
        # Filled: a tab from here moves on rather than filling the field again.
        field.input.engaged = False
        target = self.form.target
        if target is not None:
            self.session.forms.of(target)[field.spec.name] = field.input.value
            self.session.recorder.completion_accepted(target.server, target.name, field.spec.name, field.input.value)
        field.set_error(None)

    # ------------------------------------------------------------ rendering

    def render(self) -> None:
        form = self.form
        target = form.target
        if target is None:
            return
        for argument in form.fields:
            argument.dropdown.close()
            argument.set_error(None)
        missing = form.missing_required()
        if missing:
            for argument in missing:
                argument.set_error("required")
            names = ", ".join(f.spec.name for f in missing)
            form.set_message(
                join(Text("Fill the required field(s): ", style="red"), plain_line(names, REJECTION_LIMIT))
            )
            missing[0].input.focus()
            return
        form.set_message(None)
        values = form.values()
        if target.kind == "prompt":
            self.run_job(self._render(target, values), RENDER_GROUP, exclusive=True)
            return
        hosted = self.session.browsable(target.server)
        template = hosted.catalogs.templates.get(target.name) if hosted is not None else None
        if template is not None:
            self.screen.post_message(ResourceLinkOpened(target.server, template.expand(values)))

    async def _render(self, target: FormTarget, values: dict[str, str]) -> None:
        from rea_tui.host import HostError, ProtocolError

        form = self.form
        form.set_message(Text("rendering…", style="dim"))
        try:
            workflow = await self.session.render_prompt(target.server, target.name, values)
        except ProtocolError as exc:
            self._mark_fields(exc)
            form.set_message(
                join(Text("The server rejected the arguments: ", style="red"), plain(str(exc), REJECTION_LIMIT))
            )
            return
        except HostError as exc:
            form.set_message(join(Text("Render failed: ", style="red"), plain(exc.describe(), FAILURE_LIMIT)))
            return
        if form.target != target:
            return  # the analyst moved on while this rendered
        form.set_message(None)
        self.screen.post_message(PromptRendered(target.server, workflow))

    def render_failed(self, error: BaseException) -> None:
        self.form.set_message(
            join(
                Text("Render failed: ", style="red"),
                plain(f"unexpected error: {type(error).__name__}: {error}", FAILURE_LIMIT),
            )
        )

    def _mark_fields(self, error: Any) -> None:
        """Put each field diagnostic the server sent under the field it names."""
        form = self.form
        names = [f.spec.name for f in form.fields]
        first: ArgumentField | None = None
        for diagnostic in getattr(error, "fields", []):
            path = diagnostic.field.replace("/", ".").split(".")
            match = next((part for part in reversed(path) if part in names), None)
            field = form.field(match) if match else None
            if field is not None:
                field.set_error(diagnostic.message)
                first = first or field
        if first is not None:
            first.input.focus()
