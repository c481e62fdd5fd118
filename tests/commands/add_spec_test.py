"""add_spec.py: `execlease add --mutation` and `--finding`, checked and written through the CLI."""

from __future__ import annotations

import re

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.manifest import read as manifest_read
from tests.commands import add_test
from tests.commands.add_test import CFG, files
from tests.conftest import MANIFEST, MODEL_DIR

model_repo = add_test.model_repo  # the fixture: the spec scaffolded by init


@pytest.mark.parametrize(
    ('argv', 'code', 'message'),
    (
        (
            [
                '--mutation',
                'claim-twice',
                '--property',
                'OneOwner',
                '--from',
                'owner = "none" /\\ gen < MaxGen',
                '--to',
                'gen < MaxGen',
            ],
            0,
            'added to verification/lease/manifest.json: mutation claim-twice',
        ),
        (
            [
                '--mutation',
                'm',
                '--property',
                'OneOwner',
                '--from',
                'owner = "none"',
                '--to',
                'TRUE',
            ],
            2,
            '--from `owner = "none"` occurs 2 times (lines 5, 6); make it longer in Lease.tla',
        ),
        (
            ['--mutation', 'm', '--property', 'OneOwner', '--from', 'no such text', '--to', 'TRUE'],
            2,
            'does not occur in Lease.tla',
        ),
        (
            ['--mutation', 'm', '--property', 'Typo', '--from', 'gen < MaxGen', '--to', 'TRUE'],
            2,
            '--property Typo: Lease.cfg does not check it',
        ),
        (
            [
                '--mutation',
                'm',
                '--property',
                'OneOwner',
                '--from',
                'gen < MaxGen',
                '--to',
                'gen < MaxGen',
            ],
            2,
            'the same text',
        ),
        (['--mutation', 'm', '--from', 'gen < MaxGen', '--to', 'TRUE'], 2, 'give --property P'),
    ),
    ids=('added', 'twice', 'missing', 'unchecked-property', 'same-text', 'no-property'),
)
def test_add_mutation(model_repo, capsys, argv, code, message):
    before = files(model_repo)
    assert cli.main(['add', *argv]) == code
    captured = capsys.readouterr()
    assert message in (captured.out if code == 0 else captured.err)
    if code:
        assert files(model_repo) == before
        return
    (mutation,) = manifest_read.load(model_repo.path / MANIFEST, model_repo.path).mutations
    assert (mutation.config, mutation.violates, mutation.replace.to) == (
        'Lease.cfg',
        'OneOwner',
        'gen < MaxGen',
    )


def test_add_finding_from_a_check_with_other_constants(model_repo, capsys):
    argv = [
        'add',
        '--finding',
        'F1',
        '--property',
        'GenBound',
        '--from-check',
        'main',
        '--set',
        'MaxGen=5',
        '--summary',
        'generations overflow',
    ]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert 'wrote verification/lease/findings/F1.cfg' in out and 'the model changed' in out
    assert model_repo.read(f'{MODEL_DIR}/findings/F1.cfg') == CFG.replace(
        'MaxGen = 2', 'MaxGen = 5'
    )
    (finding,) = manifest_read.load(model_repo.path / MANIFEST, model_repo.path).findings
    assert (finding.id, finding.config, finding.violates, finding.summary) == (
        'F1',
        'findings/F1.cfg',
        'GenBound',
        'generations overflow',
    )
    # Never overwrites: the same finding cfg again is refused.
    assert (
        cli.main(
            [
                'add',
                '--finding',
                'F2',
                '--property',
                'GenBound',
                '--from-check',
                'main',
                '--set',
                'MaxGen=5',
            ]
        )
        == 0
    )
    assert cli.main(argv) == 2
    assert "finding 'F1' exists already" in capsys.readouterr().err


def test_add_finding_with_its_own_cfg(model_repo):
    model_repo.write(f'{MODEL_DIR}/findings/F3.cfg', CFG.replace('MaxGen = 2', 'MaxGen = 0'))
    assert (
        cli.main(
            [
                'add',
                '--finding',
                'F3',
                '--property',
                'OneOwner',
                '--cfg',
                f'{MODEL_DIR}/findings/F3.cfg',
            ]
        )
        == 0
    )
    (finding,) = manifest_read.load(model_repo.path / MANIFEST, model_repo.path).findings
    assert finding.config == 'findings/F3.cfg'


@pytest.mark.parametrize(
    ('argv', 'message'),
    (
        (
            [
                '--finding',
                'F1',
                '--property',
                'GenBound',
                '--from-check',
                'main',
                '--set',
                'Nope=1',
            ],
            '--set Nope=1: Nope is not assigned in Lease.cfg',
        ),
        (
            [
                '--finding',
                'F1',
                '--property',
                'GenBound',
                '--from-check',
                'main',
                '--set',
                'Runs={r1}',
            ],
            None,
        ),
        (
            [
                '--finding',
                'F1',
                '--property',
                'GenBound',
                '--from-check',
                'other',
                '--set',
                'MaxGen=1',
            ],
            '--from-check other: no such check (checks: main)',
        ),
        (
            ['--finding', 'F1', '--property', 'GenBound', '--from-check', 'main'],
            'give the constants that make the finding',
        ),
        (['--finding', 'F1', '--property', 'GenBound'], 'give --cfg FILE, or --from-check'),
        (
            [
                '--finding',
                'F1',
                '--property',
                'GenBound',
                '--from-check',
                'main',
                '--set',
                'MaxGen',
            ],
            "--set 'MaxGen': give CONST=VALUE",
        ),
    ),
    ids=('unknown-constant', 'set-literal', 'unknown-check', 'no-set', 'no-cfg', 'bad-set'),
)
def test_add_finding_refusals(model_repo, capsys, argv, message):
    before = files(model_repo)
    code = cli.main(['add', *argv])
    if message is None:  # a set literal is a one-line value: accepted
        assert code == 0
        assert 'Runs = {r1}\n' in model_repo.read(f'{MODEL_DIR}/findings/F1.cfg')
        return
    assert code == 2
    assert message in capsys.readouterr().err
    assert files(model_repo) == before
    assert not (model_repo.path / MODEL_DIR / 'findings').exists()


@pytest.mark.parametrize(
    ('cfg', 'setting', 'result'),
    (
        (
            'CONSTANTS\n  A = 1\n  B <- Op \\* why\n',
            'B=Other',
            'CONSTANTS\n  A = 1\n  B <- Other \\* why\n',
        ),
        ('CONSTANT A = 1\nCONSTANT A = 2\n', 'A=3', 'A is assigned 2 times in W.cfg'),
        ('CONSTANTS\n  S = {a,\n b}\n', 'S={c}', 'the value of S in W.cfg spans several lines'),
        ('(* CONSTANT A = 1 *)\nCONSTANT B = 2\n', 'A=3', 'A is not assigned in W.cfg'),
    ),
    ids=('substitution-and-comment-kept', 'twice', 'several-lines', 'only-in-a-comment'),
)
def test_set_constants_replaces_a_value_assigned_once_on_one_line(cfg, setting, result):
    from execlease_hook.commands.add_spec import set_constants
    from execlease_hook.core.errors import CannotRun

    if '\n' in result:
        assert set_constants(cfg, [setting], 'W.cfg') == result
        return
    with pytest.raises(CannotRun, match=f'^--set {re.escape(setting)}: {result}'):
        set_constants(cfg, [setting], 'W.cfg')


def test_a_property_named_only_in_comments_is_not_checked(model_repo, capsys):
    """The cfg is read as TLC reads it: nested comments and line comments say nothing."""
    model_repo.write(f'{MODEL_DIR}/C.cfg', CFG + '(* a note (* nested *) Typo *)\n\\* Typo\n')
    argv = ['--mutation', 'm', '--property', 'Typo', '--from', 'gen < MaxGen', '--to', 'TRUE']
    assert cli.main(['add', *argv, '--cfg', 'C.cfg']) == 2
    assert '--property Typo: C.cfg does not check it' in capsys.readouterr().err
