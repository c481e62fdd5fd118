from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.guard import check as guard_check
from execlease_hook.locate.entry import MAX_BYTES
from tests.conftest import (
    LEASE_PY,
    LEASE_TLA,
    MANIFEST,
    MODEL_DIR,
    NOTES,
    manifest_json,
    sync_coverage,
)

BODY_EDIT = LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')
STEPS = (
    '1. Find the entry',
    '2. If the protocol changed',
    '3. Run `execlease verify`',
    '4. Only once the model describes the new code',
)


def run_guard(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['guard', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def stage(repo, rel: str, text: str) -> Path:
    written = repo.write(rel, text)
    repo.add(rel)
    return written


@pytest.mark.parametrize(
    ('rel', 'text'),
    (
        pytest.param(None, None, id='nothing-staged'),
        pytest.param('app/other.py', 'def unrelated():\n    return 2\n', id='unrelated-file'),
        pytest.param(
            'app/lease.py',
            LEASE_PY.replace('(run_id, now),', '(run_id, now),  # binds'),
            id='comment-on-covered-line',
        ),
        pytest.param(
            'app/lease.py',
            LEASE_PY.replace('        (run_id, now),\n', '        (run_id,   now),\n'),
            id='whitespace-in-covered-code',
        ),
        pytest.param(
            'app/lease.py',
            LEASE_PY + '\n\ndef later():\n    return 3\n',
            id='uncovered-function-added',
        ),
    ),
)
def test_guard_passes(covered_repo, capsys, rel, text):
    if rel is not None:
        stage(covered_repo, rel, text)
    assert run_guard(capsys) == (0, '')


def test_covered_body_change_blocks_with_diff_and_steps(covered_repo, capsys):
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    code, out = run_guard(capsys, 'app/lease.py')
    assert code == 1
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert '-    return cur.rowcount == 1' in out
    assert '+    return cur.rowcount >= 1' in out
    assert '--- app/lease.py @ ' in out and '+++ app/lease.py (staged)' in out
    assert '@@ -9,3 +9,3 @@' in out  # the file's line numbers
    for step in STEPS:
        assert out.count(step) == 1
    assert f'{NOTES}' in out
    assert 'renew' not in out.split('What to do')[0]  # only the changed entry is named


def test_partially_staged_file_the_index_wins(covered_repo, capsys):
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    covered_repo.write('app/lease.py', LEASE_PY)  # the working tree is back to the synced code
    assert run_guard(capsys)[0] == 1


def test_unstaged_change_is_not_judged(covered_repo, capsys):
    stage(covered_repo, 'app/other.py', 'x = 1\n')
    covered_repo.write('app/lease.py', BODY_EDIT)  # changed but not staged
    assert run_guard(capsys) == (0, '')


def test_deleting_a_covered_file_blocks(covered_repo, capsys):
    covered_repo.git('rm', '-q', 'app/lease.py')
    code, out = run_guard(capsys)  # pre-commit passes no file names for a deletion
    assert code == 2
    assert 'claim-lease: app/lease.py  (model action Claim): cannot locate the covered code' in out
    assert 'app/lease.py is deleted in this commit' in out
    assert 'update the entry in verification/lease/manifest.json:' in out


def test_renamed_covered_file_moved_unchanged(covered_repo, capsys):
    covered_repo.write('lib/.keep', '')
    covered_repo.git('mv', 'app/lease.py', 'lib/lease.py')
    code, out = run_guard(capsys, 'lib/lease.py')
    assert code == 2
    assert 'app/lease.py is renamed to lib/lease.py in this commit' in out
    assert 'it moved unchanged to lib/lease.py:4 (same fingerprint)' in out
    lines = covered_repo.read(MANIFEST).splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"path": "app/lease.py"' in text)
    assert f'{MANIFEST}:{line}: change "path": "app/lease.py" to "path": "lib/lease.py"' in out
    assert 'it moved unchanged to lib/lease.py:18' in out  # LeaseStore.renew
    assert 'it moved unchanged to lib/lease.py:26' in out  # the region, found by its anchors
    assert out.count('to "path": "lib/lease.py"') == 3  # one manifest line per entry


def test_function_moved_to_another_file(covered_repo, capsys):
    start = LEASE_PY.index('def claim_lease')
    end = LEASE_PY.index('class LeaseStore')
    function = LEASE_PY[start:end]
    stage(covered_repo, 'app/lease.py', LEASE_PY[:start] + LEASE_PY[end:])
    stage(covered_repo, 'app/claims.py', 'import sqlite3\n\n\n' + function)
    code, out = run_guard(capsys, 'app/lease.py', 'app/claims.py')
    assert code == 2
    assert 'it moved unchanged to app/claims.py:4 (same fingerprint)' in out
    assert 'change "path": "app/lease.py" to "path": "app/claims.py"' in out


def test_function_moved_and_changed(covered_repo, capsys):
    start = LEASE_PY.index('def claim_lease')
    end = LEASE_PY.index('class LeaseStore')
    function = LEASE_PY[start:end].replace('== 1', '>= 1')
    stage(covered_repo, 'app/lease.py', LEASE_PY[:start] + LEASE_PY[end:])
    stage(covered_repo, 'app/claims.py', function)
    code, out = run_guard(capsys)
    assert code == 2
    assert 'found at app/claims.py:1, but changed: covered code changed' in out


def test_ambiguous_function_cannot_run(covered_repo, capsys):
    stage(covered_repo, 'app/lease.py', LEASE_PY + '\n\ndef claim_lease():\n    pass\n')
    code, out = run_guard(capsys)
    assert code == 2
    assert 'claim-lease: app/lease.py  (model action Claim): cannot locate the covered code' in out


@pytest.mark.parametrize(
    ('rel', 'text', 'named'),
    (
        pytest.param(
            f'{MODEL_DIR}/Lease.cfg',
            'INIT Init\nNEXT Next\nINVARIANT Inv\n',
            'config Lease.cfg changed its meaning since the sync',
            id='cfg',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace("Claim == x' = x + 1", "Claim == x' = x + 2"),
            'action Claim changed (Lease.tla:5) since the sync',
            id='action',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace('Init == x = 0', 'Init == x = 1'),
            'definition Init changed (Lease.tla:3) since the sync',
            id='definition',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace('VARIABLE x', 'VARIABLES x, y'),
            'VARIABLES changed (Lease.tla:2) since the sync',
            id='declaration',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace('====', 'Inv == x >= 0\n===='),
            'definition Inv added (Lease.tla:9) since the sync',
            id='added',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace("BeginStep == x' = x", "BeginStep ==\n    /\\ x' = x\n    /\\ TRUE"),
            'action BeginStep changed (Lease.tla:7-9) since the sync',
            id='bullets',
        ),
    ),
)
def test_model_changed_without_sync_blocks(covered_repo, capsys, rel, text, named):
    stage(covered_repo, rel, text)
    code, out = run_guard(capsys, rel)
    assert code == 1, out
    assert (
        f'model {MODEL_DIR}: the spec or a config changed since the last verified sync\n  {named}\n'
        in out
    )
    assert (
        'the model changed without a verified sync: run `execlease verify`, '
        'then `execlease verify --update-coverage`' in out
    )


@pytest.mark.parametrize(
    ('rel', 'text'),
    (
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace('the claim: a new generation', 'claim: next gen'),
            id='comment-reworded',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace("Renew == x' = x", "Renew ==  x'  =  x  (* same *)"),
            id='spacing-and-block-comment',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            LEASE_TLA.replace('Next == Claim', 'Next ==\n    Claim'),
            id='line-wrapped',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.tla',
            'notes before the module\n' + LEASE_TLA + 'and after it\n',
            id='text-outside-the-module',
        ),
        pytest.param(
            f'{MODEL_DIR}/Lease.cfg',
            '\\* the main check\nINIT  Init\n(* next *) NEXT Next\n',
            id='cfg-comments',
        ),
        pytest.param(f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\n\n\n', id='cfg-blank-lines'),
    ),
)
def test_comment_and_layout_edits_of_the_model_pass(covered_repo, capsys, rel, text):
    # TLC reads the same model: no verified sync is needed (its result cache keys on bytes).
    stage(covered_repo, rel, text)
    assert run_guard(capsys, rel) == (0, '')


def test_cfg_singular_and_plural_keywords_mean_the_same(covered_repo, capsys):
    stage(covered_repo, f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\nINVARIANT Inv\n')
    covered_repo.commit('an invariant')
    sync_coverage(covered_repo.path)
    covered_repo.add(MANIFEST, NOTES)
    covered_repo.commit('sync')
    stage(covered_repo, f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\nINVARIANTS\n    Inv\n')
    assert run_guard(capsys) == (0, '')


def test_line_drift_rewrites_the_map_in_the_index_and_the_working_tree(covered_repo, capsys):
    moved_down = LEASE_PY.replace('import sqlite3\n', 'import sqlite3\nimport os\n')
    stage(covered_repo, 'app/lease.py', moved_down)
    code, out = run_guard(capsys)
    assert code == 1  # the commit stops once, so that it records the fixed table
    assert out.startswith(
        f'execlease guard: {NOTES}: the code-to-action table was out of date '
        '(nothing covered changed); rewritten in the working tree and the index:'
    )
    assert (
        '`claim-lease`: the table says' in out
        and '[app/lease.py:4]' in out
        and '[app/lease.py:5]' in out
    )
    assert 'The fix is staged: run the commit again.' in out
    assert 'warning' not in out and 'What to do' not in out
    staged = covered_repo.git('show', f':{NOTES}')
    assert '[app/lease.py:5](../../app/lease.py#L5)' in staged and '[app/lease.py:4]' not in staged
    assert covered_repo.read(NOTES) == staged
    assert sorted(covered_repo.git('diff', '--cached', '--name-only').split()) == [
        'app/lease.py',
        NOTES,
    ]
    assert run_guard(capsys) == (0, '')
    assert cli.main(['coverage', '--write-map']) == 0
    assert 'code-to-action table already current' in capsys.readouterr().out


def test_drift_is_not_fixed_when_covered_code_changed_too(covered_repo, capsys):
    stage(
        covered_repo,
        'app/lease.py',
        BODY_EDIT.replace('import sqlite3\n', 'import sqlite3\nimport os\n'),
    )
    before = covered_repo.read(NOTES)
    code, out = run_guard(capsys)
    assert code == 1
    assert f'{NOTES}: the code-to-action table is stale against the staged code' in out
    assert 'covered code changed' in out and 'rewritten' not in out
    assert covered_repo.read(NOTES) == before == covered_repo.git('show', f':{NOTES}')


def test_hand_edit_inside_the_table_is_overwritten_with_a_warning(covered_repo, capsys):
    text = covered_repo.read(NOTES).replace('app/lease.py:4]', 'app/lease.py:40]')
    text = text.replace('## Outside the model', '## Outside the model\n\nA hand-written line.')
    stage(covered_repo, NOTES, text)
    code, out = run_guard(capsys, NOTES)
    assert code == 1
    assert '`claim-lease`: the table says' in out
    assert f'warning: lines edited inside the generated table of {NOTES} were overwritten' in out
    assert (
        'they were:\n  | `Claim` | `claim-lease` | [app/lease.py:40](../../app/lease.py#L4) |\n'
        in out
    )
    fixed = covered_repo.git('show', f':{NOTES}')
    assert 'app/lease.py:40]' not in fixed and '[app/lease.py:4](' in fixed
    assert 'A hand-written line.' in fixed  # text outside the markers is kept
    assert covered_repo.read(NOTES) == fixed
    assert run_guard(capsys, NOTES) == (0, '')


def test_notes_without_markers_is_not_checked(covered_repo, capsys):
    stage(covered_repo, NOTES, '# notes\n\nclaim_lease is at app/lease.py:999\n')
    stage(
        covered_repo,
        'app/lease.py',
        LEASE_PY.replace('import sqlite3\n', 'import sqlite3\nimport os\n'),
    )
    assert run_guard(capsys) == (0, '')


def test_staged_manifest_checks_every_entry(covered_repo, capsys):
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['entries'][1]['hash'] = 'ts1:sha256:' + '0' * 64
    stage(covered_repo, MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.write(MANIFEST, manifest_json())  # the working tree differs: the index wins
    code, out = run_guard(capsys)
    assert code == 1
    assert 'renew: app/lease.py:18  (model action Renew): covered code changed' in out
    assert 'claim-lease' not in out.split('What to do')[0]


def test_files_mode_without_staged_changes(covered_repo, capsys):
    # A commit that skipped the hook (--no-verify); `pre-commit run --all-files` must catch it.
    covered_repo.write('app/lease.py', BODY_EDIT)
    covered_repo.add('app/lease.py')
    covered_repo.commit('bypass')
    assert run_guard(capsys, 'app/other.py') == (0, '')
    assert run_guard(capsys, 'app/lease.py')[0] == 1
    assert run_guard(capsys, '--all')[0] == 1
    assert run_guard(capsys) == (0, '')  # nothing staged, nothing named


def test_first_commit_on_unborn_branch(git_repo, capsys):
    git_repo.write('app/lease.py', LEASE_PY)
    git_repo.write(f'{MODEL_DIR}/Lease.tla', LEASE_TLA)
    git_repo.write(f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\n')
    git_repo.write(MANIFEST, manifest_json())
    git_repo.add('.')
    code, out = run_guard(capsys)
    assert code == 1
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code never synced' in out
    assert (
        '(no diff: the manifest records neither a synced blob nor coverage.syncCommit yet)' in out
    )
    assert 'never synced (no coverage.modelHash yet)' in out


def test_sync_commit_absent_from_clone(covered_repo, capsys):
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['syncCommit'] = '1' * 40
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.add(MANIFEST)
    covered_repo.commit('pretend the sync commit is gone')
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    code, out = run_guard(capsys)
    assert code == 1
    assert 'no diff: the sync commit 111111111111 is not in this clone' in out


@pytest.mark.parametrize(
    ('setup', 'message'),
    (
        pytest.param(
            lambda r: r.git('rm', '-q', '-r', 'verification'), 'no model found', id='no-model'
        ),
        pytest.param(
            lambda r: stage(r, MANIFEST, '{"version": 1,'), 'not valid JSON', id='bad-json'
        ),
        pytest.param(
            lambda r: stage(
                r,
                MANIFEST,
                manifest_json([{'id': 'x', 'path': '/etc/passwd', 'function': 'f', 'action': 'A'}]),
            ),
            'is absolute',
            id='absolute-path',
        ),
        pytest.param(
            lambda r: (
                stage(
                    r,
                    MANIFEST,
                    manifest_json(
                        [{'id': 'x', 'path': 'app/lease.py', 'function': 'f', 'action': 'A'}] * 2
                    ),
                ),
                stage(r, 'app/lease.py', BODY_EDIT),
            ),
            "duplicate id 'x'",
            id='duplicate-id-covered-file-staged',
        ),
        pytest.param(
            lambda r: (
                stage(r, MANIFEST, '{"version": 1,'),
                r.write(MANIFEST, manifest_json()),
                stage(r, 'app/lease.py', BODY_EDIT),
            ),
            'not valid JSON',
            id='bad-json-staged-good-in-working-tree',
        ),
    ),
)
def test_cannot_run_exits_2(covered_repo, capsys, setup, message):
    setup(covered_repo)
    code, out = run_guard(capsys)
    assert code == 2
    assert message in out


def test_broken_unstaged_manifest_does_not_judge_the_commit(covered_repo, capsys):
    # The commit records the staged manifest; a half-edited one in the working tree is not part of it.
    covered_repo.write(MANIFEST, '{"version": 1,')
    assert run_guard(capsys) == (0, '')
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    code, out = run_guard(capsys)
    assert code == 1
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert f'note: {MANIFEST} has changes that are not staged' in out


def test_model_option_names_the_folder(covered_repo, capsys):
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    assert run_guard(capsys, '--model', MODEL_DIR)[0] == 1
    assert run_guard(capsys, '--model', 'verification/nope')[0] == 2


@pytest.mark.parametrize(
    ('touched', 'check_all', 'expected'),
    (
        pytest.param(set(), False, (0, False, False, False), id='nothing'),
        pytest.param({'app/other.py'}, False, (0, False, False, False), id='unrelated'),
        pytest.param({'app/lease.py'}, False, (3, False, True, False), id='covered-file'),
        pytest.param({MANIFEST}, False, (3, True, True, True), id='manifest'),
        pytest.param({f'{MODEL_DIR}/Lease.cfg'}, False, (0, True, False, False), id='cfg'),
        pytest.param({NOTES}, False, (0, False, True, True), id='notes'),
        pytest.param(set(), True, (3, True, True, True), id='all'),
    ),
)
def test_plan(covered_repo, touched, check_all, expected):
    from execlease_hook.manifest import read as manifest_read

    m = manifest_read.load(covered_repo.path / MANIFEST, covered_repo.path)
    p = guard_check.plan(m, touched, check_all)
    assert (len(p.entries), p.model, p.notes, p.full_map) == expected


@pytest.mark.parametrize(
    ('content', 'message'),
    (
        pytest.param(b'def claim_lease():\n    return "\xff\xfe"\n', 'UTF-8', id='non-utf8'),
        pytest.param(b'\x00\x01binary\x00', 'binary', id='binary'),
    ),
)
def test_unreadable_covered_file_cannot_run(covered_repo, capsys, content, message):
    stage(covered_repo, 'app/lease.py', content)
    code, out = run_guard(capsys)
    assert code == 2
    assert message in out
    assert 'claim-lease: app/lease.py  (model action Claim): cannot locate the covered code' in out


def test_deleted_model_config_cannot_run(covered_repo, capsys):
    covered_repo.git('rm', '-q', f'{MODEL_DIR}/Lease.cfg')
    code, out = run_guard(capsys)
    assert code == 2
    assert f'the model file {MODEL_DIR}/Lease.cfg is missing from the index (staged)' in out


def test_unstaged_sync_of_the_manifest_does_not_pass(covered_repo, capsys):
    # `execlease verify --update-coverage` rewrote manifest.json, but only the code is staged:
    # the commit would record the change with the old hashes. The staged manifest is judged.
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    sync_coverage(covered_repo.path)
    assert covered_repo.git('diff', '--name-only').split() == [MANIFEST]
    code, out = run_guard(capsys)
    assert code == 1
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert f'note: {MANIFEST} has changes that are not staged' in out
    assert f'`git add {MANIFEST}`' in out
    covered_repo.add(MANIFEST)
    assert run_guard(capsys) == (0, '')


def test_unstaged_manifest_edit_cannot_hide_a_staged_change(covered_repo, capsys):
    # The working tree's manifest records the edited hash for claim-lease; the index does not.
    data = json.loads(covered_repo.read(MANIFEST))
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    from execlease_hook.coverage import compare as coverage
    from execlease_hook.git import blobs
    from execlease_hook.manifest import read as manifest_read

    m = manifest_read.load(covered_repo.path / MANIFEST, covered_repo.path)
    (status,) = coverage.compare(
        m, blobs.IndexSource(covered_repo.path), m.coverage.entries[:1], MAX_BYTES
    )
    data['coverage']['entries'][0]['hash'] = status.current
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    code, out = run_guard(capsys, 'app/lease.py')
    assert code == 1
    assert 'covered code changed' in out


def test_staged_manifest_not_utf8(covered_repo, capsys):
    stage(covered_repo, MANIFEST, covered_repo.read(MANIFEST).encode() + b'\xff')
    code, out = run_guard(capsys)
    assert code == 2
    assert f'{MANIFEST} (staged): not UTF-8' in out


UNICODE_PATH = 'app dir/ünï/lease.py'


@pytest.mark.parametrize('ensure_ascii', (False, True), ids=('utf8-manifest', 'escaped-manifest'))
def test_path_with_space_and_unicode(covered_repo, capsys, ensure_ascii):
    covered_repo.git('mv', 'app', 'app dir')
    (covered_repo.path / 'app dir' / 'ünï').mkdir()
    covered_repo.git('mv', 'app dir/lease.py', UNICODE_PATH)
    data = json.loads(covered_repo.read(MANIFEST))
    for entry in data['coverage']['entries']:
        entry['path'] = UNICODE_PATH
    stage(covered_repo, MANIFEST, json.dumps(data, indent=2, ensure_ascii=ensure_ascii) + '\n')
    assert cli.main(['coverage', '--write-map']) == 0
    covered_repo.add(NOTES)
    capsys.readouterr()
    assert run_guard(capsys) == (0, '')  # moved unchanged, manifest and map updated: accepted
    covered_repo.commit('move')
    assert run_guard(capsys, '--all') == (0, '')
    stage(covered_repo, UNICODE_PATH, BODY_EDIT)
    code, out = run_guard(capsys, UNICODE_PATH)
    assert code == 1
    assert f'claim-lease: {UNICODE_PATH}:4  (model action Claim): covered code changed' in out
    covered_repo.git('reset', '-q', '--hard')
    covered_repo.git('rm', '-q', UNICODE_PATH)
    code, out = run_guard(capsys)
    assert code == 2
    lines = covered_repo.read(MANIFEST).splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"path"' in text)
    assert f'{UNICODE_PATH} is deleted in this commit' in out
    assert f'update the entry in {MANIFEST}:{line} ' in out


@pytest.mark.parametrize(
    ('rel', 'text', 'expected'),
    (
        pytest.param(
            'app/other.py',
            'def unrelated():\n    return 2\n',
            ['diff', 'ls-files'],
            id='nothing-covered',
        ),
        pytest.param(
            'app/lease.py',
            LEASE_PY.replace('(run_id, now),', '(run_id,  now),'),
            ['diff', 'ls-files', 'cat-file'],
            id='covered-unchanged',
        ),
        pytest.param(
            MANIFEST, manifest_json(), ['diff', 'ls-files', 'cat-file'], id='manifest-staged'
        ),
        # The failure path also reads the synced content for the diff: in the same batch.
        pytest.param(
            'app/lease.py', BODY_EDIT, ['diff', 'ls-files', 'cat-file'], id='covered-changed'
        ),
    ),
)
def test_git_processes_per_commit(covered_repo, capsys, monkeypatch, rel, text, expected):
    # One `git diff --cached` finds the staged set, one `git ls-files` the staged manifests (read
    # from the working tree when their blob id says it is the staged content), one
    # `git cat-file --batch` every blob the checks need (covered files, model files, NOTES.md).
    from execlease_hook.git import repo as git

    if rel == MANIFEST:
        data = json.loads(covered_repo.read(MANIFEST))
        data['checks'][0]['timeout'] = 60
        text = json.dumps(data, indent=2) + '\n'
    stage(covered_repo, rel, text)
    calls: list[str] = []
    real = git.run_git

    def counting(root, *args, stdin=None, env=None):
        calls.append(args[0])
        return real(root, *args, stdin=stdin, env=env)

    monkeypatch.setattr(git, 'run_git', counting)
    run_guard(capsys)
    assert calls == expected


def test_the_synced_blob_for_the_diff_comes_in_the_same_batch(covered_repo, capsys, monkeypatch):
    from execlease_hook.git import repo as git

    blob = covered_repo.git('rev-parse', 'HEAD:app/lease.py').strip()
    data = json.loads(covered_repo.read(MANIFEST))
    for entry in data['coverage']['entries']:
        entry['syncedBlob'] = blob
    stage(covered_repo, MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.commit('synced blobs')
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    calls: list[str] = []
    real = git.run_git

    def counting(root, *args, stdin=None, env=None):
        calls.append(args[0] if args[0] != 'cat-file' else f'cat-file {stdin.decode().split()}')
        return real(root, *args, stdin=stdin, env=env)

    monkeypatch.setattr(git, 'run_git', counting)
    code, out = run_guard(capsys)
    assert code == 1 and f'--- app/lease.py (as synced, blob {blob[:12]})' in out
    assert len(calls) == 3 and blob in calls[2], calls


@pytest.mark.parametrize(
    ('rel', 'text', 'code', 'unused'),
    (
        # The early exit decides from git's staged list and the manifests' paths alone: loading
        # the grammars and the fingerprint rules would cost every commit more than the guard's
        # own work (benchmarks/guard_latency.py). Nor `dataclasses` (with `inspect`), which the
        # settings read on every command do without (core/settings.py).
        pytest.param(
            'app/other.py',
            'def unrelated():\n    return 2\n',
            0,
            ('tree_sitter', 'execlease_hook.fingerprint', 'execlease_hook.locate')
            + ('execlease_hook.coverage', 'dataclasses', 'inspect'),
            id='nothing-concerned',
        ),
        # A changed covered file loads no part of the checks it does not reach: the model's
        # (spec/, the TLA+ grammar), a watch rule's, a missing entry's, the report's, the repair
        # of the map (guard/check.py says what they cost), the classes of the parts of a
        # manifest it does not have (manifest/model.py).
        pytest.param(
            'app/lease.py',
            BODY_EDIT,
            1,
            ('execlease_hook.spec', 'tree_sitter_tlaplus', 'execlease_hook.coverage.watch')
            + ('execlease_hook.guard.missing', 'execlease_hook.formats.report')
            + ('execlease_hook.guard.map_fix', 'execlease_hook.manifest.sections'),
            id='covered-code-changed',
        ),
    ),
)
def test_the_guard_imports_only_the_checks_the_commit_reaches(
    covered_repo, rel, text, code, unused
):
    import subprocess
    import sys

    stage(covered_repo, rel, text)
    script = (
        'import sys\nfrom execlease_hook.cli import main as cli\n'
        f'code = cli.main(["guard", {rel!r}])\n'
        f'print(code, *sorted(m for m in sys.modules if m.startswith({unused!r})))'
    )
    out = subprocess.run(
        (sys.executable, '-c', script),
        capture_output=True,
        text=True,
        check=True,
        cwd=covered_repo.path,
    ).stdout
    assert out.splitlines()[-1].split() == [str(code)]


# --- staged truth: the models are the index's, never the working tree's ----------------------

OTHER_MANIFEST = 'verification/other/manifest.json'


def add_second_model(repo) -> None:
    """A second model covering app/other.py, synced and committed."""
    from tests.conftest import sync_coverage

    repo.write('verification/other/Other.tla', '---- MODULE Other ----\n====\n')
    repo.write('verification/other/Other.cfg', 'INIT Init\n')
    data = json.loads(
        manifest_json(
            [
                {
                    'id': 'unrelated',
                    'path': 'app/other.py',
                    'function': 'unrelated',
                    'action': 'Unrelated',
                }
            ]
        )
    )
    data['spec'], data['checks'][0]['config'] = 'Other.tla', 'Other.cfg'
    repo.write(OTHER_MANIFEST, json.dumps(data, indent=2) + '\n')
    sync_coverage(repo.path, OTHER_MANIFEST)
    repo.add('.')
    repo.commit('second model')


def test_unstaged_manifest_path_edit_cannot_hide_a_staged_change(covered_repo, capsys):
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    data = json.loads(covered_repo.read(MANIFEST))
    for entry in data['coverage']['entries']:
        entry['path'] = 'app/other.py'  # the working tree's manifest no longer names app/lease.py
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    code, out = run_guard(capsys, 'app/lease.py')
    assert code == 1
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert f'note: {MANIFEST} has changes that are not staged' in out


def test_manifest_deleted_only_in_the_working_tree_is_still_judged(covered_repo, capsys):
    add_second_model(covered_repo)
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    (covered_repo.path / MANIFEST).unlink()
    code, out = run_guard(capsys)
    assert code == 1
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out


def test_manifest_deleted_in_the_commit_is_a_deleted_model(covered_repo, capsys):
    add_second_model(covered_repo)
    covered_repo.git('rm', '-q', '--cached', MANIFEST)  # still in the working tree
    stage(covered_repo, 'app/lease.py', BODY_EDIT)
    assert run_guard(capsys) == (
        0,
        '',
    )  # the model is gone from the commit: nothing covers lease.py
    stage(covered_repo, 'app/other.py', 'def unrelated():\n    return 2\n')
    code, out = run_guard(capsys)
    assert (
        code == 1
        and 'unrelated: app/other.py:1  (model action Unrelated): covered code changed' in out
    )


def test_the_last_manifest_deleted_cannot_run(covered_repo, capsys):
    covered_repo.git('rm', '-q', '--cached', MANIFEST)
    code, out = run_guard(capsys)
    assert code == 2
    assert f'no model found in the index ({MANIFEST} deleted in this commit)' in out


def test_untracked_model_is_not_part_of_the_commit(covered_repo, capsys):
    add_second_model(covered_repo)
    covered_repo.git('rm', '-q', '--cached', OTHER_MANIFEST)
    covered_repo.commit('other model no longer tracked')
    stage(covered_repo, 'app/other.py', 'def unrelated():\n    return 2\n')
    assert run_guard(capsys) == (0, '')
    code, out = run_guard(capsys, '--model', 'verification/other')
    assert code == 2
    assert (
        f'{OTHER_MANIFEST} is not in the index (exists only in the working tree); `git add` it'
        in out
    )
