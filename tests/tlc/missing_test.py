"""tlc/missing.py: a module SANY cannot find becomes an error naming it, the line that EXTENDS or
INSTANCEs it and the fix; real TLC for the INSTANCE case."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import missing
from execlease_hook.tlc.job import TlcJob, run_job
from execlease_hook.tlc.output import Verdict
from tests import needs

SPEC = b"""---- MODULE Inst ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = 1 - x
\\* INSTANCE Nowhere in a comment is no import
Inner == INSTANCE Nowhere WITH y <- x
====
"""


@pytest.mark.tlc
@pytest.mark.usefixtures('one_tlc_job')
def test_an_instance_of_a_missing_module_with_real_tlc(tmp_path):
    job = TlcJob(
        kind='check',
        name='main',
        spec='Inst.tla',
        spec_text=SPEC,
        config='Inst.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=Path(needs.java()),
        jar=needs.tla_jar(),
        settings=from_environ(),
    )
    verdict = run_job(job)
    assert verdict.outcome == 'error' and verdict.exit_code == 150
    assert verdict.reason is not None and verdict.reason.startswith(
        'module Nowhere cannot be found: Inst.tla:7 instantiates it (Inner == INSTANCE Nowhere WITH y <- x); '
        'neither the model folder, the TLA+ tools nor any library (the manifest names none) hold Nowhere.tla. '
        'Add the library that holds Nowhere.tla to manifest.json'
    )


def test_an_importer_whose_text_is_not_at_hand_is_named():
    """A module inside a jar library that imports a missing one: its name is all there is."""
    job = TlcJob(
        kind='check',
        name='main',
        spec='Spec.tla',
        spec_text=b'---- MODULE Spec ----\n====\n',
        config='Spec.cfg',
        config_text=b'',
        settings=from_environ(),
    )
    said = b'Cannot find source file for module Json imported in module SequencesExt.\n'
    verdict = missing.explain(
        Verdict('error', 1.0, 150, reason='parse error'), said, [('Spec.tla', job.spec_text)], []
    )
    assert verdict.reason is not None
    assert verdict.reason.startswith(
        'module Json cannot be found: module SequencesExt imports it; '
    )
    assert 'Json is a CommunityModules module' in verdict.reason


def test_other_verdicts_are_left_as_they_are():
    job = TlcJob(
        kind='check',
        name='main',
        spec='Spec.tla',
        spec_text=b'',
        config='Spec.cfg',
        config_text=b'',
        settings=from_environ(),
    )
    said = b'Cannot find source file for module Json imported in module Spec.\n'
    for verdict in (
        Verdict('passed', 1.0, 0),
        Verdict('error', 1.0, 75, reason='evaluation error'),
    ):
        assert missing.explain(verdict, said, [('Spec.tla', job.spec_text)], []) is verdict
    parse = Verdict('error', 1.0, 150, reason='parse error: something else')
    assert missing.explain(parse, b'Encountered "Beginning of definition"', [], []) is parse
