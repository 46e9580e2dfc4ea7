"""The deterministic pass's finders: what each looks for in a graph Snapshot, and their registry."""
