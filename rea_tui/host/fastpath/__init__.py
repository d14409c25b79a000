"""The SDK-less one-shot clients (stdio and HTTP) and the early lists they share."""
