"""The NOTES.md code-to-action table through `git commit` and the real pre-commit, on a Go
repository laid out as TLA+ projects are (the spec, its cfg, manifest.json and NOTES.md in
`tla/`, the code at the top): whatever moved the cited lines, the guard's rewrite is what the
next commit expects, so the commit run again passes; `coverage --write-map` then `git add` passes
at once; the warning about an edit inside the table comes only when a line typed by hand is lost.

The manifest has every shape of table at once: entries of two files interleaved (so the staged
file's entries are not the first rows), a region inside a function, and abstract actions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo, sync_coverage
from tests.e2e.guard_test import hook_config, install_hooks, installed_copy, run

MODEL = 'tla'
MANIFEST = f'{MODEL}/manifest.json'
NOTES = f'{MODEL}/NOTES.md'
RAFT_GO = """\
package raft

import "errors"

type StateType int

type raft struct {
	id    uint64
	term  uint64
	state StateType
	log   *raftLog
}

func (r *raft) becomeCandidate() {
	r.term++
	r.state = 1
}

func (r *raft) becomeLeader() {
	if r.state != 1 {
		panic("invalid transition")
	}
	r.state = 2
}

func (r *raft) Step(term uint64, ents []uint64) error {
	if term < r.term {
		return errors.New("stale term")
	}
	// handle-append: begin
	r.log.append(ents...)
	// handle-append: end
	return nil
}
"""
LOG_GO = """\
package raft

type raftLog struct {
	entries   []uint64
	committed uint64
}

func (l *raftLog) append(ents ...uint64) uint64 {
	l.entries = append(l.entries, ents...)
	return uint64(len(l.entries))
}

func (l *raftLog) commitTo(tocommit uint64) {
	if l.committed < tocommit {
		l.committed = tocommit
	}
}
"""
SPEC = """\
---- MODULE etcdraft ----
EXTENDS Naturals, Sequences
VARIABLES state, log, committed
vars == <<state, log, committed>>
Init == state = "Follower" /\\ log = <<>> /\\ committed = 0
Timeout == state' = "Candidate" /\\ UNCHANGED <<log, committed>>
BecomeLeader == state = "Candidate" /\\ state' = "Leader" /\\ UNCHANGED <<log, committed>>
ClientRequest == state = "Leader" /\\ Len(log) < 2 /\\ log' = Append(log, 1) /\\ UNCHANGED <<state, committed>>
HandleAppendEntries == Len(log) < 2 /\\ log' = Append(log, 1) /\\ UNCHANGED <<state, committed>>
AdvanceCommitIndex == committed < Len(log) /\\ committed' = Len(log) /\\ UNCHANGED <<state, log>>
Restart == state' = "Follower" /\\ UNCHANGED <<log, committed>>
DropMessage == UNCHANGED vars
Next == Timeout \\/ BecomeLeader \\/ ClientRequest \\/ HandleAppendEntries
        \\/ AdvanceCommitIndex \\/ Restart \\/ DropMessage
Spec == Init /\\ [][Next]_vars
====
"""
# Interleaved: raft.go, log.go, raft.go, log.go, raft.go.
ENTRIES = [
    {
        'id': 'become-candidate',
        'path': 'raft.go',
        'function': 'raft.becomeCandidate',
        'action': 'Timeout',
    },
    {'id': 'log-append', 'path': 'log.go', 'function': 'raftLog.append', 'action': 'ClientRequest'},
    {
        'id': 'handle-append',
        'path': 'raft.go',
        'within': 'raft.Step',
        'action': 'HandleAppendEntries',
        'region': {'from': '// handle-append: begin', 'to': '// handle-append: end'},
    },
    {
        'id': 'commit-to',
        'path': 'log.go',
        'function': 'raftLog.commitTo',
        'action': 'AdvanceCommitIndex',
    },
    {
        'id': 'become-leader',
        'path': 'raft.go',
        'function': 'raft.becomeLeader',
        'action': 'BecomeLeader',
    },
]
ABSTRACT = [
    {'action': 'Restart', 'reason': 'a crash: the process | its memory is gone, the disk stays'},
    {'action': 'DropMessage', 'reason': 'the network loses a message; no code does'},
]
NOTES_MD = """\
# etcdraft: model notes

## Code-to-action map

<!-- code-to-action:begin -->
<!-- code-to-action:end -->

## Outside the model

Snapshots and configuration changes.
"""
# A reformat that moves every line of raft.go below its imports (gofmt would keep it).
RAFT_MOVED = RAFT_GO.replace(
    'import "errors"\n', 'import (\n\t"errors"\n\t"fmt"\n)\n\nvar _ = fmt.Sprint\n'
)
LOG_MOVED = LOG_GO.replace('package raft\n', 'package raft\n\n// The log of one node.\n')


@pytest.fixture
def go_repo(
    git_repo: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    """The Go repository, synced (its table written) and committed, with the hook installed: a
    copy of the one built for the test run (guard_test.installed_copy)."""

    def build(repo: GitRepo) -> None:
        repo.write('go.mod', 'module example.com/raft\n\ngo 1.22\n')
        repo.write('raft.go', RAFT_GO)
        repo.write('log.go', LOG_GO)
        repo.write(f'{MODEL}/etcdraft.tla', SPEC)
        repo.write(f'{MODEL}/etcdraft.cfg', 'SPECIFICATION Spec\n')
        repo.write(
            MANIFEST,
            json.dumps(
                {
                    'version': 1,
                    'spec': 'etcdraft.tla',
                    'checks': [{'name': 'main', 'config': 'etcdraft.cfg'}],
                    'coverage': {
                        'syncCommit': None,
                        'modelHash': None,
                        'entries': ENTRIES,
                        'abstract': ABSTRACT,
                    },
                },
                indent=2,
            )
            + '\n',
        )
        repo.write(NOTES, NOTES_MD)
        repo.write('.pre-commit-config.yaml', hook_config(hook_repo))
        repo.add('.')
        repo.commit('raft and its model')
        sync_coverage(repo.path, MANIFEST)
        repo.add(MANIFEST, NOTES)
        repo.commit('sync coverage')
        install_hooks(repo, pre_commit_home)

    installed_copy(tmp_path_factory, 'notes-map-go-repo', build, git_repo)
    return git_repo


def commit(repo: GitRepo, home: Path) -> tuple[int, str]:
    return run(repo, home, 'git', 'commit', '-m', 'a change')


def table(repo: GitRepo) -> list[str]:
    """The committed table's rows, below its header."""
    text = repo.git('show', f'HEAD:{NOTES}')
    return text[text.index('begin -->') : text.index('<!-- code-to-action:end')].splitlines()[4:]


def edit_manifest(repo: GitRepo, change) -> None:
    data = json.loads(repo.read(MANIFEST))
    change(data['coverage'])
    repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    repo.add(MANIFEST)


def test_the_synced_table_follows_the_manifest(go_repo):
    rows = table(go_repo)
    assert [row.split('|')[2].strip() for row in rows] == [
        '`become-candidate`',
        '`log-append`',
        '`handle-append`',
        '`commit-to`',
        '`become-leader`',
        'abstract',
        'abstract',
    ]
    assert (
        rows[-2]
        == '| `Restart` | abstract | a crash: the process \\| its memory is gone, the disk stays |'
    )


def stage_one_file(repo: GitRepo) -> None:
    repo.write('raft.go', RAFT_MOVED)
    repo.add('raft.go')


def stage_both_files(repo: GitRepo) -> None:
    stage_one_file(repo)
    repo.write('log.go', LOG_MOVED)
    repo.add('log.go')


def stage_code_and_notes(repo: GitRepo) -> None:
    stage_one_file(repo)  # and an edit outside the table: the whole table is checked
    repo.write(NOTES, repo.read(NOTES) + 'And leader leases.\n')
    repo.add(NOTES)


def stage_an_abstract_reason(repo: GitRepo) -> None:
    edit_manifest(repo, lambda c: c['abstract'][1].update(reason='the network drops or delays it'))


def stage_a_reordered_manifest(repo: GitRepo) -> None:
    edit_manifest(
        repo, lambda c: c.update(entries=c['entries'][::-1], abstract=c['abstract'][::-1])
    )
    stage_one_file(repo)


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    'change',
    (
        stage_one_file,
        stage_both_files,
        stage_code_and_notes,
        stage_an_abstract_reason,
        stage_a_reordered_manifest,
    ),
    ids=(
        'one-of-two-files',
        'both-files',
        'code-and-notes',
        'abstract-reason',
        'reordered-manifest',
    ),
)
def test_rewrite_then_commit_passes(go_repo, pre_commit_home, change):
    change(go_repo)
    code, out = commit(go_repo, pre_commit_home)
    assert code == 1, out
    assert (
        f'{NOTES}: the code-to-action table was out of date (nothing covered changed); '
        'rewritten in the working tree and the index:' in out
    )
    assert 'warning' not in out and 'files were modified by this hook' not in out
    code, out = commit(go_repo, pre_commit_home)
    assert code == 0, out
    assert go_repo.git('status', '--porcelain').strip() == ''
    want = json.loads(go_repo.read(MANIFEST))['coverage']
    ids = [row.split('|')[2].strip() for row in table(go_repo)]
    assert ids == [f'`{e["id"]}`' for e in want['entries']] + ['abstract'] * len(want['abstract'])


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    'change', (stage_one_file, stage_both_files), ids=('one-of-two-files', 'both-files')
)
def test_write_map_then_git_add_passes_at_once(go_repo, pre_commit_home, change):
    change(go_repo)
    code, out = run(
        go_repo, pre_commit_home, sys.executable, '-m', 'execlease_hook', 'coverage', '--write-map'
    )
    assert code == 0, out
    assert f'{NOTES}: code-to-action table rewritten' in out
    go_repo.add(NOTES)
    code, out = commit(go_repo, pre_commit_home)
    assert code == 0, out
    line = RAFT_MOVED.splitlines().index('func (r *raft) becomeLeader() {') + 1
    assert f'[raft.go:{line}](../raft.go#L{line})' in go_repo.git('show', f'HEAD:{NOTES}')


@pytest.mark.timeout(900)
def test_a_line_typed_inside_the_table_is_quoted_when_overwritten(go_repo, pre_commit_home):
    typed = '| `Timeout` | randomized | see "Outside the model" |'
    text = go_repo.read(NOTES)
    go_repo.write(
        NOTES, text.replace('<!-- code-to-action:end -->', f'{typed}\n<!-- code-to-action:end -->')
    )
    go_repo.add(NOTES)
    stage_one_file(go_repo)
    code, out = commit(go_repo, pre_commit_home)
    assert code == 1, out
    assert f'  not generated: {typed}' in out
    assert f'warning: lines edited inside the generated table of {NOTES} were overwritten' in out
    assert f'they were:\n  {typed}\n' in out
    code, out = commit(go_repo, pre_commit_home)
    assert code == 0, out
    assert typed not in go_repo.read(NOTES) and 'warning' not in out
