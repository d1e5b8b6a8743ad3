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

``function`` adds a name to the check language (torch implementation required, SymPy / ball / 60-digit
meanings optional); ``conventions`` maps a registry convention key to ``(keyword, {registry value: keyword
value})``, so a claim's conventions fill that keyword of your function; ``condition`` computes the
condition number of the result from the same arguments (the default tolerance of a check scales with it).
Names are validated like the built-ins (no shadowing); a failure of your function is an ``error`` verdict
of the claims that use it, unless ``failures="as-raised"``: then a RuntimeError (a linear-algebra failure
on one instance, say) skips that instance, as the built-ins' do.

``precision`` ("float32", "bfloat16", "float16" or the torch dtype) declares the floating-point type your
function computes in internally, where its results come out in a wider one (a float32 cache cast to
float64): the engine judges its results at that precision, as it does a result whose dtype is float32. A
callable may carry the declaration itself (``@plugin.computes_in("float32")``, or an attribute
``pyverify_precision``), which ``function`` reads when ``precision`` is not given.

``figure``, ``guarantees`` and ``reference`` contribute to the report: a report-wide figure about some of
your functions, the claims a mechanism's guarantees rest on, a package of reference mechanisms whose
public functions the implementation view lists. A content package (``pyverify.contributions``) registers
itself through these same functions.
"""

from __future__ import annotations

from typing import Any, Callable

from collections.abc import Iterable

from .checks.precision import ATTRIBUTE as _PRECISION_ATTRIBUTE
from .checks.precision import PRECISIONS, PrecisionError, parse as _parse_precision
from .checks.plugins import (PluginError, register_figure, register_function, register_guarantees, register_reference,
                             register_role, register_sampler)
from .checks.roles import DECAY_ATTRIBUTE, Decay
from .checks.samplers import Constraint, Param, Sampler

__all__ = ["function", "computes_in", "PRECISIONS", "role", "Decay", "decays", "sampler", "figure", "guarantees", "reference", "PluginError",
           "Param", "Constraint", "Sampler"]


def function(name: str, torch_impl: Callable | None = None, *, doc: str, sympy: Callable | None = None,
             ball: Callable | None = None, precise: Callable | None = None, conventions: Any = (),
             condition: Callable | None = None, failures: str = "claim", context: bool = False,
             precision: Any = None, through: dict[str, str] | None = None) -> Any:
    """Register ``torch_impl`` as function ``name`` of the check language; without ``torch_impl``, a
    decorator. The implementation works on ONE instance (the engine batches with torch.func.vmap).
    ``through`` maps a keyword of the implementation to a function of the language it is defined through
    (``{"logits": "euclidean_logits"}``): the keyword receives that function as resolved, so code bound
    to it runs inside this one too, and a claim calling this one exercises its role."""
    options = dict(doc=doc, sympy=sympy, ball=ball, precise=precise, conventions=conventions, condition=condition,
                   failures=failures, context=context, precision=precision, through=through)
    if torch_impl is None:
        def decorate(fn: Callable) -> Callable:
            register_function(name, fn, **options)
            return fn
        return decorate
    register_function(name, torch_impl, **options)
    return torch_impl


def computes_in(precision: Any) -> Callable[[Callable], Callable]:
    """Decorator: ``fn`` computes internally in ``precision`` ("float32", "bfloat16", "float16", "float64"
    or the torch dtype), whatever the dtype of its results; ``function`` (and any registration that binds
    a callable) reads it from the callable's ``pyverify_precision`` attribute."""
    try:
        _parse_precision(precision)
    except PrecisionError as exc:
        raise PluginError(str(exc)) from None

    def declare(fn: Callable) -> Callable:
        setattr(fn, _PRECISION_ATTRIBUTE, precision)
        return fn
    return declare


def decays(decay: Decay) -> Callable[[Callable], Callable]:
    """Decorator: ``fn`` applies ``decay`` (a ``Decay``, e.g. ``Decay.xpos(512)``) on top of its role's
    mechanism by design; a binding of it divides the decay out before any claim judges the mechanism."""
    if not isinstance(decay, Decay):
        raise PluginError(f"decays: a pyverify Decay (Decay.xpos(scale) or Decay(zeta, scale)), not {decay!r}")

    def declare(fn: Callable) -> Callable:
        setattr(fn, DECAY_ATTRIBUTE, decay)
        return fn
    return declare


def role(name: str, *, function: str, doc: str, conventions: Any = None, layouts: Iterable[str] = (),
         decay: Callable | None = None) -> None:
    """Declare a role: the mechanism that vocabulary function ``function`` is the reference of, which a
    user binds to their own callable (``pyverify check --bind NAME=module:attr``). ``doc`` says how the
    bound callable is called and what it returns (the reference's calling convention). ``conventions``
    maps each registry convention key the mechanism has (and ``"layout"``) to ``(value the reference
    computes under, convert)``, where ``convert(fn, have, want)`` turns a callable computing under ``have``
    into one computing under ``want``; ``layouts`` names the accepted layouts, the reference's first.
    ``decay(fn, decay, conventions)``, where the mechanism can carry a per-plane decay (``Decay``, such as
    xpos's), returns ``fn`` with a declared decay divided out, in the code's own ``conventions``."""
    register_role(name, function, doc, conventions, layouts, decay)


def figure(name: str, draw: Callable, *, about: Iterable[str] = (), caption: str = "") -> None:
    """A report-wide figure: ``draw(out)`` writes it below the report folder ``out`` (plots/NAME.svg, say)
    and returns its path relative to ``out``. It is drawn when the registry has a claim whose check runs
    one of ``about`` (qualified names of reference functions), and shown with those claims, ``caption``
    under it."""
    register_figure(name, draw, about, caption)


def guarantees(mechanism: str, rests_on: dict[str, str], *, meanings: dict[str, str] | None = None) -> None:
    """What a user of ``mechanism`` (a qualified class or function name) relies on, each guarantee resting
    on one registry claim; the report's implementation view and ``pyverify certify`` show its verdict."""
    register_guarantees(mechanism, rests_on, meanings)


def reference(package: str) -> None:
    """A package of reference mechanisms: the report lists each of its public functions and classes with
    the claims whose checks exercise it (a function none exercises is listed as unverified)."""
    register_reference(package)


def sampler(cls: type) -> type:
    """Register a Sampler subclass (class attributes ``name``, ``params``; methods ``shapes``, ``value``)."""
    return register_sampler(cls)
