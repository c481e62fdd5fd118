"""The actions of a model's next-state relation, by the names TLC gives them in traces
(docs/architecture.md, the model side; spec/action_map.py checks them against the covered code).

Next splits through disjunctions, `\\E`, parentheses and the operators whose bodies are such
splits; an operator applied there whose body is anything else (a conjunction) is an action. A
disjunct written inline (a conjunction, LET, IF) contributes the operators it applies that change
a variable (a prime or UNCHANGED in their body, or in an operator they apply).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tree_sitter import Node

from execlease_hook.spec import cfg, syntax
from execlease_hook.spec.index import SpecIndex, Unit

_QUANTIFIED = frozenset({'bounded_quantification', 'unbounded_quantification'})


@dataclass(frozen=True)
class Action:
    name: str
    unit: Unit
    via: tuple[str, ...]  # the operators through which Next reaches it, Next first


def next_relations(index: SpecIndex, cfgs: Iterable[bytes]) -> list[str]:
    """The names of the next-state relations the cfgs name (NEXT, or through SPECIFICATION)."""
    names: list[str] = []
    for text in cfgs:
        for keyword, rest in cfg.sections(text):
            if rest and keyword.text == 'NEXT':
                names.append(rest[0].text)
            elif rest and keyword.text == 'SPECIFICATION':
                names.extend(_boxed_actions(index, rest[0].text))
    if not names and 'Next' in index.definitions():
        names.append('Next')
    return list(dict.fromkeys(names))


def _boxed_actions(index: SpecIndex, spec_name: str) -> list[str]:
    """`Spec == Init /\\ [][Next]_vars` -> ['Next'] (the operator inside each `[][...]_v`), also
    through the operators the specification applies (`FairSpec == Spec /\\ WF_vars(A)`)."""
    definitions = index.definitions()
    found: list[str] = []
    todo, seen = [spec_name], set()
    while todo:
        name = todo.pop()
        unit = definitions.get(name)
        if unit is None or name in seen:
            continue
        seen.add(name)
        for node in syntax.walk(unit.node):
            if node.type == 'step_expr_or_stutter':
                inner = next(iter(node.named_children), None)
                boxed = _applied_name(inner) if inner is not None else None
                if boxed is not None:
                    found.append(boxed)
            elif node.type == 'identifier_ref' and node.text is not None:
                todo.append(node.text.decode('utf-8'))
            elif node.type == 'prefixed_op':
                qualified = _applied_name(node)
                if qualified is not None:
                    todo.append(qualified)
    return found


def next_actions(index: SpecIndex, relations: Iterable[str]) -> dict[str, Action]:
    """The actions, by the name TLC gives them: `etcd!BecomeLeader` (through an instance) is the
    action BecomeLeader, as a counterexample names it. Inside an operator reached through an
    instance, a name is first that instance's (`etcd!Tick` for `Tick` in etcd's Next)."""
    definitions = index.definitions()
    out: dict[str, Action] = {}
    known: dict[str, bool] = {}

    def changes(name: str) -> bool:
        """Whether an operator's body (or one it applies) primes a variable or says UNCHANGED."""
        if name not in known:
            known[name] = False  # a cycle does not change state by itself
            unit = definitions.get(name)
            known[name] = unit is not None and any(
                node.type in ('prime', 'unchanged')
                or (applied := _applied_name(node)) not in (None, name)
                and applied in definitions
                and changes(applied)
                for node in syntax.walk(unit.node)
            )
        return known[name]

    def resolve(name: str | None, scope: str) -> str | None:
        if name is None:
            return None
        if scope and f'{scope}{name}' in definitions:
            return f'{scope}{name}'
        return name if name in definitions else None

    def add(key: str, via: tuple[str, ...]) -> None:
        name = key.rsplit('!', 1)[-1]
        if name not in out:
            out[name] = Action(name, definitions[key], via)

    def walk(node: Node, via: tuple[str, ...], scope: str) -> None:
        parts = _parts(node)
        if parts is not None:
            for part in parts:
                walk(part, via, scope)
            return
        key = resolve(_applied_name(node), scope)
        if key is not None:
            if key in via:
                return  # a recursive operator: already being split
            body = definitions[key].node.child_by_field_name('definition')
            if body is not None and _splits(body):
                walk(body, (*via, key), _scope(key))
            else:
                add(key, via)
            return
        # Inline: the operators it applies that change a variable.
        for inner in syntax.walk(node):
            applied = resolve(_applied_name(inner), scope)
            if applied is not None and applied not in via and changes(applied):
                add(applied, via)

    for relation in relations:
        unit = definitions.get(relation)
        body = unit.node.child_by_field_name('definition') if unit is not None else None
        if body is not None:
            walk(body, (relation,), _scope(relation))
    return out


def _scope(key: str) -> str:
    """`etcd!` for `etcd!Next`: the instance its body's names are first looked up in."""
    return key[: key.rindex('!') + 1] if '!' in key else ''


def _parts(node: Node) -> list[Node] | None:
    """What the next-state relation splits into at `node`: the disjuncts of a disjunction, the
    body of an `\\E`, what parentheses hold; None where it does not split."""
    if node.type in ('disj_list', 'disj_item', 'parentheses'):
        return [
            c for c in node.named_children if c.type != 'bullet_disj' and 'comment' not in c.type
        ]
    if node.type in _QUANTIFIED:
        fields, tag, wanted = ['expression'], 'quantifier', 'exists'
    elif node.type == 'bound_infix_op':
        fields, tag, wanted = ['lhs', 'rhs'], 'symbol', 'lor'
    else:
        return None
    found = node.child_by_field_name(tag)
    if found is None or found.type != wanted:
        return None
    return [c for c in map(node.child_by_field_name, fields) if c is not None]


def _splits(body: Node) -> bool:
    parts = _parts(body)
    if parts and body.type == 'parentheses':
        return _splits(parts[0])
    return parts is not None and body.type not in ('disj_item', 'parentheses')


def _applied_name(node: Node) -> str | None:
    """`A` for `A` and `A(x, y)`, `I!A` for `I!A` and `I!A(x)` (an operator of the module the
    instance `I == INSTANCE M` names); None for anything else."""
    if node.type == 'prefixed_op':
        prefix, op = node.child_by_field_name('prefix'), node.child_by_field_name('op')
        applied = _applied_name(op) if op is not None else None
        if prefix is None or applied is None or prefix.text is None:
            return None
        return prefix.text.decode('utf-8').replace(' ', '') + applied
    if node.type == 'identifier_ref' and node.text is not None:
        return node.text.decode('utf-8')
    if node.type == 'bound_op':
        name = node.child_by_field_name('name')
        if name is not None and name.text is not None:
            return name.text.decode('utf-8')
    return None
