"""The MCP surface: contract helpers, one module per tool, and the SDK wiring."""
