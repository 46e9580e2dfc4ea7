"""One memory-tool call: its arguments and the six commands.

A refused call names the call that would have worked.
"""
