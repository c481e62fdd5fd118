"""Spare JVMs against the real Java, javac and TLC: used when the helper compiles, never when it
cannot, and a spare that dies (idle or during its job) costs only that job, with the same verdict
words a JVM started for the job gives."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from execlease_hook import jvm_spare, tlc
from tests import needs
from tests.tlc_test import make_job


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm-cache'))
    for name in ('EXECLEASE_JVM_TUNING', 'EXECLEASE_JVM_SPARE', 'EXECLEASE_JAVAC'):
        monkeypatch.delenv(name, raising=False)
    jvm_spare.discard_all()
    monkeypatch.setattr(jvm_spare, '_helper', {})
    yield tmp_path
    jvm_spare.discard_all()


def _job(cfg: str) -> tlc.TlcJob:
    return replace(make_job(Path(needs.java()), needs.tla_jar(), cfg, deadlock=(cfg == 'deadlock')),
                   kind='mutation')


def _ready(job: tlc.TlcJob) -> Path:
    folder = jvm_spare.compile_helper(job.java, job.jar)
    assert folder is not None and (folder / 'ExecleaseTlcSpare.class').is_file()
    return folder


def _warm() -> None:
    """Run jobs until a spare waits: the first builds the class-data archive (that run's flags are
    its own), the next finds the helper compiled, and from then on a spare is left waiting."""
    _ready(_job('pass'))
    for _ in range(4):
        tlc.run_job(_job('pass'))
        if _idle():
            return
    raise AssertionError('no spare was left waiting')


def _idle() -> list[jvm_spare.Spare]:
    return [s for waiting in jvm_spare._idle.values() for s in waiting]


def test_jobs_after_the_first_run_in_spares_with_the_same_verdicts(env):
    _ready(_job('pass'))
    plain = {}
    os.environ['EXECLEASE_JVM_SPARE'] = '0'
    for cfg in ('invariant', 'action', 'deadlock', 'evaluation', 'pass'):
        plain[cfg] = tlc.run_job(_job(cfg))
    del os.environ['EXECLEASE_JVM_SPARE']
    _warm()
    for cfg, want in plain.items():
        waiting = _idle()
        assert len(waiting) == 1 and waiting[0].proc.poll() is None
        got = tlc.run_job(_job(cfg))
        assert not waiting[0].folder.exists()          # the spare ran this job, in its folder
        assert (got.outcome, got.kind, got.property, got.distinct, got.exit_code, got.reason) == \
            (want.outcome, want.kind, want.property, want.distinct, want.exit_code, want.reason)
        assert [s.action for s in got.trace] == [s.action for s in want.trace]


def test_no_javac_or_a_failing_one_means_a_jvm_per_job(env, monkeypatch):
    for javac in (str(env / 'no-such-javac'), '/bin/false'):
        monkeypatch.setenv('EXECLEASE_JAVAC', javac)
        monkeypatch.setattr(jvm_spare, '_helper', {})
        assert jvm_spare.compile_helper(_job('pass').java, _job('pass').jar) is None
        for _ in range(3):
            assert tlc.run_job(_job('invariant')).property == 'XBelowTwo'
            time.sleep(0.2)
        assert _idle() == []
    assert not list((env / 'jvm-cache').glob('spare-*'))


def test_a_changed_helper_source_compiles_again(env, monkeypatch, tmp_path):
    job = _job('pass')
    first = _ready(job)
    source = tmp_path / 'ExecleaseTlcSpare.java'
    source.write_text(jvm_spare.SOURCE.read_text() + '\n// changed\n')
    monkeypatch.setattr(jvm_spare, 'SOURCE', source)
    second = _ready(job)
    assert second != first


def test_a_spare_that_died_waiting_is_not_used(env):
    _warm()
    [spare] = _idle()
    os.killpg(spare.proc.pid, signal.SIGKILL)
    spare.proc.wait()
    v = tlc.run_job(_job('action'))
    assert (v.outcome, v.property) == ('violated', 'NeverDecreases')
    assert not spare.folder.exists()


def test_a_spare_killed_during_its_job_costs_that_job_only(env, monkeypatch):
    _warm()
    assert len(_idle()) == 1
    start_job = jvm_spare.Spare.start_job

    def die_then_start(self: jvm_spare.Spare, args: tuple[str, ...]) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        start_job(self, args)

    monkeypatch.setattr(jvm_spare.Spare, 'start_job', die_then_start)
    v = tlc.run_job(_job('invariant'))
    assert v.outcome == 'error' and 'killed by signal 9' in (v.reason or '')
    monkeypatch.setattr(jvm_spare.Spare, 'start_job', start_job)
    assert tlc.run_job(_job('invariant')).property == 'XBelowTwo'


def test_the_helper_exits_when_no_job_comes(env):
    job = _job('pass')
    helper = _ready(job)
    proc = subprocess.run(
        (str(job.java), '-cp', f'{job.jar}{os.pathsep}{helper}', jvm_spare.MAIN), input=b'-tool\n',
        capture_output=True, timeout=120,
    )
    assert proc.returncode == jvm_spare.NO_JOB and proc.stdout == b''


def test_no_more_spares_than_expected_jobs(env):
    job = _job('pass')
    _warm()
    jvm_spare.discard_all()
    tlc.expect_jobs([job, job])
    tlc.run_job(job)          # one more job is expected: one spare
    assert len(_idle()) == 1
    tlc.run_job(job)          # the last: it takes the spare, none is started
    assert _idle() == []


def test_cancel_stops_waiting_spares(env):
    _warm()
    [spare] = _idle()
    tlc.cancel_all()
    try:
        assert spare.proc.poll() is not None and not spare.folder.exists()
        with pytest.raises(KeyboardInterrupt):
            tlc.run_job(_job('pass'))
    finally:
        tlc.reset_cancel()


def test_the_plan_compiles_the_helper_and_leaves_no_spare_behind(env):
    job = _job('pass')
    tlc.expect_jobs([job] * 4)
    deadline = time.monotonic() + 300
    while not jvm_spare._helper and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(jvm_spare._helper.values()) != [None]
    for _ in range(4):   # the first builds the class-data archive; the others use spares
        assert tlc.run_job(job).outcome == 'passed'
    assert _idle() == []


def test_waiting_spares_live_outside_the_temp_folder_and_a_dead_runs_are_removed(env, monkeypatch):
    own_tmp = env / 'tmp'
    own_tmp.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(own_tmp))
    spares = env / 'jvm-cache' / 'spares'
    gone = subprocess.Popen(('true',))
    gone.wait()
    (spares / str(gone.pid) / 'job-x').mkdir(parents=True)
    monkeypatch.setattr(jvm_spare, '_own_folder', {})
    _warm()
    [spare] = _idle()
    assert spare.folder.parent == spares / str(os.getpid())
    assert not (spares / str(gone.pid)).exists()
    assert [p.name for p in own_tmp.iterdir()] == []   # only running jobs have folders there
    jvm_spare.discard_all()
    assert not (spares / str(os.getpid())).exists()


def test_a_spare_of_another_environment_is_not_used(env, monkeypatch):
    _warm()
    [spare] = _idle()
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xmx24m')   # read by a JVM at its start only
    v = tlc.run_job(_job('invariant'))
    assert v.property == 'XBelowTwo'
    assert not spare.folder.exists() and spare.proc.poll() is not None
