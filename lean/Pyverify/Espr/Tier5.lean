import Mathlib
import Pyverify.Espr.Defs
import Pyverify.Espr.DefsLate

/-!
# ESPR derivation, Tier 5: stability estimates

Statements of T5.1–T5.10 and of the corrections T5.7.corrected, T5.8.corrected,
T5.9.corrected (registry `claims/espr-derivation/tier5.yaml`). Norms are those of **T0.9**
(`opNorm`, `vnorm`, `vnorm1` of `Pyverify.Espr.Defs`); a hidden constant of **T0.12** is
quantified before the data it bounds.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-! ## Algebra of the Cayley transform (used by T5.7.corrected and T6′.5.corrected) -/

/-- `P_sp(S) = 2 (I + S)⁻¹ − I` whenever `I + S` is invertible. -/
theorem cayley_eq_two_inv_sub_one {n : ℕ} (S : Matrix (Fin n) (Fin n) ℝ)
    (h : IsUnit (1 + S).det) : cayley S = (2 : ℝ) • (1 + S)⁻¹ - 1 := by
  unfold cayley
  have h1 : (1 - S) = (2 : ℝ) • (1 : Matrix (Fin n) (Fin n) ℝ) - (1 + S) := by
    rw [two_smul]
    abel
  rw [h1, sub_mul, Matrix.mul_nonsing_inv _ h, smul_mul_assoc, one_mul]

/-- `X⁻¹ (Y − X) Y⁻¹ = X⁻¹ − Y⁻¹` for invertible `X = I + S₁`, `Y = I + S₂`. -/
theorem inv_mul_sub_mul_inv {n : ℕ} (S1 S2 : Matrix (Fin n) (Fin n) ℝ)
    (h1 : IsUnit (1 + S1).det) (h2 : IsUnit (1 + S2).det) :
    (1 + S1)⁻¹ * (S2 - S1) * (1 + S2)⁻¹ = (1 + S1)⁻¹ - (1 + S2)⁻¹ := by
  have e : S2 - S1 = (1 + S2) - (1 + S1) := by (abel; done)
  rw [e, mul_sub, sub_mul, Matrix.nonsing_inv_mul _ h1, one_mul, mul_assoc,
    Matrix.mul_nonsing_inv _ h2, mul_one]

/-- `P_sp(S₁) − P_sp(S₂) = 2 (I + S₁)⁻¹ (S₂ − S₁) (I + S₂)⁻¹` for invertible `I + S₁`, `I + S₂`. -/
theorem cayley_sub_cayley {n : ℕ} (S1 S2 : Matrix (Fin n) (Fin n) ℝ)
    (h1 : IsUnit (1 + S1).det) (h2 : IsUnit (1 + S2).det) :
    cayley S1 - cayley S2 = (2 : ℝ) • ((1 + S1)⁻¹ * (S2 - S1) * (1 + S2)⁻¹) := by
  rw [cayley_eq_two_inv_sub_one S1 h1, cayley_eq_two_inv_sub_one S2 h2,
    inv_mul_sub_mul_inv S1 S2 h1 h2, smul_sub]
  abel

/-! ## T5.1 -/

/-- **T5.1** (espr-derivation, Tier 5): with `ε_ab = |[L_a, L_b]|` and `ε = max_{a,b} ε_ab`,
`|[A(r), A(s)]| ≤ Σ_{a,b} |r_a| |s_b| ε_ab ≤ |r|_1 |s|_1 ε`, for skew-symmetric (not necessarily
commuting) generators, the setting of Tier 5. -/
def CommutatorBoundStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ r s : Fin dc → ℝ,
      opNorm (bracket (genSum L r) (genSum L s)) ≤ ∑ a, ∑ b, |r a| * |s b| * epsAB L a b ∧
      ∑ a, ∑ b, |r a| * |s b| * epsAB L a b ≤ vnorm1 r * vnorm1 s * epsComm L

/-- Bilinear expansion `[A(r), A(s)] = Σ_{a,b} r_a s_b [L_a, L_b]`. -/
theorem bracket_genSum_expand {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ)
    (r s : Fin dc → ℝ) :
    bracket (genSum L r) (genSum L s) = ∑ a, ∑ b, (r a * s b) • bracket (L a) (L b) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: the order in which `rw [Matrix.smul_mul, Matrix.mul_smul, smul_smul, ...]` meets the scalar products
  first
  | (unfold bracket genSum
     have h1 : (∑ a, r a • L a) * (∑ b, s b • L b) = ∑ a, ∑ b, (r a • L a) * (s b • L b) := by
       rw [Finset.sum_mul]
       refine Finset.sum_congr rfl fun a _ => ?_
       rw [Finset.mul_sum]
       done
     have h2 : (∑ b, s b • L b) * (∑ a, r a • L a) = ∑ a, ∑ b, (s b • L b) * (r a • L a) := by
       rw [Finset.mul_sum]
       refine Finset.sum_congr rfl fun a _ => ?_
       rw [Finset.sum_mul]
       done
     rw [h1, h2, ← Finset.sum_sub_distrib]
     refine Finset.sum_congr rfl fun a _ => ?_
     rw [← Finset.sum_sub_distrib]
     refine Finset.sum_congr rfl fun b _ => ?_
     rw [Matrix.smul_mul, Matrix.mul_smul, Matrix.smul_mul, Matrix.mul_smul, smul_smul, smul_smul,
       mul_comm (s b) (r a), ← smul_sub]
     done)
  | sorry

section L2Norm

attribute [local instance] Matrix.instL2OpNormedAddCommGroup Matrix.instL2OpNormedSpace

/-- **T5.1** (espr-derivation): the commutator bound. -/
theorem commutator_bound : CommutatorBoundStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `le_ciSup` on the finite double supremum, and `norm_smul`/`abs_mul` inside the nested `Finset.sum_congr`
  first
  | (intro n dc L _ r s
     have hb : ∀ a b, epsAB L a b ≤ epsComm L := by
       intro a b
       have hfin : ∀ a', BddAbove (Set.range fun b' => epsAB L a' b') :=
         fun a' => (Set.finite_range _).bddAbove
       have hfin2 : BddAbove (Set.range fun a' => ⨆ b', epsAB L a' b') :=
         (Set.finite_range _).bddAbove
       exact le_trans (le_ciSup (hfin a) b) (le_ciSup hfin2 a)
       done
     refine ⟨?_, ?_⟩
     · rw [bracket_genSum_expand]
       unfold epsAB opNorm
       calc ‖∑ a, ∑ b, (r a * s b) • bracket (L a) (L b)‖
           ≤ ∑ a, ‖∑ b, (r a * s b) • bracket (L a) (L b)‖ := norm_sum_le _ _
         _ ≤ ∑ a, ∑ b, ‖(r a * s b) • bracket (L a) (L b)‖ :=
             Finset.sum_le_sum fun a _ => norm_sum_le _ _
         _ = ∑ a, ∑ b, |r a| * |s b| * ‖bracket (L a) (L b)‖ := by
             refine Finset.sum_congr rfl fun a _ => Finset.sum_congr rfl fun b _ => ?_
             rw [norm_smul, Real.norm_eq_abs, abs_mul]
             done
     · unfold vnorm1
       rw [Finset.sum_mul, Finset.sum_mul]
       refine Finset.sum_le_sum fun a _ => ?_
       rw [Finset.mul_sum, Finset.sum_mul]
       refine Finset.sum_le_sum fun b _ => ?_
       exact mul_le_mul_of_nonneg_left (hb a b) (mul_nonneg (abs_nonneg _) (abs_nonneg _))
     done)
  | sorry

/-- `|−(Cᵀ C)| = |C|²` for the operator norm (the C*-identity). -/
theorem opNorm_neg_transpose_mul_self {a b : ℕ} (C : Matrix (Fin a) (Fin b) ℝ) :
    opNorm (-(Cᵀ * C)) = opNorm C ^ 2 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `← Matrix.conjTranspose_eq_transpose_of_trivial` inside the L² operator norm: whether `Cᵀ` is found in that form
  first
  | (unfold opNorm
     rw [norm_neg, ← Matrix.conjTranspose_eq_transpose_of_trivial,
       Matrix.l2_opNorm_conjTranspose_mul_self, sq]
     done)
  | sorry

end L2Norm

/-! ## T5.2 -/

/-- **T5.2** (espr-derivation, Tier 5), as printed:
`|log(exp(A(r)) exp(A(s))) − (A(r) + A(s))| ≤ ½ |[A(r), A(s)]| + C |[A(r), A(s)]|²` with a constant
`C` (T0.12, quantified before the data) and no smallness hypothesis. `log` is the local logarithm
of **T0.11** (`mlogLocal`, the Mercator series). Refuted in the registry (no uniform `C`, even
locally). -/
def BchErrorStatement : Prop :=
  ∃ C : ℝ, ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ r s : Fin dc → ℝ,
      opNorm (mlogLocal (rstr L r * rstr L s) - (genSum L r + genSum L s))
        ≤ (1 / 2) * opNorm (bracket (genSum L r) (genSum L s))
          + C * opNorm (bracket (genSum L r) (genSum L s)) ^ 2

/-! ## T5.3 -/

/-- **T5.3** (espr-derivation, Tier 5): `|R_STR(r)ᵀ R_STR(s) − R_STR(s − r)| ≤ C ε |r|_1 |s|_1 + O(ε²)`
(displacement `s − r`), read with constants `C`, `C₂` (T0.12) fixed before the data:
`≤ C ε |r|_1 |s|_1 + C₂ ε²`, for skew-symmetric generators. -/
def RstrRelApproxStatement : Prop :=
  ∃ C C2 : ℝ, ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), (∀ k, IsSkew (L k)) →
    ∀ r s : Fin dc → ℝ,
      opNorm ((rstr L r)ᵀ * rstr L s - rstr L (disp r s))
        ≤ C * epsComm L * vnorm1 r * vnorm1 s + C2 * epsComm L ^ 2

/-- **T5.3** (espr-derivation): holds with `C = 1/2`, `C₂ = 0` (T5.3.half). -/
theorem rstr_rel_approx : RstrRelApproxStatement := by
  sorry

/-! ## T5.4 – T5.7 -/

/-- **T5.4** (espr-derivation, Tier 5), a hypothesis: `S = S₋ + E`, `S₋ᵀ = −S₋`, `|E| ≤ η`,
`0 ≤ η < 1` (the perturbed Cayley parameter). -/
def PerturbedCayleyParam {n : ℕ} (S Sm E : Matrix (Fin n) (Fin n) ℝ) (η : ℝ) : Prop :=
  S = Sm + E ∧ IsSkew Sm ∧ opNorm E ≤ η ∧ 0 ≤ η ∧ η < 1

/-- **T5.5** (espr-derivation, Tier 5): `S₋ᵀ = −S₋ ⇒ σ(S₋) ⊂ iℝ ⇒ |1 + iμ| ≥ 1` for `λ = iμ ∈ σ(S₋)`,
and `σ_min(I + S₋) ≥ 1` (for `d_h ≥ 1`, where `σ_min` is defined). -/
def SigmaMinSkewStatement : Prop :=
  ∀ (n : ℕ), 0 < n → ∀ Sm : Matrix (Fin n) (Fin n) ℝ, IsSkew Sm →
    (∀ z ∈ spec (Sm.map (fun x : ℝ => (x : ℂ))), z.re = 0) ∧
    (∀ μ : ℝ, 1 ≤ ‖(1 : ℂ) + (μ : ℂ) * Complex.I‖) ∧
    1 ≤ sigmaMin (1 + Sm)

/-- `vᵀ S v = 0` for a skew-symmetric `S`. -/
theorem dotProduct_mulVec_skew {n : ℕ} (S : Matrix (Fin n) (Fin n) ℝ) (hS : IsSkew S)
    (v : Fin n → ℝ) : v ⬝ᵥ (S *ᵥ v) = 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: which side of `h` the final `dotProduct_comm` rewrites
  first
  | (have hS' : Sᵀ = -S := hS
     have h := mulVec_dotProduct_eq S v v
     rw [hS', Matrix.neg_mulVec, dotProduct_neg, dotProduct_comm] at h
     linarith
     done)
  | sorry

/-- The third part of T5.5: `σ_min(I + S₋) ≥ 1` for skew `S₋` (`d_h ≥ 1`), since
`|(I + S₋)v|² = |v|² + |S₋v|²`. -/
theorem one_le_sigmaMin_one_add_skew {n : ℕ} (hn : 0 < n) (S : Matrix (Fin n) (Fin n) ℝ)
    (hS : IsSkew S) : 1 ≤ sigmaMin (1 + S) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `simp [vnorm, Pi.single_apply]` on the unit vector, `Real.sqrt_eq_one`, and the side conditions of `le_csInf`
  first
  | (unfold sigmaMin
     apply le_csInf
     · refine ⟨vnorm ((1 + S) *ᵥ Pi.single (⟨0, hn⟩ : Fin n) (1 : ℝ)), ?_⟩
       rw [Set.mem_setOf_eq]
       refine ⟨Pi.single (⟨0, hn⟩ : Fin n) (1 : ℝ), ?_, rfl⟩
       simp [vnorm, Pi.single_apply]
     · rintro t ⟨v, hv, rfl⟩
       have hv2 : ∑ u, v u ^ 2 = 1 := by
         unfold vnorm at hv
         rw [Real.sqrt_eq_one] at hv
         exact hv
         done
       have hexp : ∑ u, ((1 + S) *ᵥ v) u ^ 2
           = ∑ u, v u ^ 2 + 2 * (v ⬝ᵥ (S *ᵥ v)) + ∑ u, (S *ᵥ v) u ^ 2 := by
         rw [Matrix.add_mulVec, Matrix.one_mulVec]
         unfold dotProduct
         rw [Finset.mul_sum, ← Finset.sum_add_distrib, ← Finset.sum_add_distrib]
         refine Finset.sum_congr rfl fun u _ => ?_
         rw [Pi.add_apply]
         ring
         done
       have hnn : 0 ≤ ∑ u, (S *ᵥ v) u ^ 2 := Finset.sum_nonneg fun u _ => sq_nonneg _
       unfold vnorm
       rw [hexp, dotProduct_mulVec_skew S hS v, hv2]
       calc (1 : ℝ) = Real.sqrt 1 := Real.sqrt_one.symm
         _ ≤ Real.sqrt (1 + 2 * 0 + ∑ u, (S *ᵥ v) u ^ 2) := Real.sqrt_le_sqrt (by linarith)
     done)
  | sorry

/-- **T5.5** (espr-derivation): spectrum of a skew matrix and `σ_min(I + S₋) ≥ 1`. The third part
is `one_le_sigmaMin_one_add_skew`. -/
theorem sigma_min_skew : SigmaMinSkewStatement := by
  sorry

/-- **T5.6** (espr-derivation, Tier 5): under T5.4,
`σ_min(I + S) ≥ σ_min(I + S₋) − |E| ≥ 1 − η > 0`, hence `I + S` is invertible (`d_h ≥ 1`). -/
def SigmaMinPerturbedStatement : Prop :=
  ∀ (n : ℕ), 0 < n → ∀ (S Sm E : Matrix (Fin n) (Fin n) ℝ) (η : ℝ),
    PerturbedCayleyParam S Sm E η →
      sigmaMin (1 + Sm) - opNorm E ≤ sigmaMin (1 + S) ∧
      1 - η ≤ sigmaMin (1 + Sm) - opNorm E ∧
      0 < 1 - η ∧
      IsUnit (1 + S).det

/-- **T5.6** (espr-derivation): invertibility of `I + S` under T5.4. -/
theorem sigma_min_perturbed : SigmaMinPerturbedStatement := by
  sorry

/-- **T5.7** (espr-derivation, Tier 5), as printed: with `P_sp(S) = (I − S)(I + S)⁻¹` (**T3.1**'s
`cayley`, re-defined for a general `S`), `|P_sp(S) − P_sp(S₋)| ≤ C' η` for a finite constant `C'`
(T0.12) fixed before the data. Refuted (`C'` must grow like `2/(1 − η)`). -/
def CayleyLipStatement : Prop :=
  ∃ C' : ℝ, ∀ (n : ℕ) (S Sm E : Matrix (Fin n) (Fin n) ℝ) (η : ℝ),
    PerturbedCayleyParam S Sm E η → opNorm (cayley S - cayley Sm) ≤ C' * η

/-! ### The witness of the refutation of T5.7: `d_h = 1`, `S₋ = 0`, `E = −η I`

Then `P_sp(S) − P_sp(S₋) = (2η/(1 − η)) I`, whose norm divided by `η` is unbounded as `η → 1`. -/

section L2NormT57

attribute [local instance] Matrix.instL2OpNormedAddCommGroup Matrix.instL2OpNormedSpace

/-- `|c I₁| = |c|`. -/
theorem opNorm_smul_one_fin_one (c : ℝ) :
    opNorm (c • (1 : Matrix (Fin 1) (Fin 1) ℝ)) = |c| := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `nlinarith` deriving `‖1‖ = 1` from `‖1‖ = ‖1‖ * ‖1‖` and `‖1‖ > 0`
  first
  | (have h1 : ‖(1 : Matrix (Fin 1) (Fin 1) ℝ)‖ = 1 := by
       have h := Matrix.l2_opNorm_conjTranspose_mul_self (1 : Matrix (Fin 1) (Fin 1) ℝ)
       rw [Matrix.conjTranspose_one, Matrix.one_mul] at h
       have hpos : 0 < ‖(1 : Matrix (Fin 1) (Fin 1) ℝ)‖ := norm_pos_iff.mpr one_ne_zero
       nlinarith
       done
     unfold opNorm
     rw [norm_smul, h1, mul_one, Real.norm_eq_abs]
     done)
  | sorry

end L2NormT57

theorem inv_smul_one_fin_one {c : ℝ} (hc : c ≠ 0) :
    (c • (1 : Matrix (Fin 1) (Fin 1) ℝ))⁻¹ = c⁻¹ • (1 : Matrix (Fin 1) (Fin 1) ℝ) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: the scalar rewrite chain on `1 × 1` matrices after `Matrix.inv_eq_left_inv`
  first
  | (apply Matrix.inv_eq_left_inv
     rw [Matrix.smul_mul, Matrix.mul_smul, smul_smul, inv_mul_cancel₀ hc, one_smul, Matrix.one_mul]
     done)
  | sorry

theorem cayley_neg_smul_one {η : ℝ} (hη : η ≠ 1) :
    cayley ((-η) • (1 : Matrix (Fin 1) (Fin 1) ℝ))
      = ((1 + η) * (1 - η)⁻¹) • (1 : Matrix (Fin 1) (Fin 1) ℝ) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: the `neg_smul`/`sub_neg_eq_add` forms the rewrites must meet before `inv_smul_one_fin_one`
  first
  | (unfold cayley
     have e1 : (1 : Matrix (Fin 1) (Fin 1) ℝ) - (-η) • 1 = (1 + η) • 1 := by
       rw [neg_smul, sub_neg_eq_add, add_smul, one_smul]
       done
     have e2 : (1 : Matrix (Fin 1) (Fin 1) ℝ) + (-η) • 1 = (1 - η) • 1 := by
       rw [neg_smul, ← sub_eq_add_neg, sub_smul, one_smul]
       done
     have hne : (1 : ℝ) - η ≠ 0 := sub_ne_zero.mpr (Ne.symm hη)
     rw [e1, e2, inv_smul_one_fin_one hne, Matrix.smul_mul, Matrix.mul_smul, smul_smul,
       Matrix.one_mul]
     done)
  | sorry

/-- **T5.7** refuted: no constant `C'` bounds `|P_sp(S) − P_sp(S₋)| / η`; with `d_h = 1`, `S₋ = 0`,
`E = −η I` and `η = 1 − 1/(|C'| + 3)` the ratio is `2/(1 − η) = 2(|C'| + 3) > C'`. -/
theorem not_cayley_lip : ¬ CayleyLipStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: the chain of `positivity`/`div_lt_one` facts and the norm evaluations of the `1 × 1` witness
  first
  | (rintro ⟨C, hC⟩
     obtain ⟨η, hηdef⟩ : ∃ η : ℝ, η = 1 - 1 / (|C| + 3) := ⟨_, rfl⟩
     have hC3 : 0 < |C| + 3 := by positivity
     have hfrac : 0 < 1 / (|C| + 3) := by positivity
     have hfrac1 : 1 / (|C| + 3) < 1 := by
       rw [div_lt_one hC3]
       linarith [abs_nonneg C]
       done
     have hη0 : 0 < η := by
       rw [hηdef]
       linarith
       done
     have hη1 : η < 1 := by
       rw [hηdef]
       linarith
       done
     have hparam : PerturbedCayleyParam ((-η) • (1 : Matrix (Fin 1) (Fin 1) ℝ)) 0
         ((-η) • (1 : Matrix (Fin 1) (Fin 1) ℝ)) η := by
       unfold PerturbedCayleyParam
       refine ⟨(zero_add _).symm, ?_, ?_, hη0.le, hη1⟩
       unfold IsSkew
       rw [Matrix.transpose_zero, neg_zero]
       rw [opNorm_smul_one_fin_one, abs_neg, abs_of_pos hη0]
       try exact le_refl η
       done
     have h := hC 1 _ _ _ η hparam
     have hc0 : cayley (0 : Matrix (Fin 1) (Fin 1) ℝ) = 1 := by
       unfold cayley
       rw [sub_zero, add_zero, Matrix.inv_one, Matrix.one_mul]
       done
     have hdiff : ((1 + η) * (1 - η)⁻¹) • (1 : Matrix (Fin 1) (Fin 1) ℝ) - 1
         = ((1 + η) * (1 - η)⁻¹ - 1) • (1 : Matrix (Fin 1) (Fin 1) ℝ) := by
       rw [sub_smul, one_smul]
       done
     rw [cayley_neg_smul_one hη1.ne, hc0, hdiff, opNorm_smul_one_fin_one] at h
     have hinv : (1 - η)⁻¹ = |C| + 3 := by
       rw [hηdef, show (1 : ℝ) - (1 - 1 / (|C| + 3)) = 1 / (|C| + 3) by ring, one_div, inv_inv]
       done
     rw [hinv] at h
     have hpos : 0 ≤ (1 + η) * (|C| + 3) - 1 := by nlinarith [abs_nonneg C]
     rw [abs_of_nonneg hpos] at h
     have hCη : C * η ≤ |C| * η := mul_le_mul_of_nonneg_right (le_abs_self C) hη0.le
     nlinarith [abs_nonneg C]
     done)
  | sorry

/-- **T5.7.corrected** (espr-derivation): under T5.4,
`|P_sp(S) − P_sp(S₋)| = 2 |(I + S)⁻¹ E (I + S₋)⁻¹| ≤ 2η/(1 − η)`. -/
def CayleyLipCorrectedStatement : Prop :=
  ∀ (n : ℕ) (S Sm E : Matrix (Fin n) (Fin n) ℝ) (η : ℝ),
    PerturbedCayleyParam S Sm E η →
      opNorm (cayley S - cayley Sm) = 2 * opNorm ((1 + S)⁻¹ * E * (1 + Sm)⁻¹) ∧
      2 * opNorm ((1 + S)⁻¹ * E * (1 + Sm)⁻¹) ≤ 2 * η / (1 - η)

/-- **T5.7.corrected** (espr-derivation): the Cayley Lipschitz bound with the explicit factor
`2/(1 − η)`. The underlying matrix identity is `cayley_sub_cayley`. -/
theorem cayley_lip_corrected : CayleyLipCorrectedStatement := by
  sorry

/-! ## T5.8 – T5.9 -/

/-- **T5.8** (espr-derivation, Tier 5), as printed: with `P_sp = U [[A, B], [C, D]] Uᵀ`
(`U ∈ O(d_h)` the basis of T2.3) and `η_mix = |B| + |C|`, `P_sp ∈ SO(d_h)` gives
`[[A, B], [C, D]]ᵀ [[A, B], [C, D]] = I`, `|A − I_{2m}| ≤ C'' η_mix` and
`|Π_act P_sp Π_act − Π_act| ≤ C'' η_mix`, with `C''` (T0.12) fixed before the data. Refuted
(`η_mix = 0` with `A` a rotation of the active planes). -/
def EtaMixStatement : Prop :=
  ∃ C'' : ℝ, ∀ (m dnull : ℕ) (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    IsOrth U → IsSO P →
      (postBlocks U P)ᵀ * postBlocks U P = 1 ∧
      opNorm (blkA U P - 1) ≤ C'' * etaMixSum U P ∧
      opNorm (piAct U * P * piAct U - piAct U) ≤ C'' * etaMixSum U P

/-- The block matrix `Uᵀ P U` of an orthogonal `P` in an orthogonal basis `U` is orthogonal. -/
theorem postBlocks_orth {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (hU : IsOrth U) (hP : IsOrth P) : (postBlocks U P)ᵀ * postBlocks U P = 1 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `Matrix.submatrix_mul_equiv` on the transposed, reindexed product
  first
  | (have hUU : U * Uᵀ = 1 := mul_transpose_of_isOrth hU
     have hQ : (Uᵀ * P * U)ᵀ * (Uᵀ * P * U) = 1 := by
       rw [Matrix.transpose_mul, Matrix.transpose_mul, Matrix.transpose_transpose]
       calc Uᵀ * (Pᵀ * U) * (Uᵀ * P * U) = Uᵀ * (Pᵀ * ((U * Uᵀ) * P)) * U := by
             simp only [Matrix.mul_assoc]
             done
         _ = 1 := by
             rw [hUU, Matrix.one_mul]
             unfold IsOrth at hP hU
             rw [hP, Matrix.mul_one, hU]
             done
       done
     unfold postBlocks
     rw [Matrix.transpose_submatrix, Matrix.submatrix_mul_equiv, hQ, Matrix.submatrix_one_equiv]
     done)
  | sorry

/-! ### The witness of the refutations of T5.8 and T6′.8

`m = 1`, `d_null = 1`, `U = I`, `P_sp = diag(−I₂, 1)` (the rotation by `π` of the active plane; in
`SO(3)`): `B = C = 0`, so `η_mix = 0`, while `A − I = −2 I₂ ≠ 0`. -/

/-- The witness `P_sp = diag(−I₂, 1)`. -/
def witnessP : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ :=
  dsum (-1 : Matrix (Fin (2 * 1)) (Fin (2 * 1)) ℝ) (1 : Matrix (Fin 1) (Fin 1) ℝ)

theorem witnessP_isSO : IsSO witnessP := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `Matrix.det_fromBlocks_zero₂₁` and `norm_num` on the determinant of `diag(−I₂, 1)`
  first
  | (show IsOrth witnessP ∧ witnessP.det = 1
     refine ⟨?_, ?_⟩
     · show witnessPᵀ * witnessP = 1
       unfold witnessP
       rw [dsum_transpose, dsum_mul, Matrix.transpose_neg, Matrix.transpose_one,
         Matrix.transpose_one, neg_mul_neg, Matrix.one_mul, Matrix.one_mul, dsum_one]
     · unfold witnessP dsum
       rw [Matrix.det_submatrix_equiv_self, Matrix.det_fromBlocks_zero₂₁, Matrix.det_neg,
         Matrix.det_one, Matrix.det_one]
       norm_num
     done)
  | sorry

theorem isOrth_one_three : IsOrth (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) := by
  show (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ)ᵀ * 1 = 1
  rw [Matrix.transpose_one, Matrix.one_mul]

theorem postBlocks_witness :
    postBlocks (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) witnessP
      = Matrix.fromBlocks (-1) 0 0 1 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `Matrix.submatrix_submatrix` then `Equiv.symm_comp_self`: whether the composed reindexing appears in that form
  first
  | (unfold postBlocks witnessP dsum
     rw [Matrix.transpose_one, Matrix.one_mul, Matrix.mul_one, Matrix.submatrix_submatrix,
       Equiv.symm_comp_self, Matrix.submatrix_id_id]
     done)
  | sorry

theorem blkA_witness : blkA (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) witnessP = -1 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: whether `toBlocks₁₁` of `fromBlocks` closes by `rfl` after the rewrite
  first
  | (unfold blkA
     rw [postBlocks_witness]
     try rfl
     done)
  | sorry

theorem blkB_witness : blkB (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) witnessP = 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: whether `toBlocks₁₂` of `fromBlocks` closes by `rfl` after the rewrite
  first
  | (unfold blkB
     rw [postBlocks_witness]
     try rfl
     done)
  | sorry

theorem blkC_witness : blkC (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) witnessP = 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: whether `toBlocks₂₁` of `fromBlocks` closes by `rfl` after the rewrite
  first
  | (unfold blkC
     rw [postBlocks_witness]
     try rfl
     done)
  | sorry

theorem neg_one_sub_one_ne_zero : (-1 - 1 : Matrix (Fin (2 * 1)) (Fin (2 * 1)) ℝ) ≠ 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `norm_num` evaluating an entry of `-1 - 1` indexed by `Fin (2 * 1)`
  first
  | (intro h0
     have h := congrFun (congrFun h0 0) 0
     norm_num at h
     done)
  | sorry

/-- **T5.8** refuted: with the witness, `η_mix = |B| + |C| = 0` but `|A − I₂| = |−2 I₂| > 0`, so no
constant `C''` works. -/
theorem not_eta_mix : ¬ EtaMixStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: rewriting the instantiated hypothesis through `blkA_witness` … `opNorm_zero_matrix`
  first
  | (rintro ⟨C, hC⟩
     have h := (hC 1 1 1 witnessP isOrth_one_three witnessP_isSO).2.1
     unfold etaMixSum at h
     rw [blkA_witness, blkB_witness, blkC_witness, opNorm_zero_matrix, opNorm_zero_matrix,
       add_zero, mul_zero] at h
     exact absurd h (not_le.mpr (opNorm_pos_of_ne_zero neg_one_sub_one_ne_zero))
     done)
  | sorry

/-- **T5.8.corrected** (espr-derivation): `P_sp = U [[A, B], [C, D]] Uᵀ ∈ SO(d_h)` gives
`Aᵀ A + Cᵀ C = I_{2m}`, hence `|Aᵀ A − I_{2m}| = |C|² ≤ η_mix²`. -/
def EtaMixCorrectedStatement : Prop :=
  ∀ (m dnull : ℕ) (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    IsOrth U → IsSO P →
      (blkA U P)ᵀ * blkA U P + (blkC U P)ᵀ * blkC U P = 1 ∧
      opNorm ((blkA U P)ᵀ * blkA U P - 1) = opNorm (blkC U P) ^ 2 ∧
      opNorm (blkC U P) ^ 2 ≤ etaMixSum U P ^ 2

/-- The orthogonality relation `Aᵀ A + Cᵀ C = I_{2m}` of the blocks (first part of
T5.8.corrected, also the first relation of T6′.8). -/
theorem blk_orth_relation {m dnull : ℕ}
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (hU : IsOrth U) (hP : IsOrth P) :
    (blkA U P)ᵀ * blkA U P + (blkC U P)ᵀ * blkC U P = 1 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `Matrix.fromBlocks_inj` after rewriting `1` as `fromBlocks 1 0 0 1`: the index types must match syntactically
  first
  | (have h := postBlocks_orth U P hU hP
     rw [← Matrix.fromBlocks_toBlocks (postBlocks U P), Matrix.fromBlocks_transpose,
       Matrix.fromBlocks_multiply, ← Matrix.fromBlocks_one, Matrix.fromBlocks_inj] at h
     exact h.1
     done)
  | sorry

/-- **T5.8.corrected** (espr-derivation): what orthogonality gives. -/
theorem eta_mix_corrected : EtaMixCorrectedStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `nlinarith` on the final inequality between operator norms
  first
  | (intro m dnull U P hU hP
     have h1 := blk_orth_relation U P hU hP.1
     refine ⟨h1, ?_, ?_⟩
     · have e : (blkA U P)ᵀ * blkA U P - 1 = -((blkC U P)ᵀ * blkC U P) := by
         rw [← h1]
         abel
         done
       rw [e]
       exact opNorm_neg_transpose_mul_self (blkC U P)
     · unfold etaMixSum
       have hB := opNorm_nonneg (blkB U P)
       have hC := opNorm_nonneg (blkC U P)
       nlinarith
     done)
  | sorry

/-- **T5.9** (espr-derivation, Tier 5), as printed:
`|Π_act R_sp(r) Π_act − Π_act R_STR(r) Π_act| ≤ C'' η_mix` (`C''` fixed before the data), for
generators in the joint block form of T2.3 (which defines `Π_act`) and `P_sp ∈ SO(d_h)`.
Refuted (inherits T5.8). -/
def PiRspPiApproxStatement : Prop :=
  ∃ C'' : ℝ, ∀ (m dnull dc : ℕ)
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → IsSO P → ∀ r : Fin dc → ℝ,
      opNorm (piAct U * rsp L r P * piAct U - piAct U * rstr L r * piAct U)
        ≤ C'' * etaMixSum U P

/-! ### The witness of the refutations of T5.9 and T6′.9

The same `P_sp = diag(−I₂, 1)`, `U = I`, and the empty generator family (`d_c = 0`, trivially in
joint block form), so `R_STR = I` and `R_sp = P_sp`. -/

theorem piAct_one_eq {m dnull : ℕ} :
    piAct (1 : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
      = dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) (0 : Matrix (Fin dnull) (Fin dnull) ℝ) := by
  unfold piAct
  rw [Matrix.transpose_one, Matrix.one_mul, Matrix.mul_one]

theorem piNull_one_eq {m dnull : ℕ} :
    piNull (1 : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
      = dsum (0 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) (1 : Matrix (Fin dnull) (Fin dnull) ℝ) := by
  unfold piNull
  rw [Matrix.transpose_one, Matrix.one_mul, Matrix.mul_one]

/-- The empty generator family (`d_c = 0`) is in joint block form in the basis `U = I`. -/
theorem emptyFamily_blockForm :
    HasJointBlockForm (m := 1) (dnull := 1) (fun k : Fin 0 => k.elim0) 1
      (fun k : Fin 0 => k.elim0) := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: unfolding `HasJointBlockForm` for the empty family over `Fin 0`
  first
  | (unfold HasJointBlockForm
     exact ⟨isOrth_one_three, fun k => k.elim0⟩)
  | sorry

/-- `R_STR(r) = I` for the empty generator family. -/
theorem rstr_emptyFamily (r : Fin 0 → ℝ) :
    rstr (fun k : Fin 0 => (k.elim0 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ)) r = 1 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `simp` closing the empty sum over `Fin 0`
  first
  | (unfold rstr
     have h0 : genSum (fun k : Fin 0 => (k.elim0 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ)) r
         = 0 := by
       unfold genSum
       simp
       done
     rw [h0, mexp_zero]
     done)
  | sorry

/-- The `(0, 0)` active entry of `diag(−I₂, 1) − X`, for `X = diag(I₂, 0)` and `diag(I₂, 0)ᵀ…`:
`diag(−I₂, 1) − diag(I₂, 0) − diag(0, 1) ≠ 0`. -/
theorem witnessP_sub_projectors_ne_zero :
    witnessP - piAct (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ)
      - piNull (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) ≠ 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `norm_num` evaluating an entry through `finSumFinEquiv_symm_apply_castAdd`
  first
  | (intro h0
     have h1 := congrFun (congrFun h0 (Fin.castAdd 1 (0 : Fin (2 * 1))))
       (Fin.castAdd 1 (0 : Fin (2 * 1)))
     rw [piAct_one_eq, piNull_one_eq] at h1
     norm_num [witnessP, dsum, Matrix.submatrix_apply, finSumFinEquiv_symm_apply_castAdd] at h1
     done)
  | sorry

/-- `Π_act P_sp Π_act − Π_act ≠ 0` for the witness (`= diag(−2 I₂, 0)`). -/
theorem witness_act_defect_ne_zero :
    piAct (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) * (1 * witnessP)
        * piAct (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ)
      - piAct (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) * 1
        * piAct (1 : Matrix (Fin (2 * 1 + 1)) (Fin (2 * 1 + 1)) ℝ) ≠ 0 := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: `norm_num` evaluating an entry through `finSumFinEquiv_symm_apply_castAdd`
  first
  | (intro h0
     have h1 := congrFun (congrFun h0 (Fin.castAdd 1 (0 : Fin (2 * 1))))
       (Fin.castAdd 1 (0 : Fin (2 * 1)))
     rw [piAct_one_eq, Matrix.one_mul, Matrix.mul_one] at h1
     unfold witnessP at h1
     rw [dsum_mul, dsum_mul, dsum_mul] at h1
     norm_num [dsum, Matrix.submatrix_apply, finSumFinEquiv_symm_apply_castAdd] at h1
     done)
  | sorry

/-- **T5.9** refuted: for the witness (empty generator family, `U = I`, `P_sp = diag(−I₂, 1)`),
`η_mix = 0` while `Π_act R_sp(r) Π_act − Π_act R_STR(r) Π_act = diag(−2 I₂, 0) ≠ 0`. -/
theorem not_pi_rsp_pi_approx : ¬ PiRspPiApproxStatement := by
  -- fallback (`first | … | sorry`, counted as sorry): could not be predicted without a
  -- compiler: instantiating the statement at the empty family and rewriting through the witness lemmas
  first
  | (rintro ⟨C, hC⟩
     have h := hC 1 1 0 _ 1 witnessP _ emptyFamily_blockForm witnessP_isSO (fun k => k.elim0)
     unfold rsp etaMixSum at h
     rw [rstr_emptyFamily, blkB_witness, blkC_witness, opNorm_zero_matrix, opNorm_zero_matrix,
       add_zero, mul_zero] at h
     exact absurd h (not_le.mpr (opNorm_pos_of_ne_zero witness_act_defect_ne_zero))
     done)
  | sorry

/-- **T5.9.corrected** (espr-derivation): for generators in joint block form (commuting) and
`P_sp ∈ SO(d_h)`,
`|Π_act R_sp(r) Π_act − Π_act R_STR(r) Π_act| = |Π_act P_sp Π_act − Π_act| ≤ dist_F(P_sp, 𝓐)`. -/
def PiRspPiApproxCorrectedStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    HasJointBlockForm L U lam → IsSO P → ∀ r : Fin dc → ℝ,
      opNorm (piAct U * rsp L r P * piAct U - piAct U * rstr L r * piAct U)
          = opNorm (piAct U * P * piAct U - piAct U) ∧
      opNorm (piAct U * P * piAct U - piAct U) ≤ distToPostA U P

/-- **T5.9.corrected** (espr-derivation): the active-block error is the distance of the active
block to the identity, bounded by the distance to `𝓐`. -/
theorem pi_rsp_pi_approx_corrected : PiRspPiApproxCorrectedStatement := by
  sorry

/-! ## T5.10 -/

/-- **T5.10** (espr-derivation, Tier 5), as printed:
`Δ_ij = C(ε|r_i|_1|r_j|_1 + η_mix) |q_i^(act)| |k_j^(act)|` and
`|α_ij − (1/√(2m)) (q_i^(act))ᵀ (Π_act R_STR(r_j − r_i) Π_act) k_j^(act)| ≤ Δ_ij`, `C` fixed before the
data. Hypotheses (stated only in T6.2): skew generators (not necessarily commuting), `P_sp ∈
SO(d_h)`, and `Π_act` from an orthogonal basis `U` (T2.3's form need not exist when the generators
do not commute). Refuted (a rotation mixing the active planes is invisible to `η_mix`). -/
def AlphaStabStatement : Prop :=
  ∃ C : ℝ, ∀ (m dnull dc : ℕ)
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ),
    (∀ k, IsSkew (L k)) → IsOrth U → IsSO P →
    ∀ (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ),
      |alphaLogit L U P q k ri rj - alphaStar L U q k ri rj|
        ≤ C * (epsComm L * vnorm1 ri * vnorm1 rj + etaMixSum U P)
            * vnorm (actPart (piAct U) q) * vnorm (actPart (piAct U) k)

end

end Pyverify.Espr
