from __future__ import annotations

import time
from pathlib import Path

import pytest

from execlease_hook.core import procs
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc.job import TlcJob, run_job
from execlease_hook.tlc.progress import Follower, JobProgress, last
from tests import needs

SLOW = Path(__file__).parents[1] / 'fixtures' / 'progress'

# What TLC 2.15 prints with -tool (abridged), and the line the job shows after each piece.
TRANSCRIPT: tuple[tuple[list[str], str], ...] = (
    ([], 'check main: 0 s, starting Java'),
    (
        [
            '@!@!@STARTMSG 2262:0 @!@!@',
            'TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)',
            '@!@!@ENDMSG 2262 @!@!@',
            '@!@!@STARTMSG 2220:0 @!@!@',
            'Starting SANY...',
        ],
        'check main: 0 s, parsing the spec',
    ),
    (
        [
            '@!@!@ENDMSG 2220 @!@!@',
            'Parsing file /tmp/x/Slow.tla',
            '@!@!@STARTMSG 2189:0 @!@!@',
            'Computing initial states...',
            '@!@!@ENDMSG 2189 @!@!@',
        ],
        'check main: 0 s, computing initial states',
    ),
    (
        [
            '@!@!@STARTMSG 2190:0 @!@!@',
            'Finished computing initial states: 1 distinct state generated at 2026-12-01 19:41:49.',
            '@!@!@ENDMSG 2190 @!@!@',
        ],
        'check main: 0 s, exploring, 1 distinct state',
    ),
    # 3 s later (the times below): TLC's own rate ("3,055 ds/min") is not one, so it is measured.
    (
        [
            '@!@!@STARTMSG 2200:0 @!@!@',
            'Progress(8) at 2026-12-01 19:41:52: 6,901 states generated (6,901 s/min), 3,055 distinct '
            'states found (3,055 ds/min), 1,709 states left on queue.',
            '@!@!@ENDMSG 2200 @!@!@',
        ],
        'check main: 0 s, exploring, 3,055 distinct states (1,018/s), 1,709 on queue',
    ),
    # A state that prints like a progress message, outside one, changes nothing.
    (
        [
            '@!@!@STARTMSG 2110:1 @!@!@',
            'Invariant Inv is violated.',
            '@!@!@ENDMSG 2110 @!@!@',
            'Progress(9) at 2026-12-01 19:41:53: 9 states generated (9 s/min), 9 distinct states found '
            '(9 ds/min), 9 states left on queue.',
        ],
        'check main: 0 s, printing a counterexample, 3,055 distinct states (1,018/s)',
    ),
)


def test_the_transcript_read_piece_by_piece():
    job = JobProgress('check main', started=100.0)
    for step, (lines, shown) in enumerate(TRANSCRIPT):
        for line in lines:
            job.feed(line, now=100.0 + (3.0 if step >= 4 else 0.0))
        assert job.describe(100.2) == shown
    assert job.describe(161.0).startswith('check main: 61 s, ')


CHECKING = b"""@!@!@STARTMSG 2200:0 @!@!@
Progress(7) at 2026-12-01 19:59:54: 1,778 states generated (1,778 s/min), 984 distinct states found (984 ds/min), 605 states left on queue.
@!@!@ENDMSG 2200 @!@!@
@!@!@STARTMSG 2200:0 @!@!@
Progress(13) at 2026-12-01 20:00:54: 295,530 states generated (293,752 s/min), 113,664 distinct states found (112,680 ds/min), 50,963 states left on queue.
@!@!@ENDMSG 2200 @!@!@
"""
SIMULATION = b"""@!@!@STARTMSG 2190:0 @!@!@
Finished computing initial states: 1 distinct state generated at 2026-12-01 19:41:30.
@!@!@ENDMSG 2190 @!@!@
@!@!@STARTMSG 2209:0 @!@!@
Progress(-1) at 2026-12-01 19:41:38: 2408 states generated, -1 distinct states found, -1 states left on queue.
@!@!@ENDMSG 2209 @!@!@
"""


@pytest.mark.parametrize(
    ('output', 'counts'),
    [(CHECKING, (13, 295_530, 113_664, 50_963)), (SIMULATION, (None, 2408, None, None))],
    ids=['model-checking', 'simulation'],
)
def test_the_last_progress_report(output, counts):
    found = last(output)
    assert found is not None
    assert (found.depth, found.generated, found.distinct, found.queue) == counts


def test_no_progress_report_yet():
    assert last(b'no messages') is None
    assert last(SIMULATION.split(b'@!@!@STARTMSG 2209')[0]) is None  # initial states only


def test_feed_says_which_lines_were_progress_reports():
    job = JobProgress()
    said = [job.feed(line) for line in CHECKING.decode().splitlines()]
    assert said == [False, True, False, False, True, False]


def test_the_follower_hands_on_whole_lines_as_the_file_grows(tmp_path):
    out = tmp_path / 'tlc.out'
    lines: list[str] = []
    follow = Follower(out, lines.append)
    follow()  # not made yet: a warm JVM makes it when the job starts
    out.write_bytes(b'one\ntw')
    follow()
    assert lines == ['one']
    with out.open('ab') as grows:  # TLC appends: the file never shrinks under the reader
        grows.write(b'o\r\n\xff\n')
    follow()
    follow()
    assert lines == ['one', 'two', '\ufffd']


@pytest.mark.tlc
@pytest.mark.usefixtures('offline_tlc')
def test_lines_arrive_while_the_real_tlc_runs(tools_jar):
    """tlc.run_job feeds TLC's lines as they come (while its JVM still runs, not all at the end),
    and what they say agrees with the verdict read from the whole output."""
    # TLC 2.15 prints its progress message (2200) 3 s after the search starts, then once a minute,
    # and once more when the search ends, before its summary: so any run that ends shows it, and
    # a small search (40,401 states, about a second) shows the streaming, which is read twice a
    # second while the JVM runs.
    n = 200
    job = TlcJob(
        kind='check',
        name='main',
        spec='Slow.tla',
        spec_text=(SLOW / 'Slow.tla').read_bytes(),
        config='Slow.cfg',
        config_text=(SLOW / 'Slow.cfg').read_bytes().replace(b'N = 1400', f'N = {n}'.encode()),
        java=Path(needs.java()),
        jar=tools_jar,
        # A JVM of the job's own, and no warm JVM started beside it for a next job: the one
        # process this job starts is TLC's.
        settings=from_environ()._replace(jvm_spare=False),
    )
    progress = JobProgress('check main', time.monotonic())
    arrived: list[tuple[bool, str]] = []  # (TLC's JVM still running when it came, the line)
    others = set(procs._live)  # what ran before this job (a warm JVM of another test) is not it
    started: set[int] = set()

    def on_line(line: str) -> None:
        ours = [proc for pid, proc in list(procs._live.items()) if pid not in others]
        started.update(proc.pid for proc in ours)
        arrived.append((any(proc.poll() is None for proc in ours), line))
        progress.feed(line)

    verdict = run_job(job, on_line)
    assert verdict.outcome == 'passed' and verdict.distinct == (n + 1) * (n + 1)
    assert progress.distinct == verdict.distinct and progress.phase == 'finishing'
    assert any(line.startswith('@!@!@STARTMSG 2200:') for _, line in arrived)
    assert len(started) == 1, started  # TLC's JVM, and no other process
    assert arrived[0][0], 'the first line came only once TLC had ended'
    assert [line for _, line in arrived][-1] == '@!@!@ENDMSG 2186 @!@!@'


@pytest.mark.tlc
@pytest.mark.usefixtures('offline_tlc')
def test_a_timeout_still_stops_a_fed_job(tools_jar):
    job = TlcJob(
        kind='check',
        name='main',
        spec='Slow.tla',
        spec_text=(SLOW / 'Slow.tla').read_bytes(),
        config='Slow.cfg',
        config_text=(SLOW / 'Slow.cfg').read_bytes(),
        java=Path(needs.java()),
        jar=tools_jar,
        timeout=0.5,
        settings=from_environ(),
    )
    verdict = run_job(job, lambda line: None)
    assert verdict.outcome == 'error' and 'timed out after 0.5 s' in (verdict.reason or '')
