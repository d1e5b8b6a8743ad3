import Pyverify.Espr.Defs

/-!
# ESPR derivation, Tier 0: linear-algebra primitives (T0.1 – T0.20, T0.13.corrected)

Registry: `claims/espr-derivation/tier0.yaml`. Pure definitions (T0.1, T0.2, T0.3, T0.10,
T0.12, T0.14, T0.17) are Lean definitions (in `Defs.lean`, Mathlib, or below); every claim with
mathematical content has a `…Statement` and a theorem.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-- **T0.12** (espr-derivation, Tier 0): `X ≈_ε Y ⇔ |X - Y| ≤ ε` (non-strict reading of 000). -/
def approxEps {m n : ℕ} (ε : ℝ) (X Y : Matrix (Fin m) (Fin n) ℝ) : Prop :=
  opNorm (X - Y) ≤ ε

/-- `J` is skew-symmetric (used by **T0.18**, **T1.1**). -/
theorem Jmat_skew : IsSkew Jmat := by
  unfold IsSkew Jmat
  ext i j
  fin_cases i <;> fin_cases j <;>
    first
    | (simp [Matrix.transpose_apply, Matrix.neg_apply]; done)
    | norm_num [Matrix.transpose_apply, Matrix.neg_apply]

theorem smul_Jmat_skew (θ : ℝ) : IsSkew (θ • Jmat) := by
  unfold IsSkew
  have hJ : Jmatᵀ = -Jmat := Jmat_skew
  rw [Matrix.transpose_smul, hJ, smul_neg]

/-- Triangle inequality for the Euclidean norm (part of **T0.9**), from the Cauchy–Schwarz
inequality for finite sums. -/
theorem vnorm_add_le {m : ℕ} (x y : Fin m → ℝ) : vnorm (x + y) ≤ vnorm x + vnorm y := by
  unfold vnorm
  have ha : 0 ≤ ∑ u, x u ^ 2 := Finset.sum_nonneg fun u _ => sq_nonneg (x u)
  have hb : 0 ≤ ∑ u, y u ^ 2 := Finset.sum_nonneg fun u _ => sq_nonneg (y u)
  have hcs := Finset.sum_mul_sq_le_sq_mul_sq Finset.univ x y
  have hexp : ∑ u, (x + y) u ^ 2 = ∑ u, x u ^ 2 + 2 * ∑ u, x u * y u + ∑ u, y u ^ 2 := by
    rw [Finset.mul_sum, ← Finset.sum_add_distrib, ← Finset.sum_add_distrib]
    refine Finset.sum_congr rfl fun u _ => ?_
    rw [Pi.add_apply]
    ring
  have hsa := Real.sq_sqrt ha
  have hsb := Real.sq_sqrt hb
  have hsa0 := Real.sqrt_nonneg (∑ u, x u ^ 2)
  have hsb0 := Real.sqrt_nonneg (∑ u, y u ^ 2)
  set a := ∑ u, x u ^ 2
  set b := ∑ u, y u ^ 2
  set c := ∑ u, x u * y u
  have hprod : (Real.sqrt a * Real.sqrt b) ^ 2 = a * b := by
    rw [mul_pow, hsa, hsb]
  have hc : c ≤ Real.sqrt a * Real.sqrt b := by
    nlinarith [mul_nonneg hsa0 hsb0]
  rw [hexp]
  calc Real.sqrt (a + 2 * c + b) ≤ Real.sqrt ((Real.sqrt a + Real.sqrt b) ^ 2) := by
        apply Real.sqrt_le_sqrt
        nlinarith
    _ = Real.sqrt a + Real.sqrt b := Real.sqrt_sq (add_nonneg hsa0 hsb0)

/-! ### T0.4 -/

/-- **T0.4** (espr-derivation, Tier 0): `det(AB) = det(A) det(B)`, `det(Aᵀ) = det(A)`, and
`U` invertible ⇒ `det(U A U⁻¹) = det(A)`, for complex `n × n` matrices. -/
def DetPropertiesStatement : Prop :=
  ∀ (n : ℕ) (A B U : Matrix (Fin n) (Fin n) ℂ),
    (A * B).det = A.det * B.det ∧ Aᵀ.det = A.det ∧ (IsUnit U → (U * A * U⁻¹).det = A.det)

/-- **T0.4**: multiplicativity, transpose invariance and similarity invariance of `det`. -/
theorem det_properties : DetPropertiesStatement := by
  intro n A B U
  exact ⟨Matrix.det_mul A B, Matrix.det_transpose A, fun hU => Matrix.det_conj hU A⟩

/-! ### T0.5 -/

/-- **T0.5** (espr-derivation, Tier 0): `det(⊕_{u=1}^m M_u) = ∏_u det(M_u)` (block matrices have
determinant equal to the product of the block determinants). Lean reading: (i) `m` blocks of a
common size `k` (`Matrix.blockDiagonal`), (ii) two blocks of arbitrary sizes (`dsum`), and
(iii) the block-triangular case `det [[A, X], [0, B]] = det A det B` named in the remark. -/
def DetDirectSumStatement : Prop :=
  (∀ (m k : ℕ) (M : Fin m → Matrix (Fin k) (Fin k) ℝ),
      (blockDiagonal M).det = ∏ u, (M u).det) ∧
  (∀ (a b : ℕ) (A : Matrix (Fin a) (Fin a) ℝ) (B : Matrix (Fin b) (Fin b) ℝ),
      (dsum A B).det = A.det * B.det) ∧
  (∀ (a b : ℕ) (A : Matrix (Fin a) (Fin a) ℝ) (X : Matrix (Fin a) (Fin b) ℝ)
      (B : Matrix (Fin b) (Fin b) ℝ), (fromBlocks A X 0 B).det = A.det * B.det)

theorem det_dsum {a b : ℕ} (A : Matrix (Fin a) (Fin a) ℝ) (B : Matrix (Fin b) (Fin b) ℝ) :
    (dsum A B).det = A.det * B.det := by
  unfold dsum
  rw [Matrix.det_submatrix_equiv_self, Matrix.det_fromBlocks_zero₂₁]

/-- **T0.5**: the determinant of a block-diagonal (and block-triangular) matrix. -/
theorem det_direct_sum : DetDirectSumStatement :=
  ⟨fun _ _ M => Matrix.det_blockDiagonal M, fun _ _ A B => det_dsum A B,
    fun _ _ A X B => Matrix.det_fromBlocks_zero₂₁ A X B⟩

/-! ### T0.6, T0.7 -/

/-- **T0.6** (espr-derivation, Tier 0): `Q ∈ O(n) ⇒ Q⁻¹ = Qᵀ` (the definitions of `O(n)`,
`SO(n)`, `U(n)` are `IsOrth`, `IsSO`, `IsUnitaryMat`). The check also asserts `Q Qᵀ = I`. -/
def OrthInvStatement : Prop :=
  ∀ (n : ℕ) (Q : Matrix (Fin n) (Fin n) ℝ), IsOrth Q → Q⁻¹ = Qᵀ ∧ Q * Qᵀ = 1

/-- **T0.6**: the inverse of an orthogonal matrix is its transpose. -/
theorem orth_inv_eq_transpose : OrthInvStatement :=
  fun _ _ hQ => ⟨inv_eq_transpose_of_isOrth hQ, mul_transpose_of_isOrth hQ⟩

/-- **T0.7** (espr-derivation, Tier 0): `Q ∈ O(n) ⇒ (det Q)² = det(Qᵀ Q) = det(I_n) = 1 ⇒
det Q ∈ {±1}`. -/
def DetOrthStatement : Prop :=
  ∀ (n : ℕ) (Q : Matrix (Fin n) (Fin n) ℝ), IsOrth Q →
    Q.det ^ 2 = (Qᵀ * Q).det ∧ (Qᵀ * Q).det = (1 : Matrix (Fin n) (Fin n) ℝ).det ∧
      (1 : Matrix (Fin n) (Fin n) ℝ).det = 1 ∧ (Q.det = 1 ∨ Q.det = -1)

/-- **T0.7**: an orthogonal matrix has determinant `±1`. -/
theorem det_orth : DetOrthStatement := by
  intro n Q hQ
  have hQ' : Qᵀ * Q = 1 := hQ
  have h1 : Q.det ^ 2 = (Qᵀ * Q).det := by
    rw [Matrix.det_mul, Matrix.det_transpose, sq]
  refine ⟨h1, by rw [hQ'], Matrix.det_one, ?_⟩
  have h := det_sq_of_isOrth hQ
  have hfac : (Q.det - 1) * (Q.det + 1) = 0 := by
    linear_combination h
  rcases mul_eq_zero.mp hfac with h2 | h2
  · left
    linarith
  · right
    linarith

/-! ### T0.8 -/

/-- **T0.8** (espr-derivation, Tier 0): `M` normal ⇒ `s_i(M) = |λ_i|` for `λ_i ∈ σ(M)`
(unitary diagonalisation of normal matrices). Lean reading: the set of singular values
(`s ≥ 0` with `s²` an eigenvalue of `M* M`) equals the set of moduli of the eigenvalues. This is
weaker than the registry's multiset reading (multiplicities are not compared). -/
def NormalSingularValuesStatement : Prop :=
  ∀ (n : ℕ) (M : Matrix (Fin n) (Fin n) ℂ), IsNormalMat M →
    singularValues M = (fun μ : ℂ => ‖μ‖) '' spec M

/-- **T0.8**: singular values of a normal matrix are the moduli of its eigenvalues. Needs the
spectral theorem for normal matrices (not available in this form in Mathlib). -/
theorem normal_singularValues : NormalSingularValuesStatement := by
  sorry

/-! ### T0.9 -/

/-- **T0.9** (espr-derivation, Tier 0): `|AB| ≤ |A| |B|` and `|A + B| ≤ |A| + |B|` for the
operator norm, plus the definitional facts checked by the registry (`|x + y| ≤ |x| + |y|` for the
Euclidean norm, `|x|² = x · x`, `|x|_1 = Σ |x_u|`). -/
def NormInequalitiesStatement : Prop :=
  (∀ (l m n : ℕ) (A : Matrix (Fin l) (Fin m) ℝ) (B : Matrix (Fin m) (Fin n) ℝ),
      opNorm (A * B) ≤ opNorm A * opNorm B) ∧
  (∀ (m n : ℕ) (A C : Matrix (Fin m) (Fin n) ℝ), opNorm (A + C) ≤ opNorm A + opNorm C) ∧
  (∀ (m : ℕ) (x y : Fin m → ℝ), vnorm (x + y) ≤ vnorm x + vnorm y) ∧
  (∀ (m : ℕ) (x : Fin m → ℝ), vnorm x = Real.sqrt (x ⬝ᵥ x)) ∧
  (∀ (m : ℕ) (x : Fin m → ℝ), vnorm1 x = ∑ u, |x u|)

/-- **T0.9**: submultiplicativity and triangle inequalities. -/
theorem norm_inequalities : NormInequalitiesStatement := by
  refine ⟨fun _ _ _ A B => opNorm_mul_le A B, fun _ _ A C => opNorm_add_le A C,
    fun _ x y => vnorm_add_le x y, fun m x => ?_, fun _ _ => rfl⟩
  unfold vnorm
  congr 1
  unfold dotProduct
  refine Finset.sum_congr rfl fun u _ => ?_
  rw [sq]

/-! ### T0.11 -/

/-- Part of **T0.11**: `det(exp M) = exp(tr M)`. Mathlib (v4.24.0) lists this as a TODO of
`Mathlib/Analysis/Normed/Algebra/MatrixExponential.lean`. -/
theorem det_mexp {n : ℕ} (M : Matrix (Fin n) (Fin n) ℝ) : (mexp M).det = Real.exp M.trace := by
  sorry

/-- **T0.11** (espr-derivation, Tier 0): `[A, B] = 0 ⇒ exp(A + B) = exp(A) exp(B)`,
`(exp M)ᵀ = exp(Mᵀ)`, `U` invertible ⇒ `exp(U M U⁻¹) = U exp(M) U⁻¹`,
`det(exp M) = exp(tr M)`, `exp(⊕_u M_u) = ⊕_u exp(M_u)` (real matrices, as in the check; the
direct sum with two blocks, as in the check). The local logarithm is not formalized (no
assertion). -/
def ExpPropertiesStatement : Prop :=
  (∀ (n : ℕ) (A B : Matrix (Fin n) (Fin n) ℝ), bracket A B = 0 → mexp (A + B) = mexp A * mexp B) ∧
  (∀ (n : ℕ) (M : Matrix (Fin n) (Fin n) ℝ), (mexp M)ᵀ = mexp Mᵀ) ∧
  (∀ (n : ℕ) (U M : Matrix (Fin n) (Fin n) ℝ), IsUnit U → mexp (U * M * U⁻¹) = U * mexp M * U⁻¹) ∧
  (∀ (n : ℕ) (M : Matrix (Fin n) (Fin n) ℝ), (mexp M).det = Real.exp M.trace) ∧
  (∀ (a b : ℕ) (M₁ : Matrix (Fin a) (Fin a) ℝ) (M₂ : Matrix (Fin b) (Fin b) ℝ),
      mexp (dsum M₁ M₂) = dsum (mexp M₁) (mexp M₂))

/-- **T0.11**: properties of the matrix exponential (the determinant part rests on `det_mexp`,
which is `sorry`; the direct-sum part is `mexp_dsum` of `Defs`). -/
theorem exp_properties : ExpPropertiesStatement :=
  ⟨fun _ A B h => mexp_add_of_commute A B ((bracket_eq_zero_iff_commute A B).mp h),
    fun _ M => (mexp_transpose M).symm, fun _ U M hU => mexp_conj U M hU,
    fun _ M => det_mexp M, fun _ _ M₁ M₂ => mexp_dsum M₁ M₂⟩

/-! ### T0.13 and its correction -/

/-- **T0.13** (espr-derivation, Tier 0), as printed: `exp(M) exp(N) = exp(M + N + ½[M, N] +
R(M, N))` with `|R(M, N)| = O(|[M, N]|²)` (local BCH). Lean reading: there are constants `C ≥ 0`
and `ρ > 0` (before the data) such that for all `n` and all `M, N` with `|M|, |N| ≤ ρ` some `R`
with `exp M exp N = exp(M + N + ½[M, N] + R)` has `|R| ≤ C |[M, N]|²`. REFUTED (registry): the
remainder is only linear in `[M, N]`. -/
def BchStatement : Prop :=
  ∃ C ρ : ℝ, 0 ≤ C ∧ 0 < ρ ∧ ∀ (n : ℕ) (M N : Matrix (Fin n) (Fin n) ℝ),
    opNorm M ≤ ρ → opNorm N ≤ ρ →
      ∃ R : Matrix (Fin n) (Fin n) ℝ,
        mexp M * mexp N = mexp (M + N + (1 / 2 : ℝ) • bracket M N + R) ∧
          opNorm R ≤ C * opNorm (bracket M N) ^ 2

/-- **T0.13.corrected** (espr-derivation, Tier 0): `exp(M) exp(N) = exp(M + N + ½[M, N] + R)` with
`|R(M, N)| ≤ C |[M, N]| (|M| + |N|)` for `|M|, |N| ≤ ρ` small. Constants `C`, `ρ` are fixed before
the data (and before the dimension). -/
def BchCorrectedStatement : Prop :=
  ∃ C ρ : ℝ, 0 ≤ C ∧ 0 < ρ ∧ ∀ (n : ℕ) (M N : Matrix (Fin n) (Fin n) ℝ),
    opNorm M ≤ ρ → opNorm N ≤ ρ →
      ∃ R : Matrix (Fin n) (Fin n) ℝ,
        mexp M * mexp N = mexp (M + N + (1 / 2 : ℝ) • bracket M N + R) ∧
          opNorm R ≤ C * opNorm (bracket M N) * (opNorm M + opNorm N)

/-- **T0.13.corrected**: local BCH with a remainder linear in the commutator. Needs the local
matrix logarithm and the BCH series (not in Mathlib). -/
theorem bch_remainder_linear : BchCorrectedStatement := by
  sorry

/-! ### T0.15 -/

/-- **T0.15** (espr-derivation, Tier 0): `P² = P` and `Pᵀ = P` ⇒ `P` is an orthogonal projector
(read as: `P y ⊥ (x - P x)` for all `x, y`, as in the check); `P, Q` orthogonal projectors and
`P Q = 0` ⇒ `im(P) ⊥ im(Q)` (`P x ⊥ Q y` for all `x, y`). -/
def ProjectorStatement : Prop :=
  (∀ (n : ℕ) (P : Matrix (Fin n) (Fin n) ℝ), P * P = P → Pᵀ = P →
      ∀ x y : Fin n → ℝ, (P *ᵥ y) ⬝ᵥ (x - P *ᵥ x) = 0) ∧
  (∀ (n : ℕ) (P Q : Matrix (Fin n) (Fin n) ℝ), P * P = P → Pᵀ = P → Q * Q = Q → Qᵀ = Q →
      P * Q = 0 → ∀ x y : Fin n → ℝ, (P *ᵥ x) ⬝ᵥ (Q *ᵥ y) = 0)

/-- **T0.15**: symmetric idempotents are orthogonal projectors; `P Q = 0` makes their images
orthogonal. -/
theorem projector_orthogonal : ProjectorStatement := by
  refine ⟨fun n P hPP hPT x y => ?_, fun n P Q _ hPT _ _ hPQ x y => ?_⟩
  · rw [mulVec_dotProduct_eq, hPT, Matrix.mulVec_sub, Matrix.mulVec_mulVec, hPP, sub_self,
      dotProduct_zero]
  · rw [mulVec_dotProduct_eq, hPT, Matrix.mulVec_mulVec, hPQ, Matrix.zero_mulVec,
      dotProduct_zero]

/-! ### T0.16 -/

/-- **T0.16** (espr-derivation, Tier 0): for a real `S` with `Sᵀ = -S`: `S` is normal,
`σ(S) ⊂ iℝ`, and `λ = iμ ∈ σ(S) ⇒ -λ ∈ σ(S)`. The spectrum is that of `S` as a complex matrix
(`S.map (↑)`). -/
def SkewSpectrumStatement : Prop :=
  ∀ (n : ℕ) (S : Matrix (Fin n) (Fin n) ℝ), IsSkew S →
    Sᵀ * S = S * Sᵀ ∧
    (∀ μ ∈ spec (S.map (fun x : ℝ => (x : ℂ))), μ.re = 0) ∧
    (∀ μ ∈ spec (S.map (fun x : ℝ => (x : ℂ))), -μ ∈ spec (S.map (fun x : ℝ => (x : ℂ))))

theorem skew_normal {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    Sᵀ * S = S * Sᵀ := by
  have hS' : Sᵀ = -S := hS
  rw [hS', Matrix.neg_mul, Matrix.mul_neg]

/-- An eigenpair `S x = μ x` of a real skew `S` with a complex `x ≠ 0`: writing `a`, `b` for the real
and imaginary parts of `x`, `S a = Re μ • a - Im μ • b` and `S b = Re μ • b + Im μ • a`, and
`Re μ = 0` (from `aᵀ S a = bᵀ S b = 0`: `Re μ (|a|² + |b|²) = 0` with `|a|² + |b|² > 0`). -/
theorem skew_eigen {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) {μ : ℂ}
    {x : Fin n → ℂ} (hx : x ≠ 0) (hEq : S.map (fun r : ℝ => (r : ℂ)) *ᵥ x = μ • x) :
    μ.re = 0 ∧
      S *ᵥ (fun j => (x j).re) = μ.re • (fun j => (x j).re) - μ.im • (fun j => (x j).im) ∧
      S *ᵥ (fun j => (x j).im) = μ.re • (fun j => (x j).im) + μ.im • (fun j => (x j).re) := by
  have hSa : S *ᵥ (fun j => (x j).re) =
      μ.re • (fun j => (x j).re) - μ.im • (fun j => (x j).im) := by
    funext i
    have h := congrArg Complex.re (congrFun hEq i)
    rw [re_map_ofReal_mulVec] at h
    rw [h]
    first
    | (simp only [Pi.smul_apply, smul_eq_mul, Complex.mul_re, Pi.sub_apply]; done)
    | (show (μ * x i).re = μ.re * (x i).re - μ.im * (x i).im
       exact Complex.mul_re μ (x i))
  have hSb : S *ᵥ (fun j => (x j).im) =
      μ.re • (fun j => (x j).im) + μ.im • (fun j => (x j).re) := by
    funext i
    have h := congrArg Complex.im (congrFun hEq i)
    rw [im_map_ofReal_mulVec] at h
    rw [h]
    first
    | (simp only [Pi.smul_apply, smul_eq_mul, Complex.mul_im, Pi.add_apply]; done)
    | (show (μ * x i).im = μ.re * (x i).im + μ.im * (x i).re
       exact Complex.mul_im μ (x i))
  refine ⟨?_, hSa, hSb⟩
  have ha0 := skew_quadratic_zero hS (fun j => (x j).re)
  have hb0 := skew_quadratic_zero hS (fun j => (x j).im)
  rw [hSa] at ha0
  rw [hSb] at hb0
  simp only [dotProduct_sub, dotProduct_add, dotProduct_smul, smul_eq_mul] at ha0 hb0
  have hcomm : (fun j => (x j).im) ⬝ᵥ (fun j => (x j).re) =
      (fun j => (x j).re) ⬝ᵥ (fun j => (x j).im) := dotProduct_comm _ _
  rw [hcomm] at hb0
  have hnna : 0 ≤ (fun j => (x j).re) ⬝ᵥ (fun j => (x j).re) := by
    unfold dotProduct
    exact Finset.sum_nonneg fun i _ => mul_self_nonneg _
  have hnnb : 0 ≤ (fun j => (x j).im) ⬝ᵥ (fun j => (x j).im) := by
    unfold dotProduct
    exact Finset.sum_nonneg fun i _ => mul_self_nonneg _
  have hpos : 0 < (fun j => (x j).re) ⬝ᵥ (fun j => (x j).re) +
      (fun j => (x j).im) ⬝ᵥ (fun j => (x j).im) := by
    by_contra hle
    have hle' := not_lt.mp hle
    have ha' : (fun j => (x j).re) ⬝ᵥ (fun j => (x j).re) = 0 := by linarith
    have hb' : (fun j => (x j).im) ⬝ᵥ (fun j => (x j).im) = 0 := by linarith
    rw [dotProduct_self_eq_zero] at ha' hb'
    apply hx
    funext j
    apply Complex.ext
    · exact congrFun ha' j
    · exact congrFun hb' j
  have hsum : μ.re * ((fun j => (x j).re) ⬝ᵥ (fun j => (x j).re) +
      (fun j => (x j).im) ⬝ᵥ (fun j => (x j).im)) = 0 := by
    linarith
  rcases mul_eq_zero.mp hsum with h | h
  · exact h
  · linarith

/-- **T0.16**: skew-symmetric spectra are imaginary (`skew_eigen`) and symmetric under `λ ↦ -λ`:
`S x̄ = conj(μ) x̄ = -μ x̄` for the conjugate vector, since `S` is real and `Re μ = 0`. -/
theorem skew_spectrum : SkewSpectrumStatement := by
  intro n S hS
  refine ⟨skew_normal hS, ?_, ?_⟩
  · rintro μ ⟨x, hx, hEq⟩
    exact (skew_eigen hS hx hEq).1
  · rintro μ ⟨x, hx, hEq⟩
    obtain ⟨hre, hSa, hSb⟩ := skew_eigen hS hx hEq
    refine ⟨fun j => (starRingEnd ℂ) (x j), ?_, ?_⟩
    · intro h0
      apply hx
      funext j
      have h := congrArg (starRingEnd ℂ) (congrFun h0 j)
      simpa using h
    · funext i
      apply Complex.ext
      · -- the real part: `S (Re x̄) = S a`, then `Re(-μ x̄_i) = Re μ a_i - Im μ b_i` with `Re μ = 0`
        rw [re_map_ofReal_mulVec]
        first
        | (simp only [Complex.conj_re]
           rw [hSa]
           simp only [Pi.sub_apply, Pi.smul_apply, smul_eq_mul, Complex.mul_re, Complex.neg_re,
             Complex.neg_im, Complex.conj_re, Complex.conj_im, hre] <;> ring
           done)
        | (rw [show (fun j => ((starRingEnd ℂ) (x j)).re) = (fun j => (x j).re) from
             funext fun j => Complex.conj_re (x j), hSa]
           show μ.re * (x i).re - μ.im * (x i).im = (-μ * (starRingEnd ℂ) (x i)).re
           rw [Complex.mul_re, Complex.neg_re, Complex.neg_im, Complex.conj_re, Complex.conj_im,
             hre]
           ring)
      · -- the imaginary part: `S (Im x̄) = -(S b)`
        rw [im_map_ofReal_mulVec]
        first
        | (simp only [Complex.conj_im]
           rw [show (fun j => -(x j).im) = -(fun j => (x j).im) from rfl, Matrix.mulVec_neg, hSb]
           simp only [Pi.neg_apply, Pi.add_apply, Pi.smul_apply, smul_eq_mul, Complex.mul_im,
             Complex.neg_re, Complex.neg_im, Complex.conj_re, Complex.conj_im, hre] <;> ring
           done)
        | (rw [show (fun j => ((starRingEnd ℂ) (x j)).im) = -(fun j => (x j).im) from
             funext fun j => Complex.conj_im (x j), Matrix.mulVec_neg, hSb]
           show -(μ.re * (x i).im + μ.im * (x i).re) = (-μ * (starRingEnd ℂ) (x i)).im
           rw [Complex.mul_im, Complex.neg_re, Complex.neg_im, Complex.conj_re, Complex.conj_im,
             hre]
           ring)

/-! ### T0.18 -/

/-- **T0.18** (espr-derivation, Tier 0): `R_2(θ)ᵀ R_2(θ) = I_2` and `det R_2(θ) = 1`, so
`R_2(θ) ∈ SO(2)`. -/
def R2InSO2Statement : Prop :=
  ∀ θ : ℝ, (R2 θ)ᵀ * R2 θ = 1 ∧ (R2 θ).det = 1 ∧ IsSO (R2 θ)

/-- **T0.18**: plane rotations are special orthogonal. -/
theorem R2_mem_SO2 : R2InSO2Statement := by
  intro θ
  have h1 : (R2 θ)ᵀ * R2 θ = 1 := mexp_isOrth_of_skew (smul_Jmat_skew θ)
  have h2 : (R2 θ).det = 1 := det_mexp_of_skew (smul_Jmat_skew θ)
  exact ⟨h1, h2, h1, h2⟩

/-! ### T0.19 -/

/-- **T0.19** (espr-derivation, Tier 0): Weyl's inequality
`|σ_min(A + E) - σ_min(A)| ≤ |E|`, for real `m × n` matrices with `n ≤ m` (rectangular, as in the
check; `σ_min = inf_{|v|=1} |M v|`). -/
def WeylStatement : Prop :=
  ∀ (m n : ℕ) (A E : Matrix (Fin m) (Fin n) ℝ), n ≤ m →
    |sigmaMin (A + E) - sigmaMin A| ≤ opNorm E

/-- **T0.19**: Weyl's perturbation bound for the smallest singular value. -/
theorem weyl_sigmaMin : WeylStatement := by
  sorry

/-! ### T0.20 -/

/-- **T0.20** (espr-derivation, Tier 0): `X` invertible ⇒ `(X⁻¹)ᵀ = (Xᵀ)⁻¹`. -/
def TransposeInvStatement : Prop :=
  ∀ (n : ℕ) (X : Matrix (Fin n) (Fin n) ℝ), IsUnit X → X⁻¹ᵀ = Xᵀ⁻¹

/-- **T0.20**: transpose commutes with the inverse (Mathlib proves it without the hypothesis). -/
theorem transpose_inv : TransposeInvStatement :=
  fun _ X _ => Matrix.transpose_nonsing_inv X

end

end Pyverify.Espr
