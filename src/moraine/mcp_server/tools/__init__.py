"""One module per MCP tool; each exposes NAME, DESCRIPTION, INPUT_SCHEMA and `run`."""
