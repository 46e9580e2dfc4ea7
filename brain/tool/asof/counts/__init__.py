"""The kept counts of every moment: the graph's stats, each scope's health and the problems by
code after every recorded change, so a count as of t is a lookup, not a build."""
