"""verify/report_build.py: a TLC error's category in the JSON report."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.manifest.model import Check, Manifest
from execlease_hook.tlc.output import Verdict
from execlease_hook.verify.report_build import tlc_error, tlc_locations

MANIFEST = Manifest(
    Path('/r/m/manifest.json'), Path('/r'), 'Deep.tla', (Check('deep', 'Deep.cfg'),)
)


@pytest.mark.parametrize(
    ('reason', 'category'),
    (
        # A stack overflow while TLC evaluates what SANY parsed: its own category, not parse.
        (
            'Java ran out of stack (StackOverflowError, TLC exit code 255) in SANY: parse error',
            'stack',
        ),
        ('TLC found a semantic error', 'parse'),
        ('timed out after 10 s', 'timeout'),
        ('Java heap space', 'memory'),
        ('something else', 'tlc'),
    ),
    ids=('stack-before-parse', 'parse', 'timeout', 'memory', 'other'),
)
def test_category(reason, category):
    verdict = Verdict('error', 1.0, None, reason=reason)
    assert tlc_error(MANIFEST, verdict)['category'] == category


def test_locations_once_each_in_the_order_tlc_names_them():
    """TLC's location words, then a parse error's line in the module it names; each once."""
    where = 'line 5, col 1 to line 6, col 9 of module Deep'
    verdict = Verdict(
        'error',
        1.0,
        150,
        reason=f'{where}; Encountered "<<" at line 13, column 10 In module Lib',
        last_lines=(where, 'line 2, col 1 to line 2, col 4 of module Lib', 'at line 13, column 2'),
    )
    assert [
        (loc.path, loc.start_line, loc.end_line) for loc in tlc_locations(MANIFEST, verdict)
    ] == [
        ('m/Deep.tla', 5, 6),
        ('m/Lib.tla', 2, 2),
        ('m/Lib.tla', 13, 13),
    ]
