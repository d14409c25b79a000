"""The Textual front end of rea-tui."""

import os

# Textual's 60 fps refresh timer adds up to a frame (17-33 ms) between a completion
# reply and its paint after the app was idle; 120 fps halves that wait. Set before
# Textual is imported; an explicit TEXTUAL_FPS from the environment still wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
