"""What the main screen does, one flow per concern: servers, the argument form, tool calls, replay.

A flow does the work (host calls in workers, dialogs) and posts past-tense
messages; the screen's handlers show what happened.
"""
