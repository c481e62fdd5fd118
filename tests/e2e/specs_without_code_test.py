"""A repository of specs, laid out as tlaplus/Examples is (`specifications/<Name>/<Name>.tla` and
its cfg), through `init`, `verify`, `add` and the real TLC: a model whose manifest covers no code
holds when TLC says so, with no "action X has no covered code" for it; the rule that every action
be covered or declared abstract starts with the first covered entry; the text and the JSON report
say which rule applies."""

from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import GitRepo

FOLDER = 'specifications/DieHard'
MANIFEST = f'{FOLDER}/manifest.json'
DIE_HARD = r"""------------------------------ MODULE DieHard ------------------------------
EXTENDS Naturals
VARIABLES big, small
TypeOK == small \in 0..3 /\ big \in 0..5
Init == big = 0 /\ small = 0
FillSmallJug == small' = 3 /\ big' = big
FillBigJug == big' = 5 /\ small' = small
EmptySmallJug == small' = 0 /\ big' = big
EmptyBigJug == big' = 0 /\ small' = small
Min(m,n) == IF m < n THEN m ELSE n
SmallToBig == /\ big' = Min(big + small, 5)
              /\ small' = small - (big' - big)
BigToSmall == /\ small' = Min(big + small, 3)
              /\ big' = big - (small' - small)
Next == \/ FillSmallJug \/ FillBigJug \/ EmptySmallJug \/ EmptyBigJug \/ SmallToBig \/ BigToSmall
Spec == Init /\ [][Next]_<<big, small>>
=============================================================================
"""
JUGS_GO = """package jugs

type Jugs struct{ Big, Small int }

func (j *Jugs) FillSmall() {
\tj.Small = 3
}
"""
NO_ENTRY_YET = (
    '  action map: no action needs covered code until coverage.entries has its first entry'
)


@pytest.fixture
def examples(git_repo: GitRepo, offline_tlc: None) -> GitRepo:
    git_repo.write(f'{FOLDER}/DieHard.tla', DIE_HARD)
    git_repo.write(f'{FOLDER}/DieHard.cfg', 'SPECIFICATION Spec\nINVARIANT TypeOK\n')
    git_repo.write('.gitignore', '.tmp/\n')
    git_repo.add('.')
    git_repo.commit('the DieHard spec')
    assert cli.main(['init', '--spec', f'{FOLDER}/DieHard.tla']) == 0
    return git_repo


def verify(repo: GitRepo, capsys) -> tuple[int, str, dict]:
    capsys.readouterr()
    code = cli.main(['verify', '--model', FOLDER, '--json', str(repo.path.parent / 'report.json')])
    out = capsys.readouterr().out
    (model,) = json.loads((repo.path.parent / 'report.json').read_text())['models']
    return code, out, model


@pytest.mark.timeout(600)
def test_the_map_rule_starts_with_the_first_covered_entry(examples, capsys):
    code, out, model = verify(examples, capsys)  # init's manifest: "coverage" with no entry
    assert (code, model['actionMap'], model['did_not_hold']) == (0, 'no-entry-yet', []), out
    assert NO_ENTRY_YET in out and 'has no covered code' not in out

    data = json.loads(examples.read(MANIFEST))
    del data['coverage']
    examples.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    code, out, model = verify(examples, capsys)
    assert (code, model['actionMap']) == (0, 'no-coverage'), out
    assert '  action map: none: the manifest has no "coverage" (a model of no code)' in out

    examples.write('jugs/jugs.go', JUGS_GO)
    capsys.readouterr()
    assert (
        cli.main(
            ['add', 'jugs/jugs.go::Jugs.FillSmall', '--action', 'FillSmallJug', '--model', FOLDER]
        )
        == 0
    )
    said = capsys.readouterr().out
    assert (
        "the model's first covered entry: from now on every action of the next-state relation"
        in said
    )
    code, out, model = verify(examples, capsys)
    assert (code, model['actionMap']) == (1, 'every-action'), out
    assert '  action map: every action must be covered or declared abstract' in out
    gaps = [line.split(' (')[0] for line in model['did_not_hold'] if line.startswith('action ')]
    assert gaps == [
        f'action {a}'
        for a in ('FillBigJug', 'EmptySmallJug', 'EmptyBigJug', 'SmallToBig', 'BigToSmall')
    ]
