"""C and C++ (locate/cfamily.py): definitions, never prototypes, by the dotted name a reader
would write; on small samples and on real code (tests/fixtures/real/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.locate.source import language_for
from execlease_hook.manifest.model import CoveredEntry, Region

FIXTURES = Path(__file__).parents[1] / 'fixtures'


def read(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def entry(path: str, qualname: str) -> CoveredEntry:
    return CoveredEntry(id='lease-entry', path=path, action='Renew', function=qualname)


@pytest.mark.parametrize(
    ('path', 'language'),
    (
        ('a.c', 'c'),
        ('a.h', 'cpp'),
        ('a.cc', 'cpp'),
        ('a.cpp', 'cpp'),
        ('a.cxx', 'cpp'),
        ('a.hpp', 'cpp'),
        ('a.hh', 'cpp'),
        ('a.zig', 'zig'),
        ('a.C', 'c'),
    ),
)
def test_suffixes(path, language):
    assert language_for(path) == language


# (file, qualified name, first line, last line, the definition's opening)
LOCATED = (
    (
        'locate/sample.c',
        'acquire',
        5,
        8,
        'int acquire(int id)\n{',
    ),  # the definition, not line 3's prototype
    ('locate/sample.c', 'renew', 10, 10, 'static int renew('),
    ('locate/sample.c', 'make', 12, 12, 'struct lease *make(void)'),
    ('locate/sample.c', 'pick', 14, 14, 'int (*pick(int which))(int)'),
    ('locate/sample.c', 'legacy', 17, 17, 'void legacy(void)'),
    ('locate/sample.cpp', 'lease.Lease.Lease', 7, 7, 'Lease() : gen_(0) {}'),
    ('locate/sample.cpp', 'lease.Lease.~Lease', 8, 8, '~Lease() {}'),
    ('locate/sample.cpp', 'lease.Lease.renew', 9, 9, 'int renew(int by)'),
    ('locate/sample.cpp', 'lease.Lease.get', 11, 12, 'template <typename T>\n  T get('),
    ('locate/sample.cpp', 'lease.Lease.operator==', 13, 13, 'bool operator==('),
    ('locate/sample.cpp', 'lease.Lease.on_expire', 14, 14, 'std::function<int(int)> on_expire = ['),
    ('locate/sample.cpp', 'lease.Lease.release', 20, 20, 'void Lease::release()'),  # out of line
    ('locate/sample.cpp', 'lease.Box.take', 22, 23, 'template <typename T>\nT* Box<T>::take()'),
    ('locate/sample.cpp', 'lease.handler', 25, 25, 'auto handler = [](int x)'),
    ('locate/sample.cpp', 'lease.hidden', 31, 31, 'int hidden()'),  # anonymous namespace
    ('locate/sample.cpp', 'lease.Lease.audit', 36, 36, 'void lease::Lease::audit()'),
    # Real code: redis's event loop (C) and LogCabin's Raft (C++), both unmodified.
    ('real/ae.c', 'aeCreateEventLoop', 67, 99, 'aeEventLoop *aeCreateEventLoop(int setsize) {'),
    ('real/ae.c', 'usUntilEarliestTimer', 264, 277, 'static int64_t usUntilEarliestTimer('),
    ('real/ae.c', 'processTimeEvents', 280, 344, 'static int processTimeEvents('),
    (
        'real/ae.c',
        'aeProcessEvents',
        361,
        469,
        'int aeProcessEvents(aeEventLoop *eventLoop, int flags)\n{',
    ),
    ('real/ae.c', 'aeMain', 493, 500, 'void aeMain(aeEventLoop *eventLoop) {'),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensusInternal.Peer.callRPC',
        265,
        310,
        'Peer::CallStatus\nPeer::callRPC(',
    ),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensus.handleAppendEntries',
        1262,
        1427,
        'void\nRaftConsensus::handleAppendEntries(',
    ),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensus.handleRequestVote',
        1525,
        1582,
        'void\nRaftConsensus::handleRequestVote(',
    ),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensus.becomeLeader',
        2492,
        2528,
        'void\nRaftConsensus::becomeLeader()',
    ),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'start_line', 'end_line', 'opening'),
    LOCATED,
    ids=[f'{r[0]}:{r[1]}' for r in LOCATED],
)
def test_locate_function(name, qualname, start_line, end_line, opening):
    source = read(name)
    located = locate(entry(name, qualname), source)
    assert (located.start_line, located.end_line) == (start_line, end_line)
    assert located.text.startswith(opening)
    assert source.decode().splitlines()[end_line - 1].rstrip().endswith(('}', '};'))


def test_a_prototype_alone_is_not_a_definition():
    source = b'int f(int a);\nstatic int g(void);\nclass K { void m(); };\n'
    assert find_functions('a.c', source, 'f') == []
    assert find_functions('a.cpp', source, 'K.m') == []
    with pytest.raises(CannotRun, match="'f' not found"):
        locate(entry('a.c', 'f'), source)


AMBIGUOUS = (
    ('locate/sample.cpp', 'lease.grant', 'is overloaded (lines 27, 28)'),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensus.Entry.Entry',
        'is overloaded (lines 909-916, 918-925)',
    ),
)


@pytest.mark.parametrize(('name', 'qualname', 'problem'), AMBIGUOUS, ids=[r[1] for r in AMBIGUOUS])
def test_overloads_are_ambiguous_and_a_region_is_the_remedy(name, qualname, problem):
    with pytest.raises(CannotRun) as excinfo:
        locate(entry(name, qualname), read(name))
    message = str(excinfo.value)
    assert problem in message
    assert 'cover it with a `region`' in message


def test_an_overload_is_covered_with_a_region():
    region = CoveredEntry(
        id='r', path='a.cpp', action='A', region=Region('int grant(double', 'return 0; }')
    )
    located = locate(region, read('locate/sample.cpp'))
    assert (located.start_line, located.end_line) == (28, 28)


def test_a_name_missing_its_namespaces_is_suggested_in_full():
    with pytest.raises(CannotRun) as excinfo:
        locate(entry('real/RaftConsensus.cc', 'Peer.callRPC'), read('real/RaftConsensus.cc'))
    assert 'did you mean: LogCabin.Server.RaftConsensusInternal.Peer.callRPC (line 265)' in str(
        excinfo.value
    )


INLINE = (
    ('a.c', b'int\nf(a, b)\nint a, b;\n{\n    return a + b;\n}\n', 'f', 1, 6),  # K&R style
    ('a.cpp', b'namespace a::b {\nint f() { return 1; }\n}\n', 'a.b.f', 2, 2),
    ('a.cpp', b'template <>\nvoid f<int>() {}\n', 'f', 1, 2),
    ('a.cpp', b'int &K::at(int i) noexcept { return v[i]; }\n', 'K.at', 1, 1),
    ('a.cpp', b'extern "C" int cfun(void) { return 0; }\n', 'cfun', 1, 1),
    (
        'a.cpp',
        b'void outer() {\n  struct Local {\n    void m() {}\n  };\n}\n',
        'outer.Local.m',
        3,
        3,
    ),
    ('a.cpp', b'struct S {\n  S() = default;\n};\n', 'S.S', 2, 2),
    (
        'a.h',
        b'namespace n {\ntemplate <class T>\nclass Box {\n public:\n  T take() { return t; }\n};\n}\n',
        'n.Box.take',
        5,
        5,
    ),
)


@pytest.mark.parametrize(
    ('path', 'source', 'qualname', 'start_line', 'end_line'), INLINE, ids=[r[2] for r in INLINE]
)
def test_more_shapes(path, source, qualname, start_line, end_line):
    (located,) = find_functions(path, source, qualname)
    assert (located.start_line, located.end_line) == (start_line, end_line)


# (file, qualified name, old text (once in the definition), new text): one token each
EDITS = (
    (
        'real/ae.c',
        'processTimeEvents',
        'te->id == AE_DELETED_EVENT_ID',
        'te->id != AE_DELETED_EVENT_ID',
    ),
    ('real/ae.c', 'aeProcessEvents', 'AE_CALL_AFTER_SLEEP', 'AE_CALL_BEFORE_SLEEP'),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensus.handleRequestVote',
        'request.last_log_term() > lastLogTerm',
        'request.last_log_term() >= lastLogTerm',
    ),
    (
        'real/RaftConsensus.cc',
        'LogCabin.Server.RaftConsensus.becomeLeader',
        'state = State::LEADER',
        'state = State::FOLLOWER',
    ),
)


@pytest.mark.parametrize(('name', 'qualname', 'old', 'new'), EDITS, ids=[r[2] for r in EDITS])
def test_a_one_token_edit_of_real_code_moves_only_its_fingerprint(name, qualname, old, new):
    source = read(name)
    located = locate(entry(name, qualname), source)
    assert located.text.count(old) == 1
    edited = source.replace(located.text.encode(), located.text.replace(old, new).encode())
    assert fingerprint(locate(entry(name, qualname), edited)) != fingerprint(located)
    others = [r[1] for r in LOCATED if r[0] == name and r[1] != qualname]
    for other in others:
        assert fingerprint(locate(entry(name, other), edited)) == fingerprint(
            locate(entry(name, other), source)
        )


def test_each_grammar_loads_only_with_a_file_of_its_language():
    import subprocess
    import sys

    code = '\n'.join(
        (
            'import sys',
            'from execlease_hook.locate.entry import find_functions',
            "loaded = lambda: sorted({m.split('.')[0] for m in sys.modules if m.startswith('tree_sitter_')})",
            "find_functions('a.c', b'int f(void) { return 0; }', 'f')",
            'print(loaded())',
            "find_functions('a.cc', b'int f() { return 0; }', 'f')",
            "find_functions('a.zig', b'fn f() void {}', 'f')",
            'print(loaded())',
        )
    )
    out = subprocess.run(
        (sys.executable, '-c', code), capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == [
        "['tree_sitter_c']",
        "['tree_sitter_c', 'tree_sitter_cpp', 'tree_sitter_zig']",
    ]
