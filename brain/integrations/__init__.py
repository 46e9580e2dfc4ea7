"""brain as the memory backend of agent frameworks, in code (MCP needs no code: brain.mcp).

`brain.integrations.anthropic`: the Anthropic SDK's memory tool (`pip install 'brain-memory[anthropic]'`).
"""
