"""The rules of each seed's memory system (design.md section 8), as pure functions.

Each rule takes what a file says (its path, text or parsed note, and for the dated rules
"today") and returns Problems with the file, the line and a fix. Nothing here reads the disk
or the clock, so the rule tables in tests/unit are exact and the layouts feed them from
ingest, `brain check` and the language server alike.
"""
