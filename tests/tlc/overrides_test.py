"""A library jar's Java override built for another TLC, with the real TLC 2.15, Java and javac:
the run is exit 2 with a reason that says the override cannot run in this TLC and that the spec
is not at fault, whether the class fails when TLC applies the operator (a class it needs is
missing) or when TLC loads it (a class file for a newer Java); a sound override runs as TLC runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.tlc import spare_helper
from tests import libraries_support as support
from tests import needs
from tests.conftest import GitRepo

pytestmark = pytest.mark.usefixtures('offline_tlc')
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


def override_jar(folder: Path, kind: str) -> Path:
    """MyOps.tla and its Java override: sound; needing a class this TLC lacks (compiled against a
    stand-in, left out of the jar); or a class file of a Java newer than any here."""
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
    if kind == 'newer-java':
        cls = classes / 'ops' / 'MyOps.class'
        data = bytearray(cls.read_bytes())
        data[6:8] = (70).to_bytes(2, 'big')  # class file version 70: a Java newer than any here
        cls.write_bytes(bytes(data))
    (classes / 'MyOps.tla').write_text(OPS_TLA)
    jar = folder / 'MyOps.jar'
    files = sorted(p.relative_to(classes).as_posix() for p in classes.rglob('*') if p.is_file())
    subprocess.run((support.jar_tool(), 'cf', str(jar), *files), cwd=classes, check=True)
    return jar


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
    git_repo: GitRepo, tmp_path, monkeypatch, kind, said
):
    jar = override_jar(tmp_path / 'jar', kind)
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
