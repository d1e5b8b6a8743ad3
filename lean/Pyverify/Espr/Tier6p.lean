import Mathlib
import Pyverify.Espr.Defs
import Pyverify.Espr.DefsLate
import Pyverify.Espr.Tier5

/-!
# ESPR derivation, Tier 6′: quantified robustness

Statements of T6′.0–T6′.11 and of the corrections T6′.1.corrected, T6′.2.corrected,
T6′.4.corrected, T6′.5.corrected, T6′.8.corrected, T6′.9.corrected, T6′.10.corrected,
T6′.11.corrected (registry `claims/espr-derivation/tier6p.yaml`; seed 000 only). T6′.12 (a
bookkeeping remark) has no mathematical content.

Notation: `Π_act = piAct U`, `Π_null = piNull U` for the basis `U` of T2.3; `ρ = |S|`,
`η = |E|`; in the "ESPR/Cayley/pure mix" model `S` is skew with `Π_act S Π_act = 0`, and its
active/null coupling `E = Π_act S Π_null + Π_null S Π_act` has `η = |E|` (registry reading).
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-! ## T6′.0 -/

/-- **T6′.0** (espr-derivation, Tier 6′): the definitions `ε_comm` (`epsComm`), `Λ` (`bigLambda`),
`R` (`radR`), `S = S₋ + E` with both parts skew (`SkewSplitParam`), `ρ = |S|`, `η = |E|`, and
`η_mix = max{|Π_null P_sp Π_act|, |Π_act P_sp Π_null|}` (`etaMixMax`). The checkable content:
`S` is skew, and for generators in joint block form `Λ = Σ_k |L_k|` (`lambdaOp`). -/
def RobustnessDefsStatement : Prop :=
  (∀ (n : ℕ) (S Sm E : Matrix (Fin n) (Fin n) ℝ), SkewSplitParam S Sm E → IsSkew S) ∧
  (∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → bigLambda lam = lambdaOp L)

/-- `S = S₋ + E` with skew parts is skew (first part of T6′.0). -/
theorem skewSplit_isSkew {n : ℕ} {S Sm E : Matrix (Fin n) (Fin n) ℝ}
    (h : SkewSplitParam S Sm E) : IsSkew S := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `neg_add` after `Matrix.transpose_add`: the orientation of the sum it must meet
  first
  | (unfold SkewSplitParam at h
     obtain ⟨hS, hSm, hE⟩ := h
     unfold IsSkew at hSm hE ⊢
     rw [hS, Matrix.transpose_add, hSm, hE, neg_add]
     done)
  | sorry

/-- **T6′.0** (espr-derivation): consistency of the Tier 6′ definitions. -/
theorem robustness_defs : RobustnessDefsStatement := by
  sorry

/-! ## T6′.1 -/

/-- **T6′.1** (espr-derivation, Tier 6′), as printed: for generators in joint block form,
`|A(r)| ≤ Σ_u |θ_u(r)| = Σ_u |Σ_k r_k λ_{k,u}| ≤ Λ |r|_1` (and `C_BCH(r, s) = C_⋆ exp(2Λ(|r|_1 +
|s|_1))`, the definition `cBCH`). Refuted: the last step fails (sum over `u` against a max). -/
def NormGenSumChainStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → ∀ r : Fin dc → ℝ,
      opNorm (genSum L r) ≤ ∑ u, |theta lam r u| ∧
      ∑ u, |theta lam r u| = ∑ u, |∑ k, r k * lam k u| ∧
      ∑ u, |theta lam r u| ≤ bigLambda lam * vnorm1 r

/-- **T6′.1** refuted: `d_h = 5`, `d_c = 1`, `m = 2`, `L_1 = diag(J, J, 0)`, `U = I`, `r = 1`
gives `Σ_u |θ_u(r)| = 2 > Λ |r|_1 = 1`. -/
theorem not_norm_genSum_chain : ¬ NormGenSumChainStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `norm_num [theta, beta, bigLambda, vnorm1, dotProduct]` evaluating the witness
  first
  | (intro h
     have hL : HasJointBlockForm (m := 2) (dnull := 1)
         (fun _ : Fin 1 => jointBlockForm 1 (fun _ : Fin 2 => (1 : ℝ))) 1
         (fun (_ : Fin 1) (_ : Fin 2) => (1 : ℝ)) := by
       unfold HasJointBlockForm
       refine ⟨?_, ?_⟩
       unfold IsOrth
       rw [Matrix.transpose_one, Matrix.one_mul]
       intro k
       rw [Matrix.transpose_one, Matrix.one_mul, Matrix.mul_one]
       done
     have h3 := (h 2 1 1 _ 1 _ hL (fun _ => (1 : ℝ))).2.2
     norm_num [theta, beta, bigLambda, vnorm1, dotProduct] at h3
     done)
  | sorry

/-- **T6′.1.corrected** (espr-derivation): for generators in joint block form,
`|A(r)| = max_u |θ_u(r)| = max_u |Σ_k r_k λ_{k,u}| ≤ Λ |r|_1` and
`Σ_u |θ_u(r)| ≤ Σ_k |r_k| Σ_u |λ_{k,u}|`. -/
def NormGenSumCorrectedStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → ∀ r : Fin dc → ℝ,
      opNorm (genSum L r) = ⨆ u, |theta lam r u| ∧
      (⨆ u, |theta lam r u|) = ⨆ u, |∑ k, r k * lam k u| ∧
      (⨆ u, |theta lam r u|) ≤ bigLambda lam * vnorm1 r ∧
      ∑ u, |theta lam r u| ≤ ∑ k, |r k| * ∑ u, |lam k u|

/-- **T6′.1.corrected** (espr-derivation): `|A(r)| = max_u |θ_u(r)| ≤ Λ|r|_1`. -/
theorem norm_genSum_corrected : NormGenSumCorrectedStatement := by
  sorry

/-! ## T6′.2, T6′.3 -/

/-- **T6′.2** (espr-derivation, Tier 6′), as printed:
`|log(e^{A(r)} e^{A(s)}) − (A(r) + A(s))| ≤ ½|[A(r), A(s)]| + C|[A(r), A(s)]|²
≤ ½ ε_comm |r|_1 |s|_1 + C_BCH(r, s) ε_comm² |r|_1² |s|_1²`, constants `C`, `C_⋆` fixed before the
data, no smallness hypothesis, `log` the local logarithm of T0.11 (`mlogLocal`). Skew generators;
`Λ` in `C_BCH` read as `Σ_k |L_k|` (`lambdaOp`, equal to T6′.0's `Λ` in joint block form).
Refuted (no smallness hypothesis; T0.13's defect). -/
def BchQuantStatement : Prop :=
  ∃ C Cstar : ℝ, ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ r s : Fin dc → ℝ,
      opNorm (mlogLocal (rstr L r * rstr L s) - (genSum L r + genSum L s))
          ≤ (1 / 2) * opNorm (bracket (genSum L r) (genSum L s))
            + C * opNorm (bracket (genSum L r) (genSum L s)) ^ 2 ∧
      (1 / 2) * opNorm (bracket (genSum L r) (genSum L s))
            + C * opNorm (bracket (genSum L r) (genSum L s)) ^ 2
          ≤ (1 / 2) * epsComm L * vnorm1 r * vnorm1 s
            + cBCH Cstar (lambdaOp L) r s * epsComm L ^ 2 * vnorm1 r ^ 2 * vnorm1 s ^ 2

/-- **T6′.2.corrected** (espr-derivation): `|A(r)| + |A(s)| ≤ ½ ⇒
|log(e^{A(r)} e^{A(s)}) − (A(r) + A(s)) − ½[A(r), A(s)]| ≤ C (|A(r)| + |A(s)|) |[A(r), A(s)]|`,
with `C` fixed before the data (skew generators). -/
def BchQuantCorrectedStatement : Prop :=
  ∃ C : ℝ, ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ r s : Fin dc → ℝ, opNorm (genSum L r) + opNorm (genSum L s) ≤ 1 / 2 →
      opNorm (mlogLocal (rstr L r * rstr L s) - (genSum L r + genSum L s)
          - (1 / 2 : ℝ) • bracket (genSum L r) (genSum L s))
        ≤ C * (opNorm (genSum L r) + opNorm (genSum L s))
            * opNorm (bracket (genSum L r) (genSum L s))

/-- **T6′.2.corrected** (espr-derivation): local BCH with a third-order remainder. -/
theorem bch_quant_corrected : BchQuantCorrectedStatement := by
  sorry

/-- **T6′.3** (espr-derivation, Tier 6′): `R_STR(r)ᵀ R_STR(s) = e^{−A(r)} e^{A(s)}` (T1.6),
`A(s) − A(r) = A(s − r)` (T1.3), and the resulting estimate
`|R_STR(r)ᵀ R_STR(s) − R_STR(s − r)| ≤ C₁ ε_comm |r|_1 |s|_1 + C₂ ε_comm² |r|_1² |s|_1²` with `C₁`,
`C₂` fixed before the data, for skew generators. (The intermediate `log` steps, the chain of
T6′.2, are not restated: they are not globally defined.) -/
def RelApproxRstrStatement : Prop :=
  ∃ C1 C2 : ℝ, ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ r s : Fin dc → ℝ,
      (rstr L r)ᵀ * rstr L s = mexp (-genSum L r) * mexp (genSum L s) ∧
      genSum L s - genSum L r = genSum L (disp r s) ∧
      opNorm ((rstr L r)ᵀ * rstr L s - rstr L (disp r s))
        ≤ C1 * epsComm L * vnorm1 r * vnorm1 s
          + C2 * epsComm L ^ 2 * vnorm1 r ^ 2 * vnorm1 s ^ 2

/-- The algebraic steps of T6′.3: `R_STR(r)ᵀ = e^{−A(r)}` for skew generators, and
`A(s) − A(r) = A(s − r)`. -/
theorem rstr_transpose_mul_eq {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ)
    (hL : ∀ k, IsSkew (L k)) (r s : Fin dc → ℝ) :
    (rstr L r)ᵀ * rstr L s = mexp (-genSum L r) * mexp (genSum L s) ∧
      genSum L s - genSum L r = genSum L (disp r s) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `← mexp_transpose` and `genSum_sub` inside the displacement
  first
  | (refine ⟨?_, ?_⟩
     · have hskew : (genSum L r)ᵀ = -genSum L r := genSum_skew hL r
       unfold rstr
       rw [← mexp_transpose, hskew]
     · unfold disp
       rw [genSum_sub]
     done)
  | sorry

/-- **T6′.3** (espr-derivation): relative approximation of `R_STR` (holds with `C₁ = ½`, `C₂ = 0`). -/
theorem rel_approx_rstr : RelApproxRstrStatement := by
  sorry

/-! ## T6′.4 – T6′.6 -/

/-- **T6′.4** (espr-derivation, Tier 6′), as printed, for skew `S` (T6′.0):
`σ_min(I + S) ≥ σ_min(I) − |S| = 1 − ρ` and `|(I + S)⁻¹| = σ_min(I + S)⁻¹ ≤ (1 − ρ)⁻¹`, with no
hypothesis `ρ < 1` (`d_h ≥ 1`). Refuted (`S = 2J`). -/
def SigmaMinInvStatement : Prop :=
  ∀ (n : ℕ), 0 < n → ∀ S : Matrix (Fin n) (Fin n) ℝ, IsSkew S →
    sigmaMin (1 : Matrix (Fin n) (Fin n) ℝ) - opNorm S ≤ sigmaMin (1 + S) ∧
    sigmaMin (1 : Matrix (Fin n) (Fin n) ℝ) - opNorm S = 1 - opNorm S ∧
    opNorm ((1 + S)⁻¹) = (sigmaMin (1 + S))⁻¹ ∧
    (sigmaMin (1 + S))⁻¹ ≤ (1 - opNorm S)⁻¹

section L2Norm

attribute [local instance] Matrix.instL2OpNormedAddCommGroup Matrix.instL2OpNormedSpace

/-- `|I₂| = 1` (from the C*-identity `|IᵀI| = |I|²` and `I ≠ 0`). -/
theorem opNorm_one_fin_two : opNorm (1 : Matrix (Fin 2) (Fin 2) ℝ) = 1 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `nlinarith` deriving `‖1‖ = 1` from the C*-identity
  first
  | (unfold opNorm
     have h := Matrix.l2_opNorm_conjTranspose_mul_self (1 : Matrix (Fin 2) (Fin 2) ℝ)
     rw [Matrix.conjTranspose_one, Matrix.one_mul] at h
     have hpos : 0 < ‖(1 : Matrix (Fin 2) (Fin 2) ℝ)‖ := norm_pos_iff.mpr one_ne_zero
     nlinarith
     done)
  | sorry

/-- `|2J| = 2` (from `(2J)ᵀ(2J) = 4I` and the C*-identity). -/
theorem opNorm_two_J : opNorm ((2 : ℝ) • Jmat) = 2 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `fin_cases` + `norm_num` computing `(2J)ᴴ(2J) = 4I`, and the final `nlinarith`
  first
  | (have hJJ : ((2 : ℝ) • Jmat)ᴴ * ((2 : ℝ) • Jmat) = (4 : ℝ) • (1 : Matrix (Fin 2) (Fin 2) ℝ) := by
       ext i j
       fin_cases i <;> fin_cases j <;> norm_num [Jmat, Matrix.mul_apply, Fin.sum_univ_two]
       done
     have h := Matrix.l2_opNorm_conjTranspose_mul_self ((2 : ℝ) • Jmat)
     rw [hJJ, norm_smul] at h
     have h1 := opNorm_one_fin_two
     unfold opNorm at h1 ⊢
     rw [h1] at h
     have h4 : ‖(4 : ℝ)‖ = 4 := by
       rw [Real.norm_eq_abs]
       norm_num
       done
     rw [h4] at h
     have hnn : 0 ≤ ‖(2 : ℝ) • Jmat‖ := norm_nonneg _
     nlinarith
     done)
  | sorry

end L2Norm

/-- **T6′.4** refuted: `S = 2J` is skew with `ρ = |S| = 2`, so `(1 − ρ)⁻¹ = −1 < 0 ≤ σ_min(I + S)⁻¹`. -/
theorem not_sigma_min_inv : ¬ SigmaMinInvStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `Real.sInf_nonneg` and the evaluation of `(1 − 2)⁻¹` inside the hypothesis
  first
  | (intro h
     have hS : IsSkew ((2 : ℝ) • Jmat) := by
       unfold IsSkew Jmat
       ext i j
       fin_cases i <;> fin_cases j <;> norm_num
       done
     have h4 := (h 2 (by norm_num) ((2 : ℝ) • Jmat) hS).2.2.2
     rw [opNorm_two_J] at h4
     have hm : (1 - (2 : ℝ))⁻¹ = -1 := by
       norm_num
       done
     rw [hm] at h4
     have hσ : 0 ≤ sigmaMin (1 + (2 : ℝ) • Jmat) := by
       unfold sigmaMin
       apply Real.sInf_nonneg
       rintro t ⟨v, _, rfl⟩
       exact Real.sqrt_nonneg _
       done
     have hinv := inv_nonneg.mpr hσ
     linarith
     done)
  | sorry

/-- **T6′.4.corrected** (espr-derivation): for every square `S` with `|S| = ρ < 1` (`d_h ≥ 1`),
`σ_min(I + S) ≥ 1 − ρ > 0` and `|(I + S)⁻¹| = σ_min(I + S)⁻¹ ≤ (1 − ρ)⁻¹`. -/
def SigmaMinInvCorrectedStatement : Prop :=
  ∀ (n : ℕ), 0 < n → ∀ S : Matrix (Fin n) (Fin n) ℝ, opNorm S < 1 →
    1 - opNorm S ≤ sigmaMin (1 + S) ∧ 0 < 1 - opNorm S ∧
    opNorm ((1 + S)⁻¹) = (sigmaMin (1 + S))⁻¹ ∧
    (sigmaMin (1 + S))⁻¹ ≤ (1 - opNorm S)⁻¹

/-- **T6′.4.corrected** (espr-derivation). -/
theorem sigma_min_inv_corrected : SigmaMinInvCorrectedStatement := by
  sorry

/-- **T6′.5** (espr-derivation, Tier 6′), as printed, for skew `S₁`, `S₂` (T6′.0):
the split `P_sp(S₁) − P_sp(S₂) = (S₂ − S₁)(I + S₁)⁻¹ + (I − S₂)((I + S₂)⁻¹ − (I + S₁)⁻¹)`, the
resolvent identity `(I + S₂)⁻¹ − (I + S₁)⁻¹ = (I + S₂)⁻¹(S₁ − S₂)(I + S₁)⁻¹`, the Lipschitz bound
`|P_sp(S₁) − P_sp(S₂)| ≤ 2|S₁ − S₂| / (σ_min(I + S₁) σ_min(I + S₂))`, and for `S = S₋ + E` (T6′.0)
`|P_sp(S) − P_sp(S₋)| ≤ 2η/(1 − ρ)²` (no hypothesis `ρ < 1`). Refuted (wrong sign in the split). -/
def CayleyLipSplitStatement : Prop :=
  ∀ (n : ℕ) (S1 S2 : Matrix (Fin n) (Fin n) ℝ), IsSkew S1 → IsSkew S2 →
    (cayley S1 - cayley S2
        = (S2 - S1) * (1 + S1)⁻¹ + (1 - S2) * ((1 + S2)⁻¹ - (1 + S1)⁻¹)) ∧
    ((1 + S2)⁻¹ - (1 + S1)⁻¹ = (1 + S2)⁻¹ * (S1 - S2) * (1 + S1)⁻¹) ∧
    opNorm (cayley S1 - cayley S2)
        ≤ 2 * opNorm (S1 - S2) / (sigmaMin (1 + S1) * sigmaMin (1 + S2)) ∧
    (∀ S Sm E : Matrix (Fin n) (Fin n) ℝ, SkewSplitParam S Sm E →
      opNorm (cayley S - cayley Sm) ≤ 2 * opNorm E / (1 - opNorm S) ^ 2)

/-- `I + J` is invertible (`det = 2`). -/
theorem isUnit_det_one_add_J : IsUnit (1 + Jmat).det := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `Matrix.det_fin_two` with `norm_num` on the entries of `I + J`
  first
  | (rw [isUnit_iff_ne_zero, Matrix.det_fin_two]
     norm_num [Jmat, Matrix.one_apply]
     done)
  | sorry

/-- **T6′.5** refuted: with `S₁ = J`, `S₂ = 0` the printed split has right side `0` while
`P_sp(J) − I = −J − I ≠ 0`. -/
theorem not_cayley_lip_split : ¬ CayleyLipSplitStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: the matrix identities for `X = I + J` and the norm evaluation of the witness
  first
  | (intro h
     have hJ : IsSkew Jmat := by
       unfold IsSkew Jmat
       ext i j
       fin_cases i <;> fin_cases j <;> norm_num
       done
     have h0 : IsSkew (0 : Matrix (Fin 2) (Fin 2) ℝ) := by
       unfold IsSkew
       rw [Matrix.transpose_zero, neg_zero]
       done
     have hsplit := (h 2 Jmat 0 hJ h0).1
     have hu := isUnit_det_one_add_J
     have hc0 : cayley (0 : Matrix (Fin 2) (Fin 2) ℝ) = 1 := by
       unfold cayley
       rw [sub_zero, add_zero, Matrix.inv_one, Matrix.one_mul]
       done
     -- right side: `-J X⁻¹ + (1 - X⁻¹) = 0` because `X⁻¹ + J X⁻¹ = X X⁻¹ = 1`, `X = I + J`
     have hrhs : ((0 : Matrix (Fin 2) (Fin 2) ℝ) - Jmat) * (1 + Jmat)⁻¹
         + (1 - 0) * ((1 + 0)⁻¹ - (1 + Jmat)⁻¹) = 0 := by
       have hX : (1 + Jmat) * (1 + Jmat)⁻¹ = 1 := Matrix.mul_nonsing_inv _ hu
       rw [add_mul, Matrix.one_mul] at hX
       rw [sub_zero, add_zero, Matrix.inv_one, Matrix.one_mul, zero_sub, Matrix.neg_mul]
       calc -(Jmat * (1 + Jmat)⁻¹) + (1 - (1 + Jmat)⁻¹)
           = -(Jmat * (1 + Jmat)⁻¹)
               + (((1 + Jmat)⁻¹ + Jmat * (1 + Jmat)⁻¹) - (1 + Jmat)⁻¹) := by (rw [hX]; done)
         _ = 0 := by (abel; done)
       done
     rw [hrhs, hc0, sub_eq_zero] at hsplit
     -- `cayley J = 1` forces `1 - J = 1 + J`, i.e. `J = 0`
     have e : cayley Jmat * (1 + Jmat) = 1 * (1 + Jmat) := by (rw [hsplit]; done)
     unfold cayley at e
     rw [Matrix.mul_assoc, Matrix.nonsing_inv_mul _ hu, Matrix.mul_one, Matrix.one_mul] at e
     have h3 := congrFun (congrFun e 0) 1
     norm_num [Jmat, Matrix.one_apply] at h3
     done)
  | sorry

/-- **T6′.5.corrected** (espr-derivation): for skew `S₁` with `ρ = |S₁| < 1` and skew `S₂`:
`P_sp(S₁) − P_sp(S₂) = (S₂ − S₁)(I + S₁)⁻¹ + (I − S₂)((I + S₁)⁻¹ − (I + S₂)⁻¹)
= 2(I + S₁)⁻¹(S₂ − S₁)(I + S₂)⁻¹`, `|P_sp(S₁) − P_sp(S₂)| ≤ 2|S₁ − S₂|/(σ_min(I + S₁) σ_min(I + S₂))`,
and with `S = S₁ = S₋ + E`, `S₋ = S₂`: `|P_sp(S) − P_sp(S₋)| ≤ 2η ≤ 2η/(1 − ρ)²` (`d_h ≥ 1`). -/
def CayleyLipSplitCorrectedStatement : Prop :=
  ∀ (n : ℕ), 0 < n → ∀ S1 S2 : Matrix (Fin n) (Fin n) ℝ, IsSkew S1 → IsSkew S2 →
    opNorm S1 < 1 →
    (cayley S1 - cayley S2
        = (S2 - S1) * (1 + S1)⁻¹ + (1 - S2) * ((1 + S1)⁻¹ - (1 + S2)⁻¹)) ∧
    (cayley S1 - cayley S2 = (2 : ℝ) • ((1 + S1)⁻¹ * (S2 - S1) * (1 + S2)⁻¹)) ∧
    opNorm (cayley S1 - cayley S2)
        ≤ 2 * opNorm (S1 - S2) / (sigmaMin (1 + S1) * sigmaMin (1 + S2)) ∧
    opNorm (cayley S1 - cayley S2) ≤ 2 * opNorm (S1 - S2) ∧
    2 * opNorm (S1 - S2) ≤ 2 * opNorm (S1 - S2) / (1 - opNorm S1) ^ 2

/-- The corrected split of T6′.5 is an identity whenever `I + S₁`, `I + S₂` are invertible. -/
theorem cayley_split_corrected {n : ℕ} (S1 S2 : Matrix (Fin n) (Fin n) ℝ)
    (h1 : IsUnit (1 + S1).det) (h2 : IsUnit (1 + S2).det) :
    cayley S1 - cayley S2
      = (S2 - S1) * (1 + S1)⁻¹ + (1 - S2) * ((1 + S1)⁻¹ - (1 + S2)⁻¹) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `abel` closing the expanded Cayley difference
  first
  | (unfold cayley
     have e1 : (1 - S1) = (1 - S2) + (S2 - S1) := by (abel; done)
     rw [e1, add_mul, mul_sub]
     abel
     done)
  | sorry

/-- **T6′.5.corrected** (espr-derivation). The two identities are `cayley_split_corrected` and
`cayley_sub_cayley` (given invertibility, which holds for skew `S`, T3.1). -/
theorem cayley_lip_split_corrected : CayleyLipSplitCorrectedStatement := by
  sorry

/-- **T6′.6** (espr-derivation, Tier 6′, Neumann): `|S| = ρ < 1 ⇒ (I + S)⁻¹ = Σ_{t≥0} (−S)^t` and
`P_sp(S) = (I − S) Σ_{t≥0} (−S)^t = I − 2 Σ_{u≥1} (−1)^{u−1} S^u` (series summable). -/
def NeumannStatement : Prop :=
  ∀ (n : ℕ) (S : Matrix (Fin n) (Fin n) ℝ), opNorm S < 1 →
    HasSum (fun t : ℕ => (-S) ^ t) ((1 + S)⁻¹) ∧
    cayley S = (1 - S) * ∑' t : ℕ, (-S) ^ t ∧
    HasSum (fun u : ℕ => ((-1 : ℝ) ^ u) • S ^ (u + 1)) ((1 / 2 : ℝ) • (1 - cayley S))

section L2NormRing

attribute [local instance] Matrix.instL2OpNormedAddCommGroup Matrix.instL2OpNormedSpace
  Matrix.instL2OpNormedRing

/-- **T6′.6** (espr-derivation): the Neumann series of the Cayley transform (geometric series in
the Banach algebra of matrices with the operator norm of T0.9). -/
theorem neumann : NeumannStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `hasSum_geom_series_inverse` and `Matrix.nonsing_inv_eq_ringInverse` under the L² operator norm
  first
  | (intro n S hS
     have hS' : ‖-S‖ < 1 := by
       rw [norm_neg]
       exact hS
       done
     have hsum := hasSum_geom_series_inverse (-S) hS'
     rw [sub_neg_eq_add, ← Matrix.nonsing_inv_eq_ringInverse] at hsum
     have hunit : IsUnit (1 + S) := by
       have h := isUnit_one_sub_of_norm_lt_one hS'
       rw [sub_neg_eq_add] at h
       exact h
       done
     have hdet : IsUnit (1 + S).det := (Matrix.isUnit_iff_isUnit_det _).mp hunit
     refine ⟨hsum, ?_, ?_⟩
     · unfold cayley
       rw [hsum.tsum_eq]
     · have hX : (1 + S) * (1 + S)⁻¹ = 1 := Matrix.mul_nonsing_inv _ hdet
       rw [add_mul, Matrix.one_mul] at hX
       have e3 : S * (1 + S)⁻¹ = 1 - (1 + S)⁻¹ := eq_sub_of_add_eq' hX
       have e1 : (1 / 2 : ℝ) • (1 - cayley S) = S * (1 + S)⁻¹ := by
         rw [cayley_eq_two_inv_sub_one S hdet, e3]
         module
         done
       have hf : (fun u : ℕ => ((-1 : ℝ) ^ u) • S ^ (u + 1)) = (fun i : ℕ => S * (-S) ^ i) := by
         funext u
         rw [← neg_one_smul ℝ S, smul_pow, Matrix.mul_smul, ← pow_succ']
         done
       rw [hf, e1]
       exact hsum.mul_left S
     done)
  | sorry

end L2NormRing

/-! ## T6′.7 – T6′.9 -/

/-- **T6′.7** (espr-derivation, Tier 6′, QuadMix): in the pure-mix model (`S` skew,
`Π_act S Π_act = 0`, `ρ = |S| < 1`, `η = |Π_act S Π_null + Π_null S Π_act|`, `U ∈ O(d_h)`):
`Π_act S² Π_act = (Π_act S Π_null)(Π_null S Π_act)`, `|Π_act S² Π_act| ≤ η²`,
`Π_act P_sp(S) Π_act − Π_act = −2 Σ_{u≥1} (−1)^{u−1} Π_act S^u Π_act = −2 Σ_{u≥2} (−1)^{u−1} Π_act S^u Π_act`,
and `|Π_act P_sp(S) Π_act − Π_act| ≤ 2 Σ_{u≥2} |Π_act S^u Π_act| ≤ 2 Σ_{u≥2} ρ^{u−2} |Π_act S² Π_act|
≤ 2η²/(1 − ρ) ≤ 2η²/(1 − ρ)³`. (`S_null = Π_null S Π_null` is a name only.) -/
def QuadMixStatement : Prop :=
  ∀ (m dnull : ℕ) (U S : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    IsOrth U → IsSkew S → piAct U * S * piAct U = 0 → opNorm S < 1 →
    let Pa := piAct U
    let Pn := piNull U
    let ρ := opNorm S
    let η := opNorm (Pa * S * Pn + Pn * S * Pa)
    Pa * S ^ 2 * Pa = (Pa * S * Pn) * (Pn * S * Pa) ∧
    opNorm (Pa * S ^ 2 * Pa) ≤ η ^ 2 ∧
    Pa * cayley S * Pa - Pa = (-2 : ℝ) • ∑' u : ℕ, ((-1 : ℝ) ^ u) • (Pa * S ^ (u + 1) * Pa) ∧
    Pa * cayley S * Pa - Pa = (-2 : ℝ) • ∑' u : ℕ, ((-1 : ℝ) ^ (u + 1)) • (Pa * S ^ (u + 2) * Pa) ∧
    opNorm (Pa * cayley S * Pa - Pa) ≤ 2 * ∑' u : ℕ, opNorm (Pa * S ^ (u + 2) * Pa) ∧
    2 * ∑' u : ℕ, opNorm (Pa * S ^ (u + 2) * Pa) ≤ 2 * ∑' u : ℕ, ρ ^ u * opNorm (Pa * S ^ 2 * Pa) ∧
    2 * ∑' u : ℕ, ρ ^ u * opNorm (Pa * S ^ 2 * Pa) ≤ 2 / (1 - ρ) * η ^ 2 ∧
    2 / (1 - ρ) * η ^ 2 ≤ 2 / (1 - ρ) ^ 3 * η ^ 2

/-- **T6′.7** (espr-derivation): quadratic control of the active block in the pure-mix model. -/
theorem quad_mix : QuadMixStatement := by
  sorry

/-- **T6′.8** (espr-derivation, Tier 6′), as printed: `P_sp = U [[A, B], [C, D]] Uᵀ ∈ SO(d_h)` gives
`AᵀA + CᵀC = I`, `AAᵀ + BBᵀ = I`, `|A − I| ≤ 2 max{|B|, |C|} = 2η_mix` and hence
`|Π_act P_sp Π_act − Π_act| ≤ 2η_mix` (`η_mix` of T6′.0). Refuted (`A` a rotation, `B = C = 0`). -/
def MixModelFreeStatement : Prop :=
  ∀ (m dnull : ℕ) (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    IsOrth U → IsSO P →
      (blkA U P)ᵀ * blkA U P + (blkC U P)ᵀ * blkC U P = 1 ∧
      blkA U P * (blkA U P)ᵀ + blkB U P * (blkB U P)ᵀ = 1 ∧
      opNorm (blkA U P - 1) ≤ 2 * max (opNorm (blkB U P)) (opNorm (blkC U P)) ∧
      2 * max (opNorm (blkB U P)) (opNorm (blkC U P)) = 2 * etaMixMax U P ∧
      opNorm (piAct U * P * piAct U - piAct U) ≤ 2 * etaMixMax U P

/-- **T6′.8** refuted: with the witness of T5.8 (`P_sp = diag(−I₂, 1)`, `U = I`), `B = C = 0` but
`|A − I| = |−2 I₂| > 0 = 2 max{|B|, |C|}`. -/
theorem not_mix_model_free : ¬ MixModelFreeStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: rewriting the instantiated hypothesis through the witness lemmas and `max_self`
  first
  | (intro hstmt
     have h := (hstmt 1 1 1 witnessP isOrth_one_three witnessP_isSO).2.2.1
     rw [blkA_witness, blkB_witness, blkC_witness, opNorm_zero_matrix, opNorm_zero_matrix,
       max_self, mul_zero] at h
     exact absurd h (not_le.mpr (opNorm_pos_of_ne_zero neg_one_sub_one_ne_zero))
     done)
  | sorry

/-- **T6′.8.corrected** (espr-derivation): `P_sp = U [[A, B], [C, D]] Uᵀ ∈ SO(d_h)` gives
`AᵀA + CᵀC = I`, hence `σ_max(A) ≤ 1`, `1 − σ_min(A) ≤ |C|² ≤ η_mix²`, and
`|Π_act P_sp Π_act − Π_act| = |A − I| ≤ dist_F(P_sp, 𝓐)`. -/
def MixModelFreeCorrectedStatement : Prop :=
  ∀ (m dnull : ℕ) (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    IsOrth U → IsSO P →
      (blkA U P)ᵀ * blkA U P + (blkC U P)ᵀ * blkC U P = 1 ∧
      opNorm (blkA U P) ≤ 1 ∧
      1 - sigmaMin (blkA U P) ≤ opNorm (blkC U P) ^ 2 ∧
      opNorm (blkC U P) ^ 2 ≤ etaMixMax U P ^ 2 ∧
      opNorm (piAct U * P * piAct U - piAct U) = opNorm (blkA U P - 1) ∧
      opNorm (blkA U P - 1) ≤ distToPostA U P

/-- **T6′.8.corrected** (espr-derivation). The first relation is `blk_orth_relation`. -/
theorem mix_model_free_corrected : MixModelFreeCorrectedStatement := by
  sorry

/-- **T6′.9** (espr-derivation, Tier 6′), as printed: for generators in joint block form,
`P_sp ∈ SO(d_h)` and every `r`,
`Π_act R_sp(r) Π_act − Π_act R_STR(r) Π_act = Π_act R_STR(r)(P_sp − Π_act − Π_null) Π_act`,
`|…| ≤ |P_sp − Π_act − Π_null| ≤ δ_mix` with `δ_mix = 2η_mix` (model-free) and
`δ_mix = 2η²/(1 − ρ)³` when `P_sp = cayley(S)` in the pure-mix model (ESPR/Cayley). Refuted
(`|P_sp − I| > 0` on `𝓐`). -/
def RobRspActStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → IsSO P → ∀ r : Fin dc → ℝ,
      piAct U * rsp L r P * piAct U - piAct U * rstr L r * piAct U
          = piAct U * rstr L r * (P - piAct U - piNull U) * piAct U ∧
      opNorm (piAct U * rsp L r P * piAct U - piAct U * rstr L r * piAct U)
          ≤ opNorm (P - piAct U - piNull U) ∧
      opNorm (P - piAct U - piNull U) ≤ 2 * etaMixMax U P ∧
      (∀ S : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ, IsSkew S →
        piAct U * S * piAct U = 0 → opNorm S < 1 → P = cayley S →
        opNorm (P - piAct U - piNull U)
          ≤ 2 / (1 - opNorm S) ^ 3 * opNorm (piAct U * S * piNull U + piNull U * S * piAct U) ^ 2)

/-- `η_mix = 0` (T6′.0's max form) for the witness `P_sp = diag(−I₂, 1)`, `U = I`. -/
theorem etaMixMax_witness :
    etaMixMax (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) witnessP = 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `simp only` reducing the projector products of the witness to zero
  first
  | (unfold etaMixMax witnessP
     simp only [piAct_one_eq, piNull_one_eq, dsum_mul, zero_mul, mul_zero, one_mul, mul_one,
       dsum_zero, opNorm_zero_matrix, max_self]
     done)
  | sorry

/-- **T6′.9** refuted (model-free case): for the witness of T5.9 (`P_sp = diag(−I₂, 1)`, `U = I`,
empty generator family) `η_mix = 0` while `|P_sp − Π_act − Π_null| = |diag(−2 I₂, 0)| > 0`. -/
theorem not_rob_rsp_act : ¬ RobRspActStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: instantiating at the empty family and rewriting `etaMixMax_witness`
  first
  | (intro hstmt
     have h := (hstmt 1 1 0 _ 1 witnessP _ emptyFamily_blockForm witnessP_isSO
       (fun k => k.elim0)).2.2.1
     rw [etaMixMax_witness, mul_zero] at h
     exact absurd h (not_le.mpr (opNorm_pos_of_ne_zero witnessP_sub_projectors_ne_zero))
     done)
  | sorry

/-- **T6′.9.corrected** (espr-derivation): for generators in joint block form and `P_sp ∈ SO(d_h)`,
`Π_act R_sp(r) Π_act − Π_act R_STR(r) Π_act = R_STR(r)(Π_act P_sp Π_act − Π_act)`, its norm is
`|Π_act P_sp Π_act − Π_act|`, which is `≤ 2η²/(1 − ρ) ≤ 2η²/(1 − ρ)³` in the pure-mix Cayley model
(`ρ < 1`) and `≤ dist_F(P_sp, 𝓐)` in general. -/
def RobRspActCorrectedStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → IsSO P → ∀ r : Fin dc → ℝ,
      piAct U * rsp L r P * piAct U - piAct U * rstr L r * piAct U
          = rstr L r * (piAct U * P * piAct U - piAct U) ∧
      opNorm (piAct U * rsp L r P * piAct U - piAct U * rstr L r * piAct U)
          = opNorm (piAct U * P * piAct U - piAct U) ∧
      opNorm (piAct U * P * piAct U - piAct U) ≤ distToPostA U P ∧
      (∀ S : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ, IsSkew S →
        piAct U * S * piAct U = 0 → opNorm S < 1 → P = cayley S →
        opNorm (piAct U * P * piAct U - piAct U)
            ≤ 2 * opNorm (piAct U * S * piNull U + piNull U * S * piAct U) ^ 2 / (1 - opNorm S) ∧
        2 * opNorm (piAct U * S * piNull U + piNull U * S * piAct U) ^ 2 / (1 - opNorm S)
            ≤ 2 * opNorm (piAct U * S * piNull U + piNull U * S * piAct U) ^ 2
              / (1 - opNorm S) ^ 3)

/-- **T6′.9.corrected** (espr-derivation). -/
theorem rob_rsp_act_corrected : RobRspActCorrectedStatement := by
  sorry

/-! ## T6′.10, T6′.11 -/

/-- **T6′.10** (espr-derivation, Tier 6′), as printed: (i) `α_ij = (1/√(2m)) (q_i^(act))ᵀ Π_act
R_sp(r_i)ᵀ R_sp(r_j) Π_act k_j^(act)` (no middle `Π_act`), `α*_ij` its relative form (`alphaStar`), and
(ii) `|α_ij − α*_ij| ≤ |q_i^(act)| |k_j^(act)| (C₁ ε_comm |r_i|_1|r_j|_1 + C₂ ε_comm² |r_i|_1²|r_j|_1² +
δ_mix)` with `δ_mix` of T6′.9 in both cases (model-free `2η_mix`; pure-mix Cayley
`2η²/(1 − ρ)³`), `C₁`, `C₂` fixed before the data; skew generators, `Π_act` from an orthogonal basis
`U`, `P_sp ∈ SO(d_h)`. The middle inequality, printed with a placeholder argument `(·)`, is not
formalised. Refuted. -/
def LogitErrStatement : Prop :=
  ∃ C1 C2 : ℝ, ∀ (m dnull dc : ℕ)
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    (∀ k, IsSkew (L k)) → IsOrth U → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      alphaLogit L U P q k ri rj
          = (1 / Real.sqrt (2 * m)) * (actPart (piAct U) q ⬝ᵥ
              ((piAct U * (rsp L ri P)ᵀ * rsp L rj P * piAct U) *ᵥ actPart (piAct U) k)) ∧
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
          ≤ vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k)
            * (C1 * epsComm L * vnorm1 ri * vnorm1 rj
              + C2 * epsComm L ^ 2 * vnorm1 ri ^ 2 * vnorm1 rj ^ 2 + 2 * etaMixMax U P) ∧
      (∀ S : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ, IsSkew S →
        piAct U * S * piAct U = 0 → opNorm S < 1 → P = cayley S →
        |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
          ≤ vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k)
            * (C1 * epsComm L * vnorm1 ri * vnorm1 rj
              + C2 * epsComm L ^ 2 * vnorm1 ri ^ 2 * vnorm1 rj ^ 2
              + 2 / (1 - opNorm S) ^ 3
                * opNorm (piAct U * S * piNull U + piNull U * S * piAct U) ^ 2))

/-- **T6′.10.corrected** (espr-derivation): for generators in joint block form, `P_sp ∈ SO(d_h)`,
`M = Π_act P_sp Π_act`:
`α_ij − α*_ij = (1/√(2m)) (q_i^(act))ᵀ (Mᵀ R_STR(r_j − r_i) M − Π_act R_STR(r_j − r_i) Π_act) k_j^(act)`,
`|α_ij − α*_ij| ≤ (2/√(2m)) |q_i^(act)| |k_j^(act)| |Π_act P_sp Π_act − Π_act|
≤ (2/√(2m)) |q_i^(act)| |k_j^(act)| dist_F(P_sp, 𝓐)`. -/
def LogitErrCorrectedStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      let Pa := piAct U
      let M := Pa * P * Pa
      alphaLogit L U P q k ri rj - alphaStar L U q k ri rj
          = (1 / Real.sqrt (2 * m)) * (actPart Pa q ⬝ᵥ
              ((Mᵀ * rstr L (disp ri rj) * M - Pa * rstr L (disp ri rj) * Pa) *ᵥ actPart Pa k)) ∧
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
          ≤ 2 / Real.sqrt (2 * m) * vnorm (actPart Pa q) * vnorm (actPart Pa k)
            * opNorm (M - Pa) ∧
      2 / Real.sqrt (2 * m) * vnorm (actPart Pa q) * vnorm (actPart Pa k) * opNorm (M - Pa)
          ≤ 2 / Real.sqrt (2 * m) * vnorm (actPart Pa q) * vnorm (actPart Pa k)
            * distToPostA U P

/-- **T6′.10.corrected** (espr-derivation). -/
theorem logit_err_corrected : LogitErrCorrectedStatement := by
  sorry

/-- **T6′.11** (espr-derivation, Tier 6′, Rob theorem), as printed:
`|α_ij − α*_ij| ≤ (½ + C_BCH(r_i, r_j)) ε_comm |r_i|_1 |r_j|_1 |q_i^(act)| |k_j^(act)|
+ C_mix δ_mix |q_i^(act)| |k_j^(act)|` with `C_mix = 1`, `δ_mix = η_mix` (model-free) and
`C_mix = 2/(1 − ρ)³`, `δ_mix = η²` (pure-mix Cayley). `C_⋆` (in `C_BCH`) fixed before the data;
`Λ` read as `Σ_k |L_k|`; skew generators, `Π_act` from an orthogonal basis `U`,
`P_sp ∈ SO(d_h)`. Refuted in both cases. -/
def RobTheoremStatement : Prop :=
  ∃ Cstar : ℝ, ∀ (m dnull dc : ℕ)
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    (∀ k, IsSkew (L k)) → IsOrth U → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
          ≤ (1 / 2 + cBCH Cstar (lambdaOp L) ri rj) * epsComm L * vnorm1 ri * vnorm1 rj
              * vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k)
            + 1 * etaMixMax U P * vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k) ∧
      (∀ S : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ, IsSkew S →
        piAct U * S * piAct U = 0 → opNorm S < 1 → P = cayley S →
        |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
          ≤ (1 / 2 + cBCH Cstar (lambdaOp L) ri rj) * epsComm L * vnorm1 ri * vnorm1 rj
              * vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k)
            + 2 / (1 - opNorm S) ^ 3
              * opNorm (piAct U * S * piNull U + piNull U * S * piAct U) ^ 2
              * vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k))

/-- **T6′.11.corrected** (espr-derivation): `L_k = L_k⁰ + ε₀ E_k` (`L⁰` commuting skew in joint block
form, which defines `Π_act`, `Π_null`; `E_k` skew, `|E_k| ≤ 1`, `ε₀ ≥ 0`), `P_sp ∈ SO(d_h)`,
`a = |Π_act P_sp Π_act − Π_act|`, `c = |Π_null P_sp Π_act|`, `e_i = ε₀|r_i|_1`, `e_j = ε₀|r_j|_1`,
`e_Δ = ε₀|r_j − r_i|_1` ⇒ `|α_ij − α*_ij| ≤ (|q_i^(act)| |k_j^(act)|/√(2m))
(½|[A(r_i), A(r_j)]| + 2a + 2e_Δ c + c² + (e_i + c)(e_j + c))`, `|[A(r_i), A(r_j)]| ≤ ε_comm |r_i|_1 |r_j|_1`,
and `c ≤ η_mix`. -/
def RobTheoremCorrectedStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L L0 E : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ)
    (ε0 : ℝ),
    (∀ k, L k = L0 k + ε0 • E k) → IsCommutingSkewFamily L0 → HasJointBlockForm L0 U lam →
    (∀ k, IsSkew (E k)) → (∀ k, opNorm (E k) ≤ 1) → 0 ≤ ε0 → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      let a := opNorm (piAct U * P * piAct U - piAct U)
      let c := opNorm (piNull U * P * piAct U)
      let ei := ε0 * vnorm1 ri
      let ej := ε0 * vnorm1 rj
      let eD := ε0 * vnorm1 (disp ri rj)
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
          ≤ vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k) / Real.sqrt (2 * m)
            * ((1 / 2) * opNorm (bracket (genSum L ri) (genSum L rj)) + 2 * a + 2 * eD * c
              + c ^ 2 + (ei + c) * (ej + c)) ∧
      opNorm (bracket (genSum L ri) (genSum L rj)) ≤ epsComm L * vnorm1 ri * vnorm1 rj ∧
      c ≤ etaMixMax U P

/-- **T6′.11.corrected** (espr-derivation): robustness with explicit constants. -/
theorem rob_theorem_corrected : RobTheoremCorrectedStatement := by
  sorry

end

end Pyverify.Espr
