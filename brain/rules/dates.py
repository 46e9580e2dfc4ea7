"""Dates as the memory systems write them: `YYYY-MM-DD`, in file names and in entries. Pure."""

from __future__ import annotations

import re
from datetime import date

DATE_RE = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
DAILY_NAME_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.md$")


def real_date(year: str, month: str, day: str) -> date | None:
    """The date, or None where it does not exist (`2025-02-30`, `2025-13-01`)."""
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def daily_name_date(filename: str) -> date | None:
    """The date a daily note's file name (`2025-06-01.md`) stands for; None for any other name."""
    match = DAILY_NAME_RE.match(filename)
    return real_date(*match.groups()) if match else None


def looks_dated(filename: str) -> bool:
    """Named like a daily note (`YYYY-MM-DD.md`), whether or not the date exists."""
    return DAILY_NAME_RE.match(filename) is not None


def first_date(text: str) -> tuple[date | None, str | None]:
    """(the first real `YYYY-MM-DD` date in text, the first date-shaped text that is not real)."""
    unreal: str | None = None
    for match in DATE_RE.finditer(text):
        day = real_date(*match.groups())
        if day is not None:
            return day, None
        unreal = unreal or match.group(0)
    return None, unreal
