"""The public API for checking claims against your own code (docs/your-own-code.md).

In a plugin module (loaded only by ``--plugin``, ``[tool.pyverify] plugins`` or a ``pyverify.plugins``
entry point — never by a registry)::

    from pyverify import plugin

    plugin.function("my_logits", my_logits, doc="logits of my layer",
                    conventions={"displacement": ("sign", {"rj-ri": 1, "ri-rj": -1})})

    @plugin.sampler
    class MyHypothesis(plugin.Sampler):
        name = "my_hypothesis"
        params = (plugin.Param("d", "int", positional=True, lo=1),)
        ...

``function`` adds a name to the check language (torch implementation required, SymPy / ball meanings
optional); ``conventions`` maps a registry convention key to ``(keyword, {registry value: keyword
value})``, so a claim's conventions fill that keyword of your function. Names are validated like the
built-ins (no shadowing); a failure of your function is an ``error`` verdict of the claims that use it.
"""

from __future__ import annotations

from typing import Any, Callable

from .checks.plugins import PluginError, register_function, register_sampler
from .checks.samplers import Constraint, Param, Sampler

__all__ = ["function", "sampler", "PluginError", "Param", "Constraint", "Sampler"]


def function(name: str, torch_impl: Callable | None = None, *, doc: str, sympy: Callable | None = None,
             ball: Callable | None = None, precise: Callable | None = None, conventions: Any = ()) -> Any:
    """Register ``torch_impl`` as function ``name`` of the check language; without ``torch_impl``, a
    decorator. The implementation works on ONE instance (the engine batches with torch.func.vmap)."""
    if torch_impl is None:
        def decorate(fn: Callable) -> Callable:
            register_function(name, fn, doc=doc, sympy=sympy, ball=ball, precise=precise, conventions=conventions)
            return fn
        return decorate
    register_function(name, torch_impl, doc=doc, sympy=sympy, ball=ball, precise=precise,
                      conventions=conventions)
    return torch_impl


def sampler(cls: type) -> type:
    """Register a Sampler subclass (class attributes ``name``, ``params``; methods ``shapes``, ``value``)."""
    return register_sampler(cls)
