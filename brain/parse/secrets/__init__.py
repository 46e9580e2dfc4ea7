"""Content that looks like a secret: the scan, the disguises it undoes, and the whole-text view. Pure."""
