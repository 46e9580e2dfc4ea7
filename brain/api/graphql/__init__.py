"""GraphQL plumbing: the schema assembled from parts, the endpoint and what each resolver gets.

Also the limits on a document (size, depth, cost), checked before any resolver runs.
"""
