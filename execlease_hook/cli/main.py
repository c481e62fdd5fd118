"""The command line's entry: parse (cli/parser.py), read the settings once, run the chosen
command's module, and turn every exception into an exit code (1 did not hold, 2 could not run,
3 a bug, 130 and 128 + N for signals)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from functools import partial
from importlib import import_module
from types import ModuleType

from execlease_hook.cli import parser
from execlease_hook.core import signals, term
from execlease_hook.core.errors import CannotRun, ExecleaseError
from execlease_hook.core.settings import Settings, from_environ

# Each subcommand lives in its own module and is imported only when chosen, so that the
# fast stage (`guard`) pays for nothing it does not use (docs/architecture.md#decisions-and-their-reasons).
COMMANDS: dict[str, Callable[[], ModuleType]] = {
    name: partial(import_module, f'execlease_hook.commands.{name}')
    for name in ('guard', 'verify', 'coverage', 'tools', 'init', 'add', 'report', 'help')
}


# Long runs that start child processes or download: SIGTERM and SIGHUP clean up like Ctrl-C.
SIGNALLED = ('verify', 'tools')


def _renamed_hook_note(old: str) -> None:
    # Lazy: see cli/parser.version.
    from execlease_hook.commands import init_hooks

    new = init_hooks.RENAMED.get(old, old)
    term.to_stderr(
        f'execlease: the hook id {old} is renamed {new}, after the command it runs; '
        'the old id goes in the next release. In .pre-commit-config.yaml, replace'
    )
    print(f'  id: {old}', 'with', f'  id: {new}', sep='\n', file=sys.stderr)
    term.to_stderr(f"(and SKIP={old} with SKIP={new}); execlease's docs/upgrading.md says more.")


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    chosen = args[0] if args and args[0] in COMMANDS else None  # only its parser is built
    options = parser.build_parser(chosen).parse_args(args)
    options.argv = args  # for a bug's log (core/crash.py)
    # A closed stdout (`execlease guard | head -1`) must not turn into a traceback and exit 2:
    # the command finishes and keeps its own exit code.
    stdout, sys.stdout = sys.stdout, term.QuietPipe(sys.stdout)
    restore = signals.install() if options.command in SIGNALLED else None
    settings: Settings | None = None
    try:
        old_hook = getattr(options, 'renamed_hook', None)  # guard and verify only
        if old_hook is not None:
            _renamed_hook_note(old_hook)
        settings = from_environ()  # the one read of every EXECLEASE_* variable
        _current_folder()
        code: int = COMMANDS[options.command]().run(options, settings)
        return code
    except ExecleaseError as e:
        term.to_stderr(f'execlease {options.command}: {e}')
        return e.exit_code
    except KeyboardInterrupt as e:
        # Ctrl-C (130), or SIGTERM / SIGHUP turned into the same path by signals.py (128 + N).
        what, code = signals.interrupted(e)
        print(f'execlease {options.command}: {what}', file=sys.stderr)
        return code
    except Exception as e:
        # A bug, not an expected failure: exit 3, never 1 ("did not hold"), 2 ("could not run")
        # or 0; the traceback goes to a log file the message names (core/crash.py). A bug met
        # while the run was being stopped (in the cleanup of Ctrl-C, SIGTERM, SIGHUP) is logged
        # the same way, but the exit code stays the stop's: whoever stopped the run reads 130
        # or 128 + N as they asked for it, and the log still tells the bug.
        code = _crashed(options, e, settings.log if settings else None)
        stop = _stopped(e)
        if stop is None:
            return code
        what, code = signals.interrupted(stop)
        print(f'execlease {options.command}: {what}', file=sys.stderr)
        return code
    finally:
        if restore is not None:
            restore()
        sys.stdout.flush()
        sys.stdout = stdout


def _current_folder() -> None:
    """Every command starts from the current folder (the repository, relative paths): one that
    was removed or replaced since the shell entered it is an exit 2 that says so, not a bug."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise CannotRun(
            'the current folder no longer exists (it was removed or replaced after the shell '
            'entered it): cd into the repository again'
        ) from None


def _stopped(error: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or handled signal whose handling `error` was raised in, if any."""
    seen: BaseException | None = error.__context__
    while seen is not None and not isinstance(seen, KeyboardInterrupt):
        seen = seen.__context__
    return seen


def _crashed(options: argparse.Namespace, error: Exception, named_log: str | None) -> int:
    # Lazy: see cli/parser.version.
    import traceback

    from execlease_hook.core import crash

    text = traceback.format_exc()
    log = crash.write_log(crash.report(options.argv, text, parser.version()), named_log)
    what = f'{type(error).__name__}: {error}'.splitlines()[0]
    if log is None:
        print(text, file=sys.stderr, end='')
        where = 'the traceback above (the log file could not be written)'
    else:
        where = f'the traceback and the versions are in {log}'
    term.to_stderr(
        f'execlease {options.command}: an unexpected error, a bug in execlease '
        f'({what}); {where}: please report it with the command you ran'
    )
    return crash.EXIT_BUG


if __name__ == '__main__':
    raise SystemExit(main())
