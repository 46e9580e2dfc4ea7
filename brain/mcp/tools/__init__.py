"""The tools brain offers over MCP beside the memory tool: graph reads, search, the layouts' verbs, and their schemas."""
