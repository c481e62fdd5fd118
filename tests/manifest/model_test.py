from __future__ import annotations

import subprocess
import sys

import pytest

from execlease_hook.manifest import model, sections


def test_the_classes_of_sections_py_are_named_by_model_py():
    names = [
        n
        for n, v in vars(sections).items()
        if isinstance(v, type) and v.__module__ == sections.__name__
    ]
    assert len(names) == 13
    for name in names:
        assert getattr(model, name) is getattr(sections, name)
    from execlease_hook.manifest.model import Mutation

    assert Mutation is sections.Mutation


@pytest.mark.parametrize('name', ('NoSuchClass', 'dataclass_of_sections', '__path__'))
def test_any_other_name_is_missing(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(model, name)


def test_a_manifest_of_checks_and_entries_reads_without_the_classes_it_does_not_have(tmp_path):
    # What a commit that changes covered code reads (manifest/model.py says what it saves).
    (tmp_path / 'M.tla').write_text('---- MODULE M ----\n====\n')
    (tmp_path / 'manifest.json').write_text(
        '{"version": 1, "spec": "M.tla", "checks": [{"name": "main", "config": "M.cfg"}],'
        ' "coverage": {"entries": []}}\n'
    )
    script = (
        'import sys, pathlib\nfrom execlease_hook.manifest import read\n'
        'root = pathlib.Path.cwd()\n'
        'm = read.load(root / "manifest.json", root)\n'
        'print(m.checks[0].name, "execlease_hook.manifest.sections" in sys.modules)\n'
        'm.mutations, m.coverage.watch\n'
        'from execlease_hook.manifest import model\n'
        'model.Mutation\n'
        'print("execlease_hook.manifest.sections" in sys.modules)'
    )
    out = subprocess.run(
        (sys.executable, '-c', script), cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ['main', 'False', 'True']
