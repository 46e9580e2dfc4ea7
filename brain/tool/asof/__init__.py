"""The graph at a moment (issue 44, item 2): notes, links and problems as they were at t."""
