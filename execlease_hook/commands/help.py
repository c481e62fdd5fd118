"""`execlease help [TOPIC]`: a topic of execlease's own documentation, printed.

What a message points a user to must be there in their repository: their README is their own,
and execlease's docs are in its repository, not in theirs. A topic is a file of `topics/`, shipped
with the package; `tests/commands/help_test.py` keeps each one equal to the section of
execlease's documentation it copies, so the two cannot drift apart.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from execlease_hook.core.settings import Settings

FOLDER = Path(__file__).resolve().parents[1] / 'topics'
# Each topic and where its text comes from in execlease's documentation.
TOPICS = {
    'covered-code': (
        'what to do when covered code changed (a blocked commit)',
        'README.md, "When your change touches covered code"',
    ),
}


def text(topic: str) -> str:
    return (FOLDER / f'{topic}.md').read_text(encoding='utf-8')


def run(options: argparse.Namespace, settings: Settings) -> int:
    if options.topic is None:
        print('topics (execlease help TOPIC):')
        width = max(len(name) for name in TOPICS)
        for name, (what, _) in TOPICS.items():
            print(f'  {name:<{width}}  {what}')
        return 0
    print(text(options.topic), end='')
    return 0
