"""Scraping a real server's `/metrics` and reading it with prometheus_client's own parser."""

from __future__ import annotations

from collections import Counter

import httpx
from prometheus_client.parser import text_string_to_metric_families

Series = tuple[str, frozenset[tuple[str, str]]]


def scrape(base: str, token: str | None = None) -> dict[Series, float]:
    """Every sample of `/metrics`: (sample name, labels) -> value."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.get(f"{base}/metrics", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: dict[Series, float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: dict[Series, float], after: dict[Series, float], *suffixes: str) -> Counter[Series]:
    """The samples of the given kinds (`_total`, `_count`) that changed, by how much."""
    out: Counter[Series] = Counter()
    for key in before.keys() | after.keys():
        if key[0].endswith(suffixes):
            delta = after.get(key, 0.0) - before.get(key, 0.0)
            if delta:
                out[key] = delta
    return out


def series(name: str, **labels: str) -> Series:
    return (name, frozenset(labels.items()))
