"""The checked-in SDL is what `brain schema` prints: a test fails when the two drift apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.api.graphql.schema import schema_sdl
from brain.cli.main import main

SDL = Path(__file__).resolve().parents[2] / "schema" / "brain.graphql"


def test_checked_in_schema_matches_the_code() -> None:
    assert SDL.read_text(encoding="utf-8") == schema_sdl() + "\n", (
        "schema/brain.graphql is out of date: run `brain schema > schema/brain.graphql` "
        "and review the diff (it is the API's contract)"
    )


def test_brain_schema_prints_the_sdl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    printed = capsys.readouterr().out
    assert printed == SDL.read_text(encoding="utf-8")
    assert "type Query {" in printed
    assert "type Subscription {" in printed
