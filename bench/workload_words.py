"""The words the benchmark workspace is written with (bench/workload.py): names, topics,
sentences and messages, as tuples so the generator's seeded choices stay the same bytes.

Kept apart from the generator so bench/workload.py shows how a workspace is built, not the
vocabulary it draws from.
"""

from __future__ import annotations


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())



TYPES = ("user", "feedback", "project", "reference")

AGENT_NAMES = _words(
    "release-writer support-triage code-reviewer on-call docs-writer data-analyst "
    "security-auditor qa-tester sales-assistant recruiter billing-helper incident-scribe"
)
QUALIFIERS = _words(
    "weekly nightly legacy default staging prod customer internal shared flaky slow urgent "
    "quarterly draft manual async public private regional tokyo eu us mobile web api billing "
    "team enterprise free-tier beta new old known open pending daily"
)
TOPICS = _words(
    "release changelog style glossary tone headline retry backoff queue worker lease schedule "
    "scheduler migration index schema deploy rollback alert dashboard runbook pager rotation "
    "handover incident postmortem ticket macro severity escalation refund tier invoice "
    "pricing contract review checklist test fixture coverage lint typing dependency upgrade "
    "security token audit access backup restore latency throughput capacity budget roadmap "
    "theme customer feedback survey onboarding docs tutorial example api sdk webhook cron "
    "timezone dst region failover replica cache search filter export import quota limit usage "
    "metric log trace naming ownership calendar holiday freeze hotfix patch version tag "
    "branch ci pipeline build artifact bug regression"
)
KINDS = _words(
    "notes rules policy checklist plan faq decisions howto history template guide preferences "
    "facts gotchas ideas summary"
)
MISSING_KINDS = _words("template draft proposal playbook spec retro outline")
HEADINGS = (
    "Context",
    "Decision",
    "Details",
    "Steps",
    "Examples",
    "Open questions",
    "History",
    "Related",
    "Background",
    "Rules",
    "Exceptions",
    "Owners",
    "Timeline",
    "Follow-ups",
    "Checklist",
    "Gotchas",
    "Rationale",
    "Scope",
    "Status",
    "Next steps",
    "Notes",
    "Links",
    "Configuration",
    "Known issues",
    "Metrics",
    "Risks",
    "Résumé",
    "Glossary",
    "Tokyo (東京)",
    "Alternatives",
)
PEOPLE = _words("Maya Tomás Kenji Lena Priya Zoë Arjun Chloé Sven Ama")
VERBS = (
    "fails",
    "slows down",
    "retries",
    "times out",
    "drifts",
    "stalls",
    "recovers",
    "needs review",
    "pages someone",
    "breaks the build",
    "changes shape",
    "goes stale",
)
CONDITIONS = (
    "a deploy lands on a tick",
    "the queue passes five million jobs",
    "DST starts",
    "a lease expires",
    "the replica lags",
    "a customer bursts",
    "the cache is cold",
    "the migration holds a lock",
    "the token rotates",
    "the freeze begins",
    "a webhook returns 500",
    "the nightly run overlaps the backup",
)
SENTENCES = (
    "{p} asked for this on the last release and it still holds.",
    "The {t} {v} when {c}, so check it before anything else.",
    "We tried a different {t} {k} in the spring and went back to this one.",
    "Keep the {t} short; nobody reads past the first screen.",
    "If the {t} {v}, write it down here instead of in the chat.",
    "{p} owns the {t} part and reviews every change to it.",
    "This is a point-in-time note; verify the {t} numbers before quoting them.",
    "The {q} {t} is the exception and it is documented below.",
    "Nothing here is a secret; credentials live in the vault, not in memory.",
    "Most {t} problems trace back to the moment {c}.",
    "Customers notice when the {t} {v}, usually within minutes.",
    "{p} and {p2} disagreed about the {t}; the decision is recorded here.",
    "Update this note with str_replace rather than writing a second one.",
    "The {q} variant behaves the same, except when {c}.",
    "Prefer the {t} {k} over asking again; it was agreed in October.",
    "When in doubt about the {t}, ask {p} before changing anything.",
)
UNICODE_SENTENCES = (
    "Zoë confirmed the café-mode fallback works for the {t} as well.",
    "The 東京 region runs the {t} on its own cluster — ask Kenji.",
    "Chloé's naïve first draft of the {t} is kept for reference.",
    "Tomás wrote the {t} rules; señal means signal in his comments.",
    "Résumé of the {t} discussion: keep it, but make it cheaper 🚀.",
)
LINK_SENTENCES = (
    "See {l} for the background.",
    "This depends on {l}.",
    "{p} pointed to {l} when this came up.",
    "Compare with {l} before changing anything.",
    "The details are in {l}.",
    "Related: {l}.",
    "Follow {l} first, then come back here.",
    "{l} says the opposite for the {q} case.",
)
FEEDBACK_WHY = (
    "the {t} broke for a customer and it took a day to notice",
    "{p} had to redo the {t} by hand twice",
    "reviews got slower every time the {t} was skipped",
    "an outage started with exactly this {t} mistake",
)
FEEDBACK_HOW = (
    "check the {t} before every change and say so in the summary",
    "use the {q} {t} and leave the old one alone",
    "ask {p} when the {t} looks different from this note",
    "keep one {t} per note and link the rest",
)
DESCRIPTIONS = (
    "{Q} {t} {k} — what {p} decided and why",
    "How the {t} works for {q} queues, with the usual gotchas",
    "{P}'s preferences for the {t}, collected from reviews",
    "Known {t} problems and the workaround to give customers",
    "Checklist for the {q} {t} before a release",
    "Who owns the {t} and how to reach them",
    "The {t} {k} as agreed in October 2026",
    "Why the {t} {v} when {c}",
)
LONG_TAIL = (
    " — including the exceptions for enterprise customers, the Tokyo region, and everything"
    " that changed after the October review"
)
CODE_LANGS = ("python", "yaml", "bash", "json", "sql")
MESSAGES = (
    "Can you summarise where the {t} stands?",
    "The {t} {v} again when {c}.",
    "Noted. I will update the {t} {k} and link the work item.",
    "Let's keep the {q} {t} as it is until the next train.",
    "{p} owns that; I'll ask before touching it.",
    "Done — the note is updated.",
)
