"""The graph as GraphQL types: nodes, links, paged connections, problems and whole-graph reports.

Thin over the store: every list that grows with the workspace is paged here.
"""
