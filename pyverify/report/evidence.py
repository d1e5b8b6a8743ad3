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
from ..checks.precision import name
from ..engine.evidence import (HELD_AT_WITNESS, ConstantEstimate, ConstantGrowth, ConstantUnboundedAlongRay,
                               Counterexample, DefectDiagnosis, EntailedRefutation, ExistenceWitness, Inconclusive,
                               MonteCarloAgreement, MonteCarloRefutation, OrderEstimate, OrderRefutation, Precision,
                               SymbolicProof, Tightness, TightnessSpread, Undecided)
from ..engine.relations.order import orders_text
from ..engine.result import Result, round_floats

MAX_SIDE_NAME = 48  # a longer side expression is called "the left/right side"
MAX_ELEMENTS = 16  # a larger array is summarised by its shape and largest entry


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


def _nested(x: Any, digits: int = 3) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_nested(v, digits) for v in x) + "]"
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return "0" if x == 0 else f"{x:.{digits}g}"
    return value(x)


def distinguishing_digits(lhs: Any, rhs: Any) -> int:
    """The significant digits (3 to 17) it takes for the element where two sides differ most to print
    differently: both sides of a relation violated by 1e-8 print identically to 3 digits."""
    pairs = _pairs(lhs, rhs)
    if not pairs:
        return 3
    x, y = max(pairs, key=lambda p: abs(p[0] - p[1]))
    for digits in range(3, 18):
        if f"{x:.{digits}g}" != f"{y:.{digits}g}":
            return digits
    return 3  # equal: nothing to show


def _pairs(lhs: Any, rhs: Any) -> list[tuple[float, float]]:
    a, b = _flatten(lhs), _flatten(rhs)
    if len(a) != len(b) and 1 in (len(a), len(b)):  # a scalar against an array broadcasts
        a, b = (a * len(b), b) if len(a) == 1 else (a, b * len(a))
    return [(x, y) for x, y in zip(a, b) if isinstance(x, (int, float)) and isinstance(y, (int, float))
            and math.isfinite(x) and math.isfinite(y)]


def sides_text(lhs: Any, rhs: Any) -> tuple[str, str]:
    """Both sides of a relation, each to as many digits as it takes to show where they differ; a large
    array summarised, with the element where they differ most."""
    digits = distinguishing_digits(lhs, rhs)
    small = [not isinstance(v, list) or len(_flatten(v)) <= MAX_ELEMENTS for v in (lhs, rhs)]
    if all(small):
        return _shown(lhs, digits), _shown(rhs, digits)
    pairs = _pairs(lhs, rhs)
    if not pairs:
        return value(lhs), value(rhs)
    i = max(range(len(pairs)), key=lambda k: abs(pairs[k][0] - pairs[k][1]))
    x, y = pairs[i]
    return (f"{value(lhs)}, element {i} (flat) {x:.{digits}g}", f"{value(rhs)}, element {i} (flat) {y:.{digits}g}")


def _shown(x: Any, digits: int) -> str:
    if isinstance(x, list):
        return _nested(x, digits) if len(_flatten(x)) <= MAX_ELEMENTS else value(x)
    if isinstance(x, float):
        return "0" if x == 0 else f"{x:.{digits}g}"
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


def _counterexample(w: Counterexample, check: CompiledClaim | None, diagnosis: DefectDiagnosis | None = None) -> list[str]:
    out = _instance("Counterexample", w.values, w.dims, w.relations, check)
    if diagnosis is not None:
        out += [f"Where: {message[0].upper()}{message[1:]}" for _, message in diagnosis.located]
        out += [f"Diagnosis: {d.message[0].upper()}{d.message[1:]}" for d in diagnosis.diagnoses]
    return out + _certificate(w)


def _undecided(result: Result, w: Undecided, check: CompiledClaim | None) -> list[str]:
    return ([f"Inconclusive: {result.message.removeprefix('inconclusive: ')}"]
            + _instance("The undecided instance", w.values, w.dims, w.relations, check))


def _instance(title: str, values: dict, dims: dict, relations_at: tuple, check: CompiledClaim | None) -> list[str]:
    out = []
    # every hypothesis (a large array is summarised by value()): none is dropped
    at = "; ".join(f"{k} = {value(v)}" for k, v in round_floats(values).items())
    where = _dims(round_floats(dims))
    out.append(title + (f" with {where}" if where else "") + (f" at {at}." if at else "."))
    names = side_names(check)
    relations = [round_floats(r.as_dict()) for r in relations_at]
    raw = [r.as_dict() for r in relations_at]  # the sides unrounded: shown to the digits where they differ
    failing = [i for i, r in enumerate(relations) if _violated(r)]
    if not failing and relations:
        failing = [max(range(len(relations)), key=lambda i: _measure(relations[i]))]
    for i in failing:
        r = relations[i]
        left, right = names[i] if i < len(names) else ("the left side", "the right side")
        gap = _difference(r["lhs"], r["rhs"], r["op"])
        lhs_text, rhs_text = sides_text(raw[i]["lhs"], raw[i]["rhs"])
        both = f"{left} = {lhs_text} and {right} = {rhs_text}"
        if r["op"] == "==":
            bars = "|" if len(_flatten(r["lhs"])) <= 1 and len(_flatten(r["rhs"])) <= 1 else "‖"
            out.append(f"{bars}{left} − {right}{bars} = {num(gap)} where the claim says 0 "
                       f"(relative error {num(_measure(r))}); at the witness {both}.")
        elif r["op"] == "!=":
            out.append(f"{left} equals {right} at the witness, where the claim says they differ ({both}).")
        else:
            out.append(f"{left} exceeds what the claim allows ({r['op']} {right}) by {num(gap)}; at the witness {both}.")
    return out


def _certificate(w: Counterexample) -> list[str]:
    out = []
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
    if isinstance(w, ConstantUnboundedAlongRay):
        (f0, r0), (f1, r1) = round_floats(w.growth[0]), round_floats(w.growth[-1])
        shrunk = " and ".join(f"`{n}`" for n in w.inputs)
        where = f" at {_dims(w.dims)}" if w.dims else ""
        return [f"No constant makes `{w.relation}` hold{where}: shrinking {shrunk} of one instance toward 0 "
                f"(every multiple an instance of the hypotheses) raises the left/right ratio from {num(r0)} to "
                f"{num(r1)} at {num(f1['factor'])} times the original size, as a power (log–log slope "
                f"{num(round_floats(w.slope))}); {w.recheck}."]
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
    at = "; ".join(f"{k} = {value(v)}" for k, v in round_floats(w.values or {}).items())
    return [f"Monte-Carlo mean {value(mean)} where the claim says {value(claimed)}"
            + (f": {num(z)} standard errors apart" if z is not None else "")
            + f" over {w.samples} fresh samples" + (f", at {at}." if at else ".")]


def _entailed(w: EntailedRefutation) -> list[str]:
    return [f"It entails that {p.id} is true as printed; {p.id} is refuted"
            + (f" ({p.severity})" if p.severity else "") + f": {p.message}" for p in w.refuted]


def _holds(result: Result, check: CompiledClaim | None) -> list[str]:
    precision = result.find(Precision)
    held = _held(result, check) + _spread(result.find(TightnessSpread))
    if precision is None:
        return held
    label = name(precision.dtype)
    return [f"Holds at {label} precision (tolerance up to {num(round_floats(precision.tolerance))}): the code under "
            f"test computes in {label}, so the claim is decided only to that precision."] + held


def _spread(spread: TightnessSpread | None) -> list[str]:
    if spread is None:
        return []
    low, high = spread.extent
    other = sorted({v for v in spread.verdicts if v not in ("holds", "symbolic")})
    return [f"Over seeds {', '.join(map(str, spread.seeds))} the tightness found ranges from "
            f"{num(round_floats(low))} to {num(round_floats(high))}"
            + (f" (other verdicts there: {', '.join(other)})" if other else "") + "."]


def _held(result: Result, check: CompiledClaim | None) -> list[str]:
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
        for kind, say in ((Counterexample, lambda w: _counterexample(w, check, result.find(DefectDiagnosis))),
                          (ConstantGrowth, _growth),
                          (OrderRefutation, lambda w: _order(result.find(OrderEstimate), w)),
                          (MonteCarloRefutation, _expectation), (EntailedRefutation, _entailed)):
            found = result.find(kind)
            if found is not None:
                return say(found)
    if verdict in ("holds", "symbolic", "proved"):
        return _holds(result, check)
    if verdict == "inconclusive":
        found = result.find(Undecided)
        return _undecided(result, found, check) if found is not None else [result.message]
    if verdict == "not-checkable":
        if result.find(Inconclusive) is not None:  # a test too weak to decide, not a claim no test could decide
            return [f"Inconclusive: {result.message.removeprefix('inconclusive: ')}"]
        return [f"Not checkable: {result.message}"]
    if verdict == "vacuous":
        return [f"Vacuous: {result.message}"]
    if verdict == "error":
        return [f"The check could not run: {result.message}"]
    return [result.message] if result.message else []
