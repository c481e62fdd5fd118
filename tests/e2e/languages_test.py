"""End to end, every language at once: a scratch repository with covered code in each supported
language (a function and a region each), guarded by the real pre-commit hook. For each language, a
formatting-only edit commits and a one-token semantic edit is blocked, naming both entries; the
edits of every language go in the same two commits.

One row per language in ROWS: adding a language is adding a row.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import shared
from tests.conftest import LEASE_TLA, GitRepo, sync_coverage
from tests.e2e.guard_test import hook_config, run

MODEL_DIR = 'verification/lease'
MANIFEST = f'{MODEL_DIR}/manifest.json'

# (id, path, source, function, region (from, to), semantic edit (old, new), formatting edit (old, new)).
# Each edit's old text occurs once; the region's anchors survive both edits, and the semantic edit
# lies inside the region.
ROWS = (
    (
        'python',
        'app/lease.py',
        "def claim(db, run):\n    return db.execute('UPDATE lease SET owner = ?', (run,))\n",
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ("'UPDATE lease SET owner = ?'", '"UPDATE lease SET owner = ?"'),
    ),
    (
        'typescript',
        'app/lease.ts',
        "export function claim(db: Db, run: string) {\n  return db.run('UPDATE lease SET owner = ?', [run]);\n}\n",
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ("'UPDATE lease SET owner = ?', [run]", '"UPDATE lease SET owner = ?", [run,]'),
    ),
    (
        'tsx',
        'app/badge.tsx',
        "export function Badge({ owner }: { owner: string }) {\n  return <span className='lease'>{owner}</span>;\n}\n",
        'Badge',
        ('<span', '</span>'),
        ('{owner}</span>', '{owner}!</span>'),
        ("className='lease'", 'className="lease"'),
    ),
    (
        'javascript',
        'app/lease.js',
        "const claim = (db, run) => {\n  return db.run('UPDATE lease SET owner = ?', [run]);\n};\n",
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ("'UPDATE lease SET owner = ?'", '"UPDATE lease SET owner = ?"'),
    ),
    (
        'go',
        'app/lease.go',
        'package app\n\nfunc Claim(db DB, run string) error {\n\treturn db.Exec(`UPDATE lease SET owner = ?`, run)\n}\n',
        'Claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ('`UPDATE lease SET owner = ?`', '"UPDATE lease SET owner = ?"'),
    ),
    (
        'java',
        'app/Lease.java',
        'class Lease {\n    int claim(Db db, String run) {\n        return db.exec("UPDATE lease SET owner = ?", run);\n'
        '    }\n}\n',
        'Lease.claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        (', run);', ', (run));'),
    ),
    (
        'rust',
        'app/lease.rs',
        'fn claim(db: &Db, run: &str) -> u64 {\n    db.exec("UPDATE lease SET owner = ?", run)\n}\n',
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ('"UPDATE lease SET owner = ?"', 'r#"UPDATE lease SET owner = ?"#'),
    ),
    (
        'c',
        'app/lease.c',
        'int claim(db_t *db, const char *run) {\n    return db_exec(db, "UPDATE lease SET owner = ?", run);\n}\n',
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ('"UPDATE lease SET owner = ?"', '"UPDATE lease " "SET owner = ?"'),
    ),
    (
        'cpp',
        'app/lease.cpp',
        'namespace app {\nint Lease::claim(Db &db, const std::string &run) {\n'
        '  return db.exec("UPDATE lease SET owner = ?", run);\n}\n}  // namespace app\n',
        'app.Lease.claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ('"UPDATE lease SET owner = ?"', 'R"sql(UPDATE lease SET owner = ?)sql"'),
    ),
    (
        'zig',
        'app/lease.zig',
        'pub const Lease = struct {\n    pub fn claim(db: *Db, run: []const u8) !u64 {\n'
        '        return db.exec("UPDATE lease SET owner = ?", .{run});\n    }\n};\n',
        'Lease.claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ('.{run}', '.{ run, }'),
    ),
    (
        'csharp',
        'app/Lease.cs',
        'class Lease {\n    int Claim(Db db, string run) {\n        return db.Exec("UPDATE lease SET owner = ?", run);\n'
        '    }\n}\n',
        'Lease.Claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        ('"UPDATE lease SET owner = ?"', '@"UPDATE lease SET owner = ?"'),
    ),
    (
        'kotlin',
        'app/Lease.kt',
        'fun claim(db: Db, run: String): Int {\n    return db.exec("UPDATE lease SET owner = ?", run)\n}\n',
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        (', run)\n', ', run);\n'),
    ),
    (
        'scala',
        'app/Lease.scala',
        'object Lease {\n  def claim(db: Db, run: String): Int = {\n    db.exec("UPDATE lease SET owner = ?", run)\n  }\n}\n',
        'Lease.claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        (', run)\n', ', run);\n'),
    ),
    (
        'swift',
        'app/Lease.swift',
        'func claim(db: Db, run: String) -> Int {\n    return db.exec("UPDATE lease SET owner = ?", run)\n}\n',
        'claim',
        ('UPDATE lease', 'owner = ?'),
        ('SET owner', 'SET  owner'),
        (', run)\n', ', run);\n'),
    ),
)


@dataclass(frozen=True)
class Judged:
    """What the guard said on the two commits of `judged`, every language's edits in each."""

    formatting: tuple[int, str]
    semantic: tuple[int, str]
    staged: list[str]  # what the blocked commit left staged


@pytest.fixture(scope='module')
def judged(
    tmp_path_factory: pytest.TempPathFactory, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> Judged:
    """Every language's covered code in one repository guarded by the real hook, and two commits
    through it: every formatting edit at once (which must commit), then every semantic edit at
    once (which must be blocked). Each language's test reads its own verdicts from the two
    outputs: the guard judges each entry on its own, so the edits of the other languages change
    nothing of what it says on one, and the repository and its hooks are built once for the test
    run (every xdist worker's, tests/shared.py), not once per language."""
    return shared.value(
        tmp_path_factory,
        'every-language',
        lambda: _judge(tmp_path_factory.mktemp('every-language'), hook_repo, pre_commit_home),
    )


def _judge(root: Path, hook_repo: tuple[Path, str], pre_commit_home: Path) -> Judged:
    repo = GitRepo(root)
    repo.git('init', '-q', '-b', 'main')
    entries: list[dict[str, object]] = []
    for name, path, source, function, (start, end), _, _ in ROWS:
        repo.write(path, source)
        entries.append(
            {'id': f'{name}-function', 'path': path, 'function': function, 'action': 'Claim'}
        )
        entries.append(
            {
                'id': f'{name}-region',
                'path': path,
                'region': {'from': start, 'to': end},
                'action': 'Claim',
            }
        )
    repo.write(f'{MODEL_DIR}/Lease.tla', LEASE_TLA)
    repo.write(f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\n')
    repo.write(
        MANIFEST,
        json.dumps(
            {
                'version': 1,
                'spec': 'Lease.tla',
                'checks': [{'name': 'main', 'config': 'Lease.cfg'}],
                'coverage': {'syncCommit': None, 'modelHash': None, 'entries': entries},
            },
            indent=2,
        )
        + '\n',
    )
    repo.write('.pre-commit-config.yaml', hook_config(hook_repo))
    repo.add('.')
    repo.commit('covered code in every language')
    sync_coverage(repo.path)
    repo.add(MANIFEST)
    repo.commit('sync coverage')
    pre_commit = (sys.executable, '-m', 'pre_commit')
    for command in ('install', 'install-hooks'):
        code, out = run(repo, pre_commit_home, *pre_commit, command)
        assert code == 0, out

    paths = [row[1] for row in ROWS]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv('COLUMNS', '1000')  # `wide_terminal`'s, which is per test
        for _, path, source, _, _, _, formatting in ROWS:
            repo.write(path, source.replace(*formatting))
        repo.add(*paths)
        formatted = run(repo, pre_commit_home, 'git', 'commit', '-m', 'reformat every language')
        for _, path, source, _, _, semantic, formatting in ROWS:
            repo.write(path, source.replace(*formatting).replace(*semantic))
        repo.add(*paths)
        changed = run(repo, pre_commit_home, 'git', 'commit', '-m', 'change every language')
    staged = repo.git('diff', '--cached', '--name-only').split()
    return Judged(formatted, changed, staged)


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ('name', 'path', 'source', 'semantic', 'formatting'),
    [(r[0], r[1], r[2], r[5], r[6]) for r in ROWS],
    ids=[r[0] for r in ROWS],
)
def test_formatting_commits_and_a_semantic_edit_is_blocked(
    judged, name, path, source, semantic, formatting
):
    for old, _ in (semantic, formatting):
        assert source.count(old) == 1, f'{name}: {old!r} must occur once'
    code, out = judged.formatting
    assert code == 0, out
    assert re.search(r'execlease guard\.+Passed', out), out

    code, out = judged.semantic
    assert code == 1, out
    for kind in ('function', 'region'):
        assert f'{name}-{kind}: {path}:' in out and 'covered code changed' in out, out
    # What to do, in words that fit every language, pointing to the model's own notes and to
    # execlease's documentation in any repository (never the user's README).
    assert 'What to do (`execlease help covered-code` says more):' in out
    assert f'code-to-action map of {MODEL_DIR}/NOTES.md' in out
    assert 'README' not in out and 'WHERE' not in out.split('What to do')[1]
    # Nothing committed: every language's edit is still staged, this one's among them.
    assert path in judged.staged
    assert sorted(judged.staged) == sorted(row[1] for row in ROWS)
