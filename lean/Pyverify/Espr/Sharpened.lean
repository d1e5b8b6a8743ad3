import Pyverify.Espr.Defs

/-!
# ESPR derivation: sharpened statements (T5.3.half)

Registry: `claims/espr-derivation/sharpened.yaml`. Not printed in the document; a sharpening of
T5.3 found by the checks.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-- **T5.3.half** (espr-derivation, sharpening of T5.3):
`|R_STR(r)ᵀ R_STR(s) - R_STR(s - r)| ≤ ½ |[A(r), A(s)]| ≤ ½ ε |r|₁ |s|₁` for skew-symmetric
(not necessarily commuting) generators, where `ε` bounds every pairwise commutator norm
`|[L_k, L_l]|` (the registry's `max_comm`, i.e. `ε = max_{k,l} |[L_k, L_l]|`; any upper bound is
allowed here, which gives the same statement). -/
def RstrDefectHalfStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ ε : ℝ, (∀ k l, opNorm (bracket (L k) (L l)) ≤ ε) →
    ∀ r s : Fin dc → ℝ,
      opNorm ((rstr L r)ᵀ * rstr L s - rstr L (disp r s)) ≤
          (1 / 2) * opNorm (bracket (genSum L r) (genSum L s)) ∧
        (1 / 2) * opNorm (bracket (genSum L r) (genSum L s)) ≤
          (1 / 2) * ε * vnorm1 r * vnorm1 s

/-- **T5.3.half**: the relative defect of `R_STR` is at most half the commutator (analytic
estimate of `exp(-X) exp(Y) - exp(Y - X)`; not proved here). -/
theorem rstr_defect_half : RstrDefectHalfStatement := by
  sorry

end

end Pyverify.Espr
