"""A suggestion's height is counted without wrapping it when it fits its row: the count must be the wrapped one.

`SuggestionText.get_height` answers 1 for a value no wider than the row; fuzzed here against
Textual's own measure (`Content.get_height`, which wraps the text) for every wrap and overflow rule.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st
from textual.content import Content

from rea_tui.ui.text import LINE_LIMIT, plain_line
from rea_tui.ui.widgets.dropdown import SuggestionText

# Letters, spaces, punctuation, CJK and emoji (two cells each), and what sanitize_line turns into one line.
VALUE_TEXT = st.text(alphabet=st.sampled_from("abcXYZ019 _-./:()[]…éß\t\n" + "調査関数" + "🔍🧪"), max_size=120)


@given(
    value=VALUE_TEXT,
    width=st.integers(min_value=1, max_value=90),
    line_pad=st.integers(min_value=0, max_value=2),
    text_wrap=st.sampled_from(["wrap", "nowrap"]),
    text_overflow=st.sampled_from(["fold", "ellipsis", "clip"]),
)
def test_the_counted_height_is_the_wrapped_height(
    value: str, width: int, line_pad: int, text_wrap: str, text_overflow: str
) -> None:
    assume(width > 2 * line_pad)  # a row with room for text (Textual's own measure fails on less)
    text = plain_line(value, LINE_LIMIT)
    rules: Any = {"line_pad": line_pad, "text_wrap": text_wrap, "text_overflow": text_overflow}
    counted = SuggestionText.from_rich_text(text)
    assert isinstance(counted, SuggestionText)
    assert counted.get_height(rules, width) == Content.from_rich_text(text).get_height(rules, width)


def test_a_value_wider_than_its_row_takes_the_lines_it_wraps_to() -> None:
    long = SuggestionText.from_rich_text(plain_line("-[AttachmentViewController closeTimerCompletion:]", LINE_LIMIT))
    assert long.get_height({}, 20) == 4  # each word folded over two lines
    assert long.get_height({}, 60) == 1
