"""Text -> ParsedNote: frontmatter, headings, blocks and wikilinks with exact positions. Pure.

`note` parses a markdown note; the other modules are its parts (anchors, blocks, math spans,
empty links, chunks), the safe loaders of YAML and JSON the whole of brain reads untrusted
files with, and `native`, the Rust twins of the text scanners (the Python code is their
reference). Nothing here reads the file system or knows the graph.
"""
