"""The language server (pygls): handlers over pure analysis functions."""
