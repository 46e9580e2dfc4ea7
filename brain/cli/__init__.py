"""The `brain` command: argument parsing (`main`), what each command does (`commands`), and
the reports of `brain check` (`check`, and `check_store` for `--store neo4j`).

`program` is the console script's entry point (pyproject.toml), so it is named here.
"""

from brain.cli.main import main, program

__all__ = ["main", "program"]
