"""The CI recipes of docs/how-to/ci.md (once the README's): both YAML blocks parse, and every
`execlease` command in them is a command line the CLI accepts (the workflows themselves need
GitHub and GitLab to run)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from execlease_hook.cli import main as cli
from execlease_hook.cli import parser

GUIDE = Path(__file__).resolve().parents[2] / 'docs' / 'how-to' / 'ci.md'


def recipes() -> dict[str, dict]:
    text = GUIDE.read_text(encoding='utf-8')
    blocks = [yaml.safe_load(b) for b in re.findall(r'^```yaml\n(.*?)^```$', text, re.M | re.S)]
    github = next(b for b in blocks if 'jobs' in b)
    gitlab = next(b for b in blocks if 'execlease' in b)
    return {'github': github, 'gitlab': gitlab}


def commands(recipe: dict) -> list[str]:
    lines: list[str] = []
    if 'jobs' in recipe:
        for job in recipe['jobs'].values():
            lines.extend(step['run'] for step in job['steps'] if 'run' in step)
    else:
        for job in recipe.values():
            lines.extend(job['script'])
    return [line for line in lines if line.startswith('execlease ')]


@pytest.mark.parametrize('name', ('github', 'gitlab'))
def test_recipe_commands_parse(name):
    found = commands(recipes()[name])
    assert any(c.startswith('execlease verify --shard') for c in found)
    for line in found:
        line = line.replace('${{ matrix.shard }}', '1').replace('$CI_NODE_INDEX', '1')
        line = line.replace('$CI_NODE_TOTAL', '2')
        options = parser.build_parser().parse_args(shlex.split(line)[1:])
        assert options.command in cli.COMMANDS


def test_github_recipe_keeps_history_caches_tools_and_merges_every_shard():
    github = recipes()['github']
    verify = github['jobs']['verify']
    checkout = next(s for s in verify['steps'] if s.get('uses', '').startswith('actions/checkout'))
    assert checkout['with']['fetch-depth'] == 0
    assert any(s.get('with', {}).get('path') == '.tmp/tla' for s in verify['steps'])
    shards = verify['strategy']['matrix']['shard']
    merge = next(
        s['run']
        for s in github['jobs']['verdict']['steps']
        if s.get('run', '').startswith('execlease report merge')
    )
    assert [f'shard-{k}.json' for k in shards] == [w for w in merge.split() if w.endswith('.json')]
    assert github['jobs']['verdict']['if'] == 'always()'


def test_recipes_download_on_a_miss_and_key_the_cache_by_the_pins():
    """EXECLEASE_TLA_OFFLINE=1 fails on a cache miss for a model with a library jar, and a key of
    verification/** misses a model anywhere else: tests/e2e/ci_recipe_test.py runs the workflow."""
    text = GUIDE.read_text(encoding='utf-8')
    assert 'EXECLEASE_TLA_OFFLINE' not in text and 'hashFiles' not in text
    verify = recipes()['github']['jobs']['verify']
    (cache,) = [s for s in verify['steps'] if s.get('uses', '').startswith('actions/cache')]
    assert cache['with']['key'] == '${{ steps.pins.outputs.key }}'
    (pins,) = [s for s in verify['steps'] if s.get('id') == 'pins']
    assert 'execlease tools --cache-key' in pins['run']
    assert 'execlease tools' in recipes()['gitlab']['execlease']['script']


def test_gitlab_recipe_reports_junit_with_full_history():
    job = recipes()['gitlab']['execlease']
    assert job['variables']['GIT_DEPTH'] == '0' and '.tmp/tla/' in job['cache']['paths']
    assert job['artifacts']['reports']['junit'] == 'execlease.xml'
