from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from execlease_hook.commands import help as help_cmd

ROOT = Path(__file__).resolve().parents[2]


def execlease(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        (sys.executable, '-m', 'execlease', *argv),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_every_topic_file_is_listed_and_every_listed_one_shipped():
    assert {p.stem for p in help_cmd.FOLDER.glob('*.md')} == set(help_cmd.TOPICS)


@pytest.mark.parametrize('topic', help_cmd.TOPICS)
def test_a_topic_is_the_section_of_the_docs_it_copies(topic):
    """One text: the topic file is the section it names, word for word (its heading, then the
    section's text up to where the topic ends)."""
    _, source = help_cmd.TOPICS[topic]
    shape = re.fullmatch(r'(\S+), "(.+)"', source)
    assert shape is not None, f'{topic}: {source!r} is not `file, "heading"`'
    document, heading = shape.groups()
    text = (ROOT / document).read_text(encoding='utf-8')
    section = text.split(f'\n## {heading}\n', 1)[1].split('\n## ', 1)[0]
    topic_text = help_cmd.text(topic)
    assert topic_text.startswith(f'# {heading}\n\n')
    assert topic_text.split('\n\n', 1)[1] in section, (
        f'{help_cmd.FOLDER / topic}.md differs from {source}: copy the section into it'
    )


@pytest.mark.parametrize('topic', help_cmd.TOPICS)
def test_the_command_prints_the_topic(topic):
    proc = execlease('help', topic)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == help_cmd.text(topic)


def test_without_a_topic_it_lists_them():
    proc = execlease('help')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        'topics (execlease help TOPIC):',
        '  covered-code  what to do when covered code changed (a blocked commit)',
    ]


def test_an_unknown_topic_names_the_known_ones():
    proc = execlease('help', 'nope')
    assert proc.returncode == 2
    assert "invalid choice: 'nope' (choose from 'covered-code')" in proc.stderr
