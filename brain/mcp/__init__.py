"""brain over the Model Context Protocol: the memory tool, graph tools, notes and the prompt.

`brain mcp WORKSPACE --agent NAME` serves one agent over stdio (what desktop clients start);
`brain serve` mounts the same server at `/mcp` (streamable HTTP) behind its bearer tokens,
where an agent's token is that agent. Every handler is a thin layer over the services the
other front ends use: `MemoryTool` for the six commands, the store for links and problems,
`MemoryService.prompt` for the `## Your memory` block.

Nothing is imported here, so `brain --help` does not load the MCP SDK: use
`brain.mcp.server.BrainMcp`, `brain.mcp.transports.http.mcp_endpoint`, `brain.mcp.transports.stdio.run_stdio`.
`brain serve` mounts `brain.mcp.transports.deferred.DeferredMcp`, which imports the SDK after its start.
"""
