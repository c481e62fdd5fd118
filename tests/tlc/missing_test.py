"""tlc/missing.py: a module SANY cannot find becomes an error naming it, the line that EXTENDS or
INSTANCEs it and the fix; real TLC for the INSTANCE case.

A library jar's Java override built for another TLC, with the real TLC 2.15, Java and javac: the
run is exit 2 with a reason that says the override cannot run in this TLC and that the spec is not
at fault, whether the class fails when TLC applies the operator (a class it needs is missing) or
when TLC loads it (a class file for a newer Java); a sound override runs as TLC runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc import missing, spare_helper
from execlease_hook.tlc.job import TlcJob, run_job
from execlease_hook.tlc.output import Verdict
from tests import libraries_support as support
from tests import needs, shared
from tests.conftest import GitRepo

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
# The run's JVM cache and tools (conftest's `offline_tlc`), as the tests below: the job's JVM
# starts with the class-data archive built there once for the test run. With neither it built one
# in the user's cache (~/.cache/execlease/jvm) whenever none was there, and a building JVM's parse
# error is run again (tlc/job.py): two JVMs for one verdict.
@pytest.mark.usefixtures('offline_tlc')
def test_an_instance_of_a_missing_module_with_real_tlc(tmp_path, tools_jar):
    job = TlcJob(
        kind='check',
        name='main',
        spec='Inst.tla',
        spec_text=SPEC,
        config='Inst.cfg',
        config_text=b'INIT Init\nNEXT Next\n',
        java=Path(needs.java()),
        jar=tools_jar,
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


OPS_TLA = '---- MODULE MyOps ----\nEXTENDS Naturals\nTwice(v) == v + v\n====\n'
SPEC_TLA = (
    '---- MODULE S ----\nEXTENDS Naturals, MyOps\nVARIABLE x\nInit == x = 0\n'
    "Next == x < 3 /\\ x' = x + 1\nInv == Twice(x) <= 6\n====\n"
)
FRESH = (
    'package tlc2.value.impl.newer;\npublic class Fresh { public static int v() { return 0; } }\n'
)
OPS_JAVA = """package ops;
import tlc2.overrides.TLAPlusOperator;
import tlc2.value.impl.IntValue;
import tlc2.value.impl.Value;
public class MyOps {
  @TLAPlusOperator(identifier = "Twice", module = "MyOps")
  public static Value twice(final Value v) {
    return IntValue.gen(((IntValue) v).val * 2%s);
  }
}
"""
OVERRIDES_JAVA = """package tlc2.overrides;
public class TLCOverrides implements ITLCOverrides {
  @SuppressWarnings("rawtypes")
  public Class[] get() { return new Class[] { ops.MyOps.class }; }
}
"""


def _compiled(folder: Path, kind: str) -> Path:
    """The classes of MyOps's Java override: sound, or needing a class this TLC lacks (compiled
    against a stand-in, left out)."""
    javac = Path(needs.java()).resolve().parent / 'javac'
    if not javac.is_file():
        needs.missing('no JDK `javac` beside java')
    src, classes = folder / 'src', folder / 'classes'
    fresh = ' + tlc2.value.impl.newer.Fresh.v()' if kind == 'missing-class' else ''
    sources = {
        'ops/MyOps.java': OPS_JAVA % fresh,
        'tlc2/overrides/TLCOverrides.java': OVERRIDES_JAVA,
        'tlc2/value/impl/newer/Fresh.java': FRESH,
    }
    for rel, text in sources.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    subprocess.run(
        (
            str(javac),
            *spare_helper.JAVAC_JVM,  # a few small files: C2 and GC threads would not pay
            '-cp',
            needs.tla_jar(),
            '-d',
            str(classes),
            *(str(src / r) for r in sources),
        ),
        check=True,
        capture_output=True,
    )
    for stale in (classes / 'tlc2' / 'value').rglob('*.class'):
        stale.unlink()  # the stand-in is not shipped: TLC 2.15 has no such class
    return classes


def _packed(classes: Path, jar: Path) -> Path:
    (classes / 'MyOps.tla').write_text(OPS_TLA)
    files = sorted(p.relative_to(classes).as_posix() for p in classes.rglob('*') if p.is_file())
    subprocess.run((support.jar_tool(), 'cf', str(jar), *files), cwd=classes, check=True)
    return jar


OVERRIDE_KINDS = ('sound', 'missing-class', 'newer-java')


def override_jars(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """MyOps.tla and its Java override, by kind: sound; needing a class this TLC lacks; or a class
    file of a Java newer than any here (the sound classes, their version raised: one javac for
    both). Built once for the test run (every xdist worker's, tests/shared.py); each test copies
    its jar."""

    def build(folder: Path) -> None:
        sound = _compiled(folder / 'sound', 'sound')
        missing_class = _compiled(folder / 'missing-class', 'missing-class')
        newer = folder / 'newer-java' / 'classes'
        shutil.copytree(sound, newer)
        cls = newer / 'ops' / 'MyOps.class'
        data = bytearray(cls.read_bytes())
        data[6:8] = (70).to_bytes(2, 'big')  # class file version 70: a Java newer than any here
        cls.write_bytes(bytes(data))
        for kind, classes in (('sound', sound), ('missing-class', missing_class)):
            _packed(classes, folder / kind / 'MyOps.jar')
        _packed(newer, folder / 'newer-java' / 'MyOps.jar')

    root = shared.folder(factory, 'missing-override-jars', build)
    return {kind: root / kind / 'MyOps.jar' for kind in OVERRIDE_KINDS}


def override_jar(folder: Path, kind: str, factory: pytest.TempPathFactory) -> Path:
    """A copy of `override_jars`'s jar of this kind in `folder`, the test's own."""
    folder.mkdir(parents=True)
    return Path(shutil.copy2(override_jars(factory)[kind], folder / 'MyOps.jar'))


@pytest.mark.usefixtures('offline_tlc')
@pytest.mark.parametrize(
    ('kind', 'said'),
    (
        ('sound', None),
        (
            'missing-class',
            "a library's Java override cannot run in TLC 2.15: public static "
            'tlc2.value.impl.Value ops.MyOps.twice(tlc2.value.impl.Value) needs '
            'tlc2/value/impl/newer/Fresh, which TLC 2.15 does not have',
        ),
        (
            'newer-java',
            "a library's Java override cannot be loaded by TLC 2.15 on this Java: "
            'UnsupportedClassVersionError: ops/MyOps has been compiled by a more recent version',
        ),
    ),
)
def test_an_override_built_for_another_tlc_is_not_a_spec_error(
    git_repo: GitRepo, tmp_path, tmp_path_factory, monkeypatch, kind, said
):
    jar = override_jar(tmp_path / 'jar', kind, tmp_path_factory)
    monkeypatch.setenv('EXECLEASE_LIBRARY_PATH', str(jar))
    git_repo.write('verification/s/S.tla', SPEC_TLA)
    git_repo.write('verification/s/S.cfg', 'INIT Init\nNEXT Next\nINVARIANT Inv\n')
    git_repo.write(
        'verification/s/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'S.tla',
                'checks': [{'name': 'main', 'config': 'S.cfg', 'deadlock': False}],
                'libraries': [
                    {
                        'name': 'MyOps',
                        'url': 'https://example.invalid/MyOps.jar',
                        'sha256': support.sha256(jar),
                    }
                ],
            }
        ),
    )
    report = tmp_path / 'report.json'
    code = cli.main(['verify', '--quick', '--no-cache', '--json', str(report)])
    (job,) = json.loads(report.read_text())['models'][0]['jobs']
    if said is None:
        assert (code, job['outcome'], job['verdict']['distinct']) == (0, 'held', 4), job
        return
    reason = job['verdict']['reason']
    assert code == 2 and job['outcome'] == 'could not run', job
    assert said in reason, reason
    assert reason.endswith(
        'this is not an error of the spec: use a release of the library built for this '
        'TLC, or run the model with the TLC the library needs '
        '(docs/libraries.md#which-tlc-a-library-needs)'
    ), reason
    assert 'library jars on the class path: MyOps' in reason
