"""The command line's parser: every command's arguments, built only for the command a command
line starts with (all of them for the top level's help), and `--version` (cli/main.py
dispatches what it parsed)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from execlease_hook.cli import args
from execlease_hook.core import term


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
        print(version())
        parser.exit()


def version() -> str:
    # Lazy, as in cli/main.py's note of a renamed hook and its log of a bug: what only --version,
    # an old hook id or a bug needs (the installed metadata, traceback) would cost every commit,
    # which runs `execlease guard`. Measured as in guard/stage.py: 284 ms as written, 410 ms with
    # these three at the top.
    from execlease_hook.core import origin

    return origin.describe(origin.installed())


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
    """A command's parser, which adds its epilog (examples and exit codes, wrapped by textwrap)
    only when it prints its help: built with the parser, it would cost `execlease guard` with
    nothing concerned 4.9 M instructions of callgrind (`python -c pass`: 88 M)."""

    command: str = ''

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = args.epilog(self.command)
        return super().format_help()


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `chosen`, the command the command line starts with, only
    that command's parser: the others' are reached only through the top level's help or its
    error for an unknown command, which a command line that starts with a command never prints
    (usage names the command COMMAND). The commit hook runs `execlease guard`: the other seven
    parsers and their arguments cost it 14.4 M instructions of callgrind (`python -c pass`:
    88 M; the whole guard with nothing concerned: 185 M with them), 2 points of
    benchmarks/precommit_overhead.py's g/n, which wall time under load does not resolve, and
    argparse's gettext four file lookups each."""
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

        p = sub.add_parser(name, help=text, description=text, formatter_class=_Help)
        p.command = name
        args.add_output_arguments(p)
        arguments(p)

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
    renamed_hook_argument(guard)
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


def renamed_hook_argument(parser: argparse.ArgumentParser) -> None:
    """The old hook ids' entries name themselves, for the note of what to change (not in --help:
    only the published hooks pass it)."""
    parser.add_argument('--renamed-hook', metavar='OLD_ID', help=argparse.SUPPRESS)


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
    renamed_hook_argument(parser)
    args.add_format_arguments(parser)
    args.add_shard_arguments(parser)
    args.add_deep_arguments(parser)
