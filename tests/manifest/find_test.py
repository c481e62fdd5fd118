from __future__ import annotations

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.find import find_models


def make(tmp_path, name):
    folder = tmp_path / 'verification' / name
    folder.mkdir(parents=True)
    path = folder / 'manifest.json'
    path.write_text('{}')
    return path


def test_no_model_says_where_it_looked(tmp_path):
    with pytest.raises(
        CannotRun, match=r'no model found: expected verification/<name>/manifest.json'
    ):
        find_models(tmp_path, None)


def test_every_model_in_name_order(tmp_path):
    b = make(tmp_path, 'b-model')
    a = make(tmp_path, 'a-model')
    (tmp_path / 'verification' / 'no-manifest').mkdir()
    assert find_models(tmp_path, None) == [a, b]


def test_model_option_folder_file_and_relative(tmp_path, monkeypatch):
    a = make(tmp_path, 'a')
    assert find_models(tmp_path, str(a.parent)) == [a]
    assert find_models(tmp_path, str(a)) == [a]
    monkeypatch.chdir(tmp_path / 'verification')
    assert find_models(tmp_path, 'a') == [a]


def test_model_option_without_manifest(tmp_path):
    with pytest.raises(CannotRun, match='--model nowhere: no manifest.json at'):
        find_models(tmp_path, 'nowhere')
