"""What changed between two moments, from the history: the notes and links a window changed,
the links it broke or fixed elsewhere, the weekly digest, and who may see which."""
