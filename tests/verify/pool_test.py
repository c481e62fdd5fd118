"""One pool across every model, longest first (pool.py): real models, real TLC.

The overlap is asserted by the timestamps of the real TLC runs (a spy around tlc.run_job that
calls the real one), never by wall times; the wall time against the sum is printed (-s).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import output
from execlease_hook.tlc.job import TlcJob, run_job
from execlease_hook.tlc.progress import JobProgress
from execlease_hook.verify import pool
from execlease_hook.verify.live import Live
from tests.conftest import GitRepo

pytestmark = pytest.mark.usefixtures('offline_tlc')

# a, b, c count modulo K: K**3 distinct states, no deadlock, one invariant.
SPEC = """---- MODULE Grid ----
EXTENDS Naturals
CONSTANT K
VARIABLES a, b, c
Init == a = 0 /\\ b = 0 /\\ c = 0
IncA == a' = (a + 1) % K /\\ UNCHANGED <<b, c>>
IncB == b' = (b + 1) % K /\\ UNCHANGED <<a, c>>
IncC == c' = (c + 1) % K /\\ UNCHANGED <<a, b>>
Next == IncA \\/ IncB \\/ IncC
TypeOK == a \\in 0..K /\\ b \\in 0..K /\\ c \\in 0..K
====
"""


def grid_model(
    repo: GitRepo, name: str, k: int, states: int | None = None, spec: str = SPEC
) -> None:
    folder = f'verification/{name}'
    # The model's name in a comment: each model's job is its own (identical jobs run once).
    repo.write(f'{folder}/Grid.tla', spec.replace('EXTENDS', f'\\* {name}\nEXTENDS', 1))
    repo.write(f'{folder}/Grid.cfg', f'CONSTANT K = {k}\nINIT Init\nNEXT Next\nINVARIANT TypeOK\n')
    check: dict[str, object] = {'name': f'{name}-grid', 'config': 'Grid.cfg'}
    if states is not None:
        check['states'] = states
    manifest = {
        'version': 1,
        'spec': 'Grid.tla',
        'checks': [check],
        'coverage': {
            'syncCommit': None,
            'modelHash': None,
            'entries': [],
            'abstract': [
                {'action': a, 'reason': 'no code in this test'} for a in ('IncA', 'IncB', 'IncC')
            ],
        },
    }
    repo.write(f'{folder}/manifest.json', json.dumps(manifest, indent=2) + '\n')


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float, float]]:
    """(job name, start, end) of every real TLC run, in the order they ended."""
    real = run_job
    seen: list[tuple[str, float, float]] = []

    def timed(job: TlcJob, on_line=None) -> output.Verdict:
        start = time.monotonic()
        try:
            return real(job, on_line)
        finally:
            seen.append((job.name, start, time.monotonic()))

    monkeypatch.setattr('execlease_hook.verify.pool.run_job', timed)
    return seen


def most_at_once(seen: list[tuple[str, float, float]]) -> int:
    events = sorted(
        [(s, 1) for _, s, _ in seen] + [(e, -1) for _, _, e in seen], key=lambda x: (x[0], x[1])
    )
    now = top = 0
    for _, delta in events:
        now += delta
        top = max(top, now)
    return top


def test_four_single_job_models_keep_both_jobs_busy(git_repo, spans, capsys):
    # Small models (1,000 states each): a TLC run lasts at least its JVM's start, far longer than
    # the pool takes to start the second, so what is asserted (two at once, never more, the third
    # only after one ended) does not depend on the model's size; a bigger one only costs CPU.
    for name in ('m1', 'm2', 'm3', 'm4'):
        grid_model(git_repo, name, 10)
    started = time.monotonic()
    assert cli.main(['verify', '--jobs', '2', '--no-cache']) == 0
    wall = time.monotonic() - started
    out, err = capsys.readouterr()
    assert len(spans) == 4
    # Two models' TLC processes ran at the same time, never more than --jobs.
    assert most_at_once(spans) == 2
    first_two_end = min(e for _, _, e in spans)
    assert sum(1 for _, s, _ in spans if s < first_two_end) == 2
    # Each model is reported on its own, as before; the progress lines name the model.
    for name in ('m1', 'm2', 'm3', 'm4'):
        assert f'model verification/{name}:' in out
        assert f'verification/{name}: check {name}-grid: held' in err
    assert out.rstrip().endswith('PASSED')
    total = sum(e - s for _, s, e in spans)
    print(
        f'\n4 models, --jobs 2: wall {wall:.1f} s, sum of TLC runs {total:.1f} s, '
        f'ratio {wall / total:.2f}'
    )


def test_longest_first_from_recorded_states_then_from_last_timings(git_repo, spans, capsys):
    # The order comes from the recorded states, not from what TLC finds: the models are small.
    grid_model(git_repo, 'a-small', 3, states=1_000)
    grid_model(git_repo, 'b-big', 5, states=125_000)
    grid_model(git_repo, 'c-middle', 4, states=27_000)
    assert cli.main(['verify', '--jobs', '1', '--no-cache']) == 0
    assert [name for name, _, _ in spans] == ['b-big-grid', 'c-middle-grid', 'a-small-grid']
    timings = json.loads((git_repo.path / '.git/execlease/timings.json').read_text())
    assert set(timings['seconds']) == {
        f'verification/{n}::check:{n}-grid' for n in ('a-small', 'b-big', 'c-middle')
    }
    # The last timings outrank the recorded states: an order that neither the states nor the
    # timings just measured give (those of runs this short are noise).
    for name, seconds in (('a-small', 1000.0), ('c-middle', 500.0), ('b-big', 100.0)):
        timings['seconds'][f'verification/{name}::check:{name}-grid'] = seconds
    (git_repo.path / '.git/execlease/timings.json').write_text(json.dumps(timings))
    spans.clear()
    assert cli.main(['verify', '--jobs', '1', '--no-cache']) == 0
    assert [name for name, _, _ in spans] == ['a-small-grid', 'c-middle-grid', 'b-big-grid']
    # A corrupt timings file costs the order only (back to the recorded states).
    (git_repo.path / '.git/execlease/timings.json').write_text('{"format": 1, "sec')
    spans.clear()
    assert cli.main(['verify', '--jobs', '1', '--no-cache']) == 0
    assert [name for name, _, _ in spans] == ['b-big-grid', 'c-middle-grid', 'a-small-grid']
    capsys.readouterr()


def test_a_model_that_cannot_run_is_its_own_exit_2(git_repo, spans, capsys):
    grid_model(git_repo, 'a-fine', 5)
    grid_model(git_repo, 'b-broken', 5)
    grid_model(git_repo, 'c-after', 5)
    (git_repo.path / 'verification/b-broken/Grid.cfg').unlink()
    assert cli.main(['verify', '--jobs', '2']) == 2
    out, err = capsys.readouterr()
    # The models before and after it run and are reported; the broken one is named, in its place.
    assert (
        out.index('model verification/a-fine:')
        < out.index('model verification/b-broken:')
        < out.index('model verification/c-after:')
    )
    assert 'Grid.cfg: cannot read the config of check b-broken-grid' in out
    assert sorted(name for name, _, _ in spans) == ['a-fine-grid', 'c-after-grid']


def test_a_failing_and_a_passing_model_keep_their_own_exit_codes(git_repo, spans, tmp_path, capsys):
    grid_model(git_repo, 'a-pass', 5)
    grid_model(git_repo, 'b-fail', 5, spec=SPEC.replace('a \\in 0..K', 'a \\in 0..2'))
    report = tmp_path / 'r.json'
    assert cli.main(['verify', '--jobs', '2', '--json', str(report)]) == 1
    data = json.loads(report.read_text())
    assert [(Path(m['manifest']).parent.name, m['exit_code']) for m in data['models']] == [
        ('a-pass', 0),
        ('b-fail', 1),
    ]
    capsys.readouterr()


def test_estimate_falls_back_to_states_and_a_jvm_start(git_repo, tmp_path):
    from execlease_hook.manifest import read as manifest_read

    grid_model(git_repo, 'm', 10, states=20_000)
    m = manifest_read.load(git_repo.path / 'verification/m/manifest.json', git_repo.path)
    job = TlcJob(
        kind='check',
        name='m-grid',
        spec='Grid.tla',
        spec_text=b'',
        config='Grid.cfg',
        config_text=b'',
        settings=from_environ(),
    )
    assert pool.estimate(m, job, None) == pool.JVM_START + 20_000 / pool.STATES_PER_SECOND
    timings = pool.Timings(tmp_path)
    timings.record(pool.job_key(m, job), 3.25)
    timings.save()
    assert pool.estimate(m, job, pool.Timings(tmp_path)) == 3.25
    (tmp_path / pool.FILE).write_text(
        '{"format": 1, "seconds": {"verification/m::check:m-grid": "x"}}'
    )
    assert pool.estimate(m, job, pool.Timings(tmp_path)) == pool.JVM_START + 2.0


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The label of every job the live display showed as running."""
    real = Live.start
    seen: list[str] = []

    def start(self: Live, label: str) -> JobProgress:
        seen.append(label)
        return real(self, label)

    monkeypatch.setattr(Live, 'start', start)
    return seen


def _add(repo: GitRepo, name: str, **entries: list[dict[str, object]]) -> None:
    path = repo.path / f'verification/{name}/manifest.json'
    manifest = json.loads(path.read_text())
    manifest.update(entries)
    repo.write(f'verification/{name}/manifest.json', json.dumps(manifest, indent=2) + '\n')


def _jobs(report: Path) -> dict[tuple[str, str], dict[str, Any]]:
    data = json.loads(report.read_text())
    return {(j['kind'], j['name']): j for m in data['models'] for j in m['jobs']}


@pytest.mark.parametrize('cache', [[], ['--no-cache']], ids=['cache', 'no-cache'])
def test_a_check_and_a_finding_of_one_job_run_tlc_once(
    git_repo, spans, shown, tmp_path, capsys, cache
):
    # The finding makes the check's very job (same spec, cfg, flags): one TLC run judges both,
    # each by its own entry: the check holds, the finding no longer reproduces.
    grid_model(git_repo, 'm', 4)
    _add(git_repo, 'm', findings=[{'id': 'gone', 'config': 'Grid.cfg', 'violates': 'TypeOK'}])
    report = tmp_path / 'r.json'
    assert cli.main(['verify', '--jobs', '2', '--json', str(report), *cache]) == 1
    out, err = capsys.readouterr()
    assert [name for name, _, _ in spans] == ['m-grid']
    assert shown == ['check m-grid']
    jobs = _jobs(report)
    assert jobs[('check', 'm-grid')]['outcome'] == 'held'
    assert jobs[('finding', 'gone')]['outcome'] == 'did not hold'
    assert 'gone no longer reproduces' in out
    for job in jobs.values():  # both report the one run: its seconds, not from the cache
        assert job['cached'] is False
        assert job['verdict'] == jobs[('check', 'm-grid')]['verdict']
    # Each entry's time is recorded for the next run's order.
    timings = json.loads((git_repo.path / '.git/execlease/timings.json').read_text())
    assert set(timings['seconds']) == {
        'verification/m::check:m-grid',
        'verification/m::finding:gone',
    }


def test_jobs_that_differ_only_in_their_timeout_run_apart(git_repo, spans, shown, tmp_path):
    # The deadline is no part of the cache key, but a job must not be judged by another's: the
    # finding with its own timeout runs TLC on its own, and each is judged by its own entry.
    grid_model(git_repo, 'm', 4)
    _add(
        git_repo,
        'm',
        findings=[{'id': 'gone', 'config': 'Grid.cfg', 'violates': 'TypeOK', 'timeout': 500}],
    )
    report = tmp_path / 'r.json'
    assert cli.main(['verify', '--jobs', '2', '--no-cache', '--json', str(report)]) == 1
    assert sorted(name for name, _, _ in spans) == ['gone', 'm-grid']
    assert sorted(shown) == ['check m-grid', 'finding gone']
    jobs = _jobs(report)
    assert jobs[('check', 'm-grid')]['outcome'] == 'held'
    assert jobs[('finding', 'gone')]['outcome'] == 'did not hold'


def test_findings_that_differ_only_in_what_they_name_run_tlc_once(
    git_repo, spans, shown, tmp_path, capsys
):
    # Three findings on one cfg, each naming its own property: one held, one for the wrong
    # reason, one by the invariant's expression; in two models of the same spec and cfg.
    for name in ('a', 'b'):
        grid_model(git_repo, name, 4)
        git_repo.write(
            f'verification/{name}/Small.cfg',
            'CONSTANT K = 4\nINIT Init\nNEXT Next\nINVARIANT TypeOK\nINVARIANT Small\n',
        )
        git_repo.write(
            f'verification/{name}/Grid.tla',
            SPEC.replace('====', 'Small == a < 2\n===='),
        )
        _add(
            git_repo,
            name,
            checks=[],
            findings=[
                {'id': f'{name}-small', 'config': 'Small.cfg', 'violates': 'Small'},
                {'id': f'{name}-typeok', 'config': 'Small.cfg', 'violates': 'TypeOK'},
            ],
        )
    report = tmp_path / 'r.json'
    assert cli.main(['verify', '--jobs', '2', '--no-cache', '--json', str(report)]) == 1
    out, err = capsys.readouterr()
    assert len(spans) == 1
    assert len(shown) == 1
    jobs = _jobs(report)
    assert sorted(jobs) == [
        ('finding', 'a-small'),
        ('finding', 'a-typeok'),
        ('finding', 'b-small'),
        ('finding', 'b-typeok'),
    ]
    assert jobs[('finding', 'a-small')]['outcome'] == 'held'
    assert jobs[('finding', 'b-small')]['outcome'] == 'held'
    assert jobs[('finding', 'a-typeok')]['outcome'] == 'did not hold'
    assert 'a-typeok fails for the wrong reason: expected TypeOK, got Small' in out
    assert 'b-typeok fails for the wrong reason: expected TypeOK, got Small' in out


def test_a_temporal_property_is_named_by_one_run_each_for_every_job_of_a_key(
    git_repo, spans, monkeypatch, tmp_path, capsys
):
    # Two checks of one job fail on a temporal property of several: TLC does not name it, so
    # each property is run alone (violations.refine); those runs, too, start once in the run.
    keys: list[str] = []
    spied = pool.run_job

    def keyed(job: TlcJob, on_line=None) -> output.Verdict:
        keys.append(job.cache_key('jar', 0))
        return spied(job, on_line)

    monkeypatch.setattr('execlease_hook.verify.pool.run_job', keyed)
    kinds = Path(__file__).parents[1] / 'fixtures' / 'kinds'
    for name in ('Kinds.tla', 'beyond.cfg'):
        git_repo.write(f'verification/kinds/{name}', (kinds / name).read_text())
    manifest = {
        'version': 1,
        'spec': 'Kinds.tla',
        'checks': [{'name': n, 'config': 'beyond.cfg'} for n in ('first', 'second')],
    }
    git_repo.write('verification/kinds/manifest.json', json.dumps(manifest, indent=2) + '\n')
    report = tmp_path / 'r.json'
    assert cli.main(['verify', '--jobs', '2', '--no-cache', '--json', str(report)]) == 1
    capsys.readouterr()
    assert len(keys) > 1 and len(set(keys)) == len(keys)  # the check, then a run per property
    jobs = _jobs(report)
    for name in ('first', 'second'):
        assert jobs[('check', name)]['outcome'] == 'did not hold'
        assert jobs[('check', name)]['verdict']['property'] == 'Beyond'
