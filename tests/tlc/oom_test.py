"""A real out-of-memory: real TLC on real Java under a tiny heap.

TLC catches the OutOfMemoryError itself and exits 75, the code of an evaluation error; the
verdict must still be an error that names the lack of memory and says to give Java more, never
a pass, a violation or "fix the expression".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import output
from execlease_hook.tlc.job import TlcJob, run_job
from tests import needs

# Every test here starts a JVM (tests/tiers.py).
# One job a test, outside a verify run: with no plan of jobs to come, in a JVM of its own.
# offline_tlc: the run's JVM cache and tools jar, whose class-data archive every TLC test shares
# (not one built for this module's own jar in the user's ~/.cache).
pytestmark = [pytest.mark.tlc, pytest.mark.usefixtures('offline_tlc')]

# A single state too big for a 24 MB heap: a function of two million integers.
HUGE = '[i \\in 1..2000000 |-> i]'
SPECS = {
    # While computing the initial states TLC says only "Java heap space".
    'initial-states': f'Init == x = {HUGE}\nNext == UNCHANGED x\n',
    # While exploring, it says "The exception was a java.lang.OutOfMemoryError".
    'next-state': f"Init == x = 0\nNext == x = 0 /\\ x' = {HUGE}\n",
}


def job(java: Path, jar: Path, body: str) -> TlcJob:
    spec = f'---- MODULE Huge ----\nEXTENDS Naturals\nVARIABLE x\n{body}====\n'
    return TlcJob(
        kind='check',
        name='huge',
        spec='Huge.tla',
        spec_text=spec.encode(),
        config='Huge.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=java,
        jar=jar,
        timeout=120,
        settings=from_environ(),
    )


@pytest.mark.parametrize('phase', list(SPECS), ids=list(SPECS))
def test_tlc_out_of_memory_is_an_error_that_says_to_give_java_more(monkeypatch, phase, tools_jar):
    java, jar = Path(needs.java()), tools_jar
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xmx24m')  # inherited by the java that run_job starts
    v = run_job(job(java, jar, SPECS[phase]))
    assert v.outcome == 'error', v
    assert (v.kind, v.property) == (None, None)
    reason = v.reason or ''
    assert reason.startswith(f'Java ran out of memory (TLC exit code {v.exit_code})'), reason
    assert reason.endswith('; ' + output.OUT_OF_MEMORY_HINT), reason
    assert 'JAVA_TOOL_OPTIONS=-Xmx' in output.OUT_OF_MEMORY_HINT
    assert 'fix the expression' not in reason
    assert any('Java heap space' in line for line in v.last_lines), v.last_lines


def test_the_same_spec_with_enough_memory_is_not_out_of_memory(monkeypatch, tools_jar):
    # The control: what ran out above is the heap, not the spec (a smaller function fits).
    java, jar = Path(needs.java()), tools_jar
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xmx24m')
    body = SPECS['initial-states'].replace('2000000', '2000')
    v = run_job(job(java, jar, body))
    assert (v.outcome, v.distinct) == ('passed', 1), v
