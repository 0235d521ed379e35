"""Moraine: local search over AI coding-agent history, served to agents over MCP."""

__version__ = "0.1.0"
