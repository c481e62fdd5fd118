"""Warm JVMs against the real Java, javac and TLC: used when the helper compiles, never when it
cannot; one JVM runs jobs one after another, each with TLC's static state new, and gives the
verdicts a JVM started for the job gives; a JVM a job may have marked ends after that job; a
spare that dies, hangs or times out costs only its job."""

from __future__ import annotations

import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from execlease_hook.core import procs
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import cds, output, spare, spare_helper
from execlease_hook.tlc.job import TlcJob, _execute, _spare_key, expect_jobs, run_job, sweep
from tests import needs, shared, wait
from tests.tlc.job_test import VERDICTS, make_job, own_jvm_cache, own_jvm_verdicts

# Every test here starts a JVM (tests/tiers.py).
pytestmark = pytest.mark.tlc


def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template: Path | None):
    """A JVM cache of the test's own: empty, or a copy of the module's warmed one."""
    if template is not None:
        shutil.copytree(template, tmp_path / 'jvm-cache')
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm-cache'))
    for name in ('EXECLEASE_JVM_TUNING', 'EXECLEASE_JVM_SPARE', 'EXECLEASE_JAVAC'):
        monkeypatch.delenv(name, raising=False)
    spare.discard_all()
    monkeypatch.setattr(spare_helper, '_helpers', {})
    yield tmp_path
    spare.discard_all()


def compiled_helper(factory: pytest.TempPathFactory) -> Path:
    """A JVM cache holding only the compiled warm-JVM helper, compiled once for the test run
    (every xdist worker's, tests/shared.py): copied by the tests whose point is not the compile
    (here and tests/tlc/libraries_test.py), so that each starts no javac of its own."""

    def build(folder: Path) -> None:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv('EXECLEASE_JVM_CACHE', str(folder))
            mp.delenv('EXECLEASE_JAVAC', raising=False)
            _ready(_job('pass'))

    return shared.folder(factory, 'spare-helper-jvm-cache', build)


@pytest.fixture(scope='module')
def warmed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, output.Verdict]]:
    """Paid once for the test run (every xdist worker's, tests/shared.py): a JVM cache with the
    helper compiled and the jar's class-data archive built; and every fixture kind's verdict in a
    JVM of its own, the verdicts a spare must give (job_test.py's). Each test copies the cache
    and only reads the verdicts. The helper is `compiled_helper`'s; the archive is a copy of the
    one job_test.py's verdicts built (the same Java and jar: the same archive), not a JVM run for
    it again."""

    def build(folder: Path) -> None:
        shutil.copytree(compiled_helper(tmp_path_factory), folder, dirs_exist_ok=True)
        built = own_jvm_cache(tmp_path_factory)
        for jsa in built.glob('*.jsa'):
            for made in (jsa, jsa.with_name(jsa.name + '.sha256')):
                shutil.copy2(made, folder / made.name)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv('EXECLEASE_JVM_CACHE', str(folder))
            for name in ('EXECLEASE_JVM_TUNING', 'EXECLEASE_JAVAC'):
                mp.delenv(name, raising=False)
            mp.setenv('EXECLEASE_JVM_SPARE', '0')
            _ready(_job('pass'))
            archive = cds.archive_path(Path(needs.java()), needs.tla_jar(), from_environ())
            assert archive is not None and cds.trusted(archive), sorted(
                p.name for p in built.iterdir()
            )
        spare.discard_all()

    folder = shared.folder(tmp_path_factory, 'spare-warmed-jvm-cache', build)
    assert list(folder.glob('*.jsa')) and list(folder.glob('spare-*')), sorted(
        p.name for p in folder.iterdir()
    )
    return folder, own_jvm_verdicts(tmp_path_factory)


@pytest.fixture
def env(tmp_path, monkeypatch, warmed):
    """The helper compiled and the archive built already (a copy of the module's): the test
    starts where a repository's second run does."""
    yield from _own_cache(tmp_path, monkeypatch, warmed[0])


@pytest.fixture
def cold_env(tmp_path, monkeypatch):
    """An empty JVM cache: nothing compiled, no archive, as on a repository's first run."""
    yield from _own_cache(tmp_path, monkeypatch, None)


@pytest.fixture
def plain(warmed) -> dict[str, output.Verdict]:
    return warmed[1]


def _job(cfg: str) -> TlcJob:
    return replace(
        make_job(Path(needs.java()), needs.tla_jar(), cfg, deadlock=(cfg == 'deadlock')),
        kind='mutation',
    )


def _ready(job: TlcJob) -> Path:
    folder = spare_helper.compile_helper(job.java, job.jar, from_environ())
    assert folder is not None and (folder / 'ExecleaseTlcSpare.class').is_file()
    return folder


def _warm(jobs: int = 100) -> None:
    """A spare waiting, started by a plan of two jobs (job.expect_jobs starts one at once: the
    `env` fixture's cache has the helper compiled and the class-data archive built), then a plan
    of `jobs` jobs of its kind, as verify's pool gives: by default a long run's, so that spares are
    kept and started for every job the test runs; the number of jobs the test runs next, so that
    none is started beside the last for a job that never comes (a JVM and its warm-up, about
    1 CPU-s, for nothing). No job runs in a JVM of its own to get there."""
    _ready(_job('pass'))
    expect_jobs([_job('pass')] * 2)  # when one waits already, its start ahead ends at once
    wait.until(lambda: _idle() and not any(spare._starting.values()), 'the spare started ahead')
    assert spare._expected is not None
    spare._expected[_spare_key(_job('pass'))] = jobs


def _plan(job: TlcJob, jobs: int) -> None:
    """A plan of `jobs` more jobs of this one's kind of JVM (as verify's pool gives), and no spare
    started for it ahead: without a plan, a job gets no spare and starts none."""
    spare.expect([_spare_key(job)] * jobs)


def _idle() -> list[spare.Spare]:
    return [s for waiting in spare._idle.values() for s in waiting]


# Every fixture verdict kind (tests/tlc/job_test.py); after these TLC returns having stopped every
# thread it started, so the JVM runs on. After the others (an initial state or an assumption
# that fails, an evaluation error, a temporal property) TLC leaves threads waiting: the JVM ends.
KINDS = [cfg for cfg, *_ in VERDICTS]
RUNS_ON = {'pass', 'invariant', 'action', 'deadlock', 'config', 'configsyntax', 'Broken'}


def _kind(cfg: str) -> TlcJob:
    spec, deadlock = next((spec, dl) for c, spec, dl, *_ in VERDICTS if c == cfg)
    return replace(
        make_job(Path(needs.java()), needs.tla_jar(), cfg, spec, deadlock=deadlock), kind='mutation'
    )


def _same(got: output.Verdict, want: output.Verdict, trace: bool = True) -> None:
    assert (got.outcome, got.kind, got.property, got.distinct, got.exit_code, got.reason) == (
        want.outcome,
        want.kind,
        want.property,
        want.distinct,
        want.exit_code,
        want.reason,
    )
    if trace:
        assert [s.action for s in got.trace] == [s.action for s in want.trace]


def _plain(job: TlcJob) -> output.Verdict:
    return run_job(replace(job, settings=job.settings._replace(jvm_spare=False)))


def _recorded(monkeypatch, owner: object, name: str, answers: bool = True) -> list:
    """`owner.name` replaced by a wrapper that calls it and records, in the list returned, each
    call's answer (`answers`) or its arguments (before the call: a call that raises is seen)."""
    seen: list = []
    real = getattr(owner, name)

    def recorded(*a):
        if not answers:
            seen.append(a)
        answer = real(*a)
        if answers:
            seen.append(answer)
        return answer

    monkeypatch.setattr(owner, name, recorded)
    return seen


def _said_at_discard(monkeypatch) -> dict[int, str]:
    """What each spare's JVM wrote to its log (why it retired), by pid, as it is discarded."""
    said: dict[int, str] = {}
    discard = spare.Spare.discard

    def keep_log(self: spare.Spare) -> None:
        try:
            said[self.proc.pid] = (self.folder / 'jvm.log').read_text()
        except OSError:
            said[self.proc.pid] = ''
        discard(self)

    monkeypatch.setattr(spare.Spare, 'discard', keep_log)
    return said


def test_one_warm_jvm_runs_job_after_job_with_the_same_verdicts(env, monkeypatch, plain):
    _ready(_job('pass'))
    said = _said_at_discard(monkeypatch)
    runs_on = set()
    # The kinds after which the JVM runs on come first, one after another in the first spare;
    # then each kind that ends its JVM, in the spare started as the one before ended: a spare
    # for each such kind, none more for the kinds that came after one of them. The plan is the
    # jobs still to run, so that no spare is started after the last.
    order = sorted(KINDS, key=lambda cfg: cfg not in RUNS_ON)
    for left, cfg in zip(range(len(order), 0, -1), order):
        _warm(jobs=left)
        [warm] = _idle()
        jobs = warm.jobs
        # A liveness counterexample depends on the fingerprint function each TLC run draws at
        # random: tests/tlc/job_test.py leaves those traces out (None), and so does this test.
        _same(
            run_job(_kind(cfg)),
            plain[cfg],
            trace=next(t for c, *_, t in VERDICTS if c == cfg) is not None,
        )
        assert warm.jobs == jobs + 1
        if warm in _idle():
            assert warm.proc.poll() is None
            runs_on.add(cfg)
            continue
        warm.proc.wait(timeout=30)
        wait.until(lambda: warm.proc.pid in said, "the retired JVM's log", timeout=30)
        # Never silently: the JVM's log says which of the job's threads outlived it.
        assert "retire: the job's thread" in said[warm.proc.pid], (cfg, said[warm.proc.pid])
    assert runs_on == RUNS_ON


def test_tlc_static_state_is_new_for_every_job(env, plain):
    # `-continue` sets a static of TLC's (TLCGlobals.continuation) that nothing resets: in a
    # shared class loader the next job would go on past its first violation too.
    job = _kind('invariant')
    going_on = replace(job, mode=('-continue',))
    want_on, want = _plain(going_on), plain['invariant']
    assert want_on.distinct != want.distinct
    _warm()
    [warm] = _idle()
    _same(run_job(going_on), want_on)
    _same(run_job(job), want)
    assert _idle() == [warm]


def test_arguments_tlc_refuses_end_the_job_as_in_a_jvm_of_its_own(env):
    job = replace(_job('pass'), mode=('-no-such-flag',))
    want = _plain(job)
    assert want.outcome == 'error' and want.exit_code == 1
    _warm()
    [warm] = _idle()
    _same(run_job(job), want)
    assert _idle() == [warm]  # TLC said no and returned: nothing of the job is left


def test_a_jvm_ends_after_its_last_job_and_the_next_is_ready_before(env, monkeypatch):
    monkeypatch.setattr(spare, 'MAX_JOBS', 2)
    _ready(_job('pass'))
    taken = _recorded(monkeypatch, spare, 'take')
    said = _said_at_discard(monkeypatch)
    # Four jobs: the first in a JVM of its own (no spare waits before the plan: it starts one),
    # two in that spare, which ends after its second, the last in the spare started during that
    # second job. A fifth job showed nothing more: with two jobs still expected as the first
    # spare ended, the pool, counting a spare for each, started a third beside the second (a
    # JVM and its warm-up, about 1 CPU-s), and the last two jobs ran one in each.
    _plan(_job('invariant'), 4)
    for _ in range(4):
        assert run_job(_job('invariant')).property == 'XBelowTwo'
    runs = collections.Counter(s.proc.pid for s in taken if s is not None)
    assert max(runs.values()) <= 2 and len(runs) >= 2
    # A JVM that ran two jobs ended by itself after its second, and its log says why (read as it
    # was discarded): not because no job was left for it.
    full = [pid for pid, jobs in runs.items() if jobs == 2]
    assert full
    wait.until(lambda: all(pid in said for pid in full), 'the logs of the JVMs that ran two jobs')
    assert all('retire: 2 jobs done' in said[pid] for pid in full), said
    # After the first JVM's start, no job waited for a JVM of its own: each spare's successor
    # was started during its last job.
    first = next(k for k, s in enumerate(taken) if s is not None)
    assert all(s is not None for s in taken[first:])


def test_a_job_that_times_out_in_a_spare_costs_that_job_and_that_jvm(env):
    _warm(jobs=2)
    [warm] = _idle()
    forever = b"---- MODULE Forever ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1\n====\n"
    job = TlcJob(
        kind='mutation',
        name='forever',
        spec='Forever.tla',
        spec_text=forever,
        config='Forever.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=_job('pass').java,
        jar=_job('pass').jar,
        timeout=0.5,  # it never ends: each second more is a second of a busy JVM, nothing shown
        settings=from_environ(),
    )
    v = run_job(job)
    assert v.outcome == 'error' and (v.reason or '').startswith('timed out after 0.5 s')
    assert warm.proc.poll() is not None and warm not in _idle()
    assert run_job(_job('invariant')).property == 'XBelowTwo'


def test_no_javac_or_a_failing_one_means_a_jvm_per_job(env, monkeypatch):
    for compiled in (env / 'jvm-cache').glob('spare-*'):  # the archive stays: it is not the point
        shutil.rmtree(compiled)
    # No spare is started, none to wait for; the helper each job asks for.
    started = _recorded(monkeypatch, spare, '_spawn', answers=False)
    helpers = _recorded(monkeypatch, spare_helper, 'ready')
    for javac in (str(env / 'no-such-javac'), '/bin/false'):
        monkeypatch.setenv('EXECLEASE_JAVAC', javac)
        monkeypatch.setattr(spare_helper, '_helpers', {})
        assert (
            spare_helper.compile_helper(_job('pass').java, _job('pass').jar, from_environ()) is None
        )
        helpers.clear()
        # Two jobs, planned as verify's pool plans them (without a plan no job would start or
        # take a spare, javac or not): a spare would be started as the first job starts, for the
        # second to take; a third job would only take the same path again, with a JVM more.
        _plan(_job('invariant'), 2)
        for _ in range(2):
            assert run_job(_job('invariant')).property == 'XBelowTwo'
        assert started == [] and _idle() == []
        assert helpers and not any(helpers)  # the first job asked for the helper: there is none
    assert not list((env / 'jvm-cache').glob('spare-*'))


def test_a_changed_helper_source_compiles_again(env, monkeypatch, tmp_path):
    job = _job('pass')
    first = _ready(job)
    source = tmp_path / 'ExecleaseTlcSpare.java'
    source.write_text(spare_helper.SOURCE.read_text() + '\n// changed\n')
    monkeypatch.setattr(spare_helper, 'SOURCE', source)
    second = _ready(job)
    assert second != first


def test_a_spare_that_died_waiting_is_not_used(env):
    _warm(jobs=1)
    [warm] = _idle()
    os.killpg(warm.proc.pid, signal.SIGKILL)
    warm.proc.wait()
    v = run_job(_job('action'))
    assert (v.outcome, v.property) == ('violated', 'NeverDecreases')
    assert not warm.folder.exists()


def test_a_spare_killed_during_its_job_costs_that_job_only(env, monkeypatch):
    _warm()
    assert len(_idle()) == 1
    start_job = spare.Spare.start_job

    def die_then_start(self: spare.Spare, folder: Path, args: tuple[str, ...]) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        start_job(self, folder, args)

    monkeypatch.setattr(spare.Spare, 'start_job', die_then_start)
    v = run_job(_job('invariant'))
    assert v.outcome == 'error' and 'killed by signal 9' in (v.reason or '')
    monkeypatch.setattr(spare.Spare, 'start_job', start_job)
    assert run_job(_job('invariant')).property == 'XBelowTwo'


def test_the_helper_exits_when_no_job_comes(env):
    job = _job('pass')
    helper = _ready(job)
    proc = subprocess.run(
        (
            str(job.java),
            *spare.OPENS,
            '-cp',
            f'{job.jar}{os.pathsep}{helper}',
            spare_helper.MAIN,
            str(job.jar),
        ),
        input=b'/tmp\n',
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == spare.NO_JOB and proc.stdout == b'ready\n'


def test_no_more_spares_than_expected_jobs(env):
    job = _job('pass')
    # The helper is compiled and the archive built (`env`'s copy; `_ready` reads the helper into
    # this process): no spare is started and discarded again before the plan below.
    _ready(job)
    assert _idle() == []
    expect_jobs([job, job])
    run_job(job)  # one more job is expected: one spare
    assert len(_idle()) == 1
    run_job(job)  # the last: it takes the spare, none is started
    assert _idle() == []


def test_cancel_stops_waiting_spares(env):
    _warm()
    [warm] = _idle()
    procs.cancel_all()
    try:
        assert warm.proc.poll() is not None and not warm.folder.exists()
        with pytest.raises(KeyboardInterrupt):
            run_job(_job('pass'))
    finally:
        procs.reset_cancel()


def test_the_plan_compiles_the_helper_and_leaves_no_spare_behind(cold_env):
    job = _job('pass')
    expect_jobs([job] * 4)
    wait.until(
        lambda: any(f.done() for f in spare_helper._helpers.values()),
        'the plan to compile the helper',
        timeout=300,
    )
    assert [f.result() for f in spare_helper._helpers.values()] != [None]
    for _ in range(4):  # the first builds the class-data archive; the others use spares
        assert run_job(job).outcome == 'passed'
    assert _idle() == []


def test_waiting_spares_live_outside_the_temp_folder_and_a_dead_runs_are_swept(env, monkeypatch):
    own_tmp = env / 'tmp'
    own_tmp.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(own_tmp))
    _warm()
    [warm] = _idle()
    assert warm.folder.parent == env / 'jvm-cache' / 'spares'
    assert [p.name for p in own_tmp.iterdir()] == []  # only running jobs have folders there
    # A spare's folder left by a run killed outright: marked by a process that is gone (stopping
    # what ran in such a folder is core/scratch.py's, tested in tests/core/scratch_test.py).
    child = (
        'import sys; from pathlib import Path; from execlease_hook.core import scratch; '
        'print(scratch.make("jvm-", Path(sys.argv[1])))'
    )
    left = subprocess.run(
        (sys.executable, '-c', child, str(warm.folder.parent)),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert os.path.isdir(left)
    sweep(_job('pass').jar, from_environ())
    assert not os.path.exists(left) and warm.folder.exists()  # a live run's spare is its own
    spare.discard_all()
    assert not warm.folder.exists() and warm.proc.poll() is not None


def test_a_spare_of_another_environment_is_not_used(env, monkeypatch):
    _warm(jobs=1)
    [warm] = _idle()
    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xmx24m')  # read by a JVM at its start only
    v = run_job(_job('invariant'))
    assert v.property == 'XBelowTwo'
    assert not warm.folder.exists() and warm.proc.poll() is not None


def test_out_of_memory_in_a_jvm_that_ran_jobs_before_is_confirmed_in_a_jvm_of_its_own(
    env, monkeypatch
):
    from tests.tlc.oom_test import SPECS
    from tests.tlc.oom_test import job as huge_job

    monkeypatch.setenv('JAVA_TOOL_OPTIONS', '-Xmx24m')  # the spares are started with it too
    # The plan: the two jobs run in the spare below, so that none is started, as the huge job
    # ends the spare, for a third job that never comes (a JVM and its warm-up, about 1 CPU-s).
    _warm(jobs=2)
    [warm] = _idle()
    assert warm.jobs >= 1 or run_job(_job('pass')).outcome == 'passed'
    own = []
    execute = _execute

    def recorded(*a, **k):
        own.append(a[0].name)
        return execute(*a, **k)

    monkeypatch.setattr('execlease_hook.tlc.job._execute', recorded)
    job = replace(
        huge_job(Path(needs.java()), needs.tla_jar(), SPECS['next-state']), kind='mutation'
    )
    v = run_job(job)
    assert warm.jobs >= 2 and own == ['huge']  # ran in the spare, then again in a JVM of its own
    assert v.outcome == 'error' and (v.reason or '').startswith('Java ran out of memory'), v


def test_the_first_job_of_a_plan_finds_a_warm_jvm(env, monkeypatch):
    job = _job('invariant')
    # The archive is built and the helper compiled (`env`'s copy; `_ready` reads it into this
    # process): no spare is started and discarded to get there.
    _ready(job)
    assert _idle() == []
    expect_jobs([job] * 3)  # one spare started now, for the first of them
    wait.until(_idle, 'the spare started ahead')
    [ahead] = _idle()
    taken = _recorded(monkeypatch, spare, 'take')
    for _ in range(3):
        assert run_job(job).property == 'XBelowTwo'
    assert taken == [ahead] * 3 and _idle() == []


def test_a_job_run_without_a_plan_starts_no_warm_jvm(env, monkeypatch):
    """Every job of verify runs under its pool's plan (tlc/job.expect_jobs). A job run on its own,
    with none, has no job known to follow it: it runs in a JVM of its own and starts no spare for
    a next job that may never come (a JVM and its warm-up, about 1 CPU-s, for nothing)."""
    started = _recorded(monkeypatch, spare, '_spawn', answers=False)
    assert run_job(_job('invariant')).property == 'XBelowTwo'
    # No spare started, none waiting and none being started in the background (a start ahead is
    # counted before its thread runs): a second job like it would find none and take the same
    # path, in a JVM more.
    assert started == [] and _idle() == [] and not any(spare._starting.values())


def test_a_kind_with_one_job_gets_no_warm_jvm_and_compiles_nothing(env, monkeypatch):
    """A warm JVM runs a warm-up before its first job and loads TLC's classes again for it: for
    a kind of JVM with one job that costs more than the JVM it saves, so the job runs in a JVM of
    its own, and a plan that wants no warm JVM compiles no helper. The archive is built already
    (`env`): a first job that builds it would get no warm JVM for that reason alone."""
    check, mutation = replace(_job('pass'), kind='check'), _job('invariant')
    assert _spare_key(check) != _spare_key(mutation)  # C1 only for the mutation
    compiled = []
    monkeypatch.setattr(spare_helper, 'compile_helper', lambda *a: compiled.append(a))
    expect_jobs([check, mutation])
    assert run_job(check).outcome == 'passed'
    assert run_job(mutation).property == 'XBelowTwo'
    assert compiled == [] and _idle() == [] and not spare._starting[_spare_key(check)]
