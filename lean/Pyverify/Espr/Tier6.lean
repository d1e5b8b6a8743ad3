import Mathlib
import Pyverify.Espr.Defs
import Pyverify.Espr.DefsLate
import Pyverify.Espr.Tier4

/-!
# ESPR derivation, Tier 6: conclusions

Statements of T6.1, T6.2 and T6.2.corrected (registry `claims/espr-derivation/tier6.yaml`).
`α_ij` is the Tier 4 logit (`alphaLogit`), the relative form
`(1/√(2m)) (q_i^(act))ᵀ Π_act R_STR(r_j − r_i) Π_act k_j^(act)` is `alphaStar`.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-- **T6.1** (espr-derivation, Tier 6, GOAL): `(T1.1 ∧ T2.3 ∧ P_sp ∈ 𝓐) ⇒
α_ij = (1/√(2m)) (q_i^(act))ᵀ (Π_act R_STR(r_j − r_i) Π_act) k_j^(act)`: commuting skew generators in
joint block form in the basis `U`, `P_sp ∈ 𝓐` (T3.4), for all queries, keys and positions. -/
def GoalStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    IsCommutingSkewFamily L → HasJointBlockForm L U lam → P ∈ postA U →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      alphaLogit L U P q k ri rj = alphaStar L U q k ri rj

/-- **T6.1** (espr-derivation): the ESPR logit is relative under the structural hypotheses
(the formula of T4.5, helper A's `logit_relative`). -/
theorem goal : GoalStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `ring` after rewriting with `logit_relative` inside `alphaLogit`
  first
  | (intro m dnull dc L U P lam hL hB hP q k ri rj
     have h := logit_relative m dnull dc L U P lam ri rj q k hL hB.1 hB.2 hP
     unfold alphaLogit alphaStar
     rw [h]
     ring
     done)
  | sorry

/-- **T6.2** (espr-derivation, Tier 6, GOAL_rob), as transcribed:
`(|[L_a, L_b]| ≤ ε ∀ a, b, P_sp ∈ SO(d_h) with mixing η_mix) ⇒ α_ij ≈_{Δ_ij} (1/√(2m)) (q_i^(act))ᵀ
(Π_act R_STR(r_j − r_i) Π_act) k_j^(act)` with `Δ_ij ≤ C(ε|r_i|_1|r_j|_1 + η_mix)` (no factor
`|q_i^(act)| |k_j^(act)|` is visible; `≈_Δ` is `|X − Y| ≤ Δ`, T0.12; `η_mix = |B| + |C|` of T5.8;
`C` fixed before the data). Skew generators, `Π_act` from an orthogonal basis `U` (T2.3's form
need not exist for non-commuting generators). Refuted in the registry. -/
def GoalRobStatement : Prop :=
  ∃ C : ℝ, ∀ (m dnull dc : ℕ)
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (ε : ℝ),
    (∀ k, IsSkew (L k)) → IsOrth U → (∀ a b, opNorm (bracket (L a) (L b)) ≤ ε) → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
        ≤ C * (ε * vnorm1 ri * vnorm1 rj + etaMixSum U P)

/-- **T6.2.corrected** (espr-derivation): `L_k = L_k⁰ + ε₀ E_k` with `L⁰` commuting skew generators
in joint block form (which defines `Π_act`), `E_k` skew with `|E_k| ≤ 1`, `ε₀ ≥ 0`,
`|[L_a, L_b]| ≤ ε`, `P_sp ∈ SO(d_h)` ⇒
`|α_ij − α*_ij| ≤ C(ε|r_i|_1|r_j|_1 + ε₀²|r_i|_1|r_j|_1 + ε₀(|r_i|_1 + |r_j|_1) η_mix + dist_F(P_sp, 𝓐))
|q_i^(act)| |k_j^(act)|`, with `C` fixed before the data (the registry: `C = 6/√(2m)` suffices) and
`η_mix` the max form of T6′.0. -/
def GoalRobCorrectedStatement : Prop :=
  ∃ C : ℝ, ∀ (m dnull dc : ℕ)
    (L L0 E : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ)
    (ε0 ε : ℝ),
    (∀ k, L k = L0 k + ε0 • E k) → IsCommutingSkewFamily L0 → HasJointBlockForm L0 U lam →
    (∀ k, IsSkew (E k)) → (∀ k, opNorm (E k) ≤ 1) → 0 ≤ ε0 →
    (∀ a b, opNorm (bracket (L a) (L b)) ≤ ε) → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
        ≤ C * (ε * vnorm1 ri * vnorm1 rj + ε0 ^ 2 * vnorm1 ri * vnorm1 rj
              + ε0 * (vnorm1 ri + vnorm1 rj) * etaMixMax U P + distToPostA U P)
            * vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k)

/-- **T6.2.corrected** (espr-derivation): robust relative logits. -/
theorem goal_rob_corrected : GoalRobCorrectedStatement := by
  sorry

end

end Pyverify.Espr
