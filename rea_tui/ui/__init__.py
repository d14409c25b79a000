"""The Textual front end of rea-tui."""

import os

# Textual's 60 fps refresh timer adds up to two frames (17-33 ms) between a completion
# reply and its paint after the app was idle; at 240 fps that wait is 4-8 ms. The timer
# only runs while something needs repainting, so an idle app costs no more. Set before
# Textual is imported; an explicit TEXTUAL_FPS from the environment still wins.
os.environ.setdefault("TEXTUAL_FPS", "240")
