"""`verify --deep` and `verify --simulate` (deep.py): real models, real TLC."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core import procs
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest import write as manifest_write
from execlease_hook.tlc import messages
from execlease_hook.tlc.progress import Follower
from execlease_hook.verify import deep
from tests.conftest import GitRepo
from tests.manifest.read_test import mutate, write_manifest
from tests.verify.pool_test import grid_model
from tests.verify.suite_test import MAIN, MODEL, shared_results, write_model

pytestmark = pytest.mark.usefixtures('offline_tlc')


def run(tmp_path, *args: str) -> tuple[int, dict]:
    report = tmp_path / 'deep.json'
    code = cli.main(['verify', *args, '--json', str(report)])
    return code, json.loads(report.read_text())


def jobs(data: dict) -> dict[str, dict]:
    return {j['name']: j for m in data['models'] for j in m['jobs']}


def test_deep_runs_the_check_at_its_deep_bounds_on_every_core(
    git_repo, tmp_path, tmp_path_factory, capsys
):
    # The run's shared results (suite_test.shared_results): the deep job at N = 5 is this test's
    # alone, so it runs here; the plain run after it is check main at its shipped bounds, which
    # the tests of suite_test run, read from their entry. It reads 8 only if the cfg TLC is given
    # is the shipped one (an entry is keyed by the cfg's text); a deep run that left N = 5 in it,
    # or wrote its verdict under the plain job's key, reads or runs 12.
    shared_results(tmp_path_factory, git_repo)
    # Counter: x in 0..N, y in 0..1, so N = 3 has 8 distinct states and N = 5 has 12.
    write_model(
        git_repo, checks=({**MAIN, 'deep': {'constants': {'N': 5}, 'states': 12}},), entries=()
    )
    code, data = run(tmp_path, '--deep')
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert jobs(data)['main']['verdict']['distinct'] == 12
    assert data['mode'] == {'deep': True, 'simulate': False, 'workers': deep.cores(), 'fpmem': 0.5}
    assert 'check main (N = 5) passed: the whole state space: 12 distinct states' in out
    assert 'distinct states/s' in out and f'{deep.cores()} workers' in out
    assert 'PASSED (--deep:' in out
    assert 'note:' not in out  # 12 as recorded in the deep block
    # The shipped bounds are untouched: plain verify still sees 8.
    code, data = run(tmp_path, '--quick')
    assert code == 0 and jobs(data)['main']['verdict']['distinct'] == 8
    capsys.readouterr()


def share_deep_n4(repo: GitRepo, factory: pytest.TempPathFactory) -> None:
    """The result cache of the two tests below, one folder for the test run (tests/shared.py,
    apart from the other tests'): both run check main at its deep bound N = 4, the same TLC job
    (an entry is keyed by the job's content, its deep constants and workers included), and what
    they judge is what verify makes of its verdict (a note, a check left out), not TLC's run. The
    job runs once in the test run, whichever asks first; the other reads its verdict."""
    shared_results(factory, repo, 'deep-n4-results')


def test_deep_states_other_than_recorded_is_a_note(git_repo, tmp_path, tmp_path_factory, capsys):
    share_deep_n4(git_repo, tmp_path_factory)
    write_model(
        git_repo, checks=({**MAIN, 'deep': {'constants': {'N': '4'}, 'states': 12}},), entries=()
    )
    code, _ = run(tmp_path, '--deep')
    out = capsys.readouterr().out
    assert code == 0
    assert 'note: check main (deep): 10 distinct states, 12 recorded in its deep block' in out


def test_a_check_without_a_deep_block_is_left_out_and_said(
    git_repo, tmp_path, tmp_path_factory, capsys
):
    share_deep_n4(git_repo, tmp_path_factory)
    write_model(
        git_repo,
        checks=({**MAIN, 'deep': {'constants': {'N': 4}}}, {'name': 'other', 'config': 'pass.cfg'}),
        entries=(),
    )
    code, data = run(tmp_path, '--deep')
    out = capsys.readouterr().out
    assert code == 0
    assert list(jobs(data)) == ['main']
    assert 'note: check other declares no "deep" block: not run by --deep' in out


def test_deep_without_any_deep_block_exits_2(git_repo, tmp_path, capsys):
    write_model(git_repo, entries=())
    assert cli.main(['verify', '--deep']) == 2
    assert 'no check declares a "deep" block' in capsys.readouterr().err


def test_a_deep_constant_the_cfg_does_not_assign_exits_2_naming_it(git_repo, capsys):
    write_model(git_repo, checks=({**MAIN, 'deep': {'constants': {'M': 4}}},), entries=())
    assert cli.main(['verify', '--deep']) == 2
    out = capsys.readouterr().out  # the model's own refusal (verify/result.py)
    assert (
        'checks[0].deep.constants: pass.cfg: the cfg assigns no constant M (it assigns: N)' in out
    )


def test_a_deep_violation_is_exit_1_with_its_trace(git_repo, tmp_path, capsys):
    # XBelowTwo holds for N = 1 (the shipped bound) and fails for N = 2.
    write_model(
        git_repo,
        checks=({'name': 'small', 'config': 'small.cfg', 'deep': {'constants': {'N': 2}}},),
        entries=(),
    )
    git_repo.write(
        f'{MODEL}/small.cfg', 'CONSTANT N = 1\nINIT Init\nNEXT Next\nINVARIANT XBelowTwo\n'
    )
    assert cli.main(['verify', '--quick']) == 0
    code, data = run(tmp_path, '--deep')
    out = capsys.readouterr().out
    assert code == 1
    assert (
        'DID NOT HOLD: check small (N = 2) (small.cfg) failed: violated: invariant XBelowTwo' in out
    )
    assert jobs(data)['small']['counterexample'] is not None


def _budget_out_at_the_first_progress_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job's wait (core/procs.wait) ends as a budget that ran out as soon as TLC's first
    progress report has reached the job's live line: the rest of the job is what a real budget
    does then (TLC stopped, the counts read back from its output, the verdict, the message).
    TLC prints that report 3 s after its search starts, whatever the model, then once a minute:
    a fixed budget is a guess of the machine's speed, paid in CPU for as long as it runs (a busy
    TLC worker) and too short on a loaded machine."""
    reported = threading.Event()

    class Watched(Follower):
        def __init__(self, path: Path, on_line: Callable[[str], None]) -> None:
            def seen(line: str) -> None:
                on_line(line)
                if line.startswith(f'@!@!@ENDMSG {messages.PROGRESS} '):
                    reported.set()

            super().__init__(path, seen)

    wait = procs.wait

    def out_at_the_report(
        ended: Callable[[float], bool], timeout: float, tick: Callable[[], None] | None = None
    ) -> bool:
        return wait(lambda s: ended(s) or reported.is_set(), timeout, tick) and not (
            reported.is_set()
        )

    monkeypatch.setattr('execlease_hook.tlc.job.Follower', Watched)
    monkeypatch.setattr(procs, 'wait', out_at_the_report)


def test_a_budget_that_runs_out_is_exit_2_and_says_what_was_covered(
    git_repo, tmp_path, capsys, monkeypatch
):
    # One TLC worker: a job that runs until its budget is out would otherwise keep every core
    # busy that long, and how many workers ran is not what this test is about.
    monkeypatch.setattr(deep, 'cores', lambda: 1)
    monkeypatch.setenv('EXECLEASE_PROGRESS_SECONDS', '1')  # a live line every second in a log
    grid_model(git_repo, 'grid', 3)
    data = json.loads((git_repo.path / 'verification/grid/manifest.json').read_text())
    # 8e9 states: never done in the budget, which runs out at TLC's first progress report (the
    # budget's number is what the message names; a real budget running out is the second run's).
    data['checks'][0]['deep'] = {'constants': {'K': 2000}, 'timeout': 120}
    (git_repo.path / 'verification/grid/manifest.json').write_text(json.dumps(data))
    with monkeypatch.context() as first:
        _budget_out_at_the_first_progress_report(first)
        code, report = run(tmp_path, '--deep')
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert 'PASSED' not in out
    message = report['models'][0]['could_not_run'][0]
    assert message.startswith(
        'check grid-grid (K = 2000): the time budget of 120 s ran out; TLC had covered '
    )
    assert 'distinct states found' in message and 'not a pass, the rest was not searched' in message
    # Its live line (verify/live.py, as plain verify's) showed TLC's progress report while it ran:
    # the states, their rate and the queue, which only a progress report gives.
    assert 'check grid-grid: ' in err and 'exploring' in err and 'on queue' in err
    assert re.search(r'distinct states \([\d,]+/s\)', err), err
    # --budget outranks the deep block's timeout, and runs out by itself: before TLC's first
    # report (about 3 s after its search starts).
    code, report = run(tmp_path, '--deep', '--budget', '1')
    assert code == 2 and 'the time budget of 1 s ran out' in report['models'][0]['could_not_run'][0]
    capsys.readouterr()


def test_simulate_is_reproducible_from_its_seed(git_repo, tmp_path, capsys):
    write_model(git_repo, entries=())
    args = ('--simulate', '--traces', '40', '--depth', '12', '--seed', '11', '--no-cache')
    code, first = run(tmp_path, *args)
    out = capsys.readouterr().out
    assert code == 0, out
    assert 'check main passed: 40 random behaviours of depth up to 12 (seed 11)' in out
    assert 'states/s' in out and 'not the whole state space' in out
    assert out.rstrip().endswith('reproduce with --seed 11')
    code, again = run(tmp_path, *args)
    assert code == 0
    assert jobs(first)['main']['verdict']['states'] == jobs(again)['main']['verdict']['states'] > 0
    assert first['mode'] == {
        'deep': False,
        'simulate': True,
        'workers': 1,
        'fpmem': 0.5,
        'traces': 40,
        'depth': 12,
        'seed': 11,
    }
    capsys.readouterr()


def test_simulate_finds_a_violation_with_its_trace(git_repo, tmp_path, capsys):
    write_model(git_repo, checks=({'name': 'inv', 'config': 'invariant.cfg'},), entries=())
    code, data = run(tmp_path, '--simulate', '--traces', '200', '--depth', '20', '--seed', '3')
    out = capsys.readouterr().out
    assert code == 1, out
    assert 'DID NOT HOLD: check inv (invariant.cfg) failed: violated: invariant XBelowTwo' in out
    assert jobs(data)['inv']['counterexample'] is not None


@pytest.mark.parametrize(
    ('args', 'message'),
    (
        (('--depth', '5'), '--depth is an option of --simulate'),
        (
            ('--deep', '--quick'),
            '--deep runs the checks beyond their shipped bounds only; drop --quick',
        ),
        (('--simulate', '--update-coverage'), 'drop --update-coverage'),
        (('--deep', '--shard', '1/2'), 'drop --shard'),
        (('--deep', '--fpmem', '1.5'), '--fpmem 1.5: give the fraction'),
        (('--deep', '--rev', 'HEAD'), 'drop --rev/--pushed'),
    ),
)
def test_options_that_do_not_go_with_the_deep_tier_exit_2(git_repo, capsys, args, message):
    write_model(git_repo, checks=({**MAIN, 'deep': {'constants': {'N': 4}}},), entries=())
    assert cli.main(['verify', *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ('value', 'expected'),
    (
        ({}, "checks[0].deep: missing key 'constants'"),
        ({'constants': {}}, 'checks[0].deep.constants: expected an object of the constants'),
        ({'constants': ['N']}, 'checks[0].deep.constants: expected an object of the constants'),
        (
            {'constants': {'N-1': '4'}},
            "checks[0].deep.constants.N-1: 'N-1' is not a TLA+ constant name",
        ),
        ({'constants': {'N': ''}}, 'checks[0].deep.constants.N: must not be empty'),
        ({'constants': {'N': [4]}}, 'checks[0].deep.constants.N: expected a string'),
        (
            {'constants': {'N': 4}, 'timeout': 0},
            'checks[0].deep.timeout: expected a number of seconds > 0',
        ),
        (
            {'constants': {'N': 4}, 'states': -1},
            'checks[0].deep.states: expected a whole number >= 0',
        ),
        ({'constants': {'N': 4}, 'workers': 2}, "checks[0].deep.workers: unknown key 'workers'"),
    ),
)
def test_bad_deep_block_names_the_field(tmp_path, value, expected):
    path = write_manifest(tmp_path, mutate('checks.0.deep', value))
    with pytest.raises(CannotRun) as e:
        manifest_read.load(path, tmp_path)
    assert expected in str(e.value)


def test_deep_block_round_trips(tmp_path):
    block = {
        'constants': {'Runs': '{r1, r2, r3, r4}', 'MaxGen': 4, 'Flip': True},
        'timeout': 60,
        'states': 9,
    }
    m = manifest_read.load(write_manifest(tmp_path, mutate('checks.0.deep', block)), tmp_path)
    assert m.checks[0].deep is not None
    assert m.checks[0].deep.constants == (
        ('Runs', '{r1, r2, r3, r4}'),
        ('MaxGen', '4'),
        ('Flip', 'TRUE'),
    )
    written = json.loads(manifest_write.dump(m))['checks'][0]['deep']
    assert written == {
        'constants': {'Runs': '{r1, r2, r3, r4}', 'MaxGen': '4', 'Flip': 'TRUE'},
        'timeout': 60.0,
        'states': 9,
    }
