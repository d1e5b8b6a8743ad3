"""Plain-language evidence for a verdict, built from the engine's typed evidence.

The sentences say what was measured against what the claim says — both sides of a relation at a
counterexample, a measured order against the claimed one, the smallest constant along a sweep — so a
reader never has to interpret an internal "violation score". Numbers are shown as report.json holds
them (rounded to 10 significant digits, then to the few a sentence shows).
"""

from __future__ import annotations

import math
from typing import Any

from ..checks.claim import CompiledClaim
from ..engine.evidence import (ConstantEstimate, ConstantGrowth, Counterexample, EntailedRefutation, ExistenceWitness,
                               Inconclusive, MonteCarloAgreement, MonteCarloRefutation, OrderEstimate, OrderRefutation,
                               SymbolicProof, Tightness)
from ..engine.relations.order import orders_text
from ..engine.result import Result, round_floats

MAX_SIDE_NAME = 48  # a longer side expression is called "the left/right side"
MAX_ELEMENTS = 16  # a larger array is summarised by its shape and largest entry
MAX_VALUES = 4  # hypothesis values shown for a counterexample
# A witness lists every relation of the check; those whose relative error is below this held at the
# witness (rounding only) and are not the reason for the refutation.
HELD_AT_WITNESS = 1e-9


def num(x: Any) -> str:
    if isinstance(x, str):  # non-finite floats are stored as strings ("inf", "nan")
        return x
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, int) or not isinstance(x, float):
        return str(x)
    if x == 0:
        return "0"
    return f"{x:.4g}"


def _flatten(x: Any) -> list[float]:
    if isinstance(x, list):
        return [v for item in x for v in _flatten(item)]
    if isinstance(x, dict) and set(x) == {"re", "im"}:
        return [math.hypot(x["re"], x["im"])]
    return [x] if isinstance(x, (int, float)) else []


def _shape(x: Any) -> list[int]:
    return [len(x)] + _shape(x[0]) if isinstance(x, list) and x else []


def value(x: Any) -> str:
    """A number, a small array written out with 3 significant digits, or a large one summarised."""
    if isinstance(x, dict) and set(x) == {"re", "im"}:
        return f"{num(x['re'])}{'+' if x['im'] >= 0 else '-'}{num(abs(x['im']))}i"
    if isinstance(x, dict):  # a composite hypothesis: its parts (gen.L, gen.U, ...)
        return "{" + ", ".join(f"{k}: {value(v)}" for k, v in x.items()) + "}"
    if not isinstance(x, list):
        return num(x)
    flat = _flatten(x)
    if len(flat) > MAX_ELEMENTS:
        largest = max((abs(v) for v in flat), default=0.0)
        return f"a {'×'.join(map(str, _shape(x)))} array (largest entry {num(largest)})"
    return _nested(x)


def _nested(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_nested(v) for v in x) + "]"
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return "0" if x == 0 else f"{x:.3g}"
    return value(x)


def _dims(dims: dict | None) -> str:
    return ", ".join(f"{k} = {num(v)}" for k, v in (dims or {}).items())


def side_names(compiled: CompiledClaim | None) -> list[tuple[str, str]]:
    """(left, right) expression text of each binary relation of the assertion, in the engine's order."""
    if compiled is None:
        return []
    return [(_name(left, "the left side"), _name(right, "the right side")) for left, right in compiled.side_texts()]


def _name(text: str, fallback: str) -> str:
    return text if len(text) <= MAX_SIDE_NAME else fallback


def _difference(lhs: Any, rhs: Any, op: str) -> float | None:
    """The violation at the witness: the size of lhs - rhs for ==, how far lhs passes rhs for an inequality."""
    a, b = _flatten(lhs), _flatten(rhs)
    if not a or not b:
        return None
    if len(a) != len(b):  # a scalar against an array broadcasts
        a, b = (a * len(b), b) if len(a) == 1 else (a, b * len(a)) if len(b) == 1 else (a, b)
    pairs = list(zip(a, b))
    if op in ("==", "!="):  # the Euclidean (Frobenius) size of the difference
        return math.sqrt(sum((x - y) ** 2 for x, y in pairs))
    if op in ("<=", "<"):
        return max(x - y for x, y in pairs)
    return max(y - x for x, y in pairs)


def _counterexample(w: Counterexample, check: CompiledClaim | None) -> list[str]:
    out = []
    shown = list(round_floats(w.values).items())[:MAX_VALUES]
    at = "; ".join(f"{k} = {value(v)}" for k, v in shown)
    where = _dims(round_floats(w.dims))
    out.append("Counterexample" + (f" with {where}" if where else "") + (f" at {at}." if at else "."))
    names = side_names(check)
    relations = [round_floats(r.as_dict()) for r in w.relations]
    failing = [i for i, r in enumerate(relations) if _violated(r)]
    if not failing and relations:
        failing = [max(range(len(relations)), key=lambda i: _measure(relations[i]))]
    for i in failing:
        r = relations[i]
        left, right = names[i] if i < len(names) else ("the left side", "the right side")
        gap = _difference(r["lhs"], r["rhs"], r["op"])
        both = f"{left} = {value(r['lhs'])} and {right} = {value(r['rhs'])}"
        if r["op"] == "==":
            bars = "|" if len(_flatten(r["lhs"])) <= 1 and len(_flatten(r["rhs"])) <= 1 else "‖"
            out.append(f"{bars}{left} − {right}{bars} = {num(gap)} where the claim says 0 "
                       f"(relative error {num(_measure(r))}); at the witness {both}.")
        elif r["op"] == "!=":
            out.append(f"{left} equals {right} at the witness, where the claim says they differ ({both}).")
        else:
            out.append(f"{left} exceeds what the claim allows ({r['op']} {right}) by {num(gap)}; at the witness {both}.")
    cert = round_floats(w.certificate)
    status = str(cert.get("status", ""))
    if status == "certified":
        bits = cert.get("precision_bits")
        out.append(f"Interval arithmetic{f' at {bits} bits' if bits else ''} certifies the violation"
                   + (f" (margin at least {num(cert['margin_lower'])})." if "margin_lower" in cert else "."))
    elif status:
        precise = cert.get("precise") or {}
        if precise.get("status") == "confirmed":
            out.append(f"Re-checked in float64 and confirmed in {precise.get('digits', 60)}-digit arithmetic "
                       f"(violation score {num(precise['score'])} there); no interval certificate ({status}).")
        else:
            out.append(f"Re-checked in float64; no interval certificate ({status})"
                       + (f"; 60-digit re-evaluation: {precise['status']}." if precise.get("status") else "."))
    return out


def _measure(r: dict) -> float:
    m = r.get("measure")
    return float(m) if isinstance(m, (int, float)) else math.inf


def _violated(r: dict) -> bool:
    op = r.get("op", "==")
    if op == "==":
        return _measure(r) > HELD_AT_WITNESS
    gap = _difference(r.get("lhs"), r.get("rhs"), op)
    if op == "!=":
        return gap is not None and gap == 0
    return gap is not None and (gap > 0 or (op in ("<", ">") and gap == 0))


def _growth(w: ConstantGrowth) -> list[str]:
    if not w.growth:
        return []
    (d0, r0), (d1, r1) = round_floats(w.growth[0]), round_floats(w.growth[-1])
    return [f"The smallest constant making `{w.relation}` hold grows with size: "
            f"{num(r0)} at {_dims(d0)} to {num(r1)} at {_dims(d1)} "
            f"(log–log slope {num(round_floats(w.slope))}), so no fixed constant works."]


def _order(order: OrderEstimate | None, witness: OrderRefutation | None) -> list[str]:
    """In the words of the engine's message (the CLI prints it): the order the verdict rests on first."""
    if order is None:
        return []
    if order.measured_median is None:
        return [f"The quantity is below rounding at every parameter value: faster than the claimed order "
                f"{num(round_floats(order.claimed))}."]
    o = round_floats(order.details()["order"])
    param, towards_zero = o["param"], o["direction"] == "zero"
    measured = orders_text(o["measured_worst"], o["measured_median"], o["measured_min"], o["measured_max"])
    out = [f"Measured order {measured} as {param} → {'0' if towards_zero else '∞'}, "
           f"where the claim says {num(o['claimed'])}; leading constant at most {num(o['leading_constant'])}."]
    series = round_floats(witness.series) if witness is not None and witness.series else o.get("series")
    if series:
        pairs = ", ".join(f"{num(e)} at {param} = {num(v)}" for v, e in zip(o["values"], series[0]))
        out.append(f"Error of {'the worst instance' if o.get('series_slopes') else 'one instance'}: {pairs}.")
    return out


def _expectation(w: MonteCarloRefutation) -> list[str]:
    mean, claimed, se = round_floats(w.mean), round_floats(w.claimed), round_floats(w.standard_error)
    z = None
    try:
        z = max(abs(m - c) / s for m, c, s in zip(_flatten(mean), _flatten(claimed), _flatten(se)) if s > 0)
    except ValueError:
        pass
    at = "; ".join(f"{k} = {value(v)}" for k, v in list(round_floats(w.values or {}).items())[:MAX_VALUES])
    return [f"Monte-Carlo mean {value(mean)} where the claim says {value(claimed)}"
            + (f": {num(z)} standard errors apart" if z is not None else "")
            + f" over {w.samples} fresh samples" + (f", at {at}." if at else ".")]


def _entailed(w: EntailedRefutation) -> list[str]:
    return [f"It entails that {p.id} is true as printed; {p.id} is refuted"
            + (f" ({p.severity})" if p.severity else "") + f": {p.message}" for p in w.refuted]


def _holds(result: Result, check: CompiledClaim | None) -> list[str]:
    out = []
    sym = result.find(SymbolicProof)
    if sym is not None and sym.proved:
        out.append(f"SymPy reduced the identity to zero ({sym.scope or 'all sizes'}).")
    out += _order(result.find(OrderEstimate), None)
    for c in (found.constants if (found := result.find(ConstantEstimate)) else ()):
        entry = round_floats(c.as_dict())
        sweep = ", ".join(f"{num(s['ratio'])} at {_dims(s['dims'])}" for s in entry["by_size"])
        out.append(f"Smallest constant {num(entry['constant'])} for `{c.relation}` along the sweep"
                   + (f" ({sweep})" if sweep else "") + f"; log–log growth slope {num(entry.get('growth_slope'))}, bounded.")
    agreement = result.find(MonteCarloAgreement)
    if agreement is not None:
        out.append(f"The Monte-Carlo estimate agrees with the claimed value within {num(round_floats(agreement.max_z))} "
                   f"standard errors over {result.instances} samples.")
    example = result.find(ExistenceWitness)
    if example is not None and not example.trivial:
        out.append(f"A witness satisfying every relation was constructed at {_dims(round_floats(example.dims))}.")
    if out:
        return out
    ops = [r.op for r in (check.relations if check is not None else ())]
    worst = round_floats(result.worst)
    if "==" in ops and worst is not None:
        out.append(f"Worst relative error {num(worst)} over {result.instances} instances "
                   "(random, degenerate and adversarial).")
    tight = result.find(Tightness)
    if tight is not None and tight.value is not None:
        out.append(f"No violation over {result.instances} instances; the largest left/right ratio found is "
                   f"{num(round_floats(tight.value))} (1 would mean the bound is attained).")
    return out


def evidence_sentences(result: Result, check: CompiledClaim | None = None) -> list[str]:
    """Sentences for one result, given the claim's compiled check for the side names."""
    verdict = result.verdict.value
    if verdict == "refuted":
        for kind, say in ((Counterexample, lambda w: _counterexample(w, check)), (ConstantGrowth, _growth),
                          (OrderRefutation, lambda w: _order(result.find(OrderEstimate), w)),
                          (MonteCarloRefutation, _expectation), (EntailedRefutation, _entailed)):
            found = result.find(kind)
            if found is not None:
                return say(found)
    if verdict in ("holds", "symbolic", "proved"):
        return _holds(result, check)
    if verdict == "not-checkable":
        if result.find(Inconclusive) is not None:  # a test too weak to decide, not a claim no test could decide
            return [f"Inconclusive: {result.message.removeprefix('inconclusive: ')}"]
        return [f"Not checkable: {result.message}"]
    if verdict == "vacuous":
        return [f"Vacuous: {result.message}"]
    if verdict == "error":
        return [f"The check could not run: {result.message}"]
    return [result.message] if result.message else []
