"""Where the reports go: `--format F` alone prints F on stdout (the human text then goes to
stderr, so stdout stays machine-readable); `--output FILE` writes it to FILE instead; `--json FILE`
is `--format json --output FILE` and may come with another format.

A report file is written before the run starts and again on any early exit, so that a file left
by an earlier passing run is never read as this run's result (exit 2 is never a pass).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path

from execlease_hook.core import signals
from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.core.errors import CannotRun
from execlease_hook.formats.names import WRITERS
from execlease_hook.formats.report import Report


class Outputs:
    def __init__(
        self, command: str, fmt: str | None, output: str | None, json_file: str | None
    ) -> None:
        self.command = command
        self.files: list[tuple[str, Path, str]] = []  # (format, path, the option that named it)
        self.stdout: str | None = None
        self.out = sys.stdout  # the real stdout, before the human text is sent to stderr
        if json_file:
            self.files.append(('json', Path(json_file), '--json'))
        if output and not fmt:
            raise CannotRun(f'--output FILE needs --format ({", ".join(WRITERS)})')
        if fmt and fmt != 'text':
            if output:
                self.files.append((fmt, Path(output), '--output'))
            else:
                self.stdout = fmt

    @property
    def wanted(self) -> bool:
        """A report is asked for (a file, or a machine format on stdout): else none is built."""
        return bool(self.files) or self.stdout is not None

    def human_text(self) -> contextlib.AbstractContextManager[object]:
        """Where the human text goes while the command runs: stderr when a machine format owns
        stdout, else stdout as it is."""
        if self.stdout is not None:
            return contextlib.redirect_stdout(sys.stderr)
        return contextlib.nullcontext()

    def fail(self, reason: str, code: int, stdout: bool = True) -> None:
        """Write what stopped the run where the report goes; `stdout`: to a machine format
        owning stdout too."""
        self.finish(Report(self.command, code, None, error=reason), stdout)

    def run(self, body: Callable[[], int]) -> int:
        """The one report-on-failure wrapper of every command with reports (see above): an
        early exit writes CannotRun as exit 2, Ctrl-C or a signal as interrupted (130, 129, 143)."""
        self.fail('the run did not finish', 2, stdout=False)
        try:
            with self.human_text():
                return body()
        except CannotRun as e:
            self.fail(str(e), 2)
            raise
        except KeyboardInterrupt as e:
            self.fail(*signals.interrupted(e))
            raise

    def finish(self, report: Report, stdout: bool = True) -> None:
        for fmt, path, option in self.files:
            try:
                write_text_atomic(path, str(WRITERS[fmt]().render(report)))
            except OSError as e:
                raise CannotRun(
                    f'{option} {path}: cannot write it ({e.strerror or e}); name a file in a '
                    'writable folder'
                ) from None
        if stdout and self.stdout is not None:
            self.out.write(str(WRITERS[self.stdout]().render(report)))
            self.out.flush()
