"""Where the built web UI lives, without importing the web server (starlette, a second's import):
`brain --version` reports whether the UI is present, and editors wait for that answer."""

from __future__ import annotations

import os
from pathlib import Path

#: The build installed with brain (the wheel's package data; `make web` in the repository).
INSTALLED = Path(__file__).with_name("web_dist")


def web_dist() -> Path:
    """The UI's built files: `[serve] web_dist` (BRAIN_WEB_DIST, e.g. a build made elsewhere),
    else the installed one. Read when asked, so the operator's file reaches it too."""
    return Path(os.environ.get("BRAIN_WEB_DIST") or INSTALLED)
