"""The cfg TLC is given: CHECK_DEADLOCK decided and blanked out, one PROPERTY kept, the keywords
TLC 2.15 lacks refused (and the real TLC 2.15 does lack exactly those)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.spec import cfg as tlc_config
from tests import needs

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'kinds'
TLC215 = 'TLC 2.15 (rev d5b5a7f)'
TLC219 = 'TLC 2.19'


@pytest.mark.parametrize(
    ('cfg', 'key', 'checked'),
    [
        (b'INIT Init\nNEXT Next\n', None, True),  # TLC's default
        (b'INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n', None, False),  # the cfg says
        (b'INIT Init\nNEXT Next\nCHECK_DEADLOCK TRUE\n', None, True),
        (b'INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n', True, True),  # the manifest's key wins
        (b'INIT Init\nNEXT Next\nCHECK_DEADLOCK TRUE\n', False, False),
        (b'INIT Init\nNEXT Next\n', False, False),
        (
            b'INIT Init\nNEXT Next\n\\* CHECK_DEADLOCK FALSE\n(* CHECK_DEADLOCK FALSE *)\n',
            None,
            True,
        ),  # comments
    ],
)
def test_deadlock_follows_tlcs_rules(cfg, key, checked):
    for version in (TLC215, TLC219):
        given = tlc_config.prepare(cfg, 'M.cfg', key, version)
        assert given.deadlock is checked and given.problem is None
        assert b'CHECK_DEADLOCK' not in given.text.replace(b'\\* CHECK_DEADLOCK', b'').replace(
            b'(* CHECK_DEADLOCK', b''
        )
        assert given.text.count(b'\n') == cfg.count(b'\n')  # TLC's line numbers stay
    translated = tlc_config.prepare(cfg, 'M.cfg', key, TLC215).translated
    assert translated is (key is None and b'\nCHECK_DEADLOCK' in cfg)
    assert not tlc_config.prepare(cfg, 'M.cfg', key, TLC219).translated


@pytest.mark.parametrize(
    ('cfg', 'problem'),
    [
        (
            b'CHECK_DEADLOCK\nINIT Init\n',
            'CHECK_DEADLOCK must be followed by TRUE or FALSE, not nothing',
        ),
        (b'CHECK_DEADLOCK no\n', 'CHECK_DEADLOCK must be followed by TRUE or FALSE, not no'),
        (
            b'CHECK_DEADLOCK TRUE\nCHECK_DEADLOCK FALSE\n',
            'CHECK_DEADLOCK is given 2 times; keep one',
        ),
    ],
)
def test_a_bad_check_deadlock_is_named(cfg, problem):
    given = tlc_config.prepare(cfg, 'M.cfg', None, TLC215)
    assert given.problem == f'M.cfg: {problem}; fix the cfg'


def test_keywords_tlc_215_lacks_are_refused_there_only():
    cfg = b'INIT Init\nNEXT Next\nALIAS Seen\nPOSTCONDITION Post\nVIEW V\nSYMMETRY S\n'
    given = tlc_config.prepare(cfg, 'M.cfg', None, TLC215, 'check main')
    assert given.problem is not None
    assert given.problem.startswith(
        'check main (M.cfg): the cfg uses ALIAS and POSTCONDITION, which TLC 2.15'
    )
    assert tlc_config.prepare(cfg, 'M.cfg', None, TLC219).problem is None
    assert (
        tlc_config.prepare(
            b'VIEW V\nSYMMETRY S\nCONSTRAINT C\nACTION_CONSTRAINT A\n', 'M.cfg', None, TLC215
        ).problem
        is None
    )


def test_a_named_temporal_property_is_kept_alone():
    cfg = b'SPECIFICATION Spec\nPROPERTIES Term Up\nINVARIANT Inv\nPROPERTY Beyond\n'
    given = tlc_config.prepare(cfg, 'M.cfg', None, TLC215, 'finding f', 'Up')
    assert tlc_config.names(given.text, tlc_config.PROPERTY_KEYWORDS) == ['Up']
    assert tlc_config.names(given.text, ('INVARIANT',)) == ['Inv']
    # An invariant expected, or a single PROPERTY: the cfg is left alone.
    assert tlc_config.prepare(cfg, 'M.cfg', None, TLC215, 'finding f', 'Inv').text == cfg
    one = b'SPECIFICATION Spec\nPROPERTY Term\n'
    assert tlc_config.prepare(one, 'M.cfg', None, TLC215, 'finding f', 'Term').text == one


def test_a_deadlock_finding_needs_deadlock_checking():
    given = tlc_config.prepare(
        b'INIT Init\nCHECK_DEADLOCK FALSE\n', 'M.cfg', None, TLC215, 'finding d', 'deadlock'
    )
    assert (
        given.problem is not None
        and 'CHECK_DEADLOCK FALSE in the cfg turns deadlock checking off' in given.problem
    )
    given = tlc_config.prepare(b'INIT Init\n', 'M.cfg', False, TLC215, 'finding d', 'deadlock')
    assert given.problem is not None and '"deadlock": false on the entry' in given.problem


def _tlc(tmp_path: Path, cfg: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / 'Kinds.tla').write_bytes((FIXTURES / 'Kinds.tla').read_bytes())
    (tmp_path / 'k.cfg').write_text(cfg)
    return subprocess.run(
        (
            needs.java(),
            '-cp',
            str(needs.tla_jar()),
            'tlc2.TLC',
            '-deadlock',
            '-workers',
            '1',
            '-metadir',
            str(tmp_path / 'meta'),
            '-config',
            'k.cfg',
            'Kinds.tla',
        ),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.tlc
@pytest.mark.parametrize('line', ['CHECK_DEADLOCK FALSE', 'ALIAS Seen', 'POSTCONDITION Post', None])
def test_the_offline_tlc_lacks_exactly_the_listed_keywords(tmp_path, line):
    """TLC 2.15 stops at each keyword of tlc_config.LACKS; the same cfg without it runs."""
    # After NEXT's one name (after a list, TLC would read an unknown keyword as one more name).
    rest = 'VIEW Parity\nCONSTRAINT Small\nACTION_CONSTRAINT Step\n'
    run = _tlc(
        tmp_path, 'CONSTANT N = 3\nINIT Init\nNEXT Next\n' + (f'{line}\n' if line else '') + rest
    )
    if line is None:
        assert run.returncode == 0, run.stdout
    else:
        assert line.split()[0] in tlc_config.LACKS['TLC 2.15']
        assert run.returncode == 255 and 'It was expecting a keyword' in run.stdout


def test_a_trace_job_checks_deadlock_whatever_its_cfg_says(tmp_path):
    """A trace is rejected by the deadlock at the line nothing matches: CHECK_DEADLOCK TRUE is
    blanked out (TLC 2.15 lacks it), FALSE is refused by name."""
    from execlease_hook.core.errors import CannotRun
    from execlease_hook.traces import validation
    from execlease_hook.traces.module import Trace

    found = [Trace('t.ndjson', ({'action': 'Init'},))]

    (tmp_path / 'T.tla').write_text('---- MODULE T ----\n====\n')
    (tmp_path / 'T.cfg').write_text('INIT Init\nNEXT Next\nCHECK_DEADLOCK TRUE\n')
    base = validation.base_job(
        't', 'T.tla', 'T.cfg', Path('java'), Path('tla2tools.jar'), settings=from_environ()
    )
    job = validation.tlc_job(base, tmp_path, found, root=tmp_path)
    assert job.deadlock and b'CHECK_DEADLOCK' not in job.config_text
    (tmp_path / 'T.cfg').write_text('INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n')
    with pytest.raises(CannotRun, match='trace job t: T.cfg says CHECK_DEADLOCK FALSE'):
        validation.tlc_job(base, tmp_path, found, root=tmp_path)


def test_comments_are_blanked_and_lines_kept_strings_and_tokens_left_alone():
    source = b'A (* x (* nested *) y *) B \\* to the end\n"(* kept *)" C\n'
    blanked = tlc_config.without_comments(source)
    assert len(blanked) == len(source)
    assert blanked.split() == [b'A', b'B', b'"(*', b'kept', b'*)"', b'C']
    assert blanked.count(b'\n') == 2 and blanked.index(b'\n') == source.index(b'\n')


def test_a_crlf_comment_is_blanked_to_its_line_ends():
    source = b'A \\* to the end\r\n(* one\r\ntwo *) B\r\n'
    blanked = tlc_config.without_comments(source)
    assert blanked == b'A' + b' ' * 14 + b'\r\n' + b' ' * 6 + b'\r\n' + b' ' * 7 + b'B\r\n'
