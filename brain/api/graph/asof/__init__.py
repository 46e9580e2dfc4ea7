"""GraphQL's `asOf: DateTime`: the graph at a moment for a field and everything under it
(moments), and the answers the kept counts give without building the moment (counted)."""
