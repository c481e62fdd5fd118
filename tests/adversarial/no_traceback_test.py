"""Hostile or unlucky inputs end with exit 2 and a one-line reason, never a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from execlease_hook.cli import main as cli
from tests import needs
from tests.conftest import LEASE_PY, LEASE_TLA, MANIFEST, MODEL_DIR


def run(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


COMMANDS = [['guard'], ['guard', '--all'], ['coverage'], ['verify', '--quick']]

HOSTILE = {
    'nested-100000-deep': '[' * 100_000 + ']' * 100_000,
    'integer-of-5000-digits': '{"version": 1, "spec": "Lease.tla", "checks": [{"name": "main", '
    '"config": "Lease.cfg", "states": ' + '7' * 5000 + '}], "coverage": {"entries": []}}',
    'float-overflow-timeout': '{"version": 1, "spec": "Lease.tla", "checks": [{"name": "main", '
    '"config": "Lease.cfg", "timeout": 1e999}], "coverage": {"entries": []}}',
}


# Each command on a hostile manifest, staged or in the working tree; the guard judges the staged
# manifest only (in the working tree the staged one is the good one). `verify` reports the Java it
# would use even for a refused model (java -version): a JVM, so the tlc tier.
CASES = [
    pytest.param(staged, command, id=f'{where}-{command[0]}{len(command)}', marks=marks)
    for staged, where in ((True, 'staged'), (False, 'working-tree'))
    for command in COMMANDS
    for marks in [(pytest.mark.tlc,) if command[0] == 'verify' else ()]
    if staged or command[0] != 'guard'
]


@pytest.mark.parametrize('text', list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize(('staged', 'command'), CASES)
def test_hostile_manifests_exit_2_without_a_traceback(covered_repo, capsys, text, staged, command):
    covered_repo.write(MANIFEST, text)
    if staged:
        covered_repo.add(MANIFEST)
    code, out = run(capsys, *command)
    assert code == 2, (command, out)
    assert 'Traceback' not in out and 'this is a bug' not in out, (command, out)
    assert 'manifest.json' in out, (command, out)


def test_update_coverage_on_a_read_only_model_folder(covered_repo, capsys, offline_tlc):
    folder = covered_repo.path / MODEL_DIR
    # A model TLC can check (the fixture's is for the guard only), and covered code that
    # differs, so that --update-coverage has something to write.
    covered_repo.write(
        f'{MODEL_DIR}/Lease.tla',
        LEASE_TLA.replace('VARIABLE x', 'EXTENDS Naturals\nVARIABLE x').replace(
            "Claim == x' = x + 1", "Claim == x < 2 /\\ x' = x + 1"
        ),
    )
    covered_repo.write(
        'app/lease.py', LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')
    )
    before = (covered_repo.path / MANIFEST).read_bytes()
    folder.chmod(0o555)
    immutable = False
    try:
        probe = folder / '.probe'
        try:
            probe.write_text('x')
            probe.unlink()
            writable = True
        except OSError:
            writable = False
        if writable and shutil.which('chattr'):
            # root ignores the mode bits: an immutable folder refuses root too.
            immutable = (
                subprocess.run(('chattr', '+i', str(folder)), capture_output=True).returncode == 0
            )
            writable = not immutable
        if writable:
            needs.missing('cannot make a folder read-only here (root without chattr)')
        code, out = run(capsys, 'verify', '--update-coverage', '--no-cache')
    finally:
        if immutable:
            subprocess.run(('chattr', '-i', str(folder)), check=True)
        folder.chmod(0o755)
    assert code == 2, out
    assert 'Traceback' not in out
    assert f'{covered_repo.path / MANIFEST}: not updating coverage: cannot write it' in out
    assert (covered_repo.path / MANIFEST).read_bytes() == before


BIG = LEASE_PY + '\n' + ''.join(f'def filler_{i}():\n    return {i}\n\n' for i in range(200_000))


def test_a_huge_covered_file_stops_quickly_with_a_clear_message(covered_repo, capsys, monkeypatch):
    """Quickly: the file over the limit is never parsed (a parse of it is what costs seconds and
    gigabytes), counted rather than timed."""
    from execlease_hook.locate import source

    assert len(BIG) > 5_000_000
    parsed: list[int] = []
    real_parser = source._parser

    class Counted:
        def __init__(self, language: str) -> None:
            self.parser = real_parser(language)

        def parse(self, text: bytes, *args: Any, **options: Any) -> Any:
            parsed.append(len(text))
            return self.parser.parse(text, *args, **options)

    monkeypatch.setattr(source, '_parser', Counted)
    covered_repo.write('app/lease.py', BIG)
    covered_repo.add('app/lease.py')
    for command in (['guard'], ['coverage']):
        code, out = run(capsys, *command)
        assert code == 2, out
        assert 'app/lease.py is 7.8 MB, over the 5 MB limit for covered files' in out
        assert 'EXECLEASE_MAX_COVERED_MB' in out
        assert [n for n in parsed if n >= len(BIG)] == [], command
    monkeypatch.setenv('EXECLEASE_MAX_COVERED_MB', '20')  # cli/main reads it, each stage obeys
    for command in (['coverage'], ['guard']):
        code, out = run(capsys, *command)
        assert code == 0 and 'over the' not in out, (command, out)
    assert max(parsed) >= len(BIG)  # under the raised limit it is parsed: the count sees it


def test_a_bad_size_limit_names_the_variable(covered_repo, capsys, monkeypatch):
    monkeypatch.setenv('EXECLEASE_MAX_COVERED_MB', 'nan')
    code, out = run(capsys, 'coverage')
    assert code == 2 and "EXECLEASE_MAX_COVERED_MB='nan'" in out, out


@pytest.mark.tlc  # its `verify` reports the Java it would use (java -version)
def test_manifest_text_is_json_not_python(covered_repo, capsys):
    # A manifest written by a person may hold anything; valid JSON of the wrong shape is named.
    covered_repo.write(MANIFEST, json.dumps([1, 2, 3]))
    covered_repo.add(MANIFEST)
    for command in COMMANDS:
        code, out = run(capsys, *command)
        assert code == 2 and 'expected an object' in out, (command, out)
