"""Every digest execlease records or keys a cache by, pinned: fingerprints (ts1 and ts2) of every
definition in every source fixture, a model's `modelHash` and its record per definition, the result-cache keys of its TLC jobs
and of a trace job. A refactoring must leave them byte-identical: a changed fingerprint makes
every user's manifest report "changed", a changed key throws every cache away.

The pinned values are in tests/data/golden_digests.json. Only a deliberate change of a scheme
may rewrite them (`python tests/project/golden_digests_test.py --write`), and it then needs a new scheme
name or key prefix, never the old one with new bytes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.core.settings import Settings
from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.locate.entry import every_definition, find_functions
from execlease_hook.locate.source import language_for
from execlease_hook.manifest.read import load
from execlease_hook.spec.record import model_hash
from execlease_hook.spec.record import read as read_model
from execlease_hook.spec.record import record as model_record
from execlease_hook.tlc.jar import ToolJar, Tools
from execlease_hook.tlc.java import Java
from execlease_hook.traces.cache import cache_key as trace_cache_key
from execlease_hook.verify.plan import plan

HERE = Path(__file__).parents[1]
GOLDEN = HERE / 'data' / 'golden_digests.json'
SOURCES = ('locate', 'formatters', 'real')

MANIFEST = {
    'version': 1,
    'spec': 'Counter.tla',
    'checks': [
        {'name': 'pass', 'config': 'pass.cfg'},
        {'name': 'invariant', 'config': 'invariant.cfg'},
        {'name': 'deadlock', 'config': 'deadlock.cfg', 'deadlock': False},
    ],
    'mutations': [
        {
            'name': 'no-inc',
            'config': 'pass.cfg',
            'within': 'Inc',
            'replace': {'from': "x' = x + 1", 'to': "x' = x + 2"},
            'violates': 'TypeOK',
        }
    ],
    'findings': [{'id': 'F1', 'config': 'invariant.cfg', 'violates': 'XBelowTwo'}],
    'traces': [
        {
            'name': 'rejected',
            'spec': 'TraceCounter.tla',
            'config': 'TraceCounter.cfg',
            'files': ['*.ndjson'],
        }
    ],
    'coverage': {
        'entries': [
            {
                'id': 'inc',
                'path': 'src/sample.py',
                'function': 'Lease.claim',
                'hash': 'ts2:sha256:' + '0' * 64,
                'action': 'Inc',
            }
        ]
    },
}


def fingerprints() -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for folder in SOURCES:
        for path in sorted((HERE / 'fixtures' / folder).iterdir()):
            language = language_for(path.name)
            if language is None:
                continue
            source = path.read_bytes()
            rel = f'{folder}/{path.name}'
            names = sorted({d.qualname for d in every_definition(language, source)})
            for name in names:
                found = find_functions(path.name, source, name)
                out.setdefault(rel, {})[name] = [
                    f'{fingerprint(f, "ts1")} {fingerprint(f, "ts2")}' for f in found
                ]
    return out


def model(root: Path) -> dict[str, Any]:
    folder = root / 'verification' / 'counter'
    folder.mkdir(parents=True)
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg', 'invariant.cfg', 'deadlock.cfg'):
        shutil.copy(HERE / 'fixtures' / 'tlc' / name, folder / name)
    for name in ('TraceCounter.tla', 'TraceCounter.cfg', 'rejected.ndjson'):
        shutil.copy(HERE / 'fixtures' / 'traces' / name, folder / name)
    (root / 'src').mkdir()
    shutil.copy(HERE / 'fixtures' / 'locate' / 'sample.py', root / 'src' / 'sample.py')
    (folder / 'manifest.json').write_text(json.dumps(MANIFEST))
    m = load(folder / 'manifest.json', root)
    tools = Tools(
        ToolJar(root / 'tla2tools.jar', 'a' * 64, 'cache', True),
        Java(Path('/usr/bin/java'), 17, 'x'),
        Settings(),
    )
    jobs = {
        f'{p.job.kind}:{p.job.name}': p.job.cache_key('a' * 64, 17) for p in plan(m, False, tools)
    }
    traces = {t.name: trace_cache_key(m, t, root, tools) for t in m.traces}
    shipped = model_record(read_model(m, WorktreeSource(root)))
    record = {
        'scheme': shipped.scheme,
        'files': {k: v if isinstance(v, str) else dict(v) for k, v in shipped.files.items()},
    }
    return {
        'modelHash': model_hash(m, WorktreeSource(root)),
        'record': record,
        'jobs': jobs,
        'traces': traces,
    }


def compute(root: Path) -> dict[str, Any]:
    return {'fingerprints': fingerprints(), 'model': model(root)}


@pytest.fixture(scope='module')
def computed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compute(tmp_path_factory.mktemp('golden'))


@pytest.mark.parametrize('folder', SOURCES)
def test_fingerprints_of_every_fixture_definition_are_unchanged(
    computed: dict[str, Any], folder: str
) -> None:
    golden = json.loads(GOLDEN.read_text())['fingerprints']
    mine = {k: v for k, v in computed['fingerprints'].items() if k.startswith(folder + '/')}
    theirs = {k: v for k, v in golden.items() if k.startswith(folder + '/')}
    assert theirs, f'no pinned fingerprints for tests/fixtures/{folder}'
    assert mine == theirs


def test_model_hash_and_cache_keys_are_unchanged(computed: dict[str, Any]) -> None:
    golden = json.loads(GOLDEN.read_text())['model']
    assert len(golden['jobs']) == 5 and len(golden['traces']) == 1
    assert computed['model'] == golden


# The record's files as they were pinned before the record held the modules the spec reads: each
# keeps its bytes; the record only gained CounterLib.tla (Counter.tla EXTENDS it).
RECORD_BEFORE_MODULES = ('Counter.tla', 'deadlock.cfg', 'invariant.cfg', 'pass.cfg')


def test_the_record_gained_the_read_module_and_kept_every_other_file(
    computed: dict[str, Any],
) -> None:
    files = computed['model']['record']['files']
    assert sorted(files) == sorted((*RECORD_BEFORE_MODULES, 'CounterLib.tla'))
    golden = json.loads(GOLDEN.read_text())['model']['record']['files']
    assert {k: files[k] for k in RECORD_BEFORE_MODULES} == {
        k: golden[k] for k in RECORD_BEFORE_MODULES
    }


if __name__ == '__main__' and sys.argv[1:] == ['--write']:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.write_text(json.dumps(compute(Path(tmp)), indent=1, sort_keys=True) + '\n')
    print(f'wrote {GOLDEN}')
