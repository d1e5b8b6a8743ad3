"""Plain-language evidence for a verdict, built from the engine's numbers (witness and details).

The sentences say what was measured against what the claim says — both sides of a relation at a
counterexample, a measured order against the claimed one, the smallest constant along a sweep — so a
reader never has to interpret an internal "violation score".
"""

from __future__ import annotations

import ast
import math
from typing import Any

from ..checks import dsl
from ..engine.relations.order import orders_text
from ..registry.models import Check

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


def side_names(check: Check | None) -> list[tuple[str, str]]:
    """(left, right) expression text of each binary relation of the assertion, in the engine's order."""
    if check is None or not check.assert_:
        return []
    try:
        return [(_name(r.lhs, "the left side"), _name(r.rhs, "the right side"))
                for r in dsl.relations(ast.parse(check.assert_.strip(), mode="eval").body, check.assert_)]
    except (SyntaxError, dsl.DSLError):
        return []


def _name(node: ast.expr, fallback: str) -> str:
    text = ast.unparse(node)
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


def _counterexample(witness: dict, check: Check | None) -> list[str]:
    out = []
    shown = list((witness.get("values") or {}).items())[:MAX_VALUES]
    at = "; ".join(f"{k} = {value(v)}" for k, v in shown)
    where = _dims(witness.get("dims"))
    out.append("Counterexample" + (f" with {where}" if where else "") + (f" at {at}." if at else "."))
    names = side_names(check)
    relations = witness.get("relations") or []
    failing = [i for i, r in enumerate(relations) if _violated(r)]
    if not failing and relations:
        failing = [max(range(len(relations)), key=lambda i: _measure(relations[i]))]
    for i in failing:
        r = relations[i]
        left, right = names[i] if i < len(names) else ("the left side", "the right side")
        gap = _difference(r.get("lhs"), r.get("rhs"), r.get("op", "=="))
        both = f"{left} = {value(r.get('lhs'))} and {right} = {value(r.get('rhs'))}"
        if r.get("op") == "==":
            bars = "|" if len(_flatten(r.get("lhs"))) <= 1 and len(_flatten(r.get("rhs"))) <= 1 else "‖"
            out.append(f"{bars}{left} − {right}{bars} = {num(gap)} where the claim says 0 "
                       f"(relative error {num(_measure(r))}); at the witness {both}.")
        elif r.get("op") == "!=":
            out.append(f"{left} equals {right} at the witness, where the claim says they differ ({both}).")
        else:
            out.append(f"{left} exceeds what the claim allows ({r.get('op')} {right}) by {num(gap)}; at the witness {both}.")
    cert = witness.get("certificate") or {}
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


def _growth(witness: dict) -> list[str]:
    steps = witness.get("growth") or []
    if not steps:
        return []
    first, last = steps[0], steps[-1]
    return [f"The smallest constant making `{witness.get('relation')}` hold grows with size: "
            f"{num(first['ratio'])} at {_dims(first['dims'])} to {num(last['ratio'])} at {_dims(last['dims'])} "
            f"(log–log slope {num(witness.get('slope'))}), so no fixed constant works."]


def _order(order: dict, witness: dict | None) -> list[str]:
    """In the words of the engine's message (the CLI prints it): the order the verdict rests on first."""
    if order.get("measured") is None and "measured_median" not in order:
        return [f"The quantity is below rounding at every parameter value: faster than the claimed order {num(order.get('claimed'))}."]
    param, towards_zero = order.get("param"), order.get("direction") == "zero"
    worst = order["measured_worst"]
    measured = orders_text(worst, order["measured_median"], order["measured_min"], order["measured_max"])
    out = [f"Measured order {measured} as {param} → {'0' if towards_zero else '∞'}, "
           f"where the claim says {num(order['claimed'])}; leading constant at most {num(order['leading_constant'])}."]
    series = (witness or {}).get("series") or order.get("series")
    if series:
        pairs = ", ".join(f"{num(e)} at {param} = {num(v)}" for v, e in zip(order.get("values", []), series[0]))
        out.append(f"Error of {'the worst instance' if 'series_slopes' in order else 'one instance'}: {pairs}.")
    return out


def _expectation(witness: dict) -> list[str]:
    mean, claimed, se = witness.get("mean"), witness.get("claimed"), witness.get("standard_error")
    z = None
    try:
        z = max(abs(m - c) / s for m, c, s in zip(_flatten(mean), _flatten(claimed), _flatten(se)) if s > 0)
    except ValueError:
        pass
    at = "; ".join(f"{k} = {value(v)}" for k, v in list((witness.get("values") or {}).items())[:MAX_VALUES])
    return [f"Monte-Carlo mean {value(mean)} where the claim says {value(claimed)}"
            + (f": {num(z)} standard errors apart" if z is not None else "")
            + f" over {witness.get('samples')} fresh samples" + (f", at {at}." if at else ".")]


def _holds(row: dict, check: Check | None) -> list[str]:
    details = row.get("details") or {}
    out = []
    sym = details.get("symbolic")
    if isinstance(sym, dict) and sym.get("proved"):
        out.append(f"SymPy reduced the identity to zero ({sym.get('scope') or 'all sizes'}).")
    if "order" in details:
        out += _order(details["order"], None)
    for c in details.get("constants") or []:
        sweep = ", ".join(f"{num(s['ratio'])} at {_dims(s['dims'])}" for s in c.get("by_size", []))
        out.append(f"Smallest constant {num(c['constant'])} for `{c['relation']}` along the sweep"
                   + (f" ({sweep})" if sweep else "") + f"; log–log growth slope {num(c.get('growth_slope'))}, bounded.")
    if "max_z" in details:
        out.append(f"The Monte-Carlo estimate agrees with the claimed value within {num(details['max_z'])} "
                   f"standard errors over {row.get('instances')} samples.")
    if "example" in details:
        out.append(f"A witness satisfying every relation was constructed at {_dims(details['example'].get('dims'))}.")
    if out:
        return out
    ops = [r.op for r in _relations(check)]
    if "==" in ops and row.get("worst") is not None:
        out.append(f"Worst relative error {num(row['worst'])} over {row.get('instances')} instances "
                   "(random, degenerate and adversarial).")
    tight = details.get("tightness")
    if tight is not None:
        out.append(f"No violation over {row.get('instances')} instances; the largest left/right ratio found is "
                   f"{num(tight)} (1 would mean the bound is attained).")
    return out


def _relations(check: Check | None) -> list[dsl.Relation]:
    if check is None or not check.assert_:
        return []
    try:
        return dsl.relations(ast.parse(check.assert_.strip(), mode="eval").body, check.assert_)
    except (SyntaxError, dsl.DSLError):
        return []


def evidence_sentences(row: dict, check: Check | None = None) -> list[str]:
    """Sentences for one result (``Result.as_dict()``), given the claim's check for the side names."""
    verdict, witness = row.get("verdict"), row.get("witness") or {}
    if verdict == "refuted":
        if "relations" in witness:
            return _counterexample(witness, check)
        if "growth" in witness:
            return _growth(witness)
        if "slopes" in witness:
            return _order((row.get("details") or {}).get("order", {}), witness)
        if "mean" in witness:
            return _expectation(witness)
        if "entailed" in witness:
            return [f"It entails that {e['id']} is true as printed; {e['id']} is refuted"
                    + (f" ({e['severity']})" if e.get("severity") else "") + f": {e['message']}" for e in witness["entailed"]]
    if verdict in ("holds", "symbolic", "proved"):
        return _holds(row, check)
    if verdict == "not-checkable":
        return [f"Not checkable: {row.get('message')}"]
    if verdict == "vacuous":
        return [f"Vacuous: {row.get('message')}"]
    if verdict == "error":
        return [f"The check could not run: {row.get('message')}"]
    return [row["message"]] if row.get("message") else []
