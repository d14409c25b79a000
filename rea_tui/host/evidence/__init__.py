"""Evidence: results kept beside the workflow, the analyst's notes, and acting on a row."""
