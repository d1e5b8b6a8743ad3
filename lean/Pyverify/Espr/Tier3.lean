import Pyverify.Espr.Tier0
import Pyverify.Espr.Tier2

/-!
# ESPR derivation, Tier 3: Cayley post-rotations (T3.1 – T3.7, T3.2.corrected)

Registry: `claims/espr-derivation/tier3.yaml`. The Cayley transform is `cayley`, the Cayley image
`𝓑` is `cayleyImage`, the structured post-rotations `𝓐` are `postA`, `R_sp` is `rsp`.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-! ### Invertibility of `I + S` -/

theorem neg_isSkew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) : IsSkew (-S) := by
  have hS' : Sᵀ = -S := hS
  unfold IsSkew
  rw [Matrix.transpose_neg, hS']

/-- `I + S` is invertible for real skew-symmetric `S` (`vᵀ (I + S) v = |v|²`). -/
theorem isUnit_one_add_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    IsUnit (1 + S) := by
  rw [Matrix.isUnit_iff_isUnit_det, isUnit_iff_ne_zero]
  intro hdet
  obtain ⟨v, hv, hSv⟩ := Matrix.exists_mulVec_eq_zero_iff.mpr hdet
  apply hv
  have h1 : v ⬝ᵥ ((1 + S) *ᵥ v) = 0 := by
    rw [hSv, dotProduct_zero]
  rw [Matrix.add_mulVec, Matrix.one_mulVec, dotProduct_add, skew_quadratic_zero hS v,
    add_zero] at h1
  exact dotProduct_self_eq_zero.mp h1

theorem isUnit_det_one_add_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    IsUnit (1 + S).det :=
  (Matrix.isUnit_iff_isUnit_det _).mp (isUnit_one_add_skew hS)

theorem isUnit_det_one_sub_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    IsUnit (1 - S).det := by
  have h := isUnit_one_add_skew (neg_isSkew hS)
  rw [← sub_eq_add_neg] at h
  exact (Matrix.isUnit_iff_isUnit_det _).mp h

/-! ### T3.1 -/

/-- **T3.1** (espr-derivation, Tier 3): `S ∈ ℝ^{d_h×d_h}`, `Sᵀ = -S` ⇒ `I + S` invertible;
`P_sp = (I - S)(I + S)⁻¹` (the definition `cayley`); `(I - S)(I + S) = (I + S)(I - S) = I - S²`. -/
def CayleyStatement : Prop :=
  ∀ (n : ℕ) (S : Matrix (Fin n) (Fin n) ℝ), IsSkew S →
    IsUnit (1 + S) ∧ (1 - S) * (1 + S) = (1 + S) * (1 - S) ∧ (1 + S) * (1 - S) = 1 - S * S

/-- **T3.1**: the Cayley transform is well defined on skew matrices. -/
theorem cayley_well_defined : CayleyStatement := by
  intro n S hS
  refine ⟨isUnit_one_add_skew hS, ?_, ?_⟩
  · noncomm_ring
  · noncomm_ring

/-! ### T3.2 and its correction -/

theorem one_add_transpose_of_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    (1 + S)ᵀ = 1 - S := by
  have hS' : Sᵀ = -S := hS
  rw [Matrix.transpose_add, Matrix.transpose_one, hS', ← sub_eq_add_neg]

theorem one_sub_transpose_of_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    (1 - S)ᵀ = 1 + S := by
  have hS' : Sᵀ = -S := hS
  rw [Matrix.transpose_sub, Matrix.transpose_one, hS', sub_neg_eq_add]

/-- The Cayley transform of a skew matrix is orthogonal. -/
theorem cayley_isOrth {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    (cayley S)ᵀ * cayley S = 1 := by
  have hA := isUnit_det_one_add_skew hS
  have hB := isUnit_det_one_sub_skew hS
  have hcomm : (1 + S) * (1 - S) = (1 - S) * (1 + S) := by noncomm_ring
  unfold cayley
  rw [Matrix.transpose_mul, one_sub_transpose_of_skew hS, Matrix.transpose_nonsing_inv,
    one_add_transpose_of_skew hS]
  calc (1 - S)⁻¹ * (1 + S) * ((1 - S) * (1 + S)⁻¹)
      = (1 - S)⁻¹ * ((1 + S) * (1 - S)) * (1 + S)⁻¹ := by simp only [Matrix.mul_assoc]
    _ = (1 - S)⁻¹ * ((1 - S) * (1 + S)) * (1 + S)⁻¹ := by rw [hcomm]
    _ = 1 := by
      rw [← Matrix.mul_assoc, Matrix.nonsing_inv_mul _ hB, Matrix.one_mul,
        Matrix.mul_nonsing_inv _ hA]

/-- The Cayley transform of a skew matrix has determinant `1`
(`det(I - S) = det((I + S)ᵀ) = det(I + S)`). -/
theorem cayley_det {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    (cayley S).det = 1 := by
  have hA := isUnit_det_one_add_skew hS
  have hdetB : (1 - S).det = (1 + S).det := by
    rw [← one_add_transpose_of_skew hS, Matrix.det_transpose]
  unfold cayley
  rw [Matrix.det_mul, hdetB, mul_comm, Matrix.det_nonsing_inv_mul_det _ hA]

/-- **T3.2** (espr-derivation, Tier 3), as printed: for every skew `S`,
`P_spᵀ = ((I + S)⁻¹)ᵀ (I - S)ᵀ = I` and `det(P_sp) = 1` (the eigenvalue product
`∏ (1 - iμ_u)/(1 + iμ_u)` is not restated), and `𝓑 ⊆ SO(d_h)`. REFUTED (registry): the chain
`… = I` holds only for `S = 0`. -/
def CayleySOStatement : Prop :=
  ∀ (n : ℕ) (S : Matrix (Fin n) (Fin n) ℝ), IsSkew S →
    (cayley S)ᵀ = ((1 + S)⁻¹)ᵀ * (1 - S)ᵀ ∧ ((1 + S)⁻¹)ᵀ * (1 - S)ᵀ = 1 ∧
      (cayley S).det = 1 ∧ (∀ P ∈ cayleyImage n, IsSO P)

/-- The registry's witness for **T3.2**: `S = J` (`d_h = 2`), where `P_sp = -J` and
`P_spᵀ = J ≠ I`. -/
theorem not_cayley_SO : ¬ CayleySOStatement := by
  intro h
  obtain ⟨h1, h2, -, -⟩ := h 2 Jmat Jmat_skew
  have hT : (cayley Jmat)ᵀ = 1 := h1.trans h2
  have hP : cayley Jmat = 1 := by
    have := congrArg Matrix.transpose hT
    rwa [Matrix.transpose_transpose, Matrix.transpose_one] at this
  have hA := isUnit_det_one_add_skew Jmat_skew
  have hJ : 1 - Jmat = 1 + Jmat := by
    have h3 : cayley Jmat * (1 + Jmat) = 1 * (1 + Jmat) := by rw [hP]
    unfold cayley at h3
    rwa [Matrix.nonsing_inv_mul_cancel_right _ _ hA, Matrix.one_mul] at h3
  have h10 := congrFun (congrFun hJ 1) 0
  norm_num [Jmat, Matrix.one_apply] at h10

/-- **T3.2.corrected** (espr-derivation, Tier 3): `P_spᵀ = ((I + S)⁻¹)ᵀ (I - S)ᵀ`,
`P_spᵀ P_sp = I`, `det(P_sp) = 1` (the eigenvalue product is not restated), and
`𝓑 = {(I - S)(I + S)⁻¹ | Sᵀ = -S} ⊆ SO(d_h)`. -/
def CayleySOCorrectedStatement : Prop :=
  ∀ (n : ℕ) (S : Matrix (Fin n) (Fin n) ℝ), IsSkew S →
    (cayley S)ᵀ = ((1 + S)⁻¹)ᵀ * (1 - S)ᵀ ∧ (cayley S)ᵀ * cayley S = 1 ∧
      (cayley S).det = 1 ∧ (∀ P ∈ cayleyImage n, IsSO P)

/-- **T3.2.corrected**: Cayley transforms of skew matrices are rotations. -/
theorem cayley_mem_SO : CayleySOCorrectedStatement := by
  intro n S hS
  refine ⟨?_, cayley_isOrth hS, cayley_det hS, ?_⟩
  · unfold cayley
    rw [Matrix.transpose_mul]
  · rintro P ⟨S', hS', rfl⟩
    exact ⟨cayley_isOrth hS', cayley_det hS'⟩

/-! ### T3.3 -/

/-- **T3.3** (espr-derivation, Tier 3): `Q ∈ SO(d_h)`, `-1 ∉ σ(Q)` ⇒ `S_Q = (I - Q)(I + Q)⁻¹`
satisfies `S_Qᵀ = -S_Q` and `(I - S_Q)(I + S_Q)⁻¹ = Q`. (`-1 ∉ σ(Q)` is read as: no nonzero real
`x` with `Q x = -x`; `-1` is real, so this is the same as for complex eigenvectors.) -/
def CayleySurjStatement : Prop :=
  ∀ (n : ℕ) (Q : Matrix (Fin n) (Fin n) ℝ), IsSO Q →
    (¬ ∃ x : Fin n → ℝ, x ≠ 0 ∧ Q *ᵥ x = -x) →
      IsSkew (cayley Q) ∧ cayley (cayley Q) = Q

theorem isUnit_det_one_add_of_no_neg_one {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ}
    (hQ : ¬ ∃ x : Fin n → ℝ, x ≠ 0 ∧ Q *ᵥ x = -x) : IsUnit (1 + Q).det := by
  rw [isUnit_iff_ne_zero]
  intro hdet
  obtain ⟨v, hv, hQv⟩ := Matrix.exists_mulVec_eq_zero_iff.mpr hdet
  apply hQ
  refine ⟨v, hv, ?_⟩
  rw [Matrix.add_mulVec, Matrix.one_mulVec] at hQv
  rw [eq_neg_iff_add_eq_zero, add_comm]
  exact hQv

theorem cayley_skew_of_orth {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ} (hQ : IsOrth Q)
    (hA : IsUnit (1 + Q).det) : IsSkew (cayley Q) := by
  have hQ' : Qᵀ * Q = 1 := hQ
  have hAT : IsUnit (1 + Q)ᵀ.det := by
    rw [Matrix.det_transpose]
    exact hA
  have key : (1 - Q)ᵀ * (1 + Q) = -((1 + Q)ᵀ * (1 - Q)) := by
    rw [Matrix.transpose_sub, Matrix.transpose_add, Matrix.transpose_one]
    simp only [sub_mul, mul_add, add_mul, mul_sub, one_mul, mul_one, hQ']
    abel
  unfold IsSkew cayley
  rw [Matrix.transpose_mul, Matrix.transpose_nonsing_inv]
  calc (1 + Q)ᵀ⁻¹ * (1 - Q)ᵀ = (1 + Q)ᵀ⁻¹ * ((1 - Q)ᵀ * (1 + Q)) * (1 + Q)⁻¹ := by
        rw [Matrix.mul_assoc, Matrix.mul_assoc, Matrix.mul_nonsing_inv _ hA, Matrix.mul_one]
    _ = (1 + Q)ᵀ⁻¹ * -((1 + Q)ᵀ * (1 - Q)) * (1 + Q)⁻¹ := by rw [key]
    _ = -((1 - Q) * (1 + Q)⁻¹) := by
        rw [Matrix.mul_neg, Matrix.neg_mul, ← Matrix.mul_assoc, Matrix.nonsing_inv_mul _ hAT,
          Matrix.one_mul]

theorem cayley_cayley {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ} (hA : IsUnit (1 + Q).det) :
    cayley (cayley Q) = Q := by
  have hcomm : (1 + Q) * (1 - Q) = (1 - Q) * (1 + Q) := by noncomm_ring
  have hSA : cayley Q * (1 + Q) = 1 - Q := by
    unfold cayley
    rw [Matrix.nonsing_inv_mul_cancel_right _ _ hA]
  have hAS : (1 + Q) * cayley Q = 1 - Q := by
    unfold cayley
    rw [← Matrix.mul_assoc, hcomm, Matrix.mul_nonsing_inv_cancel_right _ _ hA]
  have htwo : (1 + Q) + (1 - Q) = (1 : Matrix (Fin n) (Fin n) ℝ) + 1 := by abel
  have hinv : (1 + cayley Q)⁻¹ = (1 / 2 : ℝ) • (1 + Q) := by
    apply Matrix.inv_eq_left_inv
    rw [Matrix.smul_mul, mul_add (1 + Q) 1 (cayley Q), mul_one, hAS, htwo, smul_add, ← add_smul]
    norm_num
  unfold cayley at hinv ⊢
  rw [hinv]
  have hSA' : (1 - Q) * (1 + Q)⁻¹ * (1 + Q) = 1 - Q := hSA
  rw [Matrix.mul_smul, sub_mul 1 ((1 - Q) * (1 + Q)⁻¹) (1 + Q), one_mul, hSA']
  rw [show (1 + Q) - (1 - Q) = (2 : ℝ) • Q by
    rw [two_smul]
    abel]
  rw [smul_smul]
  norm_num

/-- **T3.3**: the Cayley transform inverts itself on rotations without eigenvalue `-1`. -/
theorem cayley_surjective : CayleySurjStatement := by
  intro n Q hQ hno
  have hA := isUnit_det_one_add_of_no_neg_one hno
  exact ⟨cayley_skew_of_orth hQ.1 hA, cayley_cayley hA⟩

/-! ### T3.4 -/

theorem isSO_conj {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) {Rn : Matrix (Fin dnull) (Fin dnull) ℝ} (hRn : IsSO Rn) :
    IsSO (U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn * Uᵀ) := by
  have hRn' : Rnᵀ * Rn = 1 := hRn.1
  have hUU : U * Uᵀ = 1 := mul_transpose_of_isOrth hU
  refine ⟨?_, ?_⟩
  · unfold IsOrth
    rw [orthConj_transpose, conj_mul_conj hU, dsum_transpose, dsum_mul, Matrix.transpose_one,
      Matrix.mul_one, hRn', dsum_one, Matrix.mul_one, hUU]
  · rw [Matrix.det_mul, Matrix.det_mul, det_dsum, Matrix.det_one, hRn.2, Matrix.det_transpose,
      one_mul, mul_one]
    have h := det_sq_of_isOrth hU
    linarith

/-- **T3.4** (espr-derivation, Tier 3): `𝓐 = {U diag(I_{2m}, R_null) Uᵀ | R_null ∈ SO(d_null)}
⊆ SO(d_h)`, and `R_null ∈ SO(d_null)`, `-1 ∉ σ(R_null)` ⇒ `U diag(I_{2m}, R_null) Uᵀ ∈ 𝓑`
(for the orthogonal `U` of T2.3). -/
def PostASubsetStatement : Prop :=
  ∀ (m dnull : ℕ) (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ), IsOrth U →
    (∀ P ∈ postA U, IsSO P) ∧
    (∀ Rn : Matrix (Fin dnull) (Fin dnull) ℝ, IsSO Rn →
      (¬ ∃ x : Fin dnull → ℝ, x ≠ 0 ∧ Rn *ᵥ x = -x) →
        U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn * Uᵀ ∈ cayleyImage (2 * m + dnull))

/-- The two blocks of `(A ⊕ B) y`: `A` acts on the first block of `y`, `B` on the second. -/
theorem dsum_mulVec_blocks {a b : ℕ} (A : Matrix (Fin a) (Fin a) ℝ) (B : Matrix (Fin b) (Fin b) ℝ)
    (y : Fin (a + b) → ℝ) (s : Fin a ⊕ Fin b) :
    (dsum A B *ᵥ y) (finSumFinEquiv s) =
      Sum.elim (A *ᵥ fun i => y (finSumFinEquiv (Sum.inl i)))
        (B *ᵥ fun j => y (finSumFinEquiv (Sum.inr j))) s := by
  unfold dsum
  rw [Matrix.submatrix_mulVec_equiv, Matrix.fromBlocks_mulVec]
  rcases s with i | j
  · first
    | (simp only [Function.comp_def, Equiv.symm_symm, Equiv.symm_apply_apply, Sum.elim_inl,
         Pi.add_apply, Matrix.zero_mulVec, Pi.zero_apply, add_zero]
       done)
    | (simp [Function.comp_def]; done)
  · first
    | (simp only [Function.comp_def, Equiv.symm_symm, Equiv.symm_apply_apply, Sum.elim_inr,
         Pi.add_apply, Matrix.zero_mulVec, Pi.zero_apply, zero_add]
       done)
    | (simp [Function.comp_def]; done)

/-- If `R` has no eigenvalue `-1`, a vector with `(I ⊕ R) y = -y` is zero: its first block
satisfies `y₁ = -y₁`, its second `R y₂ = -y₂`. -/
theorem eq_zero_of_dsum_one_mulVec {a b : ℕ} {R : Matrix (Fin b) (Fin b) ℝ}
    (hno : ¬ ∃ z : Fin b → ℝ, z ≠ 0 ∧ R *ᵥ z = -z) (y : Fin (a + b) → ℝ)
    (hEq : dsum (1 : Matrix (Fin a) (Fin a) ℝ) R *ᵥ y = -y) : y = 0 := by
  have hblk := fun s => dsum_mulVec_blocks (1 : Matrix (Fin a) (Fin a) ℝ) R y s
  have hleft : ∀ i : Fin a, y (finSumFinEquiv (Sum.inl i)) = 0 := by
    intro i
    have h := hblk (Sum.inl i)
    simp only [hEq, Matrix.one_mulVec, Sum.elim_inl, Pi.neg_apply] at h
    linarith
  have hright : R *ᵥ (fun j => y (finSumFinEquiv (Sum.inr j))) =
      -(fun j => y (finSumFinEquiv (Sum.inr j))) := by
    funext j
    have h := hblk (Sum.inr j)
    simp only [hEq, Sum.elim_inr, Pi.neg_apply] at h
    simp only [Pi.neg_apply]
    exact h.symm
  have hz : (fun j => y (finSumFinEquiv (Sum.inr j))) = 0 := by
    by_contra hne
    exact hno ⟨_, hne, hright⟩
  funext k
  obtain ⟨s, rfl⟩ := finSumFinEquiv.surjective k
  rcases s with i | j
  · exact hleft i
  · exact congrFun hz j

/-- If `R_null` has no eigenvalue `-1`, neither has `U diag(I, R_null) Uᵀ`: an eigenvector `x`
gives `diag(I, R_null) (Uᵀ x) = -(Uᵀ x)` (`Uᵀ U = I`), so `Uᵀ x = 0` and `x = U Uᵀ x = 0`. -/
theorem no_neg_one_conj {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) {Rn : Matrix (Fin dnull) (Fin dnull) ℝ}
    (hno : ¬ ∃ x : Fin dnull → ℝ, x ≠ 0 ∧ Rn *ᵥ x = -x) :
    ¬ ∃ x : Fin (2 * m + dnull) → ℝ, x ≠ 0 ∧
      (U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn * Uᵀ) *ᵥ x = -x := by
  rintro ⟨x, hx, hEq⟩
  have hU' : Uᵀ * U = 1 := hU
  have hUU : U * Uᵀ = 1 := mul_transpose_of_isOrth hU
  have hy : dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn *ᵥ (Uᵀ *ᵥ x) = -(Uᵀ *ᵥ x) := by
    have h1 : Uᵀ *ᵥ ((U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn * Uᵀ) *ᵥ x) =
        Uᵀ *ᵥ (-x) := by
      rw [hEq]
    rw [Matrix.mulVec_mulVec, Matrix.mulVec_neg] at h1
    have h2 : Uᵀ * (U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn * Uᵀ) =
        dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rn * Uᵀ := by
      rw [← Matrix.mul_assoc, ← Matrix.mul_assoc, hU', Matrix.one_mul]
    rw [h2, ← Matrix.mulVec_mulVec] at h1
    exact h1
  have h0 := eq_zero_of_dsum_one_mulVec hno (Uᵀ *ᵥ x) hy
  apply hx
  calc x = (U * Uᵀ) *ᵥ x := by rw [hUU, Matrix.one_mulVec]
    _ = U *ᵥ (Uᵀ *ᵥ x) := by rw [Matrix.mulVec_mulVec]
    _ = 0 := by rw [h0, Matrix.mulVec_zero]

/-- **T3.4**: structured post-rotations are rotations, and Cayley images when `R_null` has no
eigenvalue `-1`. -/
theorem postA_subset : PostASubsetStatement := by
  intro m dnull U hU
  refine ⟨?_, fun Rn hRn hno => ?_⟩
  · rintro P ⟨Rn, hRn, rfl⟩
    exact isSO_conj hU hRn
  · have hno' := no_neg_one_conj (m := m) hU hno
    have hA := isUnit_det_one_add_of_no_neg_one hno'
    refine ⟨cayley (U * dsum 1 Rn * Uᵀ), cayley_skew_of_orth (isSO_conj hU hRn).1 hA, ?_⟩
    exact (cayley_cayley hA).symm

/-! ### T3.5 -/

/-- **T3.5** (espr-derivation, Tier 3): `R_sp(r) = R_STR(r) P_sp`; `R_STR(r) ∈ SO(d_h)`,
`P_sp ∈ SO(d_h)` ⇒ `R_sp(r) ∈ SO(d_h)`. -/
def RspSOStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (r : Fin dc → ℝ)
    (P : Matrix (Fin n) (Fin n) ℝ), IsSO (rstr L r) → IsSO P → IsSO (rsp L r P)

/-- **T3.5**: products of rotations are rotations. -/
theorem rsp_mem_SO : RspSOStatement := by
  intro n dc L r P hR hP
  have hR' : (rstr L r)ᵀ * rstr L r = 1 := hR.1
  have hP' : Pᵀ * P = 1 := hP.1
  refine ⟨?_, ?_⟩
  · unfold IsOrth rsp
    rw [Matrix.transpose_mul]
    calc Pᵀ * (rstr L r)ᵀ * (rstr L r * P) = Pᵀ * ((rstr L r)ᵀ * rstr L r) * P := by
          simp only [Matrix.mul_assoc]
      _ = 1 := by rw [hR', Matrix.mul_one, hP']
  · unfold rsp
    rw [Matrix.det_mul, hR.2, hP.2, one_mul]

/-! ### T3.6, T3.7 -/

theorem postA_piAct {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) {P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hP : P ∈ postA U) : piAct U * P = piAct U ∧ P * piAct U = piAct U := by
  obtain ⟨Rn, _, rfl⟩ := hP
  unfold piAct
  refine ⟨?_, ?_⟩
  · rw [conj_mul_conj hU, dsum_mul, Matrix.mul_one, Matrix.zero_mul]
  · rw [conj_mul_conj hU, dsum_mul, Matrix.mul_one, Matrix.mul_zero]

/-- **T3.6** (espr-derivation, Tier 3): `P_sp ∈ 𝓐 ⇒ Π_act P_sp = Π_act = P_sp Π_act`, and
`R_STR(r) Π_act = Π_act R_STR(r) ⇒ Π_act R_sp(r) Π_act = Π_act R_STR(r) Π_act`. -/
def PiActRspStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (r : Fin dc → ℝ),
    IsOrth U → P ∈ postA U →
      (piAct U * P = piAct U ∧ P * piAct U = piAct U) ∧
      (rstr L r * piAct U = piAct U * rstr L r →
        piAct U * rsp L r P * piAct U = piAct U * rstr L r * piAct U)

/-- **T3.6**: the post-rotation is invisible on the active subspace. -/
theorem piAct_rsp_piAct : PiActRspStatement := by
  intro m dnull dc L U P r hU hP
  have hPP := postA_piAct hU hP
  refine ⟨hPP, fun _ => ?_⟩
  unfold rsp
  simp only [Matrix.mul_assoc]
  rw [hPP.2]

/-- **T3.7** (espr-derivation, Tier 3): `P_sp ∈ 𝓐 ⇒
Π_act R_sp(r_i)ᵀ R_sp(r_j) Π_act = Π_act R_STR(r_j - r_i) Π_act` (under T1.1; `Π_act` built from
an orthogonal `U`; the block form of T2.3 is not needed, so the statement is proved for every
orthogonal `U`). -/
def PiRelRspStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (ri rj : Fin dc → ℝ),
    IsCommutingSkewFamily L → IsOrth U → P ∈ postA U →
      piAct U * (rsp L ri P)ᵀ * rsp L rj P * piAct U = piAct U * rstr L (disp ri rj) * piAct U

/-- **T3.7**: the compressed relative law of `R_sp`. -/
theorem pi_rel_rsp : PiRelRspStatement := by
  intro m dnull dc L U P ri rj hL hU hP
  have hPP := postA_piAct hU hP
  have hPiPT : piAct U * Pᵀ = piAct U := by
    have h := congrArg Matrix.transpose hPP.2
    rwa [Matrix.transpose_mul, piAct_transpose] at h
  unfold rsp
  rw [← rstr_relative' hL ri rj, Matrix.transpose_mul]
  calc piAct U * (Pᵀ * (rstr L ri)ᵀ) * (rstr L rj * P) * piAct U
      = (piAct U * Pᵀ) * ((rstr L ri)ᵀ * rstr L rj) * (P * piAct U) := by
        simp only [Matrix.mul_assoc]
    _ = piAct U * ((rstr L ri)ᵀ * rstr L rj) * piAct U := by
        rw [hPiPT, hPP.2]

end

end Pyverify.Espr
