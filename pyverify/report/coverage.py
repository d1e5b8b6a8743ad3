"""Which implementation functions each claim's check exercises, and which claims back each public
function and class of the reference packages (registered by content packages and plugins with
``pyverify.plugin.reference``).

Derived, never listed by hand: the vocabulary names a check calls are those its compiled expressions
call (given/where/assume/assert/baseline: ``CompiledClaim.calls``), each vocabulary record's torch
implementation is resolved to the reference objects its code refers to (following lambdas and module
attributes), and so on through those objects' own code, so a check calling a function registered as a
package's ``rstr`` exercises ``rstr`` and what ``rstr`` itself calls. The code is read, never run.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from functools import lru_cache
from typing import Any, Iterable

from .. import contributions
from ..checks.claim import CompiledClaim
from ..checks.vocabulary import VOCABULARY


def _packages() -> tuple[str, ...]:
    return tuple(contributions.REFERENCE_PACKAGES)


def _in_packages(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in _packages())


def _qualname(obj: Any) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def _is_public_reference_object(obj: Any) -> bool:
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return False
    return _in_packages(getattr(obj, "__module__", "") or "") and not obj.__name__.startswith("_")


def _code_objects(code: types.CodeType) -> Iterable[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # lambdas, comprehensions, nested functions
            yield from _code_objects(const)


def _functions_of(obj: Any) -> list[types.FunctionType]:
    """The Python functions whose code makes up ``obj`` (a function, or a class's methods and properties)."""
    if inspect.isfunction(obj):
        return [obj]
    if inspect.isclass(obj):
        out = []
        for member in vars(obj).values():
            member = getattr(member, "__func__", member)  # staticmethod / classmethod
            if isinstance(member, property):
                out += [f for f in (member.fget, member.fset) if f is not None]
            elif inspect.isfunction(member):
                out.append(member)
        return out
    return []


def referenced_objects(obj: Any) -> set[Any]:
    """The public reference functions and classes that ``obj``'s code refers to directly.

    Like ``inspect.getclosurevars``, but through nested code (a lambda wrapping a call) and through
    module attributes (``rotations.rstr``: the global ``rotations`` is a module, ``rstr`` an attribute).
    """
    found: set[Any] = set()
    for fn in _functions_of(obj):
        names = {n for code in _code_objects(fn.__code__) for n in code.co_names}
        scope = dict(fn.__globals__)
        if fn.__closure__:
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    scope[var] = cell.cell_contents
                except ValueError:  # an empty cell: the variable was never bound
                    continue
        values = [scope[n] for n in names if n in scope]
        modules = [v for v in values if inspect.ismodule(v) and _in_packages(v.__name__)]
        for value in values + [getattr(m, n, None) for m in modules for n in names]:
            if _is_public_reference_object(value) and value is not obj:
                found.add(value)
    return found


@lru_cache(maxsize=None)
def vocabulary_exercises(name: str) -> tuple[str, ...]:
    """The reference objects a vocabulary function runs: its implementation if it is one, and
    everything reachable from it through the code of the reference packages."""
    impl = VOCABULARY[name].torch
    start = {impl} if _is_public_reference_object(impl) else set()
    start |= referenced_objects(impl)
    seen: set[Any] = set()
    todo = list(start)
    while todo:
        obj = todo.pop()
        if obj in seen:
            continue
        seen.add(obj)
        todo.extend(referenced_objects(obj) - seen)
    return tuple(sorted(_qualname(o) for o in seen))


def exercises(compiled: CompiledClaim | None) -> list[str]:
    """The reference functions and classes a compiled check runs (qualified names, sorted)."""
    if compiled is None:
        return []
    out: set[str] = set()
    for name in compiled.calls:
        out.update(vocabulary_exercises(name))
    return sorted(out)


def public_reference_objects() -> dict[str, Any]:
    """Every public function and class of the reference packages: their modules' ``__all__``, or their
    public names where a module has none; keyed by the qualified name of the defining module."""
    modules = []
    for name in _packages():
        package = importlib.import_module(name)
        modules += [package] + [importlib.import_module(info.name)
                                for info in pkgutil.walk_packages(getattr(package, "__path__", []), name + ".")]
    out: dict[str, Any] = {}
    for module in modules:
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n, v in vars(module).items()
                     if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__]
        for n in names:
            obj = getattr(module, n, None)
            if _is_public_reference_object(obj):
                out.setdefault(_qualname(obj), obj)
    return dict(sorted(out.items()))


def implementation(claim_rows: dict[str, dict]) -> list[dict]:
    """For each public reference object, the claims whose checks exercise it, with verdict and standing.

    A class (a layer) is backed through the functions its methods call. The guarantees registered for
    a mechanism (``pyverify.plugin.guarantees``: the behaviours its users rely on, each resting on one
    claim) are listed with the backing claim's verdict, standing and refuted premises (with whether
    their corrections hold)."""
    by_object: dict[str, list[str]] = {}
    for cid, row in claim_rows.items():
        for name in row.get("exercises", []):
            by_object.setdefault(name, []).append(cid)
    entries = []
    for qualname, obj in public_reference_objects().items():
        direct = by_object.get(qualname, [])
        calls = sorted(_qualname(o) for o in referenced_objects(obj)) if inspect.isclass(obj) else []
        through = sorted({c for name in calls for c in by_object.get(name, [])} - set(direct), key=list(claim_rows).index)
        backing = direct + through
        entry = {
            "name": qualname,
            "module": obj.__module__,
            "kind": "class" if inspect.isclass(obj) else "function",
            "status": "exercised" if backing else "unverified",
            "claims": [_claim_ref(claim_rows[c], via=None if c in direct else "calls") for c in backing],
        }
        if calls:
            entry["calls"] = calls
        guarantees = contributions.GUARANTEES.get(qualname)
        if guarantees is not None:
            entry["guarantees"] = [{**_guarantee(name, cid, claim_rows), "meaning": guarantees.meanings.get(name, name)}
                                   for name, cid in guarantees.rests_on.items()]
        entries.append(entry)
    return entries


def _claim_ref(row: dict, via: str | None) -> dict:
    ref = {"id": row["id"], "verdict": row.get("verdict"), "standing": row.get("standing")}
    if via:
        ref["via"] = via
    return ref


def _guarantee(name: str, cid: str, claim_rows: dict[str, dict]) -> dict:
    row = claim_rows.get(cid)
    if row is None:
        return {"guarantee": name, "claim": cid, "verdict": None, "standing": None, "false_premises": []}
    return {"guarantee": name, "claim": cid, "verdict": row.get("verdict"), "standing": row.get("standing"),
            "false_premises": row.get("false_premises", [])}
