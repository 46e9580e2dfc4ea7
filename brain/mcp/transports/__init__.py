"""How MCP reaches brain: stdio with limits for one agent, and streamable HTTP at /mcp of brain serve."""
