import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Lemma S1 (sign invariance of the distance)
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-- **S1** (rgat, Lemma S1): for `q, k ∈ S³`,
`d_geo(q, k) = d_geo(-q, k) = d_geo(q, -k)`. -/
def SignInvarianceStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k →
    dgeo q k = dgeo (-q) k ∧ dgeo (-q) k = dgeo q (-k)

/-- **S1**: `d_geo` is invariant under the sign of either argument (the unit-norm hypotheses
are not needed: `|⟨-q, k⟩| = |⟨q, -k⟩| = |⟨q, k⟩|`). -/
theorem dgeo_sign_invariant : SignInvarianceStatement := by
  intro q k _ _
  have h1 : dgeo (-q) k = dgeo q k := by
    unfold dgeo simil
    rw [qdot_neg_left, abs_neg]
  have h2 : dgeo q (-k) = dgeo q k := by
    unfold dgeo simil
    rw [qdot_neg_right, abs_neg]
  exact ⟨h1.symm, h1.trans h2.symm⟩

end

end Pyverify.Rgat
