"""The command line's parser: every command's arguments, built only for the command a command
line starts with (all of them for the top level's help), what `--help` shows beyond the options
(an example and the exit codes of every command), and `--version` (cli/main.py dispatches what
it parsed). Light on purpose: cli/main.py imports it on each run, the guard's included.

It is kept whole though long: most of it is text (the help, the examples, the exit codes) and
the one table of every command's arguments, which change together and which the one reference
test of docs/cli.md reads. Split by command, it would be files that every run imports together,
and the seam between the table and the parser that reads it was arbitrary.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from execlease_hook.commands.help import TOPICS
from execlease_hook.core import settings, term
from execlease_hook.formats.names import FORMATS

EXITS = {
    'guard': (
        'nothing covered changed (or nothing a model governs is staged)',
        'covered code, the model or the NOTES.md map changed: the commit is blocked',
        'could not run: not a git repository, no or bad manifest, an entry missing, '
        'ambiguous, deleted or renamed',
    ),
    'verify': (
        'all held',
        'something did not hold (named)',
        'could not run (no Java, tools not verified, TLC error, anchor gone)',
    ),
    'coverage': (
        'every entry unchanged',
        'something changed or was never synced',
        'an entry cannot be located',
    ),
    'tools': ('tools and Java found and verified', None, 'not found or not verified'),
    'report': (
        'every shard held',
        'something did not hold in a shard',
        'could not merge (a shard missing or twice, different commits), or a shard could not run',
    ),
    'init': (
        'scaffolded (or everything was already there)',
        None,
        'could not: no git repository, no spec or cfg, a path outside the repository, a '
        'library that cannot be had (no such folder, a jar not fetched or of another sha256)',
    ),
    'help': ('printed', None, None),
    'add': (
        'added, and the NOTES.md map regenerated',
        None,
        'not added: the code or anchor is not found exactly once, a duplicate id, a library '
        'or TLA+ tools jar that cannot be had or is not the pinned one, a bad argument; nothing '
        'was changed',
    ),
}
EXAMPLES = {
    'guard': (
        'execlease guard            # what pre-commit runs on every commit',
        'execlease guard --all      # every entry against the index',
    ),
    'verify': (
        'execlease verify --quick',
        'execlease verify --update-coverage   # after the model matches the code',
    ),
    'coverage': ('execlease coverage --write-map',),
    'tools': ('execlease tools',),
    'report': (
        'execlease verify --shard 1/2 --json s1.json   # on one machine',
        'execlease verify --shard 2/2 --json s2.json   # on another',
        'execlease report merge s1.json s2.json --format junit',
    ),
    'help': ('execlease help covered-code   # what to do when a commit is blocked',),
    'init': (
        'execlease init --spec verification/lock/Lock.tla --write-config',
        'execlease init --spec specs/raft/Raft.tla --library specs/lib',
    ),
    'add': (
        'execlease add app/lock.py::acquire --action Acquire',
        "execlease add app/jobs.py --from '# claim: begin' --to '# claim: end' "
        '--within run --action Claim',
        "execlease add --mutation no-guard --property Mutex --from 'owner = {} /\\' "
        "--to 'TRUE /\\'",
        'execlease add --finding F1 --property Mutex --from-check main --set N=3',
        'execlease add --library verification/lib',
        'execlease add --library https://example.com/CommunityModules-deps.jar --sha256 HEX',
        'execlease add --min-tlc 2.19',
    ),
}
TOP_EPILOG = """\
examples:
  execlease init --spec verification/lock/Lock.tla
  execlease verify
  execlease COMMAND --help   # its exit codes

exit codes: 0 all held, 1 something did not hold (named),
            2 could not run (never a pass), 3 a bug in execlease (its
            traceback in the log file the message names)"""


def version() -> str:
    # Lazy, as in cli/main.py's note of a renamed hook and its log of a bug: what only --version,
    # an old hook id or a bug needs (the installed metadata, traceback) would cost every commit,
    # which runs `execlease guard`. Measured as in guard/stage.py: 284 ms as written, 410 ms with
    # these three at the top.
    from execlease_hook.core import origin

    return origin.describe(origin.installed())


class _Version(argparse.Action):
    """`--version`, reading the installed version only when asked (argparse's own action
    takes the string when the parser is built, on every command)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(version())
        parser.exit()


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's help, as wide as term.width() says, like every other output of execlease
    (COLUMNS, else the terminal, else 80). argparse's own width comes from shutil, whose import
    (zlib, bz2 and lzma with it) cost `execlease guard` with nothing concerned 6.9 M of its
    178 M instructions (callgrind, `python -c pass`: 88 M): every add_argument builds a
    formatter."""
    return argparse.RawDescriptionHelpFormatter(prog, width=term.width() - 2)


class _Command(argparse.ArgumentParser):
    """A command's parser, which adds its epilog (examples, then exit codes, wrapped by
    textwrap) only when it prints its help: built with the parser, it would cost `execlease
    guard` with nothing concerned 4.9 M instructions of callgrind (`python -c pass`: 88 M), 4.7 M
    of them textwrap's import (its regular expressions compiled)."""

    command: str = ''

    def format_help(self) -> str:
        if self.epilog is None:
            import textwrap
            from functools import partial

            wrap = partial(textwrap.wrap, width=78, initial_indent='  ', break_on_hyphens=False)
            examples = EXAMPLES[self.command]
            lines = ['example' + ('s' if len(examples) > 1 else '') + ':']
            for example in examples:
                lines += wrap(example, subsequent_indent='      ', break_long_words=False)
            lines += ('', 'exit codes:')
            for code, text in enumerate(EXITS[self.command]):
                if text is not None:
                    lines += wrap(f'{code}  {text}', subsequent_indent='     ')
            if self.command not in ('init', 'add', 'help'):
                lines.append('  exit 2 is never a pass')
            self.epilog = '\n'.join(lines)
        return super().format_help()

    def flag(self, name: str, text: str) -> None:
        self.add_argument(name, action='store_true', help=text)

    def option(self, name: str, metavar: str, text: str) -> None:
        self.add_argument(name, metavar=metavar, help=text)

    def repeated(self, name: str, metavar: str, text: str) -> None:
        self.add_argument(name, metavar=metavar, action='append', default=[], help=text)


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
        epilog=TOP_EPILOG,
        formatter_class=_formatter,
    )
    parser.add_argument(
        '--version',
        action=_Version,
        nargs=0,
        default=argparse.SUPPRESS,
        help="show program's version number and exit",
    )
    sub = parser.add_subparsers(
        dest='command', required=True, metavar='COMMAND', parser_class=_Command
    )
    for name, text, arguments in ARGUMENTS:
        if chosen in (None, name):
            p = sub.add_parser(name, help=text, description=text, formatter_class=_formatter)
            p.command = name
            for short, option, said in (
                ('-q', '--quiet', 'less output: only what did not hold and the verdict'),
                ('-v', '--verbose', 'more output: what held too'),
            ):
                p.add_argument(short, option, action='count', default=0, help=said)
            arguments(p)
    return parser


def _model(parser: _Command) -> None:
    parser.option('--model', 'DIR', 'the model folder (holds manifest.json)')


def _renamed_hook(parser: _Command) -> None:
    """The old hook ids' entries name themselves, for the note of what to change (not in --help:
    only the published hooks pass it)."""
    parser.add_argument('--renamed-hook', metavar='OLD_ID', help=argparse.SUPPRESS)


def _format(parser: _Command) -> None:
    parser.add_argument(
        '--format',
        choices=FORMATS,
        help='report format on stdout (the human text then goes to stderr); default: text',
    )
    parser.add_argument(
        '--output', '-o', metavar='FILE', help='write the --format report to FILE instead of stdout'
    )


def _guard(parser: _Command) -> None:
    parser.flag('--all', 'check every covered entry')
    _model(parser)
    parser.option(
        '--range',
        'A..B',
        'judge every commit in A..B (or reachable from one REV) against its own manifest',
    )
    parser.add_argument('files', nargs='*', metavar='FILES', help='files as pre-commit passes them')
    _renamed_hook(parser)
    _format(parser)


def _coverage(parser: _Command) -> None:
    _model(parser)
    parser.flag('--write-map', "regenerate NOTES.md's code-to-action table between its markers")
    _format(parser)


def _tools(parser: _Command) -> None:
    _model(parser)
    parser.flag(
        '--cache-key',
        "print a key of every pinned jar (the tools', every model's libraries) for a CI "
        'cache of .tmp/tla; fetch nothing',
    )


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f'expected a whole number >= 1, got {text!r}')
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected seconds, got {text!r}') from None
    problem = settings.seconds_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(f'{text}: {problem}')
    return value


def _verify(parser: _Command) -> None:
    parser.flag('--quick', 'checks and coverage only')
    parser.flag(
        '--update-coverage',
        'after a full passing run, record the current hashes and HEAD as the sync point',
    )
    parser.option(
        '--reason',
        'TEXT',
        'with --update-coverage: why covered code moved while the model did not (recorded)',
    )
    parser.option('--rev', 'REV', 'verify the tree of commit REV, checked out alone')
    parser.flag(
        '--pushed',
        'the pre-push hook: judge the pushed commits and verify the pushed tip (else the working tree)',
    )
    _model(parser)
    parser.add_argument(
        '--jobs', type=_positive, metavar='N', help='TLC jobs at once (default: CPUs)'
    )
    parser.option(
        '--json', 'FILE', 'also write the results as JSON (= --format json --output FILE)'
    )
    parser.flag('--no-cache', 'run every TLC job afresh')
    _renamed_hook(parser)
    _format(parser)
    parser.option(
        '--shard',
        'K/N',
        'run the K-th of N shares of the jobs (balanced by recorded states; '
        'coverage in shard 1); combine with `execlease report merge`',
    )
    parser.add_argument(
        '--only',
        metavar='NAME',
        nargs='+',
        help='run only the jobs with these names, trace jobs and code mutations too; '
        'KIND:NAME when two share one, e.g. code-mutation:NAME (no coverage check)',
    )
    parser.flag(
        '--deep', "the checks at their manifest's deep bounds, every core, -fpmem, a budget"
    )
    parser.flag(
        '--simulate', "TLC's random simulation of every check (with --deep: at the deep bounds)"
    )
    for name, kind, metavar, text in (
        ('--depth', _positive, 'N', '--simulate: behaviours up to N steps (100)'),
        ('--traces', _positive, 'N', '--simulate: N behaviours (10000)'),
        ('--seed', _positive, 'S', '--simulate: the seed (default: a new one, printed)'),
        (
            '--budget',
            _seconds,
            'SECONDS',
            '--deep/--simulate: stop each job after SECONDS (exit 2, saying what it covered)',
        ),
        ('--fpmem', float, 'F', "--deep: TLC's -fpmem, the heap fraction for fingerprints (0.5)"),
    ):
        parser.add_argument(name, type=kind, metavar=metavar, help=text)


def _report(parser: _Command) -> None:
    # Both optional to argparse, so that a bare `execlease report` says what to run (commands/report.py)
    # rather than argparse's "the following arguments are required: action".
    parser.add_argument(
        'action', nargs='?', choices=('merge',), help='merge: combine shard JSON reports'
    )
    parser.add_argument(
        'reports',
        nargs='*',
        metavar='REPORT.json',
        help='the JSON reports of every shard of one run',
    )
    _format(parser)


def _init(parser: _Command) -> None:
    parser.option('--spec', 'FILE.tla', 'the spec (default: the only .tla in --model DIR)')
    parser.repeated(
        '--cfg',
        'FILE.cfg',
        'a config that must pass, one check each (repeatable; default: every .cfg beside the spec)',
    )
    parser.option('--model', 'DIR', 'the model folder (default: the folder of --spec)')
    parser.repeated(
        '--library',
        'DIR|URL',
        'a TLA+ library the spec needs: a folder of .tla modules in the repository, '
        'or a jar URL#sha256=HEX (repeatable)',
    )
    parser.flag(
        '--write-config',
        'write .pre-commit-config.yaml if there is none (else print the lines to add)',
    )
    parser.add_argument(
        '--hooks',
        choices=('python', 'system'),
        help="python: execlease's published hooks, built by pre-commit (default "
        'for an install from git); system: run the execlease on PATH',
    )
    parser.option(
        '--hooks-repo',
        'URL',
        'with --hooks-rev: the git URL of execlease the hooks come from '
        '(default: where this execlease was installed from)',
    )
    parser.option('--hooks-rev', 'REV', 'the tag or commit of --hooks-repo')


def _help(parser: _Command) -> None:
    parser.add_argument(
        'topic',
        nargs='?',
        choices=tuple(TOPICS),
        metavar='TOPIC',
        help=f'one of: {", ".join(TOPICS)} (none: list them)',
    )


def _add(parser: _Command) -> None:
    parser.add_argument(
        'target',
        nargs='?',
        metavar='PATH[::QUALNAME]',
        help='covered code: a function (PATH::QUALNAME) or, with --from/--to, a region',
    )
    parser.add_argument('--action', help='the model action this code implements')
    parser.add_argument('--id', help='the entry id (default: from the name or the anchor)')
    parser.add_argument(
        '--from',
        dest='start',
        metavar='TEXT',
        help='region start (once, as written or by its tokens), or the spec text a mutation replaces '
        '(exact, once)',
    )
    parser.option('--to', 'TEXT', 'region end, or the mutated text')
    parser.option('--within', 'QUALNAME', 'look for the region inside this function')
    parser.option('--mutation', 'NAME', 'add a mutation of the spec')
    parser.option('--finding', 'NAME', 'add a known finding (a cfg that must fail)')
    parser.option(
        '--property', 'P', 'the invariant or property the mutation or finding must violate'
    )
    parser.option(
        '--cfg',
        'FILE.cfg',
        "the mutation's or finding's config (mutation default: the first check's)",
    )
    parser.option(
        '--from-check', 'CHECK', "a finding: copy this check's config to findings/NAME.cfg ..."
    )
    parser.repeated('--set', 'CONST=VALUE', '... with these constants changed (repeatable)')
    parser.option('--summary', 'TEXT', "a finding's one-line summary")
    parser.option(
        '--library',
        'DIR|URL',
        'add a TLA+ library: a folder of .tla modules in the repository, or a jar URL',
    )
    parser.option('--sha256', 'HEX', "--library URL, --tools URL: the jar's pinned sha256")
    parser.option('--name', 'NAME', '--library URL: how reports name the jar')
    parser.option('--tools', 'URL', "pin the model's own tla2tools.jar (with --sha256)")
    parser.option('--min-tlc', 'V', 'the lowest TLC version the specs need, e.g. 2.19')
    _model(parser)


# Each command: its name, its one line of help, its arguments (in the order --help lists them).
ARGUMENTS: tuple[tuple[str, str, Callable[[_Command], None]], ...] = (
    ('guard', 'fast stage: block a commit that touches covered code', _guard),
    ('verify', 'slow stage: run every check, mutation, finding and the coverage check', _verify),
    ('coverage', 'list covered entries and their status', _coverage),
    (
        'tools',
        'fetch and verify the pinned TLA+ tools and library jars; show the Java used',
        _tools,
    ),
    ('report', 'combine the JSON reports of a sharded run into one verdict', _report),
    (
        'init',
        'scaffold a model folder for an existing spec: manifest.json, NOTES.md, hooks',
        _init,
    ),
    (
        'add',
        'cover code, or add a mutation, a finding, a library or the TLA+ tools to use',
        _add,
    ),
    ('help', "print a topic of execlease's documentation", _help),
)
