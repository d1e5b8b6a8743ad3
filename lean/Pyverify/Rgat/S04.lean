import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Theorem S4 (Bridge Theorem): head-level clause, stack-level clause and the
correction of the stack-level clause

Stacks: a layer `ℓ` of the stack is `X ↦ Φ_ℓ(P, X)` where `P` is its attention-weight matrix,
`P^GSM` (rotors `R(Q_i), R(K_j)`) in the RGAT stack and `P^softmax` in the Transformer stack,
with the same queries/keys `Q_ℓ, K_ℓ` (satisfying the head-level hypotheses) and the same map
`Φ_ℓ`; sequences `X : Fin T → E` carry the max-row norm `‖·‖_{∞,2}` (Mathlib's norm of a
function type, **RGAT.Def-indices**).
-/

namespace Pyverify.Rgat

noncomputable section

/-- The conclusion of the head-level clause of S4 for a given temperature floor `τ_min` and
constant `C_head`: for all `Q, K ∈ ℝ^{T×3}` with `‖Q_i‖, ‖K_j‖ ≤ ε`, `0 < ε ≤ ε₀ < π`
(`ε₀` below the injectivity radius), `τ ≥ τ_min`:
`max_ij |P^GSM_ij - P^softmax_ij| ≤ C_head ε²`. -/
def HeadBound (τmin Chead : ℝ) : Prop :=
  ∀ (T : ℕ) (ε ε0 τ : ℝ) (Q K : Fin T → Vec3),
    0 < ε → ε ≤ ε0 → ε0 < Real.pi → τmin ≤ τ →
    (∀ i, norm3 (Q i) ≤ ε) → (∀ j, norm3 (K j) ≤ ε) →
    ∀ i j, |gsmWeightsGen Q K τ i j - stdWeights Q K τ i j| ≤ Chead * ε ^ 2

/-- **S4** (rgat, Theorem S4, head level): with `ℓ^GSM_ij = -(2τ)⁻¹ d_geo(R(Q_i), R(K_j))²`
and `ℓ^std_ij = τ⁻¹ Q_iᵀ K_j`, there is `C_head` depending only on `τ_min` (and the universal
`C_geo`) with `‖P^GSM - P^softmax‖_∞ ≤ C_head ε²` (`‖·‖_∞` the maximal absolute entry, as the
registry reads it). The constant is chosen after `τ_min` and before the data. -/
def BridgeHeadStatement : Prop :=
  ∀ τmin : ℝ, 0 < τmin → ∃ Chead : ℝ, HeadBound τmin Chead

/-- **S4** (head level). Not proved here (needs S2 and S3 with explicit constants). -/
theorem bridge_head : BridgeHeadStatement := by
  sorry

/-- **S4.stack** (rgat, Theorem S4, stack level), as printed: for a depth-`L` stack of layers,
each `L_ℓ`-Lipschitz w.r.t. `‖·‖_{∞,2}`, `‖F_RGAT - F_Transformer‖ ≤ C_stack ε²` with
`C_stack = C_head ∏_ℓ L_ℓ`, where `C_head` is the head-level constant (for `τ_min`) and the
difference is taken on a common input `X` under the head-level hypotheses for every layer. -/
def BridgeStackStatement : Prop :=
  ∀ τmin : ℝ, 0 < τmin → ∃ Chead : ℝ, HeadBound τmin Chead ∧
    ∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (T L : ℕ) (ε ε0 τ : ℝ)
      (Q K : ℕ → Fin T → Vec3) (Φ : ℕ → (Fin T → Fin T → ℝ) → (Fin T → E) → (Fin T → E))
      (Lc : ℕ → ℝ) (X : Fin T → E),
      0 < ε → ε ≤ ε0 → ε0 < Real.pi → τmin ≤ τ →
      (∀ l i, norm3 (Q l i) ≤ ε) → (∀ l j, norm3 (K l j) ≤ ε) → (∀ l, 0 ≤ Lc l) →
      (∀ l (x y : Fin T → E), ‖Φ l (gsmWeightsGen (Q l) (K l) τ) x
          - Φ l (gsmWeightsGen (Q l) (K l) τ) y‖ ≤ Lc l * ‖x - y‖) →
      (∀ l (x y : Fin T → E), ‖Φ l (stdWeights (Q l) (K l) τ) x
          - Φ l (stdWeights (Q l) (K l) τ) y‖ ≤ Lc l * ‖x - y‖) →
      ‖stack (fun l => Φ l (gsmWeightsGen (Q l) (K l) τ)) L X
          - stack (fun l => Φ l (stdWeights (Q l) (K l) τ)) L X‖
        ≤ Chead * (∏ l ∈ Finset.range L, Lc l) * ε ^ 2

/-- **S4.stack.corrected** (rgat, Theorem S4 stack level, corrected): (1) if the layers
`F^RGAT_ℓ`, `F^T_ℓ` are `L_ℓ`-Lipschitz w.r.t. `‖·‖_{∞,2}` and
`δ_ℓ ≥ sup_X ‖F^RGAT_ℓ(X) - F^T_ℓ(X)‖_{∞,2}`, then
`‖F_RGAT - F_Transformer‖_{∞,2} ≤ ∑_ℓ (∏_{k>ℓ} L_k) δ_ℓ` (layers indexed from `0`);
(2) for layers that differ only in the attention weights, the discrepancy of the outputs
`P V` and `P' V` is at most `T · max|P - P'| · V_max` (with `max|P - P'| ≤ C_head ε²` from the
head-level clause this is `δ_ℓ ≤ T C_head ε² V_max,ℓ`). -/
def BridgeStackCorrectedStatement : Prop :=
  (∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (T : ℕ)
      (FR FT : ℕ → (Fin T → E) → (Fin T → E)) (Lc δ : ℕ → ℝ) (L : ℕ) (X : Fin T → E),
      (∀ l, 0 ≤ Lc l) →
      (∀ l (x y : Fin T → E), ‖FR l x - FR l y‖ ≤ Lc l * ‖x - y‖) →
      (∀ l (x y : Fin T → E), ‖FT l x - FT l y‖ ≤ Lc l * ‖x - y‖) →
      (∀ l (x : Fin T → E), ‖FR l x - FT l x‖ ≤ δ l) →
      ‖stack FR L X - stack FT L X‖
        ≤ ∑ l ∈ Finset.range L, (∏ k ∈ Finset.Ico (l + 1) L, Lc k) * δ l) ∧
  (∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (T : ℕ)
      (P P' : Fin T → Fin T → ℝ) (V : Fin T → E) (η Vmax : ℝ),
      0 ≤ η → 0 ≤ Vmax → (∀ i j, |P i j - P' i j| ≤ η) → (∀ j, ‖V j‖ ≤ Vmax) →
      ‖attnOut P V - attnOut P' V‖ ≤ T * η * Vmax)

/-- The accumulation bound `∑_{ℓ<L+1} (∏_{ℓ<k≤L} L_k) δ_ℓ = L_L · (∑_{ℓ<L} …) + δ_L`. -/
theorem accumulation_succ (Lc δ : ℕ → ℝ) (n : ℕ) :
    ∑ l ∈ Finset.range (n + 1), (∏ k ∈ Finset.Ico (l + 1) (n + 1), Lc k) * δ l
      = Lc n * ∑ l ∈ Finset.range n, (∏ k ∈ Finset.Ico (l + 1) n, Lc k) * δ l + δ n := by
  rw [Finset.sum_range_succ, Finset.Ico_self, Finset.prod_empty, one_mul, Finset.mul_sum]
  congr 1
  refine Finset.sum_congr rfl (fun l hl => ?_)
  rw [Finset.prod_Ico_succ_top (Nat.succ_le_of_lt (Finset.mem_range.mp hl))]
  ring

/-- Stack discrepancy: each layer adds its own discrepancy, which later layers amplify. -/
theorem stack_discrepancy_le {E : Type*} [NormedAddCommGroup E] {T : ℕ}
    (FR FT : ℕ → (Fin T → E) → (Fin T → E)) (Lc δ : ℕ → ℝ) (X : Fin T → E)
    (hL0 : ∀ l, 0 ≤ Lc l) (hLip : ∀ l (x y : Fin T → E), ‖FR l x - FR l y‖ ≤ Lc l * ‖x - y‖)
    (hδ : ∀ l (x : Fin T → E), ‖FR l x - FT l x‖ ≤ δ l) :
    ∀ L : ℕ, ‖stack FR L X - stack FT L X‖
      ≤ ∑ l ∈ Finset.range L, (∏ k ∈ Finset.Ico (l + 1) L, Lc k) * δ l := by
  intro L
  induction L with
  | zero =>
    simp only [stack_zero, sub_self, norm_zero, Finset.sum_range_zero, le_refl]
  | succ n ih =>
    rw [stack_succ, stack_succ, accumulation_succ]
    calc ‖FR n (stack FR n X) - FT n (stack FT n X)‖
        ≤ ‖FR n (stack FR n X) - FR n (stack FT n X)‖
          + ‖FR n (stack FT n X) - FT n (stack FT n X)‖ :=
          norm_sub_le_norm_sub_add_norm_sub _ _ _
      _ ≤ Lc n * ‖stack FR n X - stack FT n X‖ + δ n :=
          add_le_add (hLip n _ _) (hδ n _)
      _ ≤ Lc n * ∑ l ∈ Finset.range n, (∏ k ∈ Finset.Ico (l + 1) n, Lc k) * δ l + δ n :=
          add_le_add_right (mul_le_mul_of_nonneg_left ih (hL0 n)) _

/-- Output discrepancy of two attention-weight matrices on the same values. -/
theorem attnOut_sub_norm_le {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E] {T : ℕ}
    (P P' : Fin T → Fin T → ℝ) (V : Fin T → E) (η Vmax : ℝ)
    (hη : 0 ≤ η) (hV0 : 0 ≤ Vmax) (hP : ∀ i j, |P i j - P' i j| ≤ η) (hV : ∀ j, ‖V j‖ ≤ Vmax) :
    ‖attnOut P V - attnOut P' V‖ ≤ T * η * Vmax := by
  have h0 : (0 : ℝ) ≤ T * η * Vmax := mul_nonneg (mul_nonneg (Nat.cast_nonneg T) hη) hV0
  have hrow : ∀ i, ‖attnOut P V i - attnOut P' V i‖ ≤ T * η * Vmax := by
    intro i
    have hsub : attnOut P V i - attnOut P' V i = ∑ j, (P i j - P' i j) • V j := by
      simp only [attnOut, sub_smul, Finset.sum_sub_distrib]
    rw [hsub]
    calc ‖∑ j, (P i j - P' i j) • V j‖ ≤ ∑ j, ‖(P i j - P' i j) • V j‖ := norm_sum_le _ _
      _ = ∑ j, |P i j - P' i j| * ‖V j‖ := by
          refine Finset.sum_congr rfl (fun j _ => ?_)
          rw [norm_smul, Real.norm_eq_abs]
      _ ≤ ∑ _j : Fin T, η * Vmax :=
          Finset.sum_le_sum (fun j _ => mul_le_mul (hP i j) (hV j) (norm_nonneg _) hη)
      _ = T * η * Vmax := by
          rw [Finset.sum_const, Finset.card_univ, Fintype.card_fin, nsmul_eq_mul]
          ring
  exact (pi_norm_le_iff_of_nonneg h0).mpr hrow

/-- **S4.stack.corrected**: additive accumulation of the per-layer discrepancies, and the
value-norm factor of a layer's discrepancy. -/
theorem bridge_stack_corrected : BridgeStackCorrectedStatement := by
  refine ⟨?_, ?_⟩
  · intro E _ _ T FR FT Lc δ L X hL0 hLipR _ hδ
    exact stack_discrepancy_le FR FT Lc δ X hL0 hLipR hδ L
  · intro E _ _ T P P' V η Vmax hη hV0 hP hV
    exact attnOut_sub_norm_le P P' V η Vmax hη hV0 hP hV

/-- **RGAT.Def-constants** (rgat, Definitions, "Absorbed constants"), the clauses about the
attention constants: `C_head` depends only on the metric and the Lie-algebra structure
constants (so one constant serves every temperature floor `τ_min`), and
`C_stack = C_head ∏_ℓ L_ℓ` bounds the stack-level discrepancy (the clause of S4.stack). -/
def AbsorbedConstantsStatement : Prop :=
  (∃ Chead : ℝ, ∀ τmin : ℝ, 0 < τmin → HeadBound τmin Chead) ∧ BridgeStackStatement

/-- **RGAT.Def-constants.corrected** (rgat, Definitions, corrected): `C_head` cannot be chosen
independently of the temperature; `C_head = O(1/τ_min)`: there is `C` with
`max|P^GSM - P^softmax| ≤ (C / τ_min) ε²` for all `τ ≥ τ_min`; and the stack-level discrepancy
accumulates additively (S4.stack.corrected). -/
def AbsorbedConstantsCorrectedStatement : Prop :=
  (∃ C : ℝ, ∀ τmin : ℝ, 0 < τmin → HeadBound τmin (C / τmin)) ∧ BridgeStackCorrectedStatement

/-- **RGAT.Def-constants.corrected**: the stack clause is `bridge_stack_corrected`; the
`O(1/τ_min)` head constant is not proved here. -/
theorem absorbed_constants_corrected : AbsorbedConstantsCorrectedStatement := by
  refine ⟨?_, bridge_stack_corrected⟩
  sorry

end

end Pyverify.Rgat
