"""The key that signs the web UI's session mark, kept in the workspace so it outlives a restart.

The mark (session.py) was an HMAC of a secret made when the process started: after a
restart an open page's edits were recorded as `tool` until it was reloaded. The key is now a
file, `.brain/ui-session.key`: 32 random bytes, mode 0600, beside brain's history (whose
writers are the same people). The same workspace served again takes the same key, so the
cookie an open page holds still marks its edits `ui`; another workspace has another key, so
its cookie is not taken here.

The file is a secret: whoever can read it can make the mark (which grants nothing: who may
do what is the token's alone; the mark only says `ui` in the history's origin instead of
`tool`). So it is trusted only as this code made it: a regular file (not a symlink, FIFO or
folder: opened with O_NOFOLLOW and checked on the open descriptor), owned by this user, not
readable or writable by group or others, of exactly 32 bytes. Anything else is refused with
one log line naming the file, and replaced: a new key is written to a temporary file
(O_EXCL, 0600) and renamed over it, so a reader never sees half a key and two servers
starting together end with one key (the loser reads the winner's). A workspace whose
`.brain/` cannot be written (read-only, a replica's mount) keeps a key of this process, as
before, said in one log line.

Rotating: delete the file (or let it be replaced) and restart; every open page is marked
`tool` until reloaded, never the reverse. docs/security.md has the threat model.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
from pathlib import Path

KEY_FILE = "ui-session.key"
KEY_BYTES = 32

logger = logging.getLogger("brain.api.http.ui.key")


def key_path(root: Path) -> Path:
    return Path(root) / ".brain" / KEY_FILE


def workspace_key(root: Path) -> bytes | None:
    """The workspace's UI key: read when it is sound, else made (and the reason logged);
    None when `.brain/` cannot hold one (the caller keeps a key of this process)."""
    path = key_path(root)
    found, why = _read(path)
    if found is not None:
        return found
    if why is not None:
        logger.warning("%s: %s; replacing it with a new key (open web UI pages are marked again "
                       "when reloaded)", path, why)
    try:
        return _make(path)
    except OSError as exc:
        logger.warning("%s: cannot keep the web UI's session key there (%s); using a key of this "
                       "process: after a restart, open pages are marked `ui` again once reloaded",
                       path, exc.strerror or exc)
        return None


def _read(path: Path) -> tuple[bytes | None, str | None]:
    """(key, None) when sound; (None, why) when there but not to be trusted; (None, None) absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None, None
    except OSError as exc:  # ELOOP: a symlink; EACCES; ...
        return None, f"not opened as a plain file ({exc.strerror or exc})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        if st.st_uid != os.geteuid():
            return None, f"owned by uid {st.st_uid}, not by this user ({os.geteuid()})"
        if st.st_mode & 0o077:
            return None, f"readable or writable by others (mode {stat.S_IMODE(st.st_mode):04o}, want 0600)"
        if st.st_size != KEY_BYTES:
            return None, f"{st.st_size} bytes, not {KEY_BYTES}"
        data = os.read(fd, KEY_BYTES + 1)
        if len(data) != KEY_BYTES:
            return None, "changed while read"
        return data, None
    finally:
        os.close(fd)


def _make(path: Path) -> bytes:
    """A new key in place, atomically: written whole to a temporary file, then renamed."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    temporary = path.with_name(f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        if _read(path)[0] is None:  # (another server may have made a sound one meanwhile)
            os.replace(temporary, path)
            return key
    finally:
        temporary.unlink(missing_ok=True)
    found = _read(path)[0]
    return found if found is not None else key


__all__ = ["KEY_BYTES", "KEY_FILE", "key_path", "workspace_key"]
