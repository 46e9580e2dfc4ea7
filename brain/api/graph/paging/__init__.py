"""Forward pages of every list that grows with the workspace: opaque cursors and page info
(cursors), a node's links, backlinks and problems (links), its headings and smaller lists (lists)."""
