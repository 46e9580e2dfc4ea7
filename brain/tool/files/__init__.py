"""The files under the tool: confined atomic operations, allowed names and virtual paths.

Also what a note may hold, and the other files a change depends on.
"""
