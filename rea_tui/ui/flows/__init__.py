"""What the main screen does, one flow per concern: servers, the argument form, tool calls, replay.

A flow does the work (host calls in workers, dialogs) and posts past-tense
messages; the screen's handlers show what happened. A flow never queries the
screen's widgets (tests/ui/test_flow_boundaries.py checks): what it reads back
or waits for, it asks through a protocol of `base.py` the screen provides.
"""
