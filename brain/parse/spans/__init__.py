"""Spans of a markdown body that change what a link means: anchors, block ids, math, empty links. Pure."""
