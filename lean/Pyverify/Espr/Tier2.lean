import Pyverify.Espr.Defs

/-!
# ESPR derivation, Tier 2: joint block structure (T2.1 – T2.11, T2.2.corrected, T2.3.corrected)

Registry: `claims/espr-derivation/tier2.yaml`. The statements after T2.3 take the orthogonal `U`
and the eigenvalue parameters `λ_{k,u}` of T2.3 as hypotheses (`hU`, `hblock`), on the head
dimension `d_h = 2 m + d_null`.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-- A real matrix seen as a complex matrix. -/
def cplx {n : ℕ} (M : Matrix (Fin n) (Fin n) ℝ) : Matrix (Fin n) (Fin n) ℂ :=
  M.map (fun x : ℝ => (x : ℂ))

/-- **T2.2**: the real part `ℜ u_j` of the column `u_j = U_c e_j`. -/
def reCol {n : ℕ} (Uc : Matrix (Fin n) (Fin n) ℂ) (j : Fin n) : Fin n → ℝ :=
  fun i => (Uc i j).re

/-- **T2.2**: the imaginary part `ℑ u_j` of the column `u_j = U_c e_j`. -/
def imCol {n : ℕ} (Uc : Matrix (Fin n) (Fin n) ℂ) (j : Fin n) : Fin n → ℝ :=
  fun i => (Uc i j).im

theorem isSkew_zero {n : ℕ} : IsSkew (0 : Matrix (Fin n) (Fin n) ℝ) := by
  unfold IsSkew
  rw [Matrix.transpose_zero, neg_zero]

theorem bracket_zero_zero {n : ℕ} : bracket (0 : Matrix (Fin n) (Fin n) ℝ) 0 = 0 := by
  unfold bracket
  rw [Matrix.mul_zero, sub_self]

/-! ### T2.1 -/

/-- **T2.1** (espr-derivation, Tier 2): `{L_k}` commute and are normal (real skew, T1.1) ⇒
`∃ U_c ∈ U(d_h)` with `U_c* L_k U_c = diag(iλ_{k,1}, …, iλ_{k,d_h})`, `λ_{k,j} ∈ ℝ`. -/
def SimUnitaryStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∃ (Uc : Matrix (Fin n) (Fin n) ℂ) (lam : Fin dc → Fin n → ℝ), IsUnitaryMat Uc ∧
      ∀ k, Ucᴴ * cplx (L k) * Uc = diagonal (fun j => Complex.I * (lam k j : ℂ))

/-- **T2.1**: simultaneous unitary diagonalisation of a commuting skew family (needs the spectral
theorem for commuting normal families; not proved here). -/
theorem sim_unitary_diagonalization : SimUnitaryStatement := by
  sorry

/-! ### T2.2 and its correction -/

/-- **T2.2** (espr-derivation, Tier 2), as printed in its intended reading (registry `reading`):
for `U_c, λ` as in T2.1 and every `j`, with `u_j = U_c e_j`: `L_k ℜu_j = -λ_{k,j} ℑu_j`,
`L_k ℑu_j = λ_{k,j} ℜu_j`, and `span{ℜu_j, ℑu_j}` is a real 2-D plane (`ℜu_j, ℑu_j` linearly
independent). REFUTED (registry): the 2-D clause fails for common null directions. -/
def RealPlanesStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (Uc : Matrix (Fin n) (Fin n) ℂ)
    (lam : Fin dc → Fin n → ℝ), IsCommutingSkewFamily L → IsUnitaryMat Uc →
    (∀ k, Ucᴴ * cplx (L k) * Uc = diagonal (fun j => Complex.I * (lam k j : ℂ))) →
    ∀ j : Fin n,
      (∀ k, L k *ᵥ reCol Uc j = -(lam k j) • imCol Uc j ∧
        L k *ᵥ imCol Uc j = lam k j • reCol Uc j) ∧
      LinearIndependent ℝ ![reCol Uc j, imCol Uc j]

/-- The registry's witness for **T2.2**, made exact: `d_h = 1`, `d_c = 1`, `L_1 = 0`, `U_c = I`,
`λ = 0`; the only plane is the line `span{e_1}` (`ℑu_1 = 0`). -/
theorem not_real_planes : ¬ RealPlanesStatement := by
  intro h
  have hfam : IsCommutingSkewFamily (fun _ : Fin 1 => (0 : Matrix (Fin 1) (Fin 1) ℝ)) :=
    ⟨fun _ => isSkew_zero, fun _ _ => bracket_zero_zero⟩
  have hU : IsUnitaryMat (1 : Matrix (Fin 1) (Fin 1) ℂ) := by
    unfold IsUnitaryMat
    rw [Matrix.conjTranspose_one, Matrix.one_mul]
  have hdiag : ∀ k : Fin 1, (1 : Matrix (Fin 1) (Fin 1) ℂ)ᴴ *
      cplx ((fun _ : Fin 1 => (0 : Matrix (Fin 1) (Fin 1) ℝ)) k) * 1 =
      diagonal (fun j => Complex.I * (((fun _ _ => (0 : ℝ)) : Fin 1 → Fin 1 → ℝ) k j : ℂ)) := by
    intro k
    ext i j
    fin_cases i
    fin_cases j
    simp [cplx]
  have hli := (h 1 1 (fun _ => 0) 1 (fun _ _ => 0) hfam hU hdiag 0).2
  have hz : imCol (1 : Matrix (Fin 1) (Fin 1) ℂ) 0 = 0 := by
    funext i
    fin_cases i
    simp [imCol]
  exact hli.ne_zero 1 (by simp [hz])

/-- **T2.2.corrected** (espr-derivation, Tier 2): with `u_j = U_c e_j` (`|u_j| = 1`):
`L_k ℜu_j = -λ_{k,j} ℑu_j` and `L_k ℑu_j = λ_{k,j} ℜu_j`; if `λ_{k,j} ≠ 0` for some `k`, then
`|ℜu_j|² = |ℑu_j|² = 1/2` and `ℜu_j ⊥ ℑu_j` (a real 2-D invariant plane); if `λ_{k,j} = 0` for all
`k`, a real nonzero vector spans an invariant line (it is annihilated by every `L_k`). -/
def RealPlanesCorrectedStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (Uc : Matrix (Fin n) (Fin n) ℂ)
    (lam : Fin dc → Fin n → ℝ), IsCommutingSkewFamily L → IsUnitaryMat Uc →
    (∀ k, Ucᴴ * cplx (L k) * Uc = diagonal (fun j => Complex.I * (lam k j : ℂ))) →
    ∀ j : Fin n,
      (∀ k, L k *ᵥ reCol Uc j = -(lam k j) • imCol Uc j ∧
        L k *ᵥ imCol Uc j = lam k j • reCol Uc j) ∧
      ((∃ k, lam k j ≠ 0) →
        reCol Uc j ⬝ᵥ reCol Uc j = 1 / 2 ∧ imCol Uc j ⬝ᵥ imCol Uc j = 1 / 2 ∧
          reCol Uc j ⬝ᵥ imCol Uc j = 0) ∧
      ((∀ k, lam k j = 0) → ∃ v : Fin n → ℝ, v ≠ 0 ∧ ∀ k, L k *ᵥ v = 0)

/-- **T2.2.corrected**: real invariant planes (lines for the null directions). The column
`u_j = a + i b` is an eigenvector, `L_k u_j = iλ u_j` (from `U_c U_c* = I`); its real and imaginary
parts give `L a = -λ b`, `L b = λ a`; `|a|² + |b|² = 1` (a unit column); for `λ ≠ 0`,
`aᵀ L a = 0` gives `a ⊥ b` and `bᵀ L a = -aᵀ L b` gives `|a|² = |b|²`; for `λ = 0` both parts are
annihilated and one of them is nonzero. -/
theorem real_planes_corrected : RealPlanesCorrectedStatement := by
  intro n dc L Uc lam hL hU hdiag j
  have hU' : Ucᴴ * Uc = 1 := hU
  have hUU : Uc * Ucᴴ = 1 := Matrix.mul_eq_one_comm.mp hU'
  have hcol : ∀ k, (L k).map (fun x : ℝ => (x : ℂ)) *ᵥ (fun i => Uc i j) =
      (Complex.I * (lam k j : ℂ)) • (fun i => Uc i j) := by
    intro k
    have hLU : cplx (L k) * Uc = Uc * diagonal (fun l => Complex.I * (lam k l : ℂ)) := by
      rw [← hdiag k, ← Matrix.mul_assoc, ← Matrix.mul_assoc, hUU, Matrix.one_mul]
    funext i
    have h := congrFun (congrFun hLU i) j
    rw [Matrix.mul_diagonal] at h
    show (cplx (L k) * Uc) i j = (Complex.I * (lam k j : ℂ)) * Uc i j
    rw [h]
    ring
  have hre : ∀ k, L k *ᵥ reCol Uc j = -(lam k j) • imCol Uc j := by
    intro k
    funext i
    have h := congrArg Complex.re (congrFun (hcol k) i)
    rw [re_map_ofReal_mulVec] at h
    show (L k *ᵥ fun l => (Uc l j).re) i = -(lam k j) * (Uc i j).im
    rw [h]
    first
    | (simp only [Pi.smul_apply, smul_eq_mul, Complex.mul_re, Complex.mul_im, Complex.I_re,
         Complex.I_im, Complex.ofReal_re, Complex.ofReal_im]
       ring
       done)
    | (show ((Complex.I * (lam k j : ℂ)) * Uc i j).re = -(lam k j) * (Uc i j).im
       rw [Complex.mul_re, Complex.mul_re, Complex.mul_im, Complex.I_re, Complex.I_im,
         Complex.ofReal_re, Complex.ofReal_im]
       ring)
  have him : ∀ k, L k *ᵥ imCol Uc j = lam k j • reCol Uc j := by
    intro k
    funext i
    have h := congrArg Complex.im (congrFun (hcol k) i)
    rw [im_map_ofReal_mulVec] at h
    show (L k *ᵥ fun l => (Uc l j).im) i = lam k j * (Uc i j).re
    rw [h]
    first
    | (simp only [Pi.smul_apply, smul_eq_mul, Complex.mul_re, Complex.mul_im, Complex.I_re,
         Complex.I_im, Complex.ofReal_re, Complex.ofReal_im]
       ring
       done)
    | (show ((Complex.I * (lam k j : ℂ)) * Uc i j).im = lam k j * (Uc i j).re
       rw [Complex.mul_im, Complex.mul_re, Complex.mul_im, Complex.I_re, Complex.I_im,
         Complex.ofReal_re, Complex.ofReal_im]
       ring)
  -- the column has unit length: `|a|² + |b|² = (U_c* U_c)_jj = 1`
  have hnorm : reCol Uc j ⬝ᵥ reCol Uc j + imCol Uc j ⬝ᵥ imCol Uc j = 1 := by
    have h := congrArg Complex.re (congrFun (congrFun hU' j) j)
    rw [Matrix.mul_apply, Matrix.one_apply_eq, Complex.one_re, Complex.re_sum] at h
    simp only [Matrix.conjTranspose_apply, Complex.star_def, Complex.mul_re, Complex.conj_re,
      Complex.conj_im] at h
    rw [← h]
    show ∑ i, (Uc i j).re * (Uc i j).re + ∑ i, (Uc i j).im * (Uc i j).im = _
    rw [← Finset.sum_add_distrib]
    refine Finset.sum_congr rfl fun i _ => ?_
    -- `(star z).re = z.re`, `(star z).im = -z.im` hold by definition, whichever form `simp` left
    first
    | ring1
    | (show (Uc i j).re * (Uc i j).re + (Uc i j).im * (Uc i j).im =
          (Uc i j).re * (Uc i j).re - -(Uc i j).im * (Uc i j).im
       ring)
  refine ⟨fun k => ⟨hre k, him k⟩, ?_, ?_⟩
  · rintro ⟨k, hk⟩
    have hskew : IsSkew (L k) := hL.1 k
    have h1 := skew_quadratic_zero hskew (reCol Uc j)
    rw [hre k] at h1
    simp only [dotProduct_smul, smul_eq_mul] at h1
    have hab : reCol Uc j ⬝ᵥ imCol Uc j = 0 := by
      rcases mul_eq_zero.mp h1 with h | h
      · exact absurd (neg_eq_zero.mp h) hk
      · exact h
    have h2 := skew_dotProduct_antisymm hskew (imCol Uc j) (reCol Uc j)
    rw [hre k, him k] at h2
    simp only [dotProduct_smul, smul_eq_mul] at h2
    have h3 : lam k j * (imCol Uc j ⬝ᵥ imCol Uc j - reCol Uc j ⬝ᵥ reCol Uc j) = 0 := by
      linarith
    have hsq : imCol Uc j ⬝ᵥ imCol Uc j = reCol Uc j ⬝ᵥ reCol Uc j := by
      rcases mul_eq_zero.mp h3 with h | h
      · exact absurd h hk
      · linarith
    exact ⟨by linarith, by linarith, hab⟩
  · intro hz
    have hLa0 : ∀ k, L k *ᵥ reCol Uc j = 0 := fun k => by
      rw [hre k, hz k, neg_zero, zero_smul]
    have hLb0 : ∀ k, L k *ᵥ imCol Uc j = 0 := fun k => by
      rw [him k, hz k, zero_smul]
    by_cases ha : reCol Uc j = 0
    · refine ⟨imCol Uc j, ?_, hLb0⟩
      intro hb
      rw [ha, hb, dotProduct_zero, add_zero] at hnorm
      exact zero_ne_one hnorm
    · exact ⟨reCol Uc j, ha, hLa0⟩

/-! ### T2.3 and its correction -/

/-- **T2.3** (espr-derivation, Tier 2), as printed: `∃ m, d_null ∈ ℕ = {1, 2, …}` with
`2m + d_null = d_h` and `∃ U ∈ O(d_h)` with `Uᵀ L_k U = (⊕_{u=1}^m λ_{k,u} J) ⊕ 0_{d_null}`
for all `k`. REFUTED (registry): `m, d_null ≥ 1` is impossible for `d_h = 2`. -/
def JointBlockDiagStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∃ (m dnull : ℕ) (h : 2 * m + dnull = n), 1 ≤ m ∧ 1 ≤ dnull ∧
      ∃ (U : Matrix (Fin n) (Fin n) ℝ) (lam : Fin dc → Fin m → ℝ), IsOrth U ∧
        ∀ k, Uᵀ * L k * U =
          (jointBlockForm dnull (lam k)).submatrix (Fin.cast h.symm) (Fin.cast h.symm)

/-- The registry's witness for **T2.3**: `d_h = 2`, `d_c = 1`, `L_1 = 0` (any family on `ℝ²`
works: `2m + d_null = 2` has no solution with `m, d_null ≥ 1`). -/
theorem not_joint_block_diag : ¬ JointBlockDiagStatement := by
  intro h
  have hfam : IsCommutingSkewFamily (fun _ : Fin 1 => (0 : Matrix (Fin 2) (Fin 2) ℝ)) :=
    ⟨fun _ => isSkew_zero, fun _ _ => bracket_zero_zero⟩
  obtain ⟨m, dnull, hsum, hm, hd, _⟩ := h 2 1 (fun _ => 0) hfam
  omega

/-- **T2.3.corrected** (espr-derivation, Tier 2): T2.3 with `m, d_null ∈ {0, 1, 2, …}`: the
real normal form of a commuting family of real skew matrices. -/
def JointBlockDiagCorrectedStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∃ (m dnull : ℕ) (h : 2 * m + dnull = n),
      ∃ (U : Matrix (Fin n) (Fin n) ℝ) (lam : Fin dc → Fin m → ℝ), IsOrth U ∧
        ∀ k, Uᵀ * L k * U =
          (jointBlockForm dnull (lam k)).submatrix (Fin.cast h.symm) (Fin.cast h.symm)

/-- **T2.3.corrected**: joint real block diagonalisation (needs the real spectral theorem for
commuting normal families; not proved here). -/
theorem joint_block_diag_corrected : JointBlockDiagCorrectedStatement := by
  sorry

/-! ### Linearity of the block form (used by T2.5) -/

theorem planeBlocks_lincomb {m dc : ℕ} (c : Fin dc → ℝ) (lam : Fin dc → Fin m → ℝ) :
    ∑ k, c k • planeBlocks (lam k) = planeBlocks (fun u => ∑ k, c k * lam k u) := by
  ext i j
  rw [Matrix.sum_apply]
  simp only [Matrix.smul_apply, planeBlocks, Matrix.submatrix_apply, Matrix.blockDiagonal_apply,
    smul_eq_mul]
  by_cases h : (finProdFinEquiv.symm i).2 = (finProdFinEquiv.symm j).2
  · simp only [if_pos h, Matrix.smul_apply, smul_eq_mul, Finset.sum_mul, mul_assoc]
  · simp only [if_neg h, mul_zero, Finset.sum_const_zero]

/-- Scaling commutes with `· ⊕ 0`: blockwise (`Matrix.fromBlocks_smul`), then through the reindexing
(`submatrix` of a scaled matrix is the scaled `submatrix`, by definition). -/
theorem dsum_smul_left {a b : ℕ} (c : ℝ) (A : Matrix (Fin a) (Fin a) ℝ) :
    c • dsum A (0 : Matrix (Fin b) (Fin b) ℝ) = dsum (c • A) 0 := by
  have h : fromBlocks (c • A) (0 : Matrix (Fin a) (Fin b) ℝ) (0 : Matrix (Fin b) (Fin a) ℝ)
      (0 : Matrix (Fin b) (Fin b) ℝ) = c • fromBlocks A 0 0 0 := by
    simp only [Matrix.fromBlocks_smul, smul_zero]
  unfold dsum
  rw [h]
  rfl

/-- Addition commutes with `· ⊕ 0` (`Matrix.fromBlocks_add`, then the reindexing, by definition). -/
theorem dsum_add_left {a b : ℕ} (A A' : Matrix (Fin a) (Fin a) ℝ) :
    dsum (A + A') (0 : Matrix (Fin b) (Fin b) ℝ) = dsum A 0 + dsum A' 0 := by
  have h : fromBlocks (A + A') (0 : Matrix (Fin a) (Fin b) ℝ) (0 : Matrix (Fin b) (Fin a) ℝ)
      (0 : Matrix (Fin b) (Fin b) ℝ) = fromBlocks A 0 0 0 + fromBlocks A' 0 0 0 := by
    simp only [Matrix.fromBlocks_add, add_zero]
  unfold dsum
  rw [h]
  rfl

/-- `A ↦ A ⊕ 0` as an additive map. -/
def dsumLeftHom (a b : ℕ) :
    Matrix (Fin a) (Fin a) ℝ →+ Matrix (Fin (a + b)) (Fin (a + b)) ℝ :=
  AddMonoidHom.mk' (fun A => dsum A 0) (fun A A' => dsum_add_left A A')

theorem dsum_sum_left {a b dc : ℕ} (f : Fin dc → Matrix (Fin a) (Fin a) ℝ) :
    dsum (∑ k, f k) (0 : Matrix (Fin b) (Fin b) ℝ) = ∑ k, dsum (f k) 0 :=
  map_sum (dsumLeftHom a b) f Finset.univ

theorem jointBlockForm_lincomb {m dnull dc : ℕ} (c : Fin dc → ℝ) (lam : Fin dc → Fin m → ℝ) :
    ∑ k, c k • jointBlockForm dnull (lam k) =
      jointBlockForm dnull (fun u => ∑ k, c k * lam k u) := by
  unfold jointBlockForm
  simp only [dsum_smul_left]
  rw [← dsum_sum_left (fun k => c k • planeBlocks (lam k)), planeBlocks_lincomb c lam]

theorem theta_eq_sum {dc m : ℕ} (lam : Fin dc → Fin m → ℝ) (r : Fin dc → ℝ) :
    theta lam r = fun u => ∑ k, r k * lam k u := by
  funext u
  unfold theta beta dotProduct
  refine Finset.sum_congr rfl fun k _ => ?_
  rw [mul_comm]

/-! ### T2.5 -/

/-- **T2.5** (espr-derivation, Tier 2): `Uᵀ A(r) U = (⊕_{u=1}^m θ_u(r) J) ⊕ 0_{d_null}`, for the
`U`, `λ` of T2.3 (hypothesis `hblock`) and `θ_u(r) = β_uᵀ r` (T2.4). -/
def ConjGenSumStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    IsCommutingSkewFamily L → IsOrth U → (∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)) →
    ∀ r : Fin dc → ℝ, Uᵀ * genSum L r * U = jointBlockForm dnull (theta lam r)

theorem conj_genSum {m dnull dc : ℕ} {L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ} {lam : Fin dc → Fin m → ℝ}
    (hblock : ∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)) (r : Fin dc → ℝ) :
    Uᵀ * genSum L r * U = jointBlockForm dnull (theta lam r) := by
  have h1 : Uᵀ * genSum L r * U = ∑ k, r k • (Uᵀ * L k * U) := by
    unfold genSum
    rw [Matrix.mul_sum, Matrix.sum_mul]
    refine Finset.sum_congr rfl fun k _ => ?_
    rw [Matrix.mul_smul, Matrix.smul_mul]
  rw [h1, theta_eq_sum, ← jointBlockForm_lincomb r lam]
  refine Finset.sum_congr rfl fun k _ => ?_
  rw [hblock k]

/-- **T2.5**: the generator sum in the joint block basis. -/
theorem conj_genSum_block : ConjGenSumStatement :=
  fun _ _ _ _ _ _ _ _ hblock r => conj_genSum hblock r

/-! ### T2.6, T2.7 -/

/-- `exp(⊕_u θ_u J) = ⊕_u R_2(θ_u)`: through the reindexing (`exp_real_submatrix_equiv`),
Mathlib's `Matrix.exp_blockDiagonal`, and the exponential of a product of rings taken factorwise
(`exp_real_pi`). The last step is closed either by `congrArg` (definitional up to the instances of
the product ring) or by rewriting with that entrywise form. -/
theorem mexp_planeBlocks {m : ℕ} (θ : Fin m → ℝ) : mexp (planeBlocks θ) = rotBlocks θ := by
  have hpi : NormedSpace.exp ℝ (fun u : Fin m => θ u • Jmat) =
      fun u => NormedSpace.exp ℝ (θ u • Jmat) :=
    exp_real_pi (fun u : Fin m => θ u • Jmat)
  unfold planeBlocks rotBlocks R2 mexp
  rw [exp_real_submatrix_equiv finProdFinEquiv, Matrix.exp_blockDiagonal ℝ]
  first
  | exact congrArg (fun v : Fin m → Matrix (Fin 2) (Fin 2) ℝ =>
      (blockDiagonal v).submatrix (finProdFinEquiv : Fin 2 × Fin m ≃ Fin (2 * m)).symm
        (finProdFinEquiv : Fin 2 × Fin m ≃ Fin (2 * m)).symm) hpi
  | (rw [hpi]; try rfl)

/-- The exponential of the block normal form: `exp((⊕_u θ_u J) ⊕ 0) = (⊕_u R_2(θ_u)) ⊕ I`. -/
theorem mexp_jointBlockForm {m dnull : ℕ} (θ : Fin m → ℝ) :
    mexp (jointBlockForm dnull θ) = dsum (rotBlocks θ) 1 := by
  unfold jointBlockForm
  rw [mexp_dsum, mexp_planeBlocks, mexp_zero]
  try rfl

/-- **T2.6** (espr-derivation, Tier 2): `exp(Uᵀ A(r) U) = (⊕_{u=1}^m R_2(θ_u(r))) ⊕ I_{d_null}`. -/
def ExpBlockStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    IsCommutingSkewFamily L → IsOrth U → (∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)) →
    ∀ r : Fin dc → ℝ, mexp (Uᵀ * genSum L r * U) = dsum (rotBlocks (theta lam r)) 1

/-- **T2.6**: the exponential in the joint block basis. -/
theorem exp_block : ExpBlockStatement := by
  intro m dnull dc L U lam _ _ hblock r
  rw [conj_genSum hblock r, mexp_jointBlockForm]

/-- **T2.7** (espr-derivation, Tier 2):
`R_STR(r) = U [(⊕_{u=1}^m R_2(θ_u(r))) ⊕ I_{d_null}] Uᵀ`. -/
def RstrFormStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    IsCommutingSkewFamily L → IsOrth U → (∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)) →
    ∀ r : Fin dc → ℝ, rstr L r = U * dsum (rotBlocks (theta lam r)) 1 * Uᵀ

/-- **T2.7**: closed form of `R_STR` (from T2.6 and `exp(U M U⁻¹) = U exp(M) U⁻¹`). -/
theorem rstr_form : RstrFormStatement := by
  intro m dnull dc L U lam hL hU hblock r
  have hUinv : U⁻¹ = Uᵀ := inv_eq_transpose_of_isOrth hU
  have hA := eq_conj_of_isOrth hU (genSum L r)
  unfold rstr
  calc mexp (genSum L r) = mexp (U * (Uᵀ * genSum L r * U) * U⁻¹) := by
        rw [hUinv, ← hA]
    _ = U * mexp (Uᵀ * genSum L r * U) * U⁻¹ := mexp_conj _ _ (isUnit_of_isOrth hU)
    _ = U * dsum (rotBlocks (theta lam r)) 1 * Uᵀ := by
        rw [exp_block m dnull dc L U lam hL hU hblock r, hUinv]

/-! ### T2.8, T2.9 -/

/-- **T2.8** (espr-derivation, Tier 2): `R_STR(r) ∈ SO(d_h)` (under T1.1). -/
def RstrSOStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∀ r : Fin dc → ℝ, IsSO (rstr L r)

/-- **T2.8**: `R_STR(r)` is a rotation (exp of a skew matrix: orthogonal, determinant `1`). -/
theorem rstr_mem_SO : RstrSOStatement :=
  fun _ _ _ hL r => ⟨mexp_isOrth_of_skew (genSum_skew hL.1 r), det_mexp_of_skew (genSum_skew hL.1 r)⟩

/-- **T2.9** (espr-derivation, Tier 2): `R_STR(r_i)ᵀ R_STR(r_j) = R_STR(r_j - r_i)` (under T1.1;
displacement convention `r_j - r_i`). -/
def RstrRelativeStatement : Prop :=
  ∀ (n dc : ℕ) (L : Fin dc → Matrix (Fin n) (Fin n) ℝ), IsCommutingSkewFamily L →
    ∀ ri rj : Fin dc → ℝ, (rstr L ri)ᵀ * rstr L rj = rstr L (disp ri rj)

theorem rstr_relative' {n dc : ℕ} {L : Fin dc → Matrix (Fin n) (Fin n) ℝ}
    (hL : IsCommutingSkewFamily L) (ri rj : Fin dc → ℝ) :
    (rstr L ri)ᵀ * rstr L rj = rstr L (disp ri rj) := by
  have hs : (genSum L ri)ᵀ = -genSum L ri := genSum_skew hL.1 ri
  unfold rstr disp
  rw [← mexp_transpose, hs,
    ← mexp_add_of_commute _ _ (Commute.neg_left (genSum_commute hL.2 ri rj)), genSum_sub,
    neg_add_eq_sub]

/-- **T2.9**: the relative law of `R_STR`. -/
theorem rstr_relative : RstrRelativeStatement :=
  fun _ _ _ hL ri rj => rstr_relative' hL ri rj

/-! ### T2.10 -/

/-- **T2.10** (espr-derivation, Tier 2): `Π_act = U diag(I_{2m}, 0) Uᵀ` and
`Π_null = U diag(0, I_{d_null}) Uᵀ` are symmetric idempotents with `Π_act Π_null = 0`, hence
`im(Π_act) ⊥ im(Π_null)`, and `d_act = rank(Π_act) = 2m` (for the orthogonal `U` of T2.3). -/
def ProjectorsStatement : Prop :=
  ∀ (m dnull : ℕ) (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ), IsOrth U →
    (piAct U)ᵀ = piAct U ∧ piAct U * piAct U = piAct U ∧
    (piNull U)ᵀ = piNull U ∧ piNull U * piNull U = piNull U ∧
    piAct U * piNull U = 0 ∧
    (∀ x y : Fin (2 * m + dnull) → ℝ, (piAct U *ᵥ x) ⬝ᵥ (piNull U *ᵥ y) = 0) ∧
    (piAct U).rank = 2 * m

theorem piAct_transpose {m dnull : ℕ} (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    (piAct U)ᵀ = piAct U := by
  unfold piAct
  rw [orthConj_transpose, dsum_transpose, Matrix.transpose_one, Matrix.transpose_zero]

theorem piNull_transpose {m dnull : ℕ}
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) : (piNull U)ᵀ = piNull U := by
  unfold piNull
  rw [orthConj_transpose, dsum_transpose, Matrix.transpose_one, Matrix.transpose_zero]

theorem piAct_idem {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) : piAct U * piAct U = piAct U := by
  unfold piAct
  rw [conj_mul_conj hU, dsum_mul, Matrix.mul_one, Matrix.mul_zero]

theorem piNull_idem {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) : piNull U * piNull U = piNull U := by
  unfold piNull
  rw [conj_mul_conj hU, dsum_mul, Matrix.mul_one, Matrix.mul_zero]

theorem piAct_mul_piNull {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) : piAct U * piNull U = 0 := by
  unfold piAct piNull
  rw [conj_mul_conj hU, dsum_mul, Matrix.mul_zero, Matrix.zero_mul, dsum_zero, Matrix.mul_zero,
    Matrix.zero_mul]

/-- `rank(I_a ⊕ 0_b) = a`: the block matrix is the diagonal matrix with `a` ones
(`Matrix.rank_diagonal` counts the nonzero diagonal entries). -/
theorem rank_dsum_one_zero (a b : ℕ) :
    (dsum (1 : Matrix (Fin a) (Fin a) ℝ) (0 : Matrix (Fin b) (Fin b) ℝ)).rank = a := by
  have hdiag : fromBlocks (1 : Matrix (Fin a) (Fin a) ℝ) 0 0 (0 : Matrix (Fin b) (Fin b) ℝ) =
      diagonal (Sum.elim (fun _ : Fin a => (1 : ℝ)) (fun _ : Fin b => (0 : ℝ))) := by
    have h := Matrix.fromBlocks_diagonal (fun _ : Fin a => (1 : ℝ)) (fun _ : Fin b => (0 : ℝ))
    rw [Matrix.diagonal_one, Matrix.diagonal_zero] at h
    exact h
  have hbij : Function.Bijective (fun k : Fin a =>
      (⟨Sum.inl k, by simp⟩ :
        {i : Fin a ⊕ Fin b // Sum.elim (fun _ : Fin a => (1 : ℝ)) (fun _ : Fin b => (0 : ℝ)) i ≠ 0})) := by
    refine ⟨fun k l h => Sum.inl_injective (congrArg Subtype.val h), ?_⟩
    rintro ⟨i | i, hi⟩
    · exact ⟨i, rfl⟩
    · exact (hi (by simp)).elim
  have hcard := (Fintype.card_of_bijective hbij).symm.trans (Fintype.card_fin a)
  unfold dsum
  rw [Matrix.rank_submatrix, hdiag, Matrix.rank_diagonal]
  -- the `Fintype` instance of the subtype that `rank_diagonal` names may differ from the one
  -- `card_of_bijective` found; `Fintype` is a subsingleton, which `convert` uses
  first
  | exact hcard
  | convert hcard using 2

/-- `rank(Π_act) = 2m`: multiplying by the invertible `U` and `Uᵀ` keeps the rank of
`diag(I_{2m}, 0)`. -/
theorem rank_piAct {m dnull : ℕ} {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    (hU : IsOrth U) : (piAct U).rank = 2 * m := by
  have hdetU : IsUnit U.det := (Matrix.isUnit_iff_isUnit_det U).mp (isUnit_of_isOrth hU)
  have hdetUT : IsUnit Uᵀ.det := by
    rw [Matrix.det_transpose]
    exact hdetU
  unfold piAct
  rw [Matrix.rank_mul_eq_left_of_isUnit_det Uᵀ _ hdetUT,
    Matrix.rank_mul_eq_right_of_isUnit_det U _ hdetU]
  exact rank_dsum_one_zero (2 * m) dnull

/-- **T2.10**: the active and null projectors. -/
theorem projectors : ProjectorsStatement := by
  intro m dnull U hU
  refine ⟨piAct_transpose U, piAct_idem hU, piNull_transpose U, piNull_idem hU,
    piAct_mul_piNull hU, fun x y => ?_, rank_piAct hU⟩
  rw [mulVec_dotProduct_eq, piAct_transpose, Matrix.mulVec_mulVec, piAct_mul_piNull hU,
    Matrix.zero_mulVec, dotProduct_zero]

/-! ### T2.11 -/

theorem jointBlockForm_commute_act {m dnull : ℕ} (θ : Fin m → ℝ) :
    Commute (jointBlockForm dnull θ)
      (dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) (0 : Matrix (Fin dnull) (Fin dnull) ℝ)) := by
  show jointBlockForm dnull θ * dsum 1 0 = dsum 1 0 * jointBlockForm dnull θ
  unfold jointBlockForm
  rw [dsum_mul, dsum_mul, Matrix.mul_one, Matrix.one_mul]

/-- `A(r)` commutes with `Π_act` (for the `U`, `λ` of T2.3). -/
theorem genSum_commute_piAct {m dnull dc : ℕ}
    {L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ} {lam : Fin dc → Fin m → ℝ}
    (hU : IsOrth U) (hblock : ∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k))
    (r : Fin dc → ℝ) : Commute (genSum L r) (piAct U) := by
  have hA := eq_conj_of_isOrth hU (genSum L r)
  rw [conj_genSum hblock r] at hA
  show genSum L r * piAct U = piAct U * genSum L r
  unfold piAct
  rw [hA, conj_mul_conj hU, conj_mul_conj hU, (jointBlockForm_commute_act (dnull := dnull) (theta lam r)).eq]

/-- **T2.11** (espr-derivation, Tier 2): `R_STR(r) Π_act = Π_act R_STR(r)` (for the `U`, `λ` of
T2.3). -/
def RstrCommPiActStatement : Prop :=
  ∀ (m dnull dc : ℕ) (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ),
    IsCommutingSkewFamily L → IsOrth U → (∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)) →
    ∀ r : Fin dc → ℝ, rstr L r * piAct U = piAct U * rstr L r

theorem rstr_commute_piAct {m dnull dc : ℕ}
    {L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ}
    {U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ} {lam : Fin dc → Fin m → ℝ}
    (hU : IsOrth U) (hblock : ∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k))
    (r : Fin dc → ℝ) : rstr L r * piAct U = piAct U * rstr L r :=
  (commute_mexp_left (genSum_commute_piAct hU hblock r)).eq

/-- **T2.11**: `R_STR(r)` commutes with the active projector. -/
theorem rstr_comm_piAct : RstrCommPiActStatement :=
  fun _ _ _ _ _ _ _ hU hblock r => rstr_commute_piAct hU hblock r

end

end Pyverify.Espr
