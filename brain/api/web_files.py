"""Where the built web UI lives, without importing the web server (starlette, a second's import):
`brain --version` reports whether the UI is present, and editors wait for that answer."""

from __future__ import annotations

import os
from pathlib import Path

# BRAIN_WEB_DIST serves another build of the UI (e.g. one made elsewhere).
WEB_DIST = Path(os.environ.get("BRAIN_WEB_DIST") or Path(__file__).with_name("web_dist"))
