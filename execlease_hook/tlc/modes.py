"""What TLC prints in the deep tier's runs (verify/deep.py), beside tlc/output.py's verdicts: its
progress reports, followed while a job runs, and the end of a random simulation.

TLC reports progress in model checking (message 2200, about once a minute) and in simulation
(2209): `Progress(D) at TIME: G states generated (R s/min), N distinct states found (R ds/min), Q
states left on queue.` (simulation: -1 for the counts it does not keep). A simulation that finds
nothing exits 0 with a last 2209 report and 2186 ("Finished in ..."), never with model
checking's "No error has been found": the number of behaviours it drew is all it covered.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.tlc.messages import (
    FINISHED,
    PROGRESS,
    SIMULATION_PROGRESS,
    VIOLATION_CODES,
    progress_counts,
)
from execlease_hook.tlc.output import EXIT_OK, Verdict, classify, last_lines, parse_messages


@dataclass(frozen=True)
class Progress:
    depth: int | None
    generated: int
    distinct: int | None  # None in simulation (TLC keeps no set of states)
    queue: int | None

    def describe(self) -> str:
        if self.distinct is None:
            return f'{self.generated:,} states generated'
        return (
            f'{self.distinct:,} distinct states found, {self.generated:,} generated, '
            f'{self.queue or 0:,} left on the queue, depth {self.depth}'
        )


def reports(output: bytes) -> list[Progress]:
    found = []
    for m in parse_messages(output):
        if (
            m.code in (PROGRESS, SIMULATION_PROGRESS)
            and (counts := progress_counts(m.text)) is not None
        ):
            found.append(Progress(*counts))
    return found


def last(output: bytes) -> Progress | None:
    found = reports(output)
    return found[-1] if found else None


@contextlib.contextmanager
def following(
    path: Path, report: Callable[[Progress, float], None] | None, every: float = 1.0
) -> Iterator[None]:
    """While the block runs, read TLC's output file `path` as it grows and pass each new
    progress report to `report`, with the seconds since the block began (None: do nothing)."""
    if report is None:
        yield
        return
    stop = threading.Event()
    seen = 0
    started = time.monotonic()

    def poll() -> None:
        nonlocal seen
        try:
            found = reports(path.read_bytes())
        except OSError:
            return
        for p in found[seen:]:
            report(p, time.monotonic() - started)
        seen = len(found)

    def loop() -> None:
        while not stop.wait(every):
            poll()

    thread = threading.Thread(target=loop, name='tlc-progress', daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def classify_simulation(
    exit_code: int, output: bytes, seconds: float, config_text: str = ''
) -> Verdict:
    """A simulation's verdict: a violation is read as in model checking; exit 0 is a pass of the
    behaviours drawn (`states`: the states generated), with TLC's end message and a count."""
    if exit_code != EXIT_OK:
        verdict = classify(exit_code, output, seconds, config_text)
        found = last(output)
        if found is not None and verdict.states is None:
            verdict = dataclasses.replace(verdict, states=found.generated)
        return verdict
    messages = parse_messages(output)
    tail = last_lines(output)
    if any(m.code in VIOLATION_CODES for m in messages):
        return Verdict(
            'error',
            seconds,
            exit_code,
            reason='TLC exited 0 but reported a violation',
            last_lines=tail,
        )
    found = last(output)
    if found is None or not any(m.code == FINISHED for m in messages):
        return Verdict(
            'error',
            seconds,
            exit_code,
            reason='TLC exited 0 without its simulation progress and "Finished" messages',
            last_lines=tail,
        )
    return Verdict('passed', seconds, exit_code, states=found.generated)
