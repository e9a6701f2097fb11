# SPDX-License-Identifier: GPL-3.0-or-later
"""Model code that switches grad mode inside forward (``torch.no_grad()`` around a
vision or audio tower: Phi-4-multimodal).

Traced with grad enabled, torch.export keeps each switch as a
``wrap_with_set_grad_enabled`` call in the program. torch 2.14 saves such a program, but
``torch.export.load`` refuses it (``SpecViolationError: Node.meta
wrap_with_set_grad_enabled is missing val field``): the program dimscope verified would
not load where users load it. Traced under ``torch.no_grad()`` the switch changes
nothing and is not kept; the program computes the same values (an exported program is
for inference: nothing in it records gradients either way). The exporter traces again
that way when the first trace kept a switch, and says so; later traces of the same model
run that way at once."""

import weakref

SWITCH = "wrap_with_set_grad_enabled"

# Models a trace found switching grad mode: their later traces (the next phase, the next
# round of the fix loop) run under torch.no_grad() at once instead of twice.
_SWITCHING = weakref.WeakSet()


def switches(model):
    """Whether an earlier trace of this model (in this worker) kept a grad-mode switch."""
    try:
        return model in _SWITCHING
    except TypeError:  # not weakly referenceable
        return False


def remember(model):
    try:
        _SWITCHING.add(model)
    except TypeError:
        pass


def switch_in(program):
    """The first node of the program's graph that switches grad mode, or None."""
    for node in program.graph_module.graph.nodes:
        if node.op == "call_function" and SWITCH in (getattr(node.target, "__name__", "") or str(node.target)):
            return node
    return None


def reason(node):
    """The log line: where the model switches grad mode, and what the exporter does."""
    where = _model_line(node.meta.get("stack_trace") or "")
    return ("the model switches grad mode inside forward%s; a program traced with grad enabled keeps the switch "
            "(%s), which torch.export.load refuses in a new interpreter: traced again under torch.no_grad(), where "
            "the switch changes nothing and is not kept (the program computes the same values)"
            % (" (%s)" % where if where else "", SWITCH))


def _model_line(stack_trace):
    """`FILE:LINE` of the innermost frame of a node's stack trace, in the model's code."""
    import re

    places = re.findall(r'File "([^"]+)", line (\d+)', stack_trace)
    return "%s:%s" % places[-1] if places else ""
