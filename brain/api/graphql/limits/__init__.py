"""What a GraphQL document may cost, checked before any resolver runs: its size and shape in one
linear pass (cost), the spec's rules off the event loop (validation), and the extensions that
apply both with the argument bounds to each request (extensions)."""
