"""The embedded store: the graph in this process, in columns a snapshot keeps between starts."""
