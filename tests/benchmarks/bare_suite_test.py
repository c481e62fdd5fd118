"""(a) of benchmarks/suite_time.py (benchmarks/bare_suite.py) against the real `execlease verify`:
the same jobs, the same verdicts, on the Counter fixture with trace jobs and code mutations of
every outcome, real TLC. Speed is not asserted here; only that (a) does verify's work."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import bare_suite
from execlease_hook.core.outcomes import COULD_NOT_RUN, DID_NOT_HOLD, HELD
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.tlc import jar
from execlease_hook.tlc.java import find_java
from tests import needs, shared
from tests.conftest import GitRepo, offline_settings
from tests.traces.suite_test import (
    APP,
    BROKEN,
    GONE,
    HARMLESS,
    REJECTED,
    TLC_FIXTURES,
    UNBOUNDED,
    write_model,
)

CRASH = {
    'name': 'crash',
    'path': 'app/counter_app.py',
    'replace': {'from': 'return 0', 'to': 'return 3'},
    'traces': ['app'],
}
EXPECTED = {
    ('check', 'main'): HELD,
    ('mutation', 'stale'): COULD_NOT_RUN,  # its anchor matches nothing: planned, never run
    ('finding', 'F2'): HELD,  # an unnamed temporal property: named by more runs
    ('traces', 'app'): HELD,
    ('traces', 'recorded'): DID_NOT_HOLD,
    ('traces', 'broken'): COULD_NOT_RUN,
    ('code-mutation', 'unbounded'): HELD,  # rejected by the model
    ('code-mutation', 'crash'): HELD,  # breaks its trace command
    ('code-mutation', 'harmless'): DID_NOT_HOLD,  # accepted: not caught
    ('code-mutation', 'gone'): COULD_NOT_RUN,  # its anchor matches nothing
}


# The slowest fixture, on purpose: every job kind of the model run twice, bare and by verify, for
# the four tests below to read; comparing the two runs is this module's point.
@pytest.fixture(scope='module')
def compared(
    tmp_path_factory: pytest.TempPathFactory, jvm_cache: Path, tools_jar: Path
) -> dict[str, Any]:
    """Made once for the test run, every xdist worker's (tests/shared.py): a module split
    between the workers ran both runs twice."""
    needs.java()
    needs.tla_jar()

    return shared.value(
        tmp_path_factory,
        'bare-suite-compared',
        lambda: _compare(tmp_path_factory.mktemp('bare'), jvm_cache, tools_jar),
    )


def _compare(root: Path, jvm_cache: Path, tools_jar: Path) -> dict[str, Any]:
    repo = GitRepo(root)
    repo.git('init', '-q', '-b', 'main')
    path = write_model(repo, [APP, REJECTED, BROKEN], [UNBOUNDED, CRASH, HARMLESS, GONE])
    shutil.copyfile(TLC_FIXTURES / 'action.cfg', path.parent / 'action.cfg')
    data = json.loads(path.read_text())
    data['mutations'] = [
        {
            'name': 'stale',
            'config': 'pass.cfg',
            'violates': 'TypeOK',
            'replace': {'from': 'no such text', 'to': 'x'},
        },
    ]
    data['findings'] = [{'id': 'F2', 'config': 'action.cfg', 'violates': 'NeverDecreases'}]
    path.write_text(json.dumps(data, indent=2) + '\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith('EXECLEASE_')}
    env.update(offline_settings(jvm_cache, tools_jar))
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        m = manifest_read.load(path, repo.path)
        t = jar.Tools(
            jar.resolve_jar(repo.path, from_environ()),
            find_java(from_environ()),
            from_environ(),
        )
        with bare_suite.prepare(m, t) as p:
            made = [f for _, f in p.planned if f is not None] + [
                c for _, c in p.copies if isinstance(c, Path)
            ]
            assert made and all(f.is_dir() for f in made)
            a = bare_suite.run(p)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    report_path = repo.path / 'report.json'
    proc = subprocess.run(
        (
            str(Path(sys.executable).parent / 'execlease'),
            'verify',
            '--no-cache',
            '--jobs',
            '1',
            '--json',
            str(report_path),
        ),
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, (
        proc.stdout + proc.stderr
    )  # the broken trace job and the stale anchors
    assert (
        repo.read('app/counter_app.py')
        == (Path(__file__).parents[1] / 'fixtures' / 'traces' / 'counter_app.py').read_text()
    )
    return {'a': a, 'made': made, 'report': json.loads(report_path.read_text())}


def test_bare_reaches_the_verdicts_verify_reaches(compared):
    mine = bare_suite.verdicts(compared['a'])
    assert bare_suite.differences(mine, bare_suite.report_verdicts(compared['report']), '(b)') == []
    assert {key: said[0] for key, said in mine.items()} == EXPECTED
    assert mine[('code-mutation', 'unbounded')][1:3] == ('violated', 'deadlock')
    assert mine[('code-mutation', 'crash')][1:] == (None, None, None)  # TLC never ran
    assert mine[('finding', 'F2')][1:] == ('violated', 'property', 'NeverDecreases')


def test_a_verdict_that_differs_is_named(compared):
    mine = bare_suite.verdicts(compared['a'])
    theirs = dict(bare_suite.report_verdicts(compared['report']))
    theirs[('code-mutation', 'harmless')] = (HELD, 'violated', 'deadlock', None)
    del theirs[('traces', 'app')]
    assert bare_suite.differences(mine, theirs, '(b, run 1)') == [
        'code-mutation harmless: (a) did not hold (TLC: passed), (b, run 1) held (TLC: violated deadlock)',
        'traces app: (a) held (TLC: passed), (b, run 1) not run',
    ]


def test_the_split_counts_every_job_by_kind(compared):
    a = compared['a']
    split = a.split()
    assert {k: n for k, (n, _) in split.items()} == {
        'check': 1,
        'mutation': 1,
        'finding': 1,
        'traces': 3,
        'code-mutation': 4,
    }
    assert all(
        seconds > 0 for kind, (_, seconds) in split.items() if kind != 'mutation'
    )  # stale never ran
    assert sum(seconds for _, seconds in split.values()) <= a.seconds
    report = bare_suite.report_split(compared['report'])
    assert {k: n for k, (n, _) in report.items()} == {k: n for k, (n, _) in split.items()}


def test_prepared_folders_and_copies_are_removed(compared):
    assert not [f for f in compared['made'] if f.exists()]
