from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

from execlease_hook.cli import args
from execlease_hook.core import signals, term
from execlease_hook.core.errors import ExecleaseError
from execlease_hook.core.settings import from_environ

if TYPE_CHECKING:
    from execlease_hook.core.settings import Settings

# Each subcommand lives in its own module and is imported only when chosen, so that the
# fast stage (`guard`) pays for nothing it does not use (docs/architecture.md#decisions-and-their-reasons).
COMMANDS: dict[str, Callable[[], ModuleType]] = {
    'guard': lambda: import_module('execlease_hook.commands.guard'),
    'verify': lambda: import_module('execlease_hook.commands.verify'),
    'coverage': lambda: import_module('execlease_hook.commands.coverage'),
    'tools': lambda: import_module('execlease_hook.commands.tools'),
    'init': lambda: import_module('execlease_hook.commands.init'),
    'add': lambda: import_module('execlease_hook.commands.add'),
    'report': lambda: import_module('execlease_hook.commands.report'),
    'help': lambda: import_module('execlease_hook.commands.help'),
}


def _jobs(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError('must be 1 or more')
    return value


class _Version(argparse.Action):
    """`--version`, reading the installed version only when asked (argparse's own action
    takes the string when the parser is built, on every command)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: str = argparse.SUPPRESS,
        help: str = "show program's version number and exit",
    ) -> None:
        super().__init__(
            option_strings=option_strings, dest=dest, default=default, nargs=0, help=help
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(_version())
        parser.exit()


def _version() -> str:
    # Lazy, as in the next two: what only --version, an old hook id or a bug needs (the
    # installed metadata, traceback) would cost every commit, which runs `execlease guard`.
    # Measured as in guard/stage.py: 284 ms as written, 410 ms with these three at the top.
    from execlease_hook.core import origin

    return origin.describe(origin.installed())


# Long runs that start child processes or download: SIGTERM and SIGHUP clean up like Ctrl-C.
SIGNALLED = ('verify', 'tools')


class _Help(argparse.RawDescriptionHelpFormatter):
    """argparse's help, as wide as term.width() says, like every other output of execlease
    (COLUMNS, else the terminal, else 80). argparse's own width comes from shutil, whose import
    (zlib, bz2 and lzma with it) cost `execlease guard` with nothing concerned 6.9 M of its
    178 M instructions (callgrind, `python -c pass`: 88 M): every add_argument builds a
    formatter."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = term.width() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Command(argparse.ArgumentParser):
    """A command's parser, which adds its arguments when it parses (`complete` adds them
    without parsing) and its epilog when it prints its help. The commit hook runs `execlease
    guard`: building every command's arguments cost it 9.2 M instructions more than building
    its own, 194 M against 185 M for the whole `execlease guard` with nothing concerned
    (callgrind, every process; `python -c pass`: 88 M), 1.3 points of
    benchmarks/precommit_overhead.py's g/n (`pre-commit run` with a no-op hook: 692 M), which
    wall time under load does not resolve. The epilog (examples and exit codes, wrapped by
    textwrap) would cost it 4.9 M more."""

    arguments: Callable[[argparse.ArgumentParser], None] | None = None
    command: str = ''

    def complete(self) -> _Command:
        arguments, self.arguments = self.arguments, None
        if arguments is not None:
            arguments(self)
        return self

    def parse_known_args(  # type: ignore[override]  # one signature for the three overloads
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.complete()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = args.epilog(self.command)
        return super().format_help()


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `chosen`, the command the command line starts with, only
    that command's parser: the others' are reached only through the top level's help or its
    error for an unknown command, which a command line that starts with a command never prints
    (usage names the command COMMAND). The other seven cost `execlease guard` with nothing
    concerned 5.2 M instructions of callgrind (`python -c pass`: 88 M) and argparse's gettext
    four file lookups each."""
    parser = argparse.ArgumentParser(
        prog='execlease',
        description='Keep a TLA+ model and the code it describes in lockstep.',
        epilog=args.epilog(None),
        formatter_class=_Help,
    )
    parser.add_argument('--version', action=_Version)
    sub = parser.add_subparsers(
        dest='command', required=True, metavar='COMMAND', parser_class=_Command
    )

    def command(name: str, text: str, arguments: Callable[[argparse.ArgumentParser], None]) -> None:
        if chosen not in (None, name):
            return

        def complete(p: argparse.ArgumentParser) -> None:
            args.add_output_arguments(p)
            arguments(p)

        p = sub.add_parser(name, help=text, description=text, formatter_class=_Help)
        p.arguments, p.command = complete, name

    command('guard', 'fast stage: block a commit that touches covered code', _guard_arguments)
    command(
        'verify',
        'slow stage: run every check, mutation, finding and the coverage check',
        add_verify_arguments,
    )
    command('coverage', 'list covered entries and their status', _coverage_arguments)
    command(
        'tools',
        'fetch and verify the pinned TLA+ tools and library jars; show the Java used',
        _tools_arguments,
    )
    command(
        'report',
        'combine the JSON reports of a sharded run into one verdict',
        args.add_report_arguments,
    )
    command(
        'init',
        'scaffold a model folder for an existing spec: manifest.json, NOTES.md, hooks',
        args.add_init_arguments,
    )
    command(
        'add',
        'cover code, or add a mutation, a finding, a library or the TLA+ tools to use',
        args.add_add_arguments,
    )
    command('help', "print a topic of execlease's documentation", args.add_help_arguments)
    return parser


def _guard_arguments(guard: argparse.ArgumentParser) -> None:
    guard.add_argument('--all', action='store_true', help='check every covered entry')
    args.add_model_argument(guard)
    guard.add_argument(
        '--range',
        metavar='A..B',
        help='judge every commit in A..B (or reachable from one REV) against its own manifest',
    )
    guard.add_argument('files', nargs='*', metavar='FILES', help='files as pre-commit passes them')
    _renamed_hook_argument(guard)
    args.add_format_arguments(guard)


def _coverage_arguments(coverage: argparse.ArgumentParser) -> None:
    args.add_model_argument(coverage)
    coverage.add_argument(
        '--write-map',
        action='store_true',
        help="regenerate NOTES.md's code-to-action table between its markers",
    )
    args.add_format_arguments(coverage)


def _tools_arguments(tools: argparse.ArgumentParser) -> None:
    args.add_model_argument(tools)
    tools.add_argument(
        '--cache-key',
        action='store_true',
        help="print a key of every pinned jar (the tools', every model's libraries) for a CI "
        'cache of .tmp/tla; fetch nothing',
    )


def _renamed_hook_argument(parser: argparse.ArgumentParser) -> None:
    """The old hook ids' entries name themselves, for the note of what to change (not in --help:
    only the published hooks pass it)."""
    parser.add_argument('--renamed-hook', metavar='OLD_ID', help=argparse.SUPPRESS)


def _renamed_hook_note(old: str) -> None:
    # Lazy: see _version.
    from execlease_hook.commands import init_hooks

    new = init_hooks.RENAMED.get(old, old)
    width = term.width(sys.stderr)
    for line in (
        term.wrap(
            f'execlease: the hook id {old} is renamed {new}, after the command it runs; '
            'the old id goes in the next release. In .pre-commit-config.yaml, replace',
            width,
        ),
        f'  id: {old}',
        'with',
        f'  id: {new}',
        term.wrap(
            f"(and SKIP={old} with SKIP={new}); execlease's docs/upgrading.md says more.", width
        ),
    ):
        print(line, file=sys.stderr)


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--quick', action='store_true', help='checks and coverage only')
    parser.add_argument(
        '--update-coverage',
        action='store_true',
        help='after a full passing run, record the current hashes and HEAD as the sync point',
    )
    parser.add_argument(
        '--reason',
        metavar='TEXT',
        help='with --update-coverage: why covered code moved while the model did not (recorded)',
    )
    parser.add_argument(
        '--rev', metavar='REV', help='verify the tree of commit REV, checked out alone'
    )
    parser.add_argument(
        '--pushed',
        action='store_true',
        help='the pre-push hook: judge the pushed commits and verify the pushed tip (else the working tree)',
    )
    args.add_model_argument(parser)
    parser.add_argument('--jobs', type=_jobs, metavar='N', help='TLC jobs at once (default: CPUs)')
    parser.add_argument(
        '--json',
        metavar='FILE',
        help='also write the results as JSON (= --format json --output FILE)',
    )
    parser.add_argument('--no-cache', action='store_true', help='run every TLC job afresh')
    _renamed_hook_argument(parser)
    args.add_format_arguments(parser)
    args.add_shard_arguments(parser)
    args.add_deep_arguments(parser)


def run(options: argparse.Namespace, settings: Settings) -> int:
    module = COMMANDS[options.command]()
    code: int = module.run(options, settings)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    options = build_parser(args[0] if args and args[0] in COMMANDS else None).parse_args(args)
    options.argv = args  # for a bug's log (core/crash.py)
    # A closed stdout (`execlease guard | head -1`) must not turn into a traceback and exit 2:
    # the command finishes and keeps its own exit code.
    stdout, sys.stdout = sys.stdout, term.QuietPipe(sys.stdout)
    try:
        return _main(options)
    finally:
        sys.stdout.flush()
        sys.stdout = stdout


def _main(options: argparse.Namespace) -> int:
    restore = None
    settings: Settings | None = None
    if options.command in SIGNALLED:
        restore = signals.install()
    try:
        old_hook = getattr(options, 'renamed_hook', None)  # guard and verify only
        if old_hook is not None:
            _renamed_hook_note(old_hook)
        settings = from_environ()  # the one read of every EXECLEASE_* variable
        return run(options, settings)
    except ExecleaseError as e:
        print(
            term.wrap(f'execlease {options.command}: {e}', term.width(sys.stderr)), file=sys.stderr
        )
        return e.exit_code
    except KeyboardInterrupt as e:
        # Ctrl-C (130), or SIGTERM / SIGHUP turned into the same path by signals.py (128 + N).
        what, code = signals.interrupted(e)
        print(f'execlease {options.command}: {what}', file=sys.stderr)
        return code
    except Exception as e:
        # A bug, not an expected failure: exit 3, never 1 ("did not hold"), 2 ("could not run")
        # or 0; the traceback goes to a log file the message names (core/crash.py).
        return _crashed(options, e, settings.log if settings else None)
    finally:
        if restore is not None:
            restore()


def _crashed(options: argparse.Namespace, error: Exception, named_log: str | None) -> int:
    # Lazy: see _version.
    import traceback

    from execlease_hook.core import crash

    text = traceback.format_exc()
    log = crash.write_log(crash.report(options.argv, text, _version()), named_log)
    what = f'{type(error).__name__}: {error}'.splitlines()[0]
    if log is None:
        print(text, file=sys.stderr, end='')
        where = 'the traceback above (the log file could not be written)'
    else:
        where = f'the traceback and the versions are in {log}'
    print(
        term.wrap(
            f'execlease {options.command}: an unexpected error, a bug in execlease '
            f'({what}); {where}: please report it with the command you ran',
            term.width(sys.stderr),
        ),
        file=sys.stderr,
    )
    return crash.EXIT_BUG


if __name__ == '__main__':
    raise SystemExit(main())
