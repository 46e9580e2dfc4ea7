"""The web UI's side of the server: its files and page at `/`, and the session mark that tells
the server a request came from it."""
