import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Theorem S5 (GSM attention is a Markov operator) and Corollary S6
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-- The GSM weights written as in S5, `P_ij = K_ij / ∑_k K_ik`. -/
theorem gsmWeights_eq_kernel {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ)
    (i : Fin m) (j : Fin n) :
    gsmWeights μ r τ i j = gsmKernel μ r τ i j / ∑ k, gsmKernel μ r τ i k := rfl

/-- **S5** (rgat, Theorem S5): with `K_ij = exp(-d_geo(μ_i, r_j)² / (2τ))` and
`P_ij = K_ij / ∑_k K_ik`, each row of `P` is a probability distribution, and for any values
`v_j` the output `y_i = ∑_j P_ij v_j` lies in `conv{v_j}`. Membership in the convex hull of the
finitely many `v_j` is written out: `y_i = ∑_j w_j v_j` with `w_j ≥ 0`, `∑_j w_j = 1` (the
definition of `conv` of a finite family). At least one key (`0 < n`) is needed for a row to
be a distribution; `μ_i, r_j` are rotors (unit quaternions) and `τ > 0` as in the document. -/
def MarkovDiffusionStatement : Prop :=
  ∀ (E : Type) [AddCommGroup E] [Module ℝ E] (m n : ℕ) (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ])
    (τ : ℝ) (v : Fin n → E),
    0 < n → (∀ i, IsUnitQ (μ i)) → (∀ j, IsUnitQ (r j)) → 0 < τ →
    (∀ i, (∀ j, 0 ≤ gsmKernel μ r τ i j / ∑ k, gsmKernel μ r τ i k) ∧
        ∑ j, gsmKernel μ r τ i j / ∑ k, gsmKernel μ r τ i k = 1) ∧
    (∀ i, ∃ w : Fin n → ℝ, (∀ j, 0 ≤ w j) ∧ ∑ j, w j = 1 ∧
        attnOut (gsmWeights μ r τ) v i = ∑ j, w j • v j)

/-- Rows of the GSM weights are positive-sum: the normaliser `∑_k K_ik` is positive. -/
theorem gsmKernel_sum_pos {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ)
    (hn : 0 < n) (i : Fin m) : 0 < ∑ k, gsmKernel μ r τ i k := by
  haveI : Nonempty (Fin n) := ⟨⟨0, hn⟩⟩
  exact Finset.sum_pos (fun k _ => Real.exp_pos _) Finset.univ_nonempty

/-- Nonnegativity of the GSM weights. -/
theorem gsmWeights_nonneg {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ)
    (hn : 0 < n) (i : Fin m) (j : Fin n) : 0 ≤ gsmWeights μ r τ i j := by
  rw [gsmWeights_eq_kernel]
  exact div_nonneg (Real.exp_pos _).le (gsmKernel_sum_pos μ r τ hn i).le

/-- Rows of the GSM weights sum to one. -/
theorem gsmWeights_sum_one {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ)
    (hn : 0 < n) (i : Fin m) : ∑ j, gsmWeights μ r τ i j = 1 := by
  simp only [gsmWeights_eq_kernel]
  rw [← Finset.sum_div]
  exact div_self (gsmKernel_sum_pos μ r τ hn i).ne'

/-- **S5**: GSM attention is a Markov (row-stochastic) operator and its outputs are convex
combinations of the values. -/
theorem gsm_markov_diffusion : MarkovDiffusionStatement := by
  intro E _ _ m n μ r τ v hn _ _ _
  refine ⟨fun i => ⟨fun j => ?_, ?_⟩, fun i => ⟨gsmWeights μ r τ i, fun j => ?_, ?_, rfl⟩⟩
  · exact gsmWeights_nonneg μ r τ hn i j
  · exact gsmWeights_sum_one μ r τ hn i
  · exact gsmWeights_nonneg μ r τ hn i j
  · exact gsmWeights_sum_one μ r τ hn i

/-- **S6** (rgat, Corollary S6): for the GSM outputs `y_i = ∑_j P_ij v_j` of S5,
`‖v_j‖ ≤ V_max` for all `j` implies `‖y_i‖ ≤ V_max`, and for two value sets `{v_j}`, `{v'_j}`
(same weights `P`) `‖y_i - y'_i‖ ≤ max_j ‖v_j - v'_j‖`. The maximum is expressed through any
bound `D` of all `‖v_j - v'_j‖` (equivalent: the maximum is the least such `D`). -/
def NonExpansiveStatement : Prop :=
  ∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (m n : ℕ) (μ : Fin m → ℍ[ℝ])
    (r : Fin n → ℍ[ℝ]) (τ : ℝ) (v v' : Fin n → E) (Vmax D : ℝ),
    0 < n → (∀ i, IsUnitQ (μ i)) → (∀ j, IsUnitQ (r j)) → 0 < τ →
    ((∀ j, ‖v j‖ ≤ Vmax) → ∀ i, ‖attnOut (gsmWeights μ r τ) v i‖ ≤ Vmax) ∧
    ((∀ j, ‖v j - v' j‖ ≤ D) →
      ∀ i, ‖attnOut (gsmWeights μ r τ) v i - attnOut (gsmWeights μ r τ) v' i‖ ≤ D)

/-- **S6**: GSM attention outputs are bounded by the value bound and 1-Lipschitz in the values. -/
theorem gsm_non_expansive : NonExpansiveStatement := by
  intro E _ _ m n μ r τ v v' Vmax D hn _ _ _
  refine ⟨fun hv i => ?_, fun hD i => ?_⟩
  · have h := norm_wsum_le Finset.univ (gsmWeights μ r τ i) v Vmax
      (fun j _ => gsmWeights_nonneg μ r τ hn i j) (fun j _ => hv j)
    rw [gsmWeights_sum_one μ r τ hn i, one_mul] at h
    exact h
  · have hsub : attnOut (gsmWeights μ r τ) v i - attnOut (gsmWeights μ r τ) v' i
        = ∑ j, gsmWeights μ r τ i j • (v j - v' j) := by
      simp only [attnOut, smul_sub, Finset.sum_sub_distrib]
    rw [hsub]
    have h := norm_wsum_le Finset.univ (gsmWeights μ r τ i) (fun j => v j - v' j) D
      (fun j _ => gsmWeights_nonneg μ r τ hn i j) (fun j _ => hD j)
    rw [gsmWeights_sum_one μ r τ hn i, one_mul] at h
    exact h

end

end Pyverify.Rgat
