"""What the editor asks: completion, hover, navigation, diagnostics and code actions.

Pure functions of the graph and the text; the handlers in brain/lsp/handlers.py are thin over them.
"""
