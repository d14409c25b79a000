"""The Textual front end of rea-tui: the app, the main screen and its flows, widgets and dialogs."""
