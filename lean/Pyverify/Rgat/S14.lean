import Pyverify.Rgat.S04

/-!
# RGAT supplement, Corollary S14 (standard attention approximates rotor flow) and its correction
-/

namespace Pyverify.Rgat

noncomputable section

/-- **S14** (rgat, Corollary S14), first clause, in the registry's reading: under the Bridge
hypotheses (every layer's queries/keys `ε`-small, `τ ≥ τ_min`), a depth-`L` Transformer stack
approximates the corresponding RGAT (rotor) stack with error `O(L ε²)`, the `O` uniform in `L`
for uniformly bounded Lipschitz constants `L_ℓ ≤ Λ`. Layers are `X ↦ A_ℓ(X) + P_ℓ V_ℓ`
(`A_ℓ` `Λ`-Lipschitz, so the layer is; values `‖(V_ℓ)_j‖ ≤ V_max`; `P_ℓ = P^GSM` resp.
`P^softmax` of `Q_ℓ, K_ℓ`), the model of the registry's check. The constant is chosen after
the parameters `τ_min, Λ, V_max` and before the data (in particular before `L`). -/
def RotorFlowApproxStatement : Prop :=
  ∀ τmin Λ Vmax : ℝ, 0 < τmin → 0 ≤ Λ → 0 ≤ Vmax → ∃ C : ℝ,
    ∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (T L : ℕ) (ε ε0 τ : ℝ)
      (Q K : ℕ → Fin T → Vec3) (A : ℕ → (Fin T → E) → (Fin T → E)) (V : ℕ → Fin T → E)
      (X : Fin T → E),
      0 < ε → ε ≤ ε0 → ε0 < Real.pi → τmin ≤ τ →
      (∀ l i, norm3 (Q l i) ≤ ε) → (∀ l j, norm3 (K l j) ≤ ε) → (∀ l j, ‖V l j‖ ≤ Vmax) →
      (∀ l (x y : Fin T → E), ‖A l x - A l y‖ ≤ Λ * ‖x - y‖) →
      ‖stack (fun l x => A l x + attnOut (gsmWeightsGen (Q l) (K l) τ) (V l)) L X
          - stack (fun l x => A l x + attnOut (stdWeights (Q l) (K l) τ) (V l)) L X‖
        ≤ C * L * ε ^ 2

/-- **S14.corrected** (rgat, Corollary S14 corrected): under the Bridge hypotheses, with
per-layer discrepancies `δ_ℓ ≥ sup_X ‖F^RGAT_ℓ(X) - F^T_ℓ(X)‖_{∞,2}`: if every layer is
non-expansive (`L_ℓ ≤ 1`) and `δ_ℓ ≤ δ`, then `‖F_RGAT - F_Transformer‖_{∞,2} ≤ ∑_ℓ δ_ℓ ≤ L δ`
(`= O(L ε²)` with `δ = T C_head ε² V_max` from S4 and S4.stack.corrected); with merely
`L_ℓ ≤ Λ` the bound is `∑_ℓ Λ^{L-ℓ} δ_ℓ` (layers indexed from `0` here, so the exponent is
`L - (ℓ + 1)`). -/
def RotorFlowApproxCorrectedStatement : Prop :=
  ∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (T : ℕ)
    (FR FT : ℕ → (Fin T → E) → (Fin T → E)) (Lc δ : ℕ → ℝ) (Λ δ0 : ℝ) (L : ℕ) (X : Fin T → E),
    (∀ l, 0 ≤ Lc l) →
    (∀ l (x y : Fin T → E), ‖FR l x - FR l y‖ ≤ Lc l * ‖x - y‖) →
    (∀ l (x y : Fin T → E), ‖FT l x - FT l y‖ ≤ Lc l * ‖x - y‖) →
    (∀ l (x : Fin T → E), ‖FR l x - FT l x‖ ≤ δ l) →
    ((∀ l, Lc l ≤ 1) → (∀ l, δ l ≤ δ0) →
      ‖stack FR L X - stack FT L X‖ ≤ ∑ l ∈ Finset.range L, δ l ∧
        ∑ l ∈ Finset.range L, δ l ≤ L * δ0) ∧
    ((∀ l, Lc l ≤ Λ) →
      ‖stack FR L X - stack FT L X‖ ≤ ∑ l ∈ Finset.range L, Λ ^ (L - (l + 1)) * δ l)

/-- **S14.corrected**: additive accumulation for non-expansive layers, geometric for
`L_ℓ ≤ Λ`. -/
theorem rotor_flow_approx_corrected : RotorFlowApproxCorrectedStatement := by
  intro E _ _ T FR FT Lc δ Λ δ0 L X hL0 hLipR _ hδ
  have hacc := stack_discrepancy_le FR FT Lc δ X hL0 hLipR hδ L
  have hδ0 : ∀ l, 0 ≤ δ l := fun l => (norm_nonneg _).trans (hδ l X)
  refine ⟨fun h1 hδle => ⟨?_, ?_⟩, fun hΛ => ?_⟩
  · refine hacc.trans (Finset.sum_le_sum (fun l _ => ?_))
    have hp : ∏ k ∈ Finset.Ico (l + 1) L, Lc k ≤ 1 :=
      Finset.prod_le_one (fun k _ => hL0 k) (fun k _ => h1 k)
    calc (∏ k ∈ Finset.Ico (l + 1) L, Lc k) * δ l ≤ 1 * δ l :=
          mul_le_mul_of_nonneg_right hp (hδ0 l)
      _ = δ l := one_mul _
  · calc ∑ l ∈ Finset.range L, δ l ≤ ∑ _l ∈ Finset.range L, δ0 :=
          Finset.sum_le_sum (fun l _ => hδle l)
      _ = L * δ0 := by rw [Finset.sum_const, Finset.card_range, nsmul_eq_mul]
  · refine hacc.trans (Finset.sum_le_sum (fun l _ => ?_))
    have hp : ∏ k ∈ Finset.Ico (l + 1) L, Lc k ≤ Λ ^ (L - (l + 1)) := by
      calc ∏ k ∈ Finset.Ico (l + 1) L, Lc k ≤ ∏ _k ∈ Finset.Ico (l + 1) L, Λ :=
            Finset.prod_le_prod (fun k _ => hL0 k) (fun k _ => hΛ k)
        _ = Λ ^ (L - (l + 1)) := by rw [Finset.prod_const, Nat.card_Ico]
    exact mul_le_mul_of_nonneg_right hp (hδ0 l)

end

end Pyverify.Rgat
