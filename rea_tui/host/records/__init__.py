"""Transcripts, reports and replay."""
