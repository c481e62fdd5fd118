"""A real StackOverflowError: real TLC on real Java, a recursive operator deeper than its stack
(as one that walks a long trace line by line). Its own verdict and advice, never "fix the
expression" or "fix the cfg syntax"; the same spec with the stack the advice names passes."""

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

DEEP = 'RECURSIVE Walk(_)\nWalk(n) == IF n = 0 THEN 0 ELSE 1 + Walk(n - 1)\n'
SPECS = {
    'initial-states': 'Init == x = Walk(5000)\nNext == UNCHANGED x\n',
    'next-state': "Init == x = 0\nNext == x = 0 /\\ x' = Walk(5000)\n",
}


def job(java: Path, jar: Path, body: str) -> TlcJob:
    spec = f'---- MODULE Deep ----\nEXTENDS Naturals\nVARIABLE x\n{DEEP}{body}====\n'
    return TlcJob(
        kind='check',
        name='deep',
        spec='Deep.tla',
        spec_text=spec.encode(),
        config='Deep.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=java,
        jar=jar,
        timeout=120,
        deadlock=False,
        settings=from_environ(),
    )


@pytest.mark.parametrize('phase', list(SPECS), ids=list(SPECS))
def test_a_stack_overflow_is_its_own_error_with_its_own_advice(monkeypatch, phase, tools_jar):
    java, jar = Path(needs.java()), tools_jar
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xss512k')
    v = run_job(job(java, jar, SPECS[phase]))
    assert v.outcome == 'error', v
    reason = v.reason or ''
    assert reason.startswith(
        f'Java ran out of stack (StackOverflowError, TLC exit code {v.exit_code})'
    ), reason
    assert reason.endswith('; ' + output.STACK_OVERFLOW_HINT), reason
    assert 'fix the expression' not in reason and 'cfg syntax' not in reason
    assert 'out of memory' not in reason
    from execlease_hook.manifest.model import Check, Manifest
    from execlease_hook.verify.report_build import tlc_error

    m = Manifest(Path('/r/m/manifest.json'), Path('/r'), 'Deep.tla', (Check('deep', 'Deep.cfg'),))
    assert tlc_error(m, v)['category'] == 'stack'  # the JSON report's own category


def test_with_the_stack_the_advice_names_it_passes(monkeypatch, tools_jar):
    java, jar = Path(needs.java()), tools_jar
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xss64m')
    assert '-Xss64m' in output.STACK_OVERFLOW_HINT
    v = run_job(job(java, jar, SPECS['next-state']))
    assert (v.outcome, v.distinct) == ('passed', 2), v
