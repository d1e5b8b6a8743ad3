import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Lemma S7 (exact truncation identity) and Corollary S8 (truncation bound)

Statements are per query row `i`: `p : Fin n → ℝ` is the row `P_i·`, `S : Finset (Fin n)` is
`S_i`. The row is stochastic (`P_ij ≥ 0`, `∑_j P_ij = 1`, S5), which the identity needs.
-/

namespace Pyverify.Rgat

noncomputable section

/-- Algebraic core of S7/S8: `y - ỹ = ∑_{j ∉ S} P_j v_j - (p⁻¹ - 1) ∑_{j ∈ S} P_j v_j`. -/
theorem rowOut_sub_truncOut {E : Type*} [AddCommGroup E] [Module ℝ E] {n : ℕ}
    (p : Fin n → ℝ) (S : Finset (Fin n)) (v : Fin n → E) :
    rowOut p v - truncOut p S v
      = ∑ j ∈ Sᶜ, p j • v j - ((keptMass p S)⁻¹ - 1) • ∑ j ∈ S, p j • v j := by
  rw [rowOut_split p S v, truncOut_eq, sub_smul, one_smul]
  abel

/-- The retained and dropped masses of a stochastic row add up to one. -/
theorem keptMass_add_compl {n : ℕ} (p : Fin n → ℝ) (S : Finset (Fin n)) (hsum : ∑ j, p j = 1) :
    keptMass p S + ∑ j ∈ Sᶜ, p j = 1 := by
  unfold keptMass
  rw [Finset.sum_add_sum_compl S p]
  exact hsum

/-- The dropped mass is the mass outside `S`. -/
theorem droppedMass_eq {n : ℕ} (p : Fin n → ℝ) (S : Finset (Fin n)) (hsum : ∑ j, p j = 1) :
    droppedMass p S = ∑ j ∈ Sᶜ, p j := by
  unfold droppedMass
  have h := keptMass_add_compl p S hsum
  linarith

/-- **S7** (rgat, Lemma S7): with `p_i = ∑_{j∈S_i} P_ij`, `δ_i = 1 - p_i`, for `p_i > 0`
`P̃_ij = P_ij / p_i`, `μ_{S_i} = ∑_{j∈S_i} P̃_ij v_j` (`= ỹ_i`), and for `δ_i > 0`
`μ_{S_i^c} = δ_i⁻¹ ∑_{j∉S_i} P_ij v_j`:
`y_i - ỹ_i = δ_i (μ_{S_i^c} - μ_{S_i})` — exactly as printed: no hypothesis on the row besides
`p_i > 0` and `δ_i > 0` (the identity holds for any weights, since `δ_i = 1 - p_i` by definition).
The convention `y_i - ỹ_i = 0` when `δ_i = 0` is stated as a fact for stochastic rows
(`P_ij ≥ 0`, `∑_j P_ij = 1`, which the convention presupposes): the second conjunct. -/
def TruncationIdentityStatement : Prop :=
  ∀ (E : Type) [AddCommGroup E] [Module ℝ E] (n : ℕ) (p : Fin n → ℝ) (S : Finset (Fin n))
    (v : Fin n → E),
    0 < keptMass p S →
    (0 < droppedMass p S →
        rowOut p v - truncOut p S v = droppedMass p S • (meanOut p S v - truncOut p S v)) ∧
    ((∀ j, 0 ≤ p j) → ∑ j, p j = 1 → droppedMass p S = 0 → rowOut p v - truncOut p S v = 0)

/-- **S7**: the exact truncation identity. -/
theorem truncation_identity : TruncationIdentityStatement := by
  intro E _ _ n p S v hkept
  refine ⟨fun hδ => ?_, fun hp hsum hδ => ?_⟩
  · have hcoef : droppedMass p S * (keptMass p S)⁻¹ = (keptMass p S)⁻¹ - 1 := by
      unfold droppedMass
      rw [sub_mul, one_mul, mul_inv_cancel₀ hkept.ne']
    rw [rowOut_sub_truncOut, truncOut_eq, meanOut, smul_sub, smul_smul, smul_smul,
      mul_inv_cancel₀ hδ.ne', one_smul, hcoef]
  · -- all mass is in `S`: the weights outside `S` vanish and `p_i = 1`
    have hout : ∑ j ∈ Sᶜ, p j = 0 := by rw [← droppedMass_eq p S hsum, hδ]
    have hzero : ∀ j ∈ Sᶜ, p j = 0 :=
      (Finset.sum_eq_zero_iff_of_nonneg (fun j _ => hp j)).mp hout
    have hB : ∑ j ∈ Sᶜ, p j • v j = 0 :=
      Finset.sum_eq_zero (fun j hj => by rw [hzero j hj, zero_smul])
    have hk : keptMass p S = 1 := by
      have h := keptMass_add_compl p S hsum
      rw [hout, add_zero] at h
      exact h
    rw [rowOut_sub_truncOut, hB, hk, inv_one, sub_self, zero_smul, sub_zero]

/-- **S8** (rgat, Corollary S8): `‖v_j‖ ≤ V_max` for all `j` implies
`‖y_i - ỹ_i‖ ≤ 2 V_max δ_i` (for a stochastic row with `p_i > 0`, where `ỹ_i` is defined). -/
def TruncationBoundStatement : Prop :=
  ∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (n : ℕ) (p : Fin n → ℝ)
    (S : Finset (Fin n)) (v : Fin n → E) (Vmax : ℝ),
    (∀ j, 0 ≤ p j) → ∑ j, p j = 1 → 0 < keptMass p S → (∀ j, ‖v j‖ ≤ Vmax) →
    ‖rowOut p v - truncOut p S v‖ ≤ 2 * Vmax * droppedMass p S

/-- **S8**: the truncation error is at most `2 V_max δ_i`. -/
theorem truncation_bound : TruncationBoundStatement := by
  intro E _ _ n p S v Vmax hp hsum hkept hv
  have hδ := droppedMass_eq p S hsum
  have hδnn : 0 ≤ droppedMass p S := by
    rw [hδ]
    exact Finset.sum_nonneg (fun j _ => hp j)
  have hcp : ((keptMass p S)⁻¹ - 1) * keptMass p S = droppedMass p S := by
    unfold droppedMass
    rw [sub_mul, one_mul, inv_mul_cancel₀ hkept.ne']
  -- the coefficient `p⁻¹ - 1` is nonnegative (`p ≤ 1`)
  have hc : 0 ≤ (keptMass p S)⁻¹ - 1 := by
    by_contra hneg
    have hlt : ((keptMass p S)⁻¹ - 1) * keptMass p S < 0 :=
      mul_neg_of_neg_of_pos (not_le.mp hneg) hkept
    rw [hcp] at hlt
    linarith
  have hB : ‖∑ j ∈ Sᶜ, p j • v j‖ ≤ droppedMass p S * Vmax := by
    rw [hδ]
    exact norm_wsum_le Sᶜ p v Vmax (fun j _ => hp j) (fun j _ => hv j)
  have hA : ‖∑ j ∈ S, p j • v j‖ ≤ keptMass p S * Vmax :=
    norm_wsum_le S p v Vmax (fun j _ => hp j) (fun j _ => hv j)
  rw [rowOut_sub_truncOut]
  calc ‖∑ j ∈ Sᶜ, p j • v j - ((keptMass p S)⁻¹ - 1) • ∑ j ∈ S, p j • v j‖
      ≤ ‖∑ j ∈ Sᶜ, p j • v j‖ + ‖((keptMass p S)⁻¹ - 1) • ∑ j ∈ S, p j • v j‖ :=
        norm_sub_le _ _
    _ = ‖∑ j ∈ Sᶜ, p j • v j‖ + ((keptMass p S)⁻¹ - 1) * ‖∑ j ∈ S, p j • v j‖ := by
        rw [norm_smul, Real.norm_eq_abs, abs_of_nonneg hc]
    _ ≤ droppedMass p S * Vmax + ((keptMass p S)⁻¹ - 1) * (keptMass p S * Vmax) :=
        add_le_add hB (mul_le_mul_of_nonneg_left hA hc)
    _ = 2 * Vmax * droppedMass p S := by
        rw [← mul_assoc, hcp]
        ring

end

end Pyverify.Rgat
