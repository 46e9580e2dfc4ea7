"""Changes the editor applies: renames of notes and block ids.

Each is one WorkspaceEdit that touches only the part of a link it means to.
"""
