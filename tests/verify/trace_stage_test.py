"""Trace jobs and code mutations as work of the shared pool (trace_stage.py, pool.py): real
models, real trace commands, real TLC.

The overlap is asserted by the timestamps of the real runs (spies around tlc.run_job and
validation.run_command that call the real ones), never by wall times.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.tlc import output
from execlease_hook.tlc.job import TlcJob, run_job
from execlease_hook.traces import code_mutations, validation
from tests import shared, wait
from tests.conftest import GitRepo, git_env, git_identity, use_offline
from tests.traces.suite_test import APP, HARMLESS, MODEL, UNBOUNDED, write_model
from tests.verify.pool_test import grid_model, most_at_once

pytestmark = pytest.mark.usefixtures('offline_tlc')

EXECLEASE = Path(__file__).resolve().parents[2] / '.venv' / 'bin' / 'execlease'


def spy(env: pytest.MonkeyPatch) -> list[tuple[str, float, float]]:
    """('tlc <kind> <name>', 'command <argv>' or 'copy command <argv>' (in a mutated copy), start,
    end) of every real TLC run and trace command, for as long as `env` lasts."""
    seen: list[tuple[str, float, float]] = []
    real_job, real_command = run_job, validation.run_command

    def job(j: TlcJob, on_line=None) -> output.Verdict:
        start = time.monotonic()
        try:
            return real_job(j, on_line)
        finally:
            seen.append((f'tlc {j.kind} {j.name}', start, time.monotonic()))

    def command(argv, root, *args, **kwargs) -> str:
        start = time.monotonic()
        where = '' if Path(root).resolve() == Path.cwd().resolve() else 'copy '
        try:
            return real_command(argv, root, *args, **kwargs)
        finally:
            seen.append((f'{where}command {" ".join(argv)}', start, time.monotonic()))

    env.setattr('execlease_hook.verify.pool.run_job', job)
    env.setattr('execlease_hook.traces.suite.run_job', job)
    env.setattr(validation, 'run_command', command)
    return seen


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float, float]]:
    """`spy`'s spans, of the test's runs."""
    return spy(monkeypatch)


def overlaps(a: tuple[str, float, float], b: tuple[str, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def two_models(repo: GitRepo, k: int = 40) -> None:
    """The grid model (k = 40: 64,000 states, seconds of TLC, for runs to overlap) beside the
    counter model of trace jobs and code mutations."""
    grid_model(repo, 'grid', k)
    write_model(repo, [APP], [UNBOUNDED, HARMLESS])


def counter_jobs(report: Path) -> list[tuple[str, str, str]]:
    data = json.loads(report.read_text())
    (model,) = [m for m in data['models'] if Path(m['manifest']).parent.name == 'counter']
    return [(j['kind'], j['name'], j['outcome']) for j in model['jobs']]


EXPECTED = [
    ('check', 'main', 'held'),
    ('traces', 'app', 'held'),
    ('traces', 'action-coverage', 'held'),
    ('code-mutation', 'unbounded', 'held'),
    ('code-mutation', 'harmless', 'did not hold'),
]


def test_trace_jobs_and_code_mutations_run_beside_the_tlc_jobs(git_repo, spans, tmp_path, capsys):
    two_models(git_repo)
    # Last timings that start the grid check and a code mutation first, side by side.
    seconds = {
        'verification/grid::check:grid-grid': 2000.0,
        f'{MODEL}::code-mutation:unbounded': 1000.0,
    }
    (git_repo.path / '.git/execlease').mkdir(parents=True)
    (git_repo.path / '.git/execlease/timings.json').write_text(
        json.dumps({'format': 1, 'seconds': seconds})
    )
    report = tmp_path / 'report.json'
    assert cli.main(['verify', '--jobs', '2', '--no-cache', '--json', str(report)]) == 1
    out, err = capsys.readouterr()
    (check,) = [s for s in spans if s[0] == 'tlc check grid-grid']
    (command,) = [s for s in spans if s[0].startswith('command')]
    # The trace job's command ran alone, before anything else; its TLC run, the code mutations'
    # commands and TLC runs then ran beside the grid check (before, they waited for the pool to
    # drain), never more than --jobs at once.
    assert [s for s in spans if s is not command and overlaps(s, command)] == []
    assert command[2] <= min(s[1] for s in spans if s is not command)
    assert any(overlaps(s, check) for s in spans if s[0].startswith('copy command'))
    assert any(overlaps(s, check) for s in spans if s[0] == 'tlc traces app')
    assert most_at_once([s for s in spans if s[0].startswith('tlc')]) == 2
    # Verdicts, words and report order as before: plan order, action coverage after the trace jobs.
    assert counter_jobs(report) == EXPECTED
    assert 'code mutation harmless is not caught: trace job app accepts the code' in out
    assert 'every action of the covered code is reached by the traces: Flip 2, Inc 5' in out
    assert 'verification/counter: traces action-coverage: held' in err
    assert 'verification/counter: code-mutation unbounded: held' in err
    total = sum(e - s for name, s, e in spans if name.startswith('tlc'))
    print(f'\n{len(spans)} runs, sum of TLC runs {total:.1f} s')


@dataclass(frozen=True)
class FirstRun:
    """The first run of the two models (k = 4) that the two tests below go on from."""

    repo: Path  # the repository it ran in, its results and timings in .git/execlease
    spans: list[tuple[str, float, float]]  # `spy`'s, of that run
    report: dict[str, Any]  # its JSON report
    code: int


@pytest.fixture(scope='module')
def one_at_a_time(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> FirstRun:
    """`verify --jobs 1 --no-cache` of the two models (a small grid, 64 states: nothing has to
    overlap it), made once for the test run (tests/shared.py), not once for each test below: one
    job at a time, every job run (none read from a cache) and its result and timing written.
    Each test goes on in a copy of its repository (`start_from`)."""

    def run() -> FirstRun:
        with pytest.MonkeyPatch.context() as env:
            git_identity(env)
            use_offline(env, jvm_cache, tools_jar)
            repo = GitRepo(tmp_path_factory.mktemp('one-at-a-time') / 'repo')
            repo.path.mkdir()
            repo.git('init', '-q', '-b', 'main')
            two_models(repo, 4)
            env.chdir(repo.path)
            seen = spy(env)
            report = repo.path.parent / 'report.json'
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli.main(['verify', '--jobs', '1', '--no-cache', '--json', str(report)])
        return FirstRun(repo.path, seen, json.loads(report.read_text()), code)

    return shared.value(tmp_path_factory, 'trace-stage-one-at-a-time', run)


def start_from(first: FirstRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A copy of the first run's repository, results and timings included (they are in its git
    folder, keyed by the jobs' content, not by where the repository is), the test in it."""
    path = tmp_path / 'repo'
    shutil.copytree(first.repo, path, symlinks=True)
    git_identity(monkeypatch)
    monkeypatch.chdir(path)
    return GitRepo(path.resolve())


def test_one_job_at_a_time_longest_first_by_the_last_timings(
    one_at_a_time, spans, tmp_path, monkeypatch, capsys
):
    # One job at a time: nothing has to overlap the grid check, so a small grid (64 states) does;
    # the order below comes from the timings written, whatever the grid's length. The first run
    # (`one_at_a_time`) is shared with the test below; the second, after the edit of its
    # timings, is this test's own.
    first = one_at_a_time
    assert first.code == 1
    assert most_at_once(first.spans) == 1
    report = tmp_path / 'report.json'
    report.write_text(json.dumps(first.report))
    assert counter_jobs(report) == EXPECTED
    git_repo = start_from(first, tmp_path, monkeypatch)
    timings = json.loads((git_repo.path / '.git/execlease/timings.json').read_text())['seconds']
    for key in ('traces:app', 'code-mutation:unbounded', 'code-mutation:harmless'):
        assert timings[f'{MODEL}::{key}'] > 0
    # The last timings decide: the code mutation made the longest starts first.
    timings[f'{MODEL}::code-mutation:harmless'] = 1000.0
    (git_repo.path / '.git/execlease/timings.json').write_text(
        json.dumps({'format': 1, 'seconds': timings})
    )
    spans.clear()
    assert cli.main(['verify', '--jobs', '1', '--no-cache', '--json', str(report)]) == 1
    # After the trace command (alone, first), the code mutation made the longest starts first.
    after = sorted((s for s in spans if not s[0].startswith('command')), key=lambda s: s[1])
    assert after[0][0].startswith('copy command')
    assert counter_jobs(report) == EXPECTED
    capsys.readouterr()


def test_cache_hits_make_no_copy_and_run_nothing(
    one_at_a_time, spans, monkeypatch, tmp_path, capsys
):
    # From the repository of a first run that wrote every job's result (`one_at_a_time`, shared
    # with the test above: --no-cache reads none and writes each): a copy of it, results included.
    first_report = tmp_path / 'first.json'
    first_report.write_text(json.dumps(one_at_a_time.report))
    first = counter_jobs(first_report)
    assert first == EXPECTED
    git_repo = start_from(one_at_a_time, tmp_path, monkeypatch)
    report = tmp_path / 'report.json'
    copies: list[str] = []
    real = code_mutations.mutated_copy

    def copy(root, mutation, *args, **kwargs):
        copies.append(mutation.name)
        return real(root, mutation, *args, **kwargs)

    monkeypatch.setattr(code_mutations, 'mutated_copy', copy)
    spans.clear()
    assert cli.main(['verify', '--json', str(report)]) == 1
    assert copies == [] and spans == []
    assert counter_jobs(report) == first
    data = json.loads(report.read_text())
    assert all(
        j['cached']
        for m in data['models']
        for j in m['jobs']
        if j['kind'] != 'traces' or j['name'] != 'action-coverage'
    )
    # A change to the mutated file: a miss, one copy, for each mutation of that file.
    git_repo.write('app/counter_app.py', git_repo.read('app/counter_app.py') + '\n# changed\n')
    assert cli.main(['verify', '--json', str(report)]) == 1
    assert sorted(copies) == ['harmless', 'unbounded']
    capsys.readouterr()


SLOW_APP = """import os, runpy, subprocess, time
if 'SLOW' in open('app/counter_app.py').read():
    child = subprocess.Popen(['sleep', '120'])
    open({pids!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')
    time.sleep(120)
runpy.run_path('app/counter_app.py', run_name='__main__')
"""


@pytest.mark.parametrize('where', ['trace job', 'code mutation'])
def test_ctrl_c_stops_a_running_trace_command_and_what_it_started(git_repo, tmp_path, where):
    """A trace command runs alone before the pool (a trace job's) or in a pool thread (a code
    mutation's): Ctrl-C stops it, and the process it started, either way."""
    pids = tmp_path / 'pids'
    app = {**APP, 'command': ['python', 'app/slow_app.py']}
    slow = {
        'name': 'slow',
        'path': 'app/counter_app.py',
        'replace': {'from': 'return 1 - y', 'to': 'return 1 - y  # SLOW'},
        'traces': ['app'],
    }
    write_model(git_repo, [app], [slow])
    git_repo.write('app/slow_app.py', SLOW_APP.format(pids=str(pids)))
    if where == 'trace job':
        git_repo.write('app/counter_app.py', git_repo.read('app/counter_app.py') + '# SLOW\n')
    env = git_env()
    env.update(EXECLEASE_TLA_OFFLINE='1')
    # Only the job whose command is stopped: the model's check and the trace job's TLC run would
    # start JVMs beside the code mutation's command that Ctrl-C has nothing to do with here.
    only = 'app' if where == 'trace job' else 'code-mutation:slow'
    proc = subprocess.Popen(
        (str(EXECLEASE), 'verify', '--jobs', '2', '--no-cache', '--only', only),
        cwd=git_repo.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait.until(lambda: pids.exists() and ' ' in pids.read_text(), 'the trace command to start')
    command, child = (int(p) for p in pids.read_text().split())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert 'interrupted' in err
    for pid in (command, child):
        wait.until(lambda: not _alive(pid), f'process {pid} to end', timeout=10)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f'/proc/{pid}/stat')
    return not (
        stat.exists() and stat.read_text().split(') ')[-1].startswith('Z')
    )  # a zombie is gone
