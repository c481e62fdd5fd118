from __future__ import annotations

import os
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.signals import Terminated


def fake_command(monkeypatch, behaviour):
    module = types.ModuleType('execlease_hook.fake_command')
    setattr(module, 'run', behaviour)
    monkeypatch.setitem(cli.COMMANDS, 'tools', lambda: module)


def raises(exc):
    def run(options, settings):
        raise exc

    return run


@pytest.mark.parametrize(
    ('behaviour', 'code', 'message'),
    (
        (lambda options, settings: 0, 0, ''),
        (lambda options, settings: 1, 1, ''),
        (raises(CannotRun('no Java 11+ found')), 2, 'execlease tools: no Java 11+ found'),
        (raises(KeyboardInterrupt()), 130, 'execlease tools: interrupted'),
        (raises(ZeroDivisionError('boom')), 3, 'an unexpected error, a bug in execlease'),
    ),
    ids=('ok', 'did-not-hold', 'cannot-run', 'ctrl-c', 'bug'),
)
def test_errors_become_exit_codes_in_one_place(
    monkeypatch, capsys, tmp_path, behaviour, code, message
):
    monkeypatch.setenv('EXECLEASE_LOG', str(tmp_path / 'execlease.log'))  # not the user's own
    fake_command(monkeypatch, behaviour)
    assert cli.main(['tools']) == code
    assert message in capsys.readouterr().err


def test_a_bug_is_exit_3_with_its_traceback_in_the_log_the_message_names(
    monkeypatch, capsys, tmp_path
):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    monkeypatch.delenv('EXECLEASE_LOG', raising=False)
    fake_command(monkeypatch, raises(ZeroDivisionError('boom')))
    assert cli.main(['tools', '-v']) == 3
    err = ' '.join(capsys.readouterr().err.split())  # as wrapped at any width
    log = tmp_path / 'cache' / 'execlease' / 'execlease.log'
    assert err == (
        'execlease tools: an unexpected error, a bug in execlease (ZeroDivisionError: '
        f'boom); the traceback and the versions are in {log}: please report it with the '
        'command you ran'
    )
    text = log.read_text()
    assert 'command: execlease tools -v' in text and 'version: execlease ' in text
    assert 'Traceback (most recent call last)' in text and 'ZeroDivisionError: boom' in text


@pytest.mark.parametrize(
    ('stop', 'code', 'said'),
    (
        (KeyboardInterrupt(), 130, 'execlease tools: interrupted (Ctrl-C)'),
        (Terminated(signal.SIGTERM), 143, 'execlease tools: terminated (SIGTERM)'),
    ),
    ids=('ctrl-c', 'sigterm'),
)
def test_a_bug_in_the_cleanup_of_a_stop_keeps_the_stops_exit_code_and_is_logged(
    monkeypatch, capsys, tmp_path, stop, code, said
):
    log = tmp_path / 'execlease.log'
    monkeypatch.setenv('EXECLEASE_LOG', str(log))

    def run(options: object, settings: object) -> int:
        try:
            raise stop
        finally:
            raise OSError('a folder the cleanup removes is gone')

    fake_command(monkeypatch, run)
    assert cli.main(['tools']) == code
    err = capsys.readouterr().err
    assert 'an unexpected error, a bug in execlease (OSError: a folder the cleanup' in err
    assert err.rstrip().endswith(said)
    text = log.read_text()
    assert 'OSError: a folder the cleanup removes is gone' in text
    assert type(stop).__name__ in text  # the stop it was raised in, in the traceback


@pytest.mark.parametrize('command', ('verify', 'guard', 'coverage'))
def test_a_removed_current_folder_is_exit_2_that_says_so(tmp_path, command):
    # The shell entered the folder; something removed it; then the command ran there.
    gone = tmp_path / 'gone'
    gone.mkdir()
    script = 'cd "$1" && rmdir "$1" && exec "$2" -m execlease_hook "$3"'
    proc = subprocess.run(
        ('bash', '-c', script, 'bash', str(gone), sys.executable, command),
        capture_output=True,
        text=True,
        env={**os.environ, 'EXECLEASE_LOG': str(tmp_path / 'execlease.log')},
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f'execlease {command}: the current folder no longer exists (it was removed or replaced '
        'after the shell entered it): cd into the repository again\n'
    )
    assert not (tmp_path / 'execlease.log').exists()


def test_a_bug_after_the_current_folder_was_removed_is_still_logged(monkeypatch, capsys, tmp_path):
    log = tmp_path / 'execlease.log'
    monkeypatch.setenv('EXECLEASE_LOG', str(log))
    gone = tmp_path / 'gone'
    gone.mkdir()
    monkeypatch.chdir(gone)  # and back to the test's own folder afterwards

    def run(options: object, settings: object) -> int:
        gone.rmdir()
        raise ZeroDivisionError('boom')

    fake_command(monkeypatch, run)
    assert cli.main(['tools']) == 3
    assert 'ZeroDivisionError: boom' in capsys.readouterr().err
    assert 'cwd: (unreadable: No such file or directory)' in log.read_text()


def test_a_bug_without_a_writable_log_shows_its_traceback(monkeypatch, capsys, tmp_path):
    (tmp_path / 'file').write_text('')
    monkeypatch.setenv('EXECLEASE_LOG', str(tmp_path / 'file' / 'execlease.log'))  # not a folder
    fake_command(monkeypatch, raises(ZeroDivisionError('boom')))
    assert cli.main(['tools']) == 3
    err = capsys.readouterr().err
    assert 'Traceback' in err and 'ZeroDivisionError: boom' in err
    assert 'the traceback above (the log file could not be written)' in err


@pytest.mark.parametrize('argv', (['verify', '--jobs', '0'], ['frobnicate'], []))
def test_bad_arguments_exit_2(argv):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2


@pytest.mark.parametrize('value', ('0', 'abc', '-1', '1.5'))
def test_a_bad_job_count_is_named_with_what_is_expected(value, capsys):
    with pytest.raises(SystemExit):
        cli.main(['verify', '--jobs', value])
    err = capsys.readouterr().err
    assert f"argument --jobs: expected a whole number >= 1, got '{value}'" in err, err


@pytest.mark.parametrize('package', ('execlease', 'execlease_hook'))
def test_python_dash_m_runs_the_cli(package):
    proc = subprocess.run(
        (sys.executable, '-m', package, '--help'),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    for command in ('guard', 'verify', 'coverage', 'tools'):
        assert command in proc.stdout


def test_version_names_where_it_was_installed_from(tmp_path):
    from importlib import metadata

    # This venv's install is the README's developer one: `pip install -e .` in the clone. Run
    # elsewhere: the clone's own execlease.egg-info would answer for the folder it sits in.
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        (str(Path(sys.executable).parent / 'execlease'), '--version'),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == (
        f'execlease {metadata.version("execlease")} from {root.as_uri()} (editable)\n'
    )


@pytest.mark.parametrize('command', (None, *cli.COMMANDS))
def test_help_has_an_example_and_exit_codes_within_80_columns(monkeypatch, capsys, command):
    monkeypatch.setenv('COLUMNS', '80')
    with pytest.raises(SystemExit) as e:
        cli.main([command, '--help'] if command else ['--help'])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert 'example' in out and 'exit codes' in out
    assert max(len(line) for line in out.splitlines()) <= 80
    if command is not None:
        assert f'\n  execlease {command}' in out  # the example runs this command


def test_quiet_coverage_lists_only_what_is_not_unchanged(covered_repo, capsys):
    text = covered_repo.read('app/lease.py').replace('expires_at < ?', 'expires_at <= ?')
    covered_repo.write('app/lease.py', text)
    assert cli.main(['coverage', '-q']) == 1
    out = capsys.readouterr().out
    assert 'claim-lease' in out and 'renew' not in out and 'replay-decision' not in out
    assert cli.main(['coverage']) == 1
    out = capsys.readouterr().out
    assert 'claim-lease' in out and 'renew' in out and 'replay-decision' in out


def test_verbose_guard_says_what_it_checked(covered_repo, capsys):
    assert cli.main(['guard', '-v']) == 0
    assert (
        capsys.readouterr().out
        == 'execlease guard: nothing a model governs is part of this commit\n'
    )
    covered_repo.write('app/lease.py', covered_repo.read('app/lease.py') + '\n# a comment\n')
    covered_repo.add('app/lease.py')
    assert cli.main(['guard', '-v']) == 0
    assert 'verification/lease/manifest.json: 3 staged entries unchanged' in capsys.readouterr().out
    assert cli.main(['guard']) == 0
    assert capsys.readouterr().out == ''


def execlease(repo, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real command, in a pipe, from the scratch repository."""
    from tests.conftest import git_env

    return subprocess.run(
        (sys.executable, '-m', 'execlease', *argv),
        cwd=repo.path,
        env=git_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_quiet_init_add_and_tools_print_nothing_once_done(git_repo, offline_tlc):
    git_repo.write(
        'verification/lock/Lock.tla',
        "---- MODULE Lock ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\n====\n",
    )
    git_repo.write('verification/lock/Lock.cfg', 'INIT Init\nNEXT Next\n')
    git_repo.write('app/lock.py', 'def acquire():\n    return 1\n')
    for argv in (
        ('init', '--spec', 'verification/lock/Lock.tla', '--write-config', '-q'),
        ('add', 'app/lock.py::acquire', '--action', 'Next', '-q'),
        ('tools', '-q'),
    ):
        proc = execlease(git_repo, *argv)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, '', ''), argv
    assert (git_repo.path / '.pre-commit-config.yaml').is_file()
    assert '"function": "acquire"' in git_repo.read('verification/lock/manifest.json')
    # Without -q the same commands say what they did.
    proc = execlease(git_repo, 'tools')
    assert proc.returncode == 0 and proc.stdout.startswith('TLA+ tools: ')


@pytest.mark.parametrize(
    ('argv', 'message'),
    (
        (
            ('report',),
            'execlease report: name what to do: merge, the only action, as in `execlease '
            'report merge s1.json s2.json` (each from `execlease verify --shard K/N --json FILE`)',
        ),
        (
            ('report', 'merge'),
            'execlease report: merge: name the JSON report of every shard, as in',
        ),
    ),
    ids=('no-action', 'no-reports'),
)
def test_report_without_arguments_says_what_to_run(git_repo, argv, message):
    proc = execlease(git_repo, *argv)
    assert proc.returncode == 2
    assert message in ' '.join(proc.stderr.split())
