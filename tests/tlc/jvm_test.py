"""JIT flags by job size, and the switch that runs TLC exactly as TlcJob.argv says."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import cds, jvm
from execlease_hook.tlc.job import run_job
from tests import needs
from tests.tlc.job_test import make_job, own_jvm_cache, own_jvm_verdicts


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm-cache'))
    monkeypatch.delenv('EXECLEASE_JVM_TUNING', raising=False)
    return tmp_path / 'jvm-cache'


def _tuned(argv: tuple[str, ...], kind: str, jar: Path) -> tuple[tuple[str, ...], cds.Plan]:
    """`argv` as the job's JVM runs it, and the class-data plan to finish."""
    launch = jvm.prepare(kind, Path(argv[0]), jar, from_environ())
    return launch.argv(argv), launch.cds


@pytest.mark.tlc  # the real Java: the first test of a process to read it probes it (a JVM)
@pytest.mark.parametrize(
    ('kind', 'c1'), [('mutation', True), ('finding', True), ('check', False), ('traces', False)]
)
def test_short_jobs_run_with_c1_only(tmp_path, kind, c1):
    java, jar = Path(needs.java()), needs.tla_jar()
    job = make_job(java, jar, 'invariant')
    argv, plan = _tuned(job.argv(tmp_path), kind, jar)
    plan.finish(None)
    assert argv[0] == str(java)
    assert (jvm.C1_ONLY in argv) is c1
    assert argv[-len(job.argv(tmp_path)) + 1 :] == job.argv(tmp_path)[1:]


@pytest.mark.tlc
def test_c1_only_gives_the_same_verdict(tmp_path, tmp_path_factory, monkeypatch):
    java, jar = Path(needs.java()), needs.tla_jar()
    from dataclasses import replace

    # The same jobs as checks (full JIT), each in a JVM of its own: run once for the test run.
    checks = own_jvm_verdicts(tmp_path_factory)
    # Their JVM cache: its archive is built, so no job here pays for building one.
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(own_jvm_cache(tmp_path_factory)))
    for cfg in ('invariant', 'action', 'pass'):
        job = replace(make_job(java, jar, cfg), kind='mutation')
        v = run_job(job)
        full = checks[cfg]
        assert (v.outcome, v.kind, v.property, v.distinct) == (
            full.outcome,
            full.kind,
            full.property,
            full.distinct,
        )


@pytest.mark.tlc
def test_switched_off_runs_the_plain_argv(tmp_path, monkeypatch, cache):
    monkeypatch.setenv('EXECLEASE_JVM_TUNING', '0')
    java, jar = Path(needs.java()), needs.tla_jar()
    job = make_job(java, jar, 'pass')
    argv, plan = _tuned(job.argv(tmp_path), 'mutation', jar)
    assert argv == job.argv(tmp_path) and plan is cds.NO_ARCHIVE
    assert run_job(job).outcome == 'passed'
    assert not cache.exists()
