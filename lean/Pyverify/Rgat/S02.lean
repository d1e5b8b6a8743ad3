import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Lemma S2 (small-angle distance expansion)
-/

namespace Pyverify.Rgat

noncomputable section

/-- **S2** (rgat, Lemma S2): for `u, v ∈ ℝ³` with `‖u‖, ‖v‖ ≤ ε`, `0 < ε ≤ ε₀`
(`ε₀` below the injectivity radius `π`), `q = exp(u)`, `k = exp(v)`, there is `C_geo > 0`
(depending only on the metric and the bracket constants, so chosen before the data) with
`|d_geo(q, k)² - 4‖u - v‖²| ≤ C_geo ε⁴`. -/
def SmallAngleExpansionStatement : Prop :=
  ∃ Cgeo : ℝ, 0 < Cgeo ∧ ∀ (ε ε0 : ℝ) (u v : Vec3),
    0 < ε → ε ≤ ε0 → ε0 < Real.pi → norm3 u ≤ ε → norm3 v ≤ ε →
      |dgeo (qexp u) (qexp v) ^ 2 - 4 * norm3 (u - v) ^ 2| ≤ Cgeo * ε ^ 4

/-- **S2**: the small-angle expansion of the geodesic distance. Not proved here (needs the
second-order expansion of `arccos` and of the quaternion product). -/
theorem dgeo_small_angle_expansion : SmallAngleExpansionStatement := by
  sorry

end

end Pyverify.Rgat
