import Pyverify.Espr.Tier3

/-!
# ESPR derivation, Tier 4: queries, keys and scores (T4.1 – T4.5)

Registry: `claims/espr-derivation/tier4.yaml`. T4.1–T4.3 are the definitions `projVec`,
`actPart`, `rotated` (in `Defs.lean`); the logit of T4.4 is `logit` with the scale
`1 / sqrt(2 m)` (registry convention `logit_scale: 1/sqrt(2m)`; `d_act = 2m`).
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-- The rotated, projected query is a compressed rotation applied to the active part:
`Π R (Π q) = (Π R Π)(Π q)` since `Π² = Π`. -/
theorem rotated_eq {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) (R : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (v : Fin (2 * m + dnull) → ℝ) :
    rotated (piAct U) R v = (piAct U * R * piAct U) *ᵥ actPart (piAct U) v := by
  have hPP : piAct U * piAct U = piAct U := piAct_idem hU
  have hqa : piAct U *ᵥ (piAct U *ᵥ v) = piAct U *ᵥ v := by
    rw [Matrix.mulVec_mulVec, hPP]
  unfold rotated actPart
  rw [← Matrix.mulVec_mulVec, ← Matrix.mulVec_mulVec, hqa]

/-- **T4.4** (espr-derivation, Tier 4): `α_ij = q̃_iᵀ k̃_j / sqrt(d_act)
= (1 / sqrt(d_act)) (q_i^{(act)})ᵀ (Π_act R_sp(r_i) Π_act)ᵀ (Π_act R_sp(r_j) Π_act) k_j^{(act)}`
(uses `Π_actᵀ = Π_act = Π_act²`), with `d_act = 2m`, for any post-rotation `P_sp` and the
orthogonal `U` defining `Π_act`. -/
def LogitDefStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (ri rj : Fin dc → ℝ)
    (q k : Fin (2 * m + dnull) → ℝ), IsOrth U →
    logit m (rotated (piAct U) (rsp L ri P) q) (rotated (piAct U) (rsp L rj P) k) =
      (actPart (piAct U) q ⬝ᵥ
        (((piAct U * rsp L ri P * piAct U)ᵀ * (piAct U * rsp L rj P * piAct U)) *ᵥ
          actPart (piAct U) k)) / Real.sqrt (2 * m)

theorem logit_eq {m dnull dc : ℕ} {L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (ri rj : Fin dc → ℝ)
    (q k : Fin (2 * m + dnull) → ℝ) (hU : IsOrth U) :
    logit m (rotated (piAct U) (rsp L ri P) q) (rotated (piAct U) (rsp L rj P) k) =
      (actPart (piAct U) q ⬝ᵥ
        (((piAct U * rsp L ri P * piAct U)ᵀ * (piAct U * rsp L rj P * piAct U)) *ᵥ
          actPart (piAct U) k)) / Real.sqrt (2 * m) := by
  unfold logit
  rw [rotated_eq hU, rotated_eq hU, mulVec_dotProduct_eq, Matrix.mulVec_mulVec]

/-- **T4.4**: the two forms of the logit agree. -/
theorem logit_def : LogitDefStatement :=
  fun _ _ _ _ _ P ri rj q k hU => logit_eq P ri rj q k hU

/-- **T4.5** (espr-derivation, Tier 4): `P_sp ∈ 𝓐 ⇒
α_ij = (1 / sqrt(2m)) (q_i^{(act)})ᵀ (Π_act R_STR(r_j - r_i) Π_act) k_j^{(act)}` (under T1.1,
for the `U`, `λ` of T2.3 defining `Π_act`). -/
def LogitRelStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ)
    (ri rj : Fin dc → ℝ) (q k : Fin (2 * m + dnull) → ℝ),
    IsCommutingSkewFamily L → IsOrth U → (∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)) →
    P ∈ postA U →
    logit m (rotated (piAct U) (rsp L ri P) q) (rotated (piAct U) (rsp L rj P) k) =
      (actPart (piAct U) q ⬝ᵥ ((piAct U * rstr L (disp ri rj) * piAct U) *ᵥ
        actPart (piAct U) k)) / Real.sqrt (2 * m)

/-- **T4.5**: with a structured post-rotation the logit depends on `r_j - r_i` only. -/
theorem logit_relative : LogitRelStatement := by
  intro m dnull dc L U P lam ri rj q k hL hU hblock hP
  have hPP := postA_piAct hU hP
  have hPi : piAct U * piAct U = piAct U := piAct_idem hU
  have hPi' : ∀ X : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ,
      piAct U * (piAct U * X) = piAct U * X := by
    intro X
    rw [← Matrix.mul_assoc, hPi]
  have hcomm : rstr L rj * piAct U = piAct U * rstr L rj := rstr_commute_piAct hU hblock rj
  have hmid : piAct U * (rstr L rj * piAct U) = rstr L rj * piAct U := by
    rw [hcomm, hPi']
  have hM : ∀ r : Fin dc → ℝ,
      piAct U * rsp L r P * piAct U = piAct U * rstr L r * piAct U := by
    intro r
    unfold rsp
    simp only [Matrix.mul_assoc]
    rw [hPP.2]
  have key : (piAct U * rstr L ri * piAct U)ᵀ * (piAct U * rstr L rj * piAct U) =
      piAct U * rstr L (disp ri rj) * piAct U := by
    rw [← rstr_relative' hL ri rj, Matrix.transpose_mul, Matrix.transpose_mul, piAct_transpose]
    simp only [Matrix.mul_assoc]
    rw [hPi', hmid]
  rw [logit_eq P ri rj q k hU, hM ri, hM rj, key]

end

end Pyverify.Espr
