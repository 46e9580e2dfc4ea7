"""The hostile corpus: small files checked in under corpus/, big ones generated here.

Each case is a file name (where in a workspace it goes) and its bytes. The generated ones are
what a few hundred bytes of an attacker's input can turn into, or what a careless tool
writes: deep nesting, many keys, very long lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass(frozen=True, slots=True)
class Case:
    name: str  # a short id for the test report
    rel: str  # where it goes in a workspace
    data: bytes
    code: str | None = None  # the problem `brain check` must report on it (None: none)


def checked_in(name: str) -> bytes:
    return (CORPUS / name).read_bytes()


def deep_json(depth: int = 100_000) -> bytes:
    return b"[" * depth + b"]" * depth


def deep_json_object(depth: int = 50_000) -> bytes:
    return b'{"title": "x", "a": ' + b'{"a": ' * depth + b"1" + b"}" * depth + b"}"


def deep_yaml(depth: int = 50_000) -> bytes:
    return b"title: x\nv: " + b"[" * depth + b"]" * depth + b"\n"


def many_keys_frontmatter(count: int = 30_000) -> bytes:
    """30,000 keys: 750 KB, past the frontmatter budget (256 KiB), within a note's (1 MiB)."""
    keys = "".join(f"key{i:06d}: value {i}\n" for i in range(count))
    return f"---\ndescription: many keys\n{keys}---\nbody\n".encode()


def huge_line_note(size: int = 1_000_000) -> bytes:
    """One line of `size` bytes of words with a link at its end: columns past a million (a
    longer one is past the note budget of 1 MiB, the case `over-note-budget`)."""
    return b"---\ndescription: one long line\n---\n" + b"word " * (size // 5) + b"[[fine]]\n"


def deep_frontmatter(depth: int = 50_000) -> bytes:
    return b"---\ndescription: deep\nv: " + b"[" * depth + b"]" * depth + b"\n---\nbody\n"


def check_cases() -> list[Case]:
    """Files `brain check` must report (one problem on that file) within budget."""
    fm, content = "invalid-frontmatter", "invalid-content"
    laughs, laughs_yaml = checked_in("billion-laughs.md"), checked_in("billion-laughs.yaml")
    return [
        Case("billion-laughs-note", "memory/shared/lol.md", laughs, fm),
        Case("alias-bomb-mappings", "memory/shared/maps.md", checked_in("alias-bomb-mappings.md"), fm),
        Case("billion-laughs-workflow", "workflows/lol.yaml", laughs_yaml, content),
        Case("billion-laughs-work-item", "work-items/lol.yml", laughs_yaml, content),
        Case("billion-laughs-workflow-md", "workflows/lol.md", laughs, content),
        Case("billion-laughs-agent", "agents/lol.md", laughs, fm),
        Case("deep-json-workflow", "workflows/deep.json", deep_json(), content),
        Case("deep-json-chat", "chats/deep.json", deep_json_object(), content),
        Case("deep-jsonl-chat", "chats/deep.jsonl", deep_json() + b"\n", content),
        Case("deep-json-work-item", "work-items/deep.json", deep_json(), content),
        Case("deep-yaml-workflow", "workflows/deep.yaml", deep_yaml(), content),
        Case("deep-frontmatter", "memory/shared/deep.md", deep_frontmatter(), fm),
        Case("many-keys", "memory/shared/keys.md", many_keys_frontmatter(), fm),
        Case("many-keys-in-budget", "memory/shared/keys.md", many_keys_frontmatter(9_000)),
        Case("many-setext-headings", "memory/shared/headings.md", many_setext_headings()),
        Case("huge-line", "memory/shared/line.md", huge_line_note()),
        # The secret scan on texts made to make it slow: a pattern whose start recurs in a
        # run it scans to the end was quadratic (`a-a-…` for the URL password's scheme).
        *(Case(f"secret-scan-{name}", f"memory/shared/{name}.md", secret_scan_bait(unit))
          for name, unit in SECRET_SCAN_BAIT.items()),
        Case("over-note-budget", "memory/shared/line.md", huge_line_note(4_000_000), "too-large"),
    ]


# Fences as `...`: a `---` under a line is a setext heading, which is a parser case.
SECRET_SCAN_BAIT = {
    "scheme-runs": b"a-", "jwt-runs": b"-eyJa", "comments": b"<!--", "tags": b"<a ",
    "spaced": b"a ", "split-lines": b"ab\n", "markup": b"a*", "fences": b"ab\n...\n",
    "keyword-runs": b"x_password-", "url-runs": b"a://b:c",
}


def secret_scan_bait(unit: bytes, size: int = 1_000_000) -> bytes:
    """A note of `size` bytes of `unit` over and over: no secret, and no problem."""
    return b"---\ndescription: bait\n---\n" + unit * (size // len(unit)) + b"\n"


def many_setext_headings(count: int = 10_000) -> bytes:
    return b"---\ndescription: headings\n---\n" + b"".join(b"T%d\n===\n\n" % i for i in range(count))
