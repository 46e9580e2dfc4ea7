"""The HTTP server: the starlette app and `brain serve`.

Also what stands at the door of every route: tokens, body caps and the cross-site refusal.
"""
