"""The live progress of running TLC jobs, on stderr (stdout may carry a machine format).

On a terminal: one line per running job, redrawn every second in place (the elapsed time ticks
even while TLC is silent between its progress messages), each cut to the terminal's width so
that redrawing never leaves wrapped pieces behind. Not a terminal (a CI log, a pipe): a job
that has run for EXECLEASE_PROGRESS_SECONDS (10) gets one plain line, then at most one per that
many seconds, and a job that got one and has moved on since (a phase, a count) gets one more as
it ends: a check that ends between two lines would otherwise never show a log its last counts.
`-q` shows none (the caller makes no Live). A line that must stay (a job that ended) goes
through `print`, which clears the live lines first and draws them again after it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from execlease_hook.core import term
from execlease_hook.tlc.progress import JobProgress

_CLEAR_LINE = '\r\033[K'
_UP = '\033[A'


class Live:
    def __init__(
        self,
        every: float,
        stream: TextIO | None = None,
        terminal: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        ticking: bool = True,
    ) -> None:
        """`every`: seconds between two plain lines of a job (EXECLEASE_PROGRESS_SECONDS).
        `clock` and `ticking`: a test drives the time and the ticks itself (`tick`) instead
        of a thread that ticks every second."""
        self.stream = sys.stderr if stream is None else stream
        self.terminal = term.is_terminal(self.stream) if terminal is None else terminal
        self.every = every
        self._jobs: list[JobProgress] = []
        # id(job) -> when its last plain line went out, and the phase and count that line showed
        self._last_plain: dict[int, tuple[float, str, int | None]] = {}
        self._drawn = 0  # live lines on the screen now
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._clock = clock
        self._ticking = ticking

    # The jobs' side (each TLC job runs in a thread of its own).
    def start(self, label: str) -> JobProgress:
        job = JobProgress(label, self._clock())
        with self._lock:
            self._jobs.append(job)
            if self._ticking and self._ticker is None:
                self._ticker = threading.Thread(target=self._tick, name='progress', daemon=True)
                self._ticker.start()
        return job

    def finish(self, job: JobProgress) -> None:
        with self._lock:
            self._erase()
            if job in self._jobs:
                self._jobs.remove(job)
            last = self._last_plain.pop(id(job), None)
            if last is not None and last[1:] != (job.phase, job.distinct):
                self._write_plain(job, self._clock())  # its last counts, in the log too
            self._draw()

    @contextmanager
    def showing(self, label: str) -> Iterator[JobProgress]:
        """A job's line while the block runs it, finished however the block ends."""
        job = self.start(label)
        try:
            yield job
        finally:
            self.finish(job)

    def print(self, line: str) -> None:
        with self._lock:
            self._erase()
            self.stream.write(line + '\n')
            self._draw()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            self._erase()
            self._jobs.clear()

    def tick(self) -> None:
        """Redraw the live lines, or write the plain lines that are due (the ticker's work)."""
        with self._lock:
            if self.terminal:
                self._erase()
                self._draw()
            else:
                self._plain(self._clock())

    # Drawing (always under the lock).
    def _tick(self) -> None:
        while not self._stop.wait(1.0 if self.terminal else min(1.0, self.every)):
            self.tick()

    def _draw(self) -> None:
        if not self.terminal or not self._jobs:
            return
        # A line of exactly the width would wrap on some terminals.
        now, width = self._clock(), term.width(self.stream) - 1
        lines = ['  ' + job.describe(now) for job in self._jobs]
        self.stream.write('\n'.join(line[:width] for line in lines))
        self.stream.flush()
        self._drawn = len(lines)

    def _erase(self) -> None:
        if not self._drawn:
            return
        self.stream.write(_CLEAR_LINE + (_UP + _CLEAR_LINE) * (self._drawn - 1))
        self._drawn = 0

    def _plain(self, now: float) -> None:
        for job in self._jobs:
            last = self._last_plain.get(id(job))
            if now - (job.started if last is None else last[0]) >= self.every:
                self._write_plain(job, now)
                self._last_plain[id(job)] = (now, job.phase, job.distinct)
        self.stream.flush()

    def _write_plain(self, job: JobProgress, now: float) -> None:
        self.stream.write(term.wrap('  ' + job.describe(now), term.width(self.stream)) + '\n')
        self.stream.flush()
