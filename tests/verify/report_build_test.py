"""verify/report_build.py: a TLC error's category in the JSON report."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.manifest.model import Check, Manifest
from execlease_hook.tlc.output import Verdict
from execlease_hook.verify.report_build import tlc_error

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
