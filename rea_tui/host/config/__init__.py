"""Where servers come from: rea-tui's own config, other clients' configs, inputs and variables."""
