"""Regions through the real guard on a scratch Go project: a formatter never blocks them; an
anchor edited away, or copied so that it occurs twice, blocks with the anchor to paste, and the
pasted manifest works."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.guard import anchor_fix
from execlease_hook.locate.entry import MAX_BYTES
from execlease_hook.manifest.model import CoveredEntry, Region
from tests.conftest import sync_coverage
from tests.fingerprint.formatter_test import _gofmt

LEASE_GO = """\
package lease

import "errors"

type Row struct { Owner string }

type DB interface {
    QueryRow(q string, args ...any) (Row, error)
    Exec(q string, args ...any) (int, error)
}

func Claim(db DB, turn, run string) (int, error) {
    row, err := db.QueryRow("SELECT owner FROM lease WHERE id = ?", turn)
    if (err != nil) { return 0, err }
    if row.Owner != "" && row.Owner != run { return 0, errors.New("lease held") }
    gen, err := db.Exec("UPDATE lease SET owner = ? WHERE id = ?", run, turn,
    )
    if err != nil { panic(err) }
    return gen, nil
}
"""
FROM = 'if (err != nil) { return 0, err }'
TO = 'gen, err := db.Exec("UPDATE lease SET owner = ? WHERE id = ?", run, turn,'
SPEC = "---- MODULE Lease ----\nVARIABLE owner\nInit == owner = 0\nClaim == owner' = 1\nNext == Claim\n====\n"
MANIFEST = 'verification/lease/manifest.json'


@pytest.fixture
def go_repo(git_repo):
    git_repo.write('lease/lease.go', LEASE_GO)
    git_repo.write('verification/lease/Lease.tla', SPEC)
    git_repo.write('verification/lease/Lease.cfg', 'INIT Init\nNEXT Next\n')
    git_repo.write(
        MANIFEST,
        json.dumps(
            {
                'version': 1,
                'spec': 'Lease.tla',
                'checks': [{'name': 'main', 'config': 'Lease.cfg'}],
                'coverage': {
                    'syncCommit': None,
                    'modelHash': None,
                    'entries': [
                        {
                            'id': 'claim-update',
                            'path': 'lease/lease.go',
                            'within': 'Claim',
                            'region': {'from': FROM, 'to': TO},
                            'action': 'Claim',
                        },
                    ],
                },
            },
            indent=2,
        )
        + '\n',
    )
    git_repo.add('.')
    git_repo.commit('code and model')
    sync_coverage(git_repo.path)
    git_repo.add(MANIFEST)
    git_repo.commit('sync coverage')
    return git_repo


def guard(capsys) -> tuple[int, str]:
    code = cli.main(['guard'])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def stage(repo, text: str) -> None:
    repo.write('lease/lease.go', text)
    repo.add('lease/lease.go')


def paste(repo, out: str) -> None:
    """Apply every `manifest.json:LINE: change "key": OLD to "key": NEW` line of the output."""
    edits = re.findall(
        r'manifest\.json:(\d+): change ("\w+": ".*?") to ("\w+": ".*")$', out, re.MULTILINE
    )
    assert edits, out
    lines = repo.read(MANIFEST).split('\n')
    for number, old, new in edits:
        assert old in lines[int(number) - 1], (number, old, lines[int(number) - 1])
        lines[int(number) - 1] = lines[int(number) - 1].replace(old, new)
    repo.write(MANIFEST, '\n'.join(lines))
    repo.add(MANIFEST)


def test_gofmt_rewriting_both_anchors_passes(go_repo, capsys):
    path = go_repo.path / 'lease' / 'lease.go'
    env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
    subprocess.run((*_gofmt(), '-w', str(path)), check=True, env=env)
    formatted = path.read_text()
    assert FROM not in formatted and TO not in formatted
    go_repo.add('lease/lease.go')
    code, out = guard(capsys)
    assert code == 0, out


def test_an_anchor_edited_away_blocks_with_the_anchor_to_paste(go_repo, capsys):
    stage(
        go_repo,
        LEASE_GO.replace('if (err != nil) { return 0, err }', 'if (err == nil) { return 0, err }'),
    )
    code, out = guard(capsys)
    assert code == 2
    assert (
        "`from`: at its synced place (line 14) its tokens match up to 'err'; then the anchor says '!=', "
        "the code '==' (line 14)"
    ) in out
    assert 'change "from": "if (err != nil) { return 0, err }" to "from": "if (err"' in out
    paste(go_repo, out)
    code, out = guard(capsys)
    assert code == 1 and 'cannot locate' not in out, out  # found again: and its code changed
    assert (
        '-    if (err != nil) { return 0, err }' in out
        and '+    if (err == nil) { return 0, err }' in out
    )


def test_an_anchor_copied_elsewhere_gets_a_longer_one_and_then_passes(go_repo, capsys):
    copied = LEASE_GO.replace(
        '    return gen, nil\n', '    if (err != nil) { return 0, err }\n    return gen, nil\n'
    )
    stage(go_repo, copied)
    code, out = guard(capsys)
    assert code == 2 and '`region.from` ' in out and 'occurs 2 times' in out
    paste(go_repo, out)
    code, out = guard(capsys)
    assert code == 0, out


def test_without_a_synced_copy_the_anchor_is_proposed_where_most_of_it_still_matches():
    entry = CoveredEntry(
        id='r', path='lease/lease.go', action='Claim', within='Claim', region=Region(FROM, TO)
    )
    staged = LEASE_GO.replace(
        'if (err != nil) { return 0, err }', 'if (err != nil) { return 1, err }'
    ).encode()
    fix = anchor_fix.replacement(entry, staged, None, MAX_BYTES)
    assert fix is not None and fix.region == Region('if (err', TO)
    # the line gone: the best partial match is another `if err != nil`, after `to`: no proposal
    gone = LEASE_GO.replace('if (err != nil) { return 0, err }', '').encode()
    assert anchor_fix.replacement(entry, gone, None, MAX_BYTES) is None
