"""Go: functions `F`; methods `Type.Method` (value, pointer and generic receivers)."""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, base_type, named_function, text

NAME_TYPES = frozenset({'identifier', 'field_identifier'})
_FUNCTIONS = frozenset({'function_declaration', 'method_declaration'})


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTIONS)
    if function is None:
        return None
    if function.type == 'function_declaration':
        return Definition(text(name), (function,))
    receiver = function.child_by_field_name('receiver')
    parameters = receiver.named_children[:1] if receiver is not None else []
    owner = base_type(parameters[0].child_by_field_name('type')) if parameters else ''
    return Definition(f'{owner}.{text(name)}', (function,))
