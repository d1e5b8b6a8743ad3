import Pyverify.Espr.Tier0

/-!
# ESPR derivation, Tier 1: structured generators (T1.1 – T1.6)

Registry: `claims/espr-derivation/tier1.yaml`. T1.1 (the model hypothesis) is the predicate
`IsCommutingSkewFamily`; T1.3 and T1.6 are the definitions `genSum` and `rstr`.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-- **T1.1** (espr-derivation, Tier 1): the model hypothesis is satisfiable by a non-trivial
family: the single generator `L_1 = J` (on `ℝ²`) is skew-symmetric and commutes with itself.
(The hypothesis itself is the predicate `IsCommutingSkewFamily`; this statement records that it
is not vacuous.) -/
def GeneratorHypothesisSatisfiableStatement : Prop :=
  IsCommutingSkewFamily (fun _ : Fin 1 => Jmat) ∧ (fun _ : Fin 1 => Jmat) ≠ fun _ => 0

/-- **T1.1**: the commuting skew family hypothesis has the non-trivial instance `L_1 = J`. -/
theorem generator_hypothesis_satisfiable : GeneratorHypothesisSatisfiableStatement := by
  refine ⟨⟨fun _ => Jmat_skew, fun _ _ => ?_⟩, ?_⟩
  · unfold bracket
    exact sub_self _
  · intro h
    have h1 := congrFun (congrFun (congrFun h 0) 1) 0
    simp [Jmat] at h1

/-- **T1.2** (espr-derivation, Tier 1): `L_kᵀ = -L_k ⇒ L_k` normal (`L_kᵀ L_k = L_k L_kᵀ`). -/
def SkewNormalStatement : Prop :=
  ∀ (n : ℕ) (L : Matrix (Fin n) (Fin n) ℝ), IsSkew L → Lᵀ * L = L * Lᵀ

/-- **T1.2**: skew-symmetric generators are normal. -/
theorem skew_generator_normal : SkewNormalStatement := by
  intro n L hL
  have hL' : Lᵀ = -L := hL
  rw [hL', Matrix.neg_mul, Matrix.mul_neg]

/-- **T1.4** (espr-derivation, Tier 1): `A(r)ᵀ = -A(r)` (under the hypothesis T1.1 on the
`L_k`; only their skewness is used). -/
def GenSumSkewStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∀ r : Fin dc → ℝ, (genSum L r)ᵀ = -genSum L r

/-- **T1.4**: `A(r)` is skew-symmetric. -/
theorem genSum_transpose_eq_neg : GenSumSkewStatement :=
  fun _ _ _ hL r => genSum_skew hL.1 r

/-- **T1.5** (espr-derivation, Tier 1): `[A(r), A(s)] = 0` (under T1.1). -/
def GenSumCommStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∀ r s : Fin dc → ℝ, bracket (genSum L r) (genSum L s) = 0

/-- **T1.5**: the generator sums commute. -/
theorem genSum_bracket_eq_zero : GenSumCommStatement :=
  fun _ _ _ hL r s => (bracket_eq_zero_iff_commute _ _).mpr (genSum_commute hL.2 r s)

end

end Pyverify.Espr
