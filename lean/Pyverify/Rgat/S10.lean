import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Theorem S10 (geodesic alignment gradient) and Corollary S11 (structural
learning as geodesic alignment)
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-- **S10**: the alignment energy `f(q) = ½ d_geo(q, r)²` of a target `r`, with the sign-invariant
`d_geo = 2 arccos |⟨q, r⟩|` of **RGAT.Def-dgeo**. -/
noncomputable def alignEnergy (r q : ℍ[ℝ]) : ℝ := dgeo q r ^ 2 / 2

/-- **S10**: the alignment energy as S10 prints it, `f(q) = ½ d_geo(q, r)²` with
`d_geo(q, r) = 2 arccos ⟨q, r⟩` (no absolute value). -/
noncomputable def alignEnergyPrinted (r q : ℍ[ℝ]) : ℝ := (2 * Real.arccos (qdot q r)) ^ 2 / 2

/-- **S10** (rgat, Theorem S10): for `q, r ∈ S³`, `q ≠ -r`, the sign of `r` chosen with
`⟨q, r⟩ > 0`, and `f(q) = ½ d_geo(q, r)²`: the Riemannian gradient is
`∇_R f(q) = -4 Log_q(r)`, and the unique minimisers are `q = ±r`.
The gradient identity is stated with `f` exactly as printed (`d_geo = 2 arccos ⟨q, r⟩`): `-4 Log_q(r)`
is tangent at `q`, and for every unit tangent vector `w` at `q` the derivative of `f` along the
great circle `t ↦ cos t q + sin t w` (velocity `w` at `t = 0`) is `⟨-4 Log_q(r), w⟩` (this
characterises the Riemannian gradient of the round metric). The minimiser clause is stated over all
of `S³` with the sign-invariant `d_geo` of RGAT.Def-dgeo, which the printed `±r` presupposes (with
the unsigned formula, `-r` would not be a minimiser): `f ≥ 0` and `f(p) = 0 ↔ p = r ∨ p = -r`. -/
def GeodesicAlignmentGradientStatement : Prop :=
  ∀ q r : ℍ[ℝ], IsUnitQ q → IsUnitQ r → q ≠ -r → 0 < qdot q r →
    qdot q (logAt q r) = 0 ∧
    (∀ w : ℍ[ℝ], IsUnitQ w → qdot q w = 0 →
      HasDerivAt (fun t : ℝ => alignEnergyPrinted r (Real.cos t • q + Real.sin t • w))
        (qdot ((-4 : ℝ) • logAt q r) w) 0) ∧
    (∀ p : ℍ[ℝ], IsUnitQ p → 0 ≤ alignEnergy r p ∧ (alignEnergy r p = 0 ↔ p = r ∨ p = -r))

/-- **S10**. Not proved here (derivative of `arccos` composed with the great circle). -/
theorem geodesic_alignment_gradient : GeodesicAlignmentGradientStatement := by
  sorry

/-- **S11**: the candidate solution of the negative gradient flow `q̇ = -∇_R f(q) = 4 Log_q(r)`
from `q`: the point at parameter `1 - e^{-4t}` of the minimal geodesic
`s ↦ exp_q(s Log_q(r))` from `q` to `r`. -/
noncomputable def alignFlow (q r : ℍ[ℝ]) (t : ℝ) : ℍ[ℝ] :=
  expAt q ((1 - Real.exp (-4 * t)) • logAt q r)

/-- **S11** (rgat, Corollary S11): for `f(q) = ½ d_geo(q, r)²` the negative gradient flow
`q̇ = -∇_R f(q)` moves `q` along the geodesic toward `r` (up to sign), so learning aligns rotors
by minimising the geodesic distance. Stated (sign of `r` chosen with `⟨q, r⟩ > 0`, as in S10):
the curve `alignFlow q r`, which runs along the minimal geodesic from `q` to `r`, starts at `q`,
solves `q̇(t) = 4 Log_{q(t)}(r)` (`= -∇_R f(q(t))` by S10) for `t ≥ 0`, and its distance to `r`
decays as `d_geo(q(t), r) = e^{-4t} d_geo(q, r) → 0`. -/
def StructuralAlignmentStatement : Prop :=
  ∀ q r : ℍ[ℝ], IsUnitQ q → IsUnitQ r → 0 < qdot q r →
    alignFlow q r 0 = q ∧
    (∀ t : ℝ, 0 ≤ t → HasDerivAt (alignFlow q r) ((4 : ℝ) • logAt (alignFlow q r t) r) t) ∧
    (∀ t : ℝ, 0 ≤ t → dgeo (alignFlow q r t) r = Real.exp (-4 * t) * dgeo q r)

/-- **S11**. Not proved here. -/
theorem structural_alignment : StructuralAlignmentStatement := by
  sorry

end

end Pyverify.Rgat
