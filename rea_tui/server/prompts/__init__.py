"""The guided investigation prompts."""
