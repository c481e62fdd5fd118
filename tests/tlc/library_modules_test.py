"""What TLC reads from a model's libraries, with the real offline tla2tools.jar and jars built by
the JDK's `jar`: its standard modules, a jar's root modules, TLC's search order across the spec's
folder, library folders and jars, and the note for a module that shadows a standard one."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.tlc import library_modules
from execlease_hook.tlc.libraries import Libraries, LibraryFolder, LibraryJar
from tests import libraries_support as support
from tests import needs

SPEC = b'---- MODULE S ----\nEXTENDS Naturals, FiniteSets, Ops, Extra\n====\n'


@pytest.fixture(scope='module')
def jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.build_jar(
        tmp_path_factory.mktemp('jar'),
        {
            'Extra.tla': '---- MODULE Extra ----\nE == 1\n====\n',
            'Naturals.tla': '---- MODULE Naturals ----\n====\n',  # TLC's own answers first
            'Unread.tla': '---- MODULE Unread ----\n====\n',
            'sub/Deep.tla': '---- MODULE Deep ----\n====\n',  # not at the root: not offered
        },
        'Extra.jar',
    )


def test_the_standard_modules_of_the_offline_tla_tools():
    assert library_modules.standard_modules(Path(needs.tla_jar())) == {
        'Bags',
        'FiniteSets',
        'Integers',
        'Naturals',
        'Randomization',
        'RealTime',
        'Reals',
        'Sequences',
        'TLC',
        'Toolbox',
    }
    assert library_modules.standard_modules(Path('/no/such/tla2tools.jar')) == frozenset()


def test_what_tlc_reads_in_its_order(jar):
    tools = Path(needs.tla_jar())
    assert sorted(library_modules.jar_modules(jar)) == ['Extra.tla', 'Naturals.tla', 'Unread.tla']
    folder = LibraryFolder(
        'lib',
        Path('/unused'),
        (
            ('FiniteSets.tla', b'---- MODULE FiniteSets ----\n====\n'),
            ('Ops.tla', b'---- MODULE Ops ----\nEXTENDS Helpers\n====\n'),
            ('SVG.tla', b'---- MODULE SVG ----\nD == Serialize(1, "a", 2)\n====\n'),
        ),
    )
    libs = Libraries(
        (LibraryJar('Extra', '0' * 64, jar, 'cache'),),
        (folder,),
    )
    beside = [
        ('Helpers.tla', b'---- MODULE Helpers ----\n====\n'),
        ('Ops.tla', b'---- MODULE Ops ----\n====\n'),
    ]
    read = library_modules.read_by(('S.tla', SPEC), beside, libs, tools, 'm/')
    assert [(mod.path, mod.library) for mod in read] == [
        ('m/S.tla', None),
        ('lib/FiniteSets.tla', 'lib'),
        ('m/Ops.tla', None),
        ('jar:Extra!/Extra.tla', 'Extra'),
    ]
    (note,) = library_modules.shadowing(read, tools)
    assert note.startswith(
        "lib/FiniteSets.tla shadows TLC's standard module FiniteSets "
        '(tla2sany/StandardModules/FiniteSets.tla in tla2tools.jar)'
    )
