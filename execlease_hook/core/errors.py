from __future__ import annotations


class ExecleaseError(Exception):
    """An expected failure with a message a person can act on."""

    exit_code = 2


class CannotRun(ExecleaseError):
    """Could not run: bad input, missing tools, TLC error. Exit 2, never a pass."""


class CannotRunAny(CannotRun):
    """Could not run, for a reason no model owns (an option naming nothing): the whole run
    stops, where a model's own refusal is that model's exit 2 alone (verify/result.load)."""


def utf8(data: bytes, name: str) -> str:
    """`data` decoded; CannotRun naming the file `name` and the line of the first bad byte."""
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as e:
        line = data.count(b'\n', 0, e.start) + 1
        raise CannotRun(
            f'{name}: not UTF-8 (first bad byte on line {line}); save it as UTF-8'
        ) from None
