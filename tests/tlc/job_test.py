from __future__ import annotations

import concurrent.futures
import os
import pickle
import shutil
import stat
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from execlease_hook.core import procs
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import cds, output
from execlease_hook.tlc.job import TlcJob, _execute, _Run, expect_jobs, prepare, run_job
from execlease_hook.tlc.kinds import C1_ONLY
from tests import needs, shared, wait

# Every test here starts a JVM (tests/tiers.py).
pytestmark = pytest.mark.tlc

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'tlc'


@pytest.fixture(scope='module')
def java() -> Path:
    return Path(needs.java())


@pytest.fixture(scope='module')
def jar() -> Path:
    return needs.tla_jar()


def make_job(java: Path, jar: Path, config: str, spec: str = 'Counter', **kw: object) -> TlcJob:
    modules = tuple(
        (p.name, p.read_bytes()) for p in sorted(FIXTURES.glob('*.tla')) if p.name != f'{spec}.tla'
    )
    return TlcJob(
        kind='check',
        name=config,
        spec=f'{spec}.tla',
        spec_text=(FIXTURES / f'{spec}.tla').read_bytes(),
        config=f'{config}.cfg',
        config_text=(FIXTURES / f'{config}.cfg').read_bytes(),
        modules=modules,
        java=java,
        jar=jar,
        **{'settings': from_environ(), **kw},  # type: ignore[arg-type]
    )


# cfg, spec, deadlock checking -> outcome, kind, property, distinct, actions of the trace
VERDICTS = [
    ('pass', 'Counter', False, 'passed', None, None, 8, []),
    (
        'invariant',
        'Counter',
        False,
        'violated',
        'invariant',
        'XBelowTwo',
        4,
        ['Initial predicate', 'Inc', 'Inc'],
    ),
    ('initial', 'Counter', False, 'violated', 'invariant', 'YIsOne', None, ['Initial predicate']),
    (
        'action',
        'Counter',
        False,
        'violated',
        'property',
        'NeverDecreases',
        8,
        ['Initial predicate', 'Inc', 'Inc', 'Inc', 'Reset'],
    ),
    ('temporal', 'Counter', False, 'violated', 'property', 'ReachesBeyond', 8, None),
    ('stuttering', 'Counter', False, 'violated', 'property', 'ReachesTop', 8, None),
    (
        'deadlock',
        'Counter',
        True,
        'violated',
        'deadlock',
        'deadlock',
        4,
        ['Initial predicate', 'Inc', 'Inc', 'Inc'],
    ),
    (
        'assumption',
        'Counter',
        False,
        'violated',
        'assumption',
        'line 6, col 8 to line 6, col 12 of module Counter',
        None,
        [],
    ),
    ('evaluation', 'Counter', False, 'error', None, None, 1, []),
    ('config', 'Counter', False, 'error', None, None, None, []),
    ('configsyntax', 'Counter', False, 'error', None, None, None, []),
    ('Broken', 'Broken', False, 'error', None, None, None, []),
]
ERROR_REASONS = {
    'evaluation': 'evaluation error: The second argument of \\div is 0.',
    'config': 'configuration error: The invariant NoSuchInvariant specified',
    'configsyntax': 'configuration error',
    'Broken': 'parse error: ***Parse Error***',
}


def _own_jvm_runs(factory: pytest.TempPathFactory) -> Path:
    """Every fixture job, each in a JVM of its own (no warm JVM), two at a time: run once for
    the test run (every xdist worker's, tests/shared.py). Its folder holds their verdicts and
    TLC's output of each (what the job's one JVM printed)."""

    def build(folder: Path) -> None:
        outputs: dict[str, bytes] = {}

        def recorded(job: TlcJob, *args: object, **kwargs: object) -> _Run:
            run = _execute(job, *args, **kwargs)  # type: ignore[arg-type]
            outputs[job.name] = run.output
            return run

        with pytest.MonkeyPatch.context() as env:
            env.setenv('EXECLEASE_JVM_CACHE', str(folder / 'jvm-cache'))
            env.setenv('EXECLEASE_JVM_SPARE', '0')
            for name in ('EXECLEASE_JVM_TUNING', 'EXECLEASE_JAVAC'):
                env.delenv(name, raising=False)
            env.setattr('execlease_hook.tlc.job._execute', recorded)
            java, jar = Path(needs.java()), needs.tla_jar()
            jobs = {
                cfg: make_job(java, jar, cfg, spec, deadlock=dl) for cfg, spec, dl, *_ in VERDICTS
            }
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futures = {cfg: pool.submit(run_job, job) for cfg, job in jobs.items()}
                verdicts = {cfg: f.result() for cfg, f in futures.items()}
        assert set(outputs) == set(verdicts), sorted(outputs)
        (folder / 'verdicts.pickle').write_bytes(pickle.dumps(verdicts))
        (folder / 'outputs.pickle').write_bytes(pickle.dumps(outputs))

    return shared.folder(factory, 'own-jvm-verdicts', build)


def own_jvm_verdicts(factory: pytest.TempPathFactory) -> dict[str, output.Verdict]:
    """Every fixture verdict (`_own_jvm_runs`), read by this module's tests and by
    tests/tlc/spare_test.py (a warm JVM must give the same)."""
    return pickle.loads((_own_jvm_runs(factory) / 'verdicts.pickle').read_bytes())


def own_jvm_outputs(factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """TLC's output of every fixture job (`_own_jvm_runs`), by its cfg's name."""
    return pickle.loads((_own_jvm_runs(factory) / 'outputs.pickle').read_bytes())


def own_jvm_cache(factory: pytest.TempPathFactory) -> Path:
    """The JVM cache `own_jvm_verdicts` ran with: the class-data archive of the jar they ran
    (needs.tla_jar) built there once, for a test whose point is not that archive."""
    return _own_jvm_runs(factory) / 'jvm-cache'


@pytest.fixture(scope='module')
def verdicts(java: Path, jar: Path, tmp_path_factory) -> dict[str, output.Verdict]:
    """Every fixture verdict (the tests below only read them)."""
    return own_jvm_verdicts(tmp_path_factory)


@pytest.mark.parametrize(
    ('cfg', 'outcome', 'kind', 'prop', 'distinct', 'actions'),
    [(v[0], *v[3:]) for v in VERDICTS],
    ids=[v[0] for v in VERDICTS],
)
def test_verdict(verdicts, cfg, outcome, kind, prop, distinct, actions):
    v = verdicts[cfg]
    assert (v.outcome, v.kind, v.property) == (outcome, kind, prop), v
    assert v.distinct == distinct
    if actions is not None:
        assert [s.action for s in v.trace] == actions
    if outcome == 'error':
        assert ERROR_REASONS[cfg] in (v.reason or '')
        assert (v.reason or '').endswith('; ' + output.ERROR_HINTS[v.exit_code])  # says what to do
        assert v.last_lines and not any('@!@!@' in line for line in v.last_lines)
    if outcome == 'passed':
        assert v.depth == 5 and v.states == 15 and v.seconds > 0


def test_exit_codes_are_tlcs(verdicts):
    codes = {cfg: v.exit_code for cfg, v in verdicts.items()}
    assert codes == {
        'pass': 0,
        'invariant': 12,
        'initial': 12,
        'action': 13,
        'temporal': 13,
        'stuttering': 13,
        'deadlock': 11,
        'assumption': 10,
        'evaluation': 75,
        'config': 151,
        'configsyntax': 151,
        'Broken': 150,
    }


def test_trace_values(verdicts):
    trace = verdicts['action'].trace
    assert trace[0].variables == (('x', '0'), ('y', '0'))
    assert trace[-1].variables == (('x', '0'), ('y', '0'))
    assert trace[-1].location == 'line 15, col 10 to line 15, col 39 of module Counter'


def test_liveness_trace_ends_in_a_loop_or_stuttering(verdicts):
    for cfg in ('temporal', 'stuttering'):
        last = verdicts[cfg].trace[-1]
        assert last.action == 'Stuttering' or last.back_to is not None


@pytest.mark.parametrize(
    ('real', 'claimed', 'reason'),
    [
        ('pass', 12, 'TLC exit code 12 means invariant, but its messages say no violation message'),
        ('invariant', 0, 'TLC exited 0 but reported a violation'),
        ('invariant', 13, 'TLC exit code 13 means property, but its messages say invariant'),
        ('deadlock', 12, 'TLC exit code 12 means invariant, but its messages say deadlock'),
        ('config', 0, 'TLC exited 0 without its "No error has been found" message'),
    ],
    ids=['pass-as-12', 'invariant-as-0', 'invariant-as-13', 'deadlock-as-12', 'config-as-0'],
)
def test_disagreement_between_exit_code_and_messages_is_an_error(
    java, jar, tmp_path_factory, real, claimed, reason
):
    # Real TLC output, classified under a different exit code: the verdict must be an error.
    # The output is that of the fixture job's own run (`own_jvm_outputs`), not of another JVM.
    job = make_job(java, jar, real, deadlock=(real == 'deadlock'))
    v = output.classify(
        claimed, own_jvm_outputs(tmp_path_factory)[real], 1.0, job.config_text.decode()
    )
    assert v.outcome == 'error'
    assert reason in (v.reason or '')


def test_flags_and_isolation(java, jar, tmp_path):
    job = make_job(java, jar, 'pass')
    argv = job.argv(tmp_path)
    assert argv[:2] == (str(java), '-XX:+UseParallelGC')
    assert f'-Djava.io.tmpdir={tmp_path / "javatmp"}' in argv
    assert argv[-6:] == (
        '-deadlock',
        '-metadir',
        str(tmp_path / 'meta'),
        '-config',
        'pass.cfg',
        'Counter.tla',
    )
    assert '-deadlock' not in make_job(java, jar, 'pass', deadlock=True).argv(tmp_path)
    assert ('-workers', '3') == make_job(java, jar, 'pass', workers=3).tlc_flags()[1:3]


def test_cache_key_depends_on_every_input(java, jar):
    base = make_job(java, jar, 'pass')
    key = base.cache_key('a' * 64, 17)
    from dataclasses import replace

    others = [
        base.cache_key('b' * 64, 17),
        base.cache_key('a' * 64, 21),
        replace(base, spec_text=base.spec_text + b'\n').cache_key('a' * 64, 17),
        replace(base, config_text=base.config_text + b'\n').cache_key('a' * 64, 17),
        replace(base, deadlock=True).cache_key('a' * 64, 17),
        replace(base, modules=()).cache_key('a' * 64, 17),
    ]
    assert key not in others and len(set(others)) == len(others)
    assert replace(base, name='other', kind='finding').cache_key('a' * 64, 17) == key


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith('execlease-')]


BIG_SPEC = """---- MODULE Big ----
EXTENDS Naturals
VARIABLES a, b, c
Init == a = 0 /\\ b = 0 /\\ c = 0
Next == \\/ a' = (a + 1) % 1000 /\\ UNCHANGED <<b, c>>
        \\/ b' = (b + 1) % 1000 /\\ UNCHANGED <<a, c>>
        \\/ c' = (c + 1) % 1000 /\\ UNCHANGED <<a, b>>
====
"""


def big_job(java: Path, jar: Path, timeout: float) -> TlcJob:
    return TlcJob(
        kind='check',
        name='big',
        spec='Big.tla',
        spec_text=BIG_SPEC.encode(),
        config='Big.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=java,
        jar=jar,
        timeout=timeout,
        settings=from_environ(),
    )


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    folder = tmp_path / 'tmp'
    folder.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(folder))
    return folder


@pytest.fixture
def archived(tmp_path, monkeypatch, tmp_path_factory) -> Path:
    """A JVM cache of the test's own holding a copy of the class-data archive the fixture jobs
    built (`own_jvm_cache`): the big job's JVM starts with it, as on a repository's second run.
    Without it the JVM built one in the user's cache (~/.cache/execlease/jvm), which the kill or
    the timeout these tests are about then threw away, on every run."""
    folder = tmp_path / 'jvm-cache'
    folder.mkdir()
    for jsa in own_jvm_cache(tmp_path_factory).glob('*.jsa'):
        for made in (jsa, jsa.with_name(jsa.name + '.sha256')):
            shutil.copy2(made, folder / made.name)
    assert list(folder.glob('*.jsa'))
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(folder))
    return folder


def only(job: TlcJob) -> TlcJob:
    """`job`, planned as the only one to come (as verify plans its jobs, job.expect_jobs): it
    runs in a JVM of its own as without a plan, but no warm JVM is started beside it for a next
    job that never comes (a JVM and its warm-up, about 1 CPU-s, for nothing)."""
    expect_jobs([job])
    return job


def test_timeout_kills_tlc_and_cleans_up(java, jar, own_tmp, archived):
    v = run_job(only(big_job(java, jar, timeout=1)))  # it never ends: a second of it is enough
    assert v.outcome == 'error' and 'timed out after 1 s' in (v.reason or '')
    assert _leftovers(own_tmp) == []


def test_cancel_stops_running_jobs_and_cleans_up(java, jar, own_tmp, archived):
    errors: list[BaseException] = []
    job = only(big_job(java, jar, timeout=120))

    def target() -> None:
        try:
            run_job(job)
        except BaseException as e:  # noqa: B036 - the thread reports what it saw
            errors.append(e)

    thread = threading.Thread(target=target)
    thread.start()
    wait.until(lambda: procs._live, 'TLC to start', timeout=30)
    # TLC makes its -metadir's dated folder as it starts: the JVM is running TLC.
    wait.until(lambda: list(own_tmp.glob('*/meta/*')), 'TLC to start checking')
    pids = list(procs._live)
    procs.cancel_all()
    thread.join(30)
    procs.reset_cancel()
    assert not thread.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], KeyboardInterrupt)
    assert _leftovers(own_tmp) == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.timeout(300)
def test_ctrl_c_while_tlc_starts_stops_it_at_once(java, jar, own_tmp, archived, monkeypatch):
    """Ctrl-C lands after the pool thread looked at `cancelled` and before TLC is in the registry
    (a loaded machine widens that window): the start itself stops it. Before, this TLC ran on,
    unseen by cancel_all, until its job's timeout (here 3600 s: the test's own timeout fails it)."""
    import subprocess
    import types

    monkeypatch.setenv('EXECLEASE_JVM_SPARE', '0')
    started: list[subprocess.Popen[bytes]] = []

    def popen(*args, **kwargs):
        proc = subprocess.Popen(*args, **kwargs)
        started.append(proc)
        procs.cancel_all()
        return proc

    monkeypatch.setattr(
        procs, 'subprocess', types.SimpleNamespace(**{**vars(subprocess), 'Popen': popen})
    )
    try:
        with pytest.raises(KeyboardInterrupt):
            run_job(big_job(java, jar, timeout=3600))
    finally:
        procs.reset_cancel()
    (proc,) = started
    assert proc.returncode == -9
    assert not procs._live
    assert _leftovers(own_tmp) == []


def test_real_tlc_killed_from_outside_is_an_error(java, jar, own_tmp, archived):
    # As when a person or the OOM killer kills the java process from another shell.
    box: list[output.Verdict] = []
    job = only(big_job(java, jar, timeout=120))
    thread = threading.Thread(target=lambda: box.append(run_job(job)))
    thread.start()
    # Kill only once TLC has really started (its output says so): on a loaded machine the JVM
    # can take seconds to print anything, and a fixed sleep made this test flaky.
    wait.until(
        lambda: any(b'Starting...' in out.read_bytes() for out in own_tmp.rglob('tlc.out')),
        'TLC to start',
        timeout=30,
    )
    # The job's own JVM: the registry also holds the warm JVMs earlier tests left waiting.
    (pid,) = [p for p in procs._live if str(own_tmp).encode() in _command_line(p)]
    os.kill(pid, 9)
    thread.join(30)
    (v,) = box
    assert (v.outcome, v.exit_code) == ('error', -9)
    assert (v.reason or '').startswith('TLC was killed by signal 9')
    assert any('Starting...' in line for line in v.last_lines)
    assert _leftovers(own_tmp) == []


def _command_line(pid: int) -> bytes:
    return Path(f'/proc/{pid}/cmdline').read_bytes()


def test_a_tlc_that_dies_is_an_error(jar, own_tmp, tmp_path):
    dying = tmp_path / 'java'
    dying.write_text(
        '#!/bin/sh\necho "@!@!@STARTMSG 2262:0 @!@!@"\necho "TLC2 Version 2.15"\nkill -9 $$\n'
    )
    dying.chmod(dying.stat().st_mode | stat.S_IEXEC)
    v = run_job(make_job(dying, jar, 'pass'))
    assert v.outcome == 'error' and (v.reason or '').startswith('TLC was killed by signal 9 (')
    assert (v.reason or '').endswith('; run again')
    assert v.last_lines == ('TLC2 Version 2.15',)  # what TLC said, without the -tool markers
    assert _leftovers(own_tmp) == []


def test_missing_java_is_an_error(jar, tmp_path):
    v = run_job(make_job(tmp_path / 'no-java', jar, 'pass'))
    assert v.outcome == 'error' and 'could not start Java' in (v.reason or '')


def test_verdict_json_round_trip(verdicts):
    for v in verdicts.values():
        assert output.Verdict.from_json(v.to_json()) == v


# -- the job's JVM: JIT flags by job size, and the switch that runs TLC exactly as TlcJob.argv says


@pytest.fixture
def jvm_cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm-cache'))
    monkeypatch.delenv('EXECLEASE_JVM_TUNING', raising=False)
    return tmp_path / 'jvm-cache'


def _tuned(job: TlcJob, folder: Path) -> tuple[tuple[str, ...], cds.Plan]:
    """The job's argv as its JVM runs it, and the class-data plan to finish."""
    launch = prepare(job)
    return launch.argv(job.argv(folder)), launch.cds


@pytest.mark.parametrize(
    ('kind', 'c1'), [('mutation', True), ('finding', True), ('check', False), ('traces', False)]
)
def test_short_jobs_run_with_c1_only(tmp_path, jvm_cache, java, jar, kind, c1):
    job = replace(make_job(java, jar, 'invariant'), kind=kind)
    argv, plan = _tuned(job, tmp_path)
    plan.finish(None)
    assert argv[0] == str(java)
    assert (C1_ONLY in argv) is c1
    assert argv[-len(job.argv(tmp_path)) + 1 :] == job.argv(tmp_path)[1:]


def test_c1_only_gives_the_same_verdict(jvm_cache, java, jar, tmp_path_factory):
    from tests.tlc.spare_test import compiled_helper  # that module imports this one

    # The same jobs as checks (full JIT), each in a JVM of its own: run once for the test run.
    checks = own_jvm_verdicts(tmp_path_factory)
    # A JVM cache of the test's own (`jvm_cache`) holding a copy of their archive and of the
    # warm-JVM helper compiled once for the test run: no job here pays for building the archive,
    # nor for a javac (the helper's compile is not what is judged here; the jobs after the first
    # run in a warm JVM, C1 only as in a JVM of their own).
    built = own_jvm_cache(tmp_path_factory)
    shutil.copytree(compiled_helper(tmp_path_factory), jvm_cache)
    for jsa in built.glob('*.jsa'):
        for made in (jsa, jsa.with_name(jsa.name + '.sha256')):
            shutil.copy2(made, jvm_cache / made.name)
    assert list(jvm_cache.glob('*.jsa')) and list(jvm_cache.glob('spare-*'))
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


def test_switched_off_runs_the_plain_argv(tmp_path, monkeypatch, jvm_cache, java, jar):
    monkeypatch.setenv('EXECLEASE_JVM_TUNING', '0')
    job = make_job(java, jar, 'pass')
    argv, plan = _tuned(replace(job, kind='mutation'), tmp_path)
    assert argv == job.argv(tmp_path) and plan is cds.NO_ARCHIVE
    assert run_job(job).outcome == 'passed'
    assert not jvm_cache.exists()
