"""The command line's parser: only the chosen command's, which parses as the full parser does."""

from __future__ import annotations

import pytest

from execlease_hook.cli import parser


@pytest.mark.parametrize(
    'argv',
    (
        ['guard'],
        ['guard', 'a.py', 'b/c.py'],
        ['guard', '--all', '-v', '--model', 'verification/x', '--format', 'json', '-o', 'r.json'],
        ['guard', '--range', 'HEAD~2..HEAD', '-q'],
        ['verify', '--quick', '--jobs', '2', '--shard', '1/2'],
        ['add', 'app/x.py::f', '--action', 'A'],
        ['help', 'covered-code'],
    ),
)
def test_the_chosen_command_alone_parses_as_every_command_does(argv):
    # main builds only the parser of the command the line starts with.
    assert parser.build_parser(argv[0]).parse_args(argv) == parser.build_parser().parse_args(argv)
    sub = next(a for a in parser.build_parser(argv[0])._actions if a.dest == 'command')
    assert list(sub.choices or ()) == [argv[0]]
