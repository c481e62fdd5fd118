from __future__ import annotations


class ExecleaseError(Exception):
    """An expected failure with a message a person can act on."""

    exit_code = 2


class CannotRun(ExecleaseError):
    """Could not run: bad input, missing tools, TLC error. Exit 2, never a pass."""

    exit_code = 2


class DidNotHold(ExecleaseError):
    """Ran, and something the suite promises did not hold. Exit 1."""

    exit_code = 1
