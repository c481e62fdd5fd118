"""The terminal: prose wrapped to its width, colour only where a person sees it, and a closed
stdout (`execlease guard | head -1`) that ends the command quietly with its own exit code.

Kept free of heavy imports: the guard imports it on every commit.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable
from typing import TextIO

DEFAULT_WIDTH = 80  # when the output is not a terminal and COLUMNS is not set
MIN_WIDTH = 40

_COLOURS = {'red': '31', 'green': '32', 'yellow': '33', 'bold': '1'}
_MARKER = re.compile(r'(\d+\. |[-*] |(?:DID NOT HOLD|COULD NOT RUN|note|[\w.-]+): )')


def width(stream: TextIO | None = None) -> int:
    """COLUMNS if set, else the terminal's width, else 80 (a pipe, a file, a CI log)."""
    text = os.environ.get('COLUMNS', '')
    if text.isdigit() and int(text) > 0:
        return max(MIN_WIDTH, int(text))
    stream = sys.stdout if stream is None else stream
    with contextlib.suppress(AttributeError, ValueError, OSError):
        if stream.isatty():
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns)
    return DEFAULT_WIDTH


def _hang(body: str) -> int:
    marker = _MARKER.match(body)
    return len(marker.group(1)) if marker and len(marker.group(1)) <= 16 else 2


def _paragraphs(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """(verbatim?, lines): a diff (from an indented '--- ' header to the first line that is not
    indented) is verbatim; a line and the lines under its hanging indent form one paragraph."""
    out: list[tuple[bool, list[str]]] = []
    in_diff = False
    for line in lines:
        # A unified diff inside a message: from its indented '--- ' header on, while indented.
        in_diff = line.startswith('  ') and (in_diff or line.lstrip(' ').startswith('--- '))
        if in_diff:
            out.append((True, [line]))
            continue
        body = line.lstrip(' ')
        indent = len(line) - len(body)
        if out and not out[-1][0] and body and not _MARKER.match(body):
            first = out[-1][1][0]
            first_body = first.lstrip(' ')
            if _MARKER.match(first_body) and indent == len(first) - len(first_body) + _hang(
                first_body
            ):
                out[-1][1].append(line)
                continue
        out.append((False, [line]))
    return out


def wrap(text: str, columns: int | None = None) -> str:
    """Re-wrap every paragraph with a line longer than `columns`, keeping its indentation and
    hanging the continuation under the text after a list marker ('1. ') or a label ('note: ').
    Diffs and words longer than the width (a path, a hash) are left whole: breaking them would
    make them wrong."""
    limit = columns or width()
    out: list[str] = []
    for verbatim, lines in _paragraphs(text.split('\n')):
        if verbatim or all(len(line) <= limit for line in lines):
            out.extend(lines)
            continue
        # Lazy: only a line too long for the terminal needs it. textwrap's import (its regular
        # expressions compiled) cost `execlease guard` with nothing concerned 4.7 M instructions
        # of callgrind (`python -c pass`: 88 M).
        import textwrap

        body = ' '.join(line.strip(' ') for line in lines)
        indent = lines[0][: len(lines[0]) - len(lines[0].lstrip(' '))]
        out.extend(
            textwrap.wrap(
                body,
                limit,
                initial_indent=indent,
                subsequent_indent=indent + ' ' * _hang(body),
                break_long_words=False,
                break_on_hyphens=False,
            )
            or lines
        )
    return '\n'.join(out)


def to_stderr(text: str) -> None:
    print(wrap(text, width(sys.stderr)), file=sys.stderr)


def is_terminal(stream: TextIO) -> bool:
    """False too for a stream without isatty, or closed."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def paint(text: str, colour: str, stream: TextIO | None = None) -> str:
    """Coloured on a terminal only, and never with NO_COLOR set (to anything but empty) or
    TERM=dumb."""
    if os.environ.get('NO_COLOR') or os.environ.get('TERM') == 'dumb':
        return text
    if not is_terminal(sys.stdout if stream is None else stream):
        return text
    return f'\033[{_COLOURS[colour]}m{text}\033[0m'


class QuietPipe:
    """Stands in for sys.stdout. Once the reader has gone (`| head -1`), further output is
    dropped instead of raising BrokenPipeError, so the command finishes and exits with its own
    code; fd 1 is pointed at /dev/null so that Python's final flush at exit is silent too."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.reader_gone = False

    def _unless_gone(self, call: Callable[[], object]) -> None:
        if self.reader_gone:
            return
        try:
            call()
        except BrokenPipeError:
            self.reader_gone = True
            with contextlib.suppress(OSError, AttributeError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(devnull, self.stream.fileno())
                finally:
                    os.close(devnull)

    def write(self, text: str) -> int:
        self._unless_gone(lambda: self.stream.write(text))
        return len(text)

    def flush(self) -> None:
        self._unless_gone(self.stream.flush)

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)
