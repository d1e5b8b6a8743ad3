import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Lemma S3 (softmax stability)
-/

namespace Pyverify.Rgat

noncomputable section

/-- **S3** (rgat, Lemma S3): for all `ℓ, ℓ' ∈ ℝ^T`,
`‖σ(ℓ) - σ(ℓ')‖_∞ ≤ ½ ‖ℓ - ℓ'‖_∞`. The norm of `Fin T → ℝ` in Mathlib is the sup norm, i.e.
`‖·‖_∞`. -/
def SoftmaxStabilityStatement : Prop :=
  ∀ (T : ℕ) (l l' : Fin T → ℝ), ‖softmax l - softmax l'‖ ≤ (1 / 2 : ℝ) * ‖l - l'‖

/-- **S3**: softmax is `½`-Lipschitz for the sup norm. Not proved here (mean value theorem on
the segment from `ℓ'` to `ℓ`, with Jacobian rows of absolute sum `2σ_i(1 - σ_i) ≤ ½`). -/
theorem softmax_stability : SoftmaxStabilityStatement := by
  sorry

end

end Pyverify.Rgat
