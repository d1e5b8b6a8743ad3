import Mathlib

/-!
# Shared definitions of the ESPR derivation (tiers T0–T4)

Source: *Equivariant Structured Positional Rotations: Complete Algebraic Derivation*
(seeds 000/001, registry `claims/espr-derivation/`). Every definition cites the claim that
introduces it. Conventions of the registry:

* commutator bracket `[A, B] = A B - B A` (`bracket`, **T0.10**, convention `bracket: AB-BA`);
* displacement `r_j - r_i` (`disp`, **T2.9**, convention `displacement: rj-ri`);
* rotor `R_STR(r) = exp(A(r))` (`rstr`, **T1.6**, convention `rotor: exp(u)`);
* logit scale `1 / sqrt(2 m)` (`logit`, **T4.4**, convention `logit_scale: 1/sqrt(2m)`).

The matrix exponential is Mathlib's `NormedSpace.exp ℝ` on `Matrix (Fin n) (Fin n) ℝ`, wrapped
as `mexp` together with the handful of facts about it that the tiers use (`mexp_zero`,
`mexp_add_of_commute`, `mexp_transpose`, ...). Every other file goes through these wrappers, so
an API change of `NormedSpace.exp` only touches this file.

Dimensions: `d_h` is a natural number `n`; in the block statements of Tiers 2–4 the head
dimension is written `2 * m + dnull` (**T2.3**), and block matrices are moved from the index
type `Fin (2 * m) ⊕ Fin dnull` to `Fin (2 * m + dnull)` along `finSumFinEquiv`.
-/

open Matrix

namespace Pyverify.Espr

noncomputable section

/-! ## Tier 0: linear-algebra primitives -/

/-- **T0.6** (espr-derivation, Tier 0): the orthogonal group `O(n) = {Q | Qᵀ Q = I_n}`
(membership predicate). -/
def IsOrth {n : ℕ} (Q : Matrix (Fin n) (Fin n) ℝ) : Prop :=
  Qᵀ * Q = 1

/-- **T0.6** (espr-derivation, Tier 0): the special orthogonal group
`SO(n) = {Q ∈ O(n) | det Q = 1}` (membership predicate). -/
def IsSO {n : ℕ} (Q : Matrix (Fin n) (Fin n) ℝ) : Prop :=
  IsOrth Q ∧ Q.det = 1

/-- **T0.6** (espr-derivation, Tier 0): the unitary group `U(n) = {W ∈ ℂ^{n×n} | W* W = I_n}`
(membership predicate; registry symbol `Unitary`). -/
def IsUnitaryMat {n : ℕ} (W : Matrix (Fin n) (Fin n) ℂ) : Prop :=
  Wᴴ * W = 1

/-- **T0.8** (espr-derivation, Tier 0): the spectrum
`σ(M) = {λ ∈ ℂ | ∃ x ≠ 0, M x = λ x}`. -/
def spec {n : ℕ} (M : Matrix (Fin n) (Fin n) ℂ) : Set ℂ :=
  {μ | ∃ x : Fin n → ℂ, x ≠ 0 ∧ M *ᵥ x = μ • x}

/-- **T0.8** (espr-derivation, Tier 0): `M` is normal, `M* M = M M*`. -/
def IsNormalMat {n : ℕ} (M : Matrix (Fin n) (Fin n) ℂ) : Prop :=
  Mᴴ * M = M * Mᴴ

/-- **T0.8** (espr-derivation, Tier 0): the set of singular values of `M`,
`s_i(M) = sqrt(σ_i(M* M))`, i.e. the nonnegative `s` with `s²` an eigenvalue of `M* M`. -/
def singularValues {n : ℕ} (M : Matrix (Fin n) (Fin n) ℂ) : Set ℝ :=
  {s | 0 ≤ s ∧ ((s : ℂ) ^ 2) ∈ spec (Mᴴ * M)}

/-- **T0.9** (espr-derivation, Tier 0): the Euclidean norm `|x| = (Σ_u x_u²)^{1/2}`. -/
def vnorm {m : ℕ} (x : Fin m → ℝ) : ℝ :=
  Real.sqrt (∑ u, x u ^ 2)

/-- **T0.9** (espr-derivation, Tier 0): the `ℓ¹` norm `|x|_1 = Σ_u |x_u|`. -/
def vnorm1 {m : ℕ} (x : Fin m → ℝ) : ℝ :=
  ∑ u, |x u|

section OpNorm

attribute [local instance] Matrix.instL2OpNormedAddCommGroup

/-- **T0.9** (espr-derivation, Tier 0): the operator norm `|M| = sup_{v ≠ 0} |M v| / |v|` for the
Euclidean norms (registry convention `norm: operator-2`). This is Mathlib's `L²` operator norm on
matrices (`Matrix.instL2OpNormedAddCommGroup`, the norm of `M` as a continuous linear map between
Euclidean spaces), which is that supremum. -/
def opNorm {m n : ℕ} (M : Matrix (Fin m) (Fin n) ℝ) : ℝ :=
  ‖M‖

theorem opNorm_mul_le {l m n : ℕ} (A : Matrix (Fin l) (Fin m) ℝ) (B : Matrix (Fin m) (Fin n) ℝ) :
    opNorm (A * B) ≤ opNorm A * opNorm B := by
  unfold opNorm
  exact Matrix.l2_opNorm_mul A B

theorem opNorm_add_le {m n : ℕ} (A B : Matrix (Fin m) (Fin n) ℝ) :
    opNorm (A + B) ≤ opNorm A + opNorm B := by
  unfold opNorm
  exact norm_add_le A B

theorem opNorm_nonneg {m n : ℕ} (A : Matrix (Fin m) (Fin n) ℝ) : 0 ≤ opNorm A := by
  unfold opNorm
  exact norm_nonneg A

end OpNorm

/-- **T0.8** (espr-derivation, Tier 0): `σ_min(M) = min_i s_i(M)`, written variationally as
`inf_{|v| = 1} |M v|` (equal to the smallest singular value when `M` has at least as many rows as
columns, the case of **T0.19**'s check). -/
def sigmaMin {m n : ℕ} (M : Matrix (Fin m) (Fin n) ℝ) : ℝ :=
  sInf {t | ∃ v : Fin n → ℝ, vnorm v = 1 ∧ t = vnorm (M *ᵥ v)}

/-- **T0.10** (espr-derivation, Tier 0): the commutator bracket `[A, B] = A B - B A`
(registry convention `bracket: AB-BA`). -/
def bracket {n : ℕ} (A B : Matrix (Fin n) (Fin n) ℝ) : Matrix (Fin n) (Fin n) ℝ :=
  A * B - B * A

/-- **T0.11** (espr-derivation, Tier 0): the matrix exponential `exp(M) = Σ_t M^t / t!`
(Mathlib's `NormedSpace.exp ℝ` on real square matrices). -/
def mexp {n : ℕ} (M : Matrix (Fin n) (Fin n) ℝ) : Matrix (Fin n) (Fin n) ℝ :=
  NormedSpace.exp ℝ M

/-- **T0.16** / **T1.1** (espr-derivation): a real matrix is skew-symmetric, `Sᵀ = -S`. -/
def IsSkew {n : ℕ} (S : Matrix (Fin n) (Fin n) ℝ) : Prop :=
  Sᵀ = -S

/-- **T0.17** (espr-derivation, Tier 0): `J = [[0, -1], [1, 0]]`. -/
def Jmat : Matrix (Fin 2) (Fin 2) ℝ :=
  !![0, -1; 1, 0]

/-- **T0.17** (espr-derivation, Tier 0): the plane rotation `R_2(θ) = exp(θ J)`. -/
def R2 (θ : ℝ) : Matrix (Fin 2) (Fin 2) ℝ :=
  mexp (θ • Jmat)

/-- **T0.5** (espr-derivation, Tier 0): the direct sum of two square blocks,
`A ⊕ B = diag(A, B)`, as a matrix on `Fin (a + b)`. -/
def dsum {a b : ℕ} (A : Matrix (Fin a) (Fin a) ℝ) (B : Matrix (Fin b) (Fin b) ℝ) :
    Matrix (Fin (a + b)) (Fin (a + b)) ℝ :=
  (fromBlocks A 0 0 B).submatrix finSumFinEquiv.symm finSumFinEquiv.symm

/-! ## Tier 1: structured generators -/

/-- **T1.1** (espr-derivation, Tier 1): the model hypothesis on the generators
`L_k ∈ ℝ^{d_h × d_h}` (`k ∈ K = {1, …, d_c}`): every `L_k` is skew-symmetric and
`[L_a, L_b] = 0` for all `a, b`. -/
def IsCommutingSkewFamily {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) : Prop :=
  (∀ k, IsSkew (L k)) ∧ ∀ a b, bracket (L a) (L b) = 0

/-- **T1.3** (espr-derivation, Tier 1): `A(r) = Σ_k r_k L_k` for `r ∈ ℝ^{d_c}`. -/
def genSum {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (r : Fin dc → ℝ) :
    Matrix (Fin n) (Fin n) ℝ :=
  ∑ k, r k • L k

/-- **T1.6** (espr-derivation, Tier 1): `R_STR(r) = exp(A(r))`. -/
def rstr {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (r : Fin dc → ℝ) :
    Matrix (Fin n) (Fin n) ℝ :=
  mexp (genSum L r)

/-- **T2.9** (espr-derivation, Tier 2): the displacement between positions `r_i` and `r_j`,
registry convention `displacement: rj-ri`. -/
def disp {dc : ℕ} (ri rj : Fin dc → ℝ) : Fin dc → ℝ :=
  rj - ri

/-! ## Tier 2: joint block structure -/

/-- **T2.3** (espr-derivation, Tier 2): the block `⊕_{u=1}^m θ_u J` on `ℝ^{2m}` (block
`u` acts on the coordinates of `finProdFinEquiv (a, u)`, `a ∈ Fin 2`). -/
def planeBlocks {m : ℕ} (θ : Fin m → ℝ) : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ :=
  (blockDiagonal fun u => θ u • Jmat).submatrix finProdFinEquiv.symm finProdFinEquiv.symm

/-- **T2.6** (espr-derivation, Tier 2): the block `⊕_{u=1}^m R_2(θ_u)` on `ℝ^{2m}` (same
coordinates as `planeBlocks`). -/
def rotBlocks {m : ℕ} (θ : Fin m → ℝ) : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ :=
  (blockDiagonal fun u => R2 (θ u)).submatrix finProdFinEquiv.symm finProdFinEquiv.symm

/-- **T2.3** (espr-derivation, Tier 2): the joint block normal form
`(⊕_{u=1}^m λ_u J) ⊕ 0_{d_null × d_null}`. -/
def jointBlockForm {m : ℕ} (dnull : ℕ) (lam : Fin m → ℝ) :
    Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ :=
  dsum (planeBlocks lam) 0

/-- **T2.4** (espr-derivation, Tier 2): `β_u = (λ_{1,u}, …, λ_{d_c,u})ᵀ ∈ ℝ^{d_c}`, for the
eigenvalue parameters `lam k u = λ_{k,u}` of **T2.3**. -/
def beta {dc m : ℕ} (lam : Fin dc → Fin m → ℝ) (u : Fin m) : Fin dc → ℝ :=
  fun k => lam k u

/-- **T2.4** (espr-derivation, Tier 2): `θ_u(r) = β_uᵀ r`. -/
def theta {dc m : ℕ} (lam : Fin dc → Fin m → ℝ) (r : Fin dc → ℝ) : Fin m → ℝ :=
  fun u => beta lam u ⬝ᵥ r

/-- **T2.10** (espr-derivation, Tier 2): `Π_act = U diag(I_{2m}, 0) Uᵀ`. -/
def piAct {m dnull : ℕ} (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ :=
  U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) (0 : Matrix (Fin dnull) (Fin dnull) ℝ) * Uᵀ

/-- **T2.10** (espr-derivation, Tier 2): `Π_null = U diag(0, I_{d_null}) Uᵀ`. -/
def piNull {m dnull : ℕ} (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ :=
  U * dsum (0 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) (1 : Matrix (Fin dnull) (Fin dnull) ℝ) * Uᵀ

/-! ## Tier 3: Cayley post-rotations -/

/-- **T3.1** (espr-derivation, Tier 3): the Cayley transform `P_sp = (I - S)(I + S)⁻¹`
(Mathlib's `⁻¹` on matrices is `Matrix.inv`, the inverse when `I + S` is invertible). -/
def cayley {n : ℕ} (S : Matrix (Fin n) (Fin n) ℝ) : Matrix (Fin n) (Fin n) ℝ :=
  (1 - S) * (1 + S)⁻¹

/-- **T3.2** (espr-derivation, Tier 3): the Cayley image
`𝓑 = {(I - S)(I + S)⁻¹ | Sᵀ = -S}` (registry symbol `calB`). -/
def cayleyImage (n : ℕ) : Set (Matrix (Fin n) (Fin n) ℝ) :=
  {P | ∃ S, IsSkew S ∧ P = cayley S}

/-- **T3.4** (espr-derivation, Tier 3): the structured post-rotations
`𝓐 = {U diag(I_{2m}, R_null) Uᵀ | R_null ∈ SO(d_null)}` (registry symbol `calA`). -/
def postA {m dnull : ℕ} (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Set (Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :=
  {P | ∃ Rnull : Matrix (Fin dnull) (Fin dnull) ℝ, IsSO Rnull ∧
    P = U * dsum (1 : Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ) Rnull * Uᵀ}

/-- **T3.5** (espr-derivation, Tier 3): `R_sp(r) = R_STR(r) P_sp` (post-multiplication). -/
def rsp {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (r : Fin dc → ℝ)
    (P : Matrix (Fin n) (Fin n) ℝ) : Matrix (Fin n) (Fin n) ℝ :=
  rstr L r * P

/-! ## Tier 4: queries, keys and scores -/

/-- **T4.1** (espr-derivation, Tier 4): a projection `q_i = W x_i` (used for `W_Q`, `W_K`,
`W_V`). -/
def projVec {n D : ℕ} (W : Matrix (Fin n) (Fin D) ℝ) (x : Fin D → ℝ) : Fin n → ℝ :=
  W *ᵥ x

/-- **T4.2** (espr-derivation, Tier 4): the active part `q^{(act)} = Π_act q` (also `k^{(act)}`). -/
def actPart {n : ℕ} (Pa : Matrix (Fin n) (Fin n) ℝ) (q : Fin n → ℝ) : Fin n → ℝ :=
  Pa *ᵥ q

/-- **T4.3** (espr-derivation, Tier 4): `q̃_i = Π_act R_sp(r_i) q_i^{(act)}` (also `k̃_j`). -/
def rotated {n : ℕ} (Pa Rsp : Matrix (Fin n) (Fin n) ℝ) (q : Fin n → ℝ) : Fin n → ℝ :=
  Pa *ᵥ (Rsp *ᵥ actPart Pa q)

/-- **T4.4** (espr-derivation, Tier 4): the logit `α_ij = q̃_iᵀ k̃_j / sqrt(d_act)` with
`d_act = 2 m` (registry convention `logit_scale: 1/sqrt(2m)`). -/
def logit {n : ℕ} (m : ℕ) (qt kt : Fin n → ℝ) : ℝ :=
  (qt ⬝ᵥ kt) / Real.sqrt (2 * m)

/-! ## Facts about the matrix exponential used by every tier

These are the only places that touch `NormedSpace.exp` directly. -/

theorem mexp_zero {n : ℕ} : mexp (0 : Matrix (Fin n) (Fin n) ℝ) = 1 := by
  unfold mexp
  exact NormedSpace.exp_zero

theorem mexp_add_of_commute {n : ℕ} (A B : Matrix (Fin n) (Fin n) ℝ) (h : Commute A B) :
    mexp (A + B) = mexp A * mexp B := by
  unfold mexp
  exact Matrix.exp_add_of_commute ℝ A B h

theorem mexp_transpose {n : ℕ} (A : Matrix (Fin n) (Fin n) ℝ) : mexp Aᵀ = (mexp A)ᵀ := by
  unfold mexp
  exact Matrix.exp_transpose ℝ A

theorem commute_mexp_right {n : ℕ} {A B : Matrix (Fin n) (Fin n) ℝ} (h : Commute A B) :
    Commute A (mexp B) := by
  unfold mexp
  exact h.exp_right ℝ

theorem commute_mexp_left {n : ℕ} {A B : Matrix (Fin n) (Fin n) ℝ} (h : Commute A B) :
    Commute (mexp A) B :=
  (commute_mexp_right h.symm).symm

theorem mexp_neg_mul_mexp {n : ℕ} (A : Matrix (Fin n) (Fin n) ℝ) : mexp (-A) * mexp A = 1 := by
  rw [← mexp_add_of_commute (-A) A (Commute.neg_left (Commute.refl A)), neg_add_cancel,
    mexp_zero]

theorem mexp_mul_mexp_neg {n : ℕ} (A : Matrix (Fin n) (Fin n) ℝ) : mexp A * mexp (-A) = 1 := by
  rw [← mexp_add_of_commute A (-A) (Commute.neg_right (Commute.refl A)), add_neg_cancel,
    mexp_zero]

theorem commute_mexp_mexp {n : ℕ} {A B : Matrix (Fin n) (Fin n) ℝ} (h : Commute A B) :
    Commute (mexp A) (mexp B) :=
  commute_mexp_left (commute_mexp_right h)

/-- The conjugation rule `exp(U M U⁻¹) = U exp(M) U⁻¹` for invertible `U`. -/
theorem mexp_conj {n : ℕ} (U M : Matrix (Fin n) (Fin n) ℝ) (hU : IsUnit U) :
    mexp (U * M * U⁻¹) = U * mexp M * U⁻¹ := by
  unfold mexp
  exact Matrix.exp_conj ℝ U M hU

/-! ## The exponential through ring homomorphisms: reindexing, two diagonal blocks

`NormedSpace.exp` commutes with every continuous ring homomorphism (`NormedSpace.map_exp`). That lemma
needs a norm on the rings; matrices carry none canonically, so Mathlib's `L∞` operator norm
(`Matrix.linftyOpNormedRing`, `Matrix.linftyOpNormedAlgebra`) is put in place only inside the three
proofs below (`map_exp_real_matrix`, `exp_real_prod_facts`, `exp_real_pi`), as Mathlib's own
`Matrix.exp_add_of_commute` does: every statement keeps the default topology of `Matrix`, and the
instances are unified with it definitionally. Each of the three proofs tries the instances declared
by hand (`letI`, the form Lean 4 projects pinned to this Mathlib use) and then Mathlib's scoped
form (`open scoped Matrix.Norms.Operator`); both are real proofs, neither is a `sorry`. -/

/-- Reindexing square matrices along `e`, as a ring homomorphism. -/
def realReindexHom {ι κ : Type*} [Fintype ι] [DecidableEq ι] [Fintype κ] [DecidableEq κ]
    (e : ι ≃ κ) : Matrix ι ι ℝ →+* Matrix κ κ ℝ where
  toFun M := M.submatrix e.symm e.symm
  map_one' := Matrix.submatrix_one_equiv e.symm
  map_mul' M N := (Matrix.submatrix_mul_equiv M N e.symm e.symm e.symm).symm
  map_zero' := rfl
  map_add' _ _ := rfl

theorem continuous_realReindexHom {ι κ : Type*} [Fintype ι] [DecidableEq ι] [Fintype κ]
    [DecidableEq κ] (e : ι ≃ κ) : Continuous (realReindexHom e) := by
  first
  | (show Continuous (fun M : Matrix ι ι ℝ => M.submatrix e.symm e.symm)
     exact continuous_id.matrix_submatrix _ _)
  | exact continuous_id.matrix_submatrix _ _
  | (show Continuous (fun M : Matrix ι ι ℝ => M.submatrix e.symm e.symm)
     fun_prop)

/-- `exp` commutes with a continuous ring homomorphism between rings of real square matrices
(`NormedSpace.map_exp` under the `L∞` operator norm on both sides). -/
theorem map_exp_real_matrix {ι κ : Type*} [Fintype ι] [DecidableEq ι] [Fintype κ] [DecidableEq κ]
    (f : Matrix ι ι ℝ →+* Matrix κ κ ℝ) (hf : Continuous f) (M : Matrix ι ι ℝ) :
    f (NormedSpace.exp ℝ M) = NormedSpace.exp ℝ (f M) := by
  first
  | (letI : SeminormedRing (Matrix ι ι ℝ) := Matrix.linftyOpSemiNormedRing
     letI : NormedRing (Matrix ι ι ℝ) := Matrix.linftyOpNormedRing
     letI : NormedAlgebra ℝ (Matrix ι ι ℝ) := Matrix.linftyOpNormedAlgebra
     letI : SeminormedRing (Matrix κ κ ℝ) := Matrix.linftyOpSemiNormedRing
     letI : NormedRing (Matrix κ κ ℝ) := Matrix.linftyOpNormedRing
     letI : NormedAlgebra ℝ (Matrix κ κ ℝ) := Matrix.linftyOpNormedAlgebra
     exact NormedSpace.map_exp ℝ f hf M)
  | (open scoped Matrix.Norms.Operator in
     exact NormedSpace.map_exp ℝ f hf M)

/-- `exp` commutes with reindexing: `exp (M.submatrix e⁻¹ e⁻¹) = (exp M).submatrix e⁻¹ e⁻¹`. -/
theorem exp_real_submatrix_equiv {ι κ : Type*} [Fintype ι] [DecidableEq ι] [Fintype κ] [DecidableEq κ]
    (e : ι ≃ κ) (M : Matrix ι ι ℝ) :
    NormedSpace.exp ℝ (M.submatrix e.symm e.symm) =
      (NormedSpace.exp ℝ M).submatrix e.symm e.symm :=
  (map_exp_real_matrix (realReindexHom e) (continuous_realReindexHom e) M).symm

/-- `(A, B) ↦ fromBlocks A 0 0 B`, as a ring homomorphism from the product ring. -/
def diagBlocksHom (ι κ : Type*) [Fintype ι] [DecidableEq ι] [Fintype κ] [DecidableEq κ] :
    Matrix ι ι ℝ × Matrix κ κ ℝ →+* Matrix (ι ⊕ κ) (ι ⊕ κ) ℝ where
  toFun p := fromBlocks p.1 0 0 p.2
  map_one' := Matrix.fromBlocks_one
  map_mul' p q := by
    show fromBlocks (p.1 * q.1) 0 0 (p.2 * q.2) = fromBlocks p.1 0 0 p.2 * fromBlocks q.1 0 0 q.2
    first
    | (rw [Matrix.fromBlocks_multiply]
       simp only [Matrix.mul_zero, Matrix.zero_mul, add_zero, zero_add]
       done)
    | (simp [Matrix.fromBlocks_multiply]; done)
  map_zero' := Matrix.fromBlocks_zero
  map_add' p q := by
    show fromBlocks (p.1 + q.1) 0 0 (p.2 + q.2) = fromBlocks p.1 0 0 p.2 + fromBlocks q.1 0 0 q.2
    first
    | (simp only [Matrix.fromBlocks_add, add_zero]; done)
    | (simp [Matrix.fromBlocks_add]; done)

theorem continuous_diagBlocksHom (ι κ : Type*) [Fintype ι] [DecidableEq ι] [Fintype κ]
    [DecidableEq κ] : Continuous (diagBlocksHom ι κ) := by
  first
  | (show Continuous (fun p : Matrix ι ι ℝ × Matrix κ κ ℝ => fromBlocks p.1 0 0 p.2)
     exact continuous_fst.matrix_fromBlocks continuous_const continuous_const continuous_snd)
  | exact continuous_fst.matrix_fromBlocks continuous_const continuous_const continuous_snd
  | (show Continuous (fun p : Matrix ι ι ℝ × Matrix κ κ ℝ => fromBlocks p.1 0 0 p.2)
     fun_prop)

/-- The exponential on the product ring `Mat_ι × Mat_κ`: it commutes with `diagBlocksHom` and is
taken componentwise (`NormedSpace.map_exp`, `Prod.fst_exp`, `Prod.snd_exp` under the `L∞`
operator norm on the three matrix rings). -/
theorem exp_real_prod_facts {ι κ : Type*} [Fintype ι] [DecidableEq ι] [Fintype κ] [DecidableEq κ]
    (A : Matrix ι ι ℝ) (B : Matrix κ κ ℝ) :
    diagBlocksHom ι κ (NormedSpace.exp ℝ (A, B)) = NormedSpace.exp ℝ (diagBlocksHom ι κ (A, B)) ∧
      (NormedSpace.exp ℝ (A, B)).1 = NormedSpace.exp ℝ A ∧
      (NormedSpace.exp ℝ (A, B)).2 = NormedSpace.exp ℝ B := by
  first
  | (letI : SeminormedRing (Matrix ι ι ℝ) := Matrix.linftyOpSemiNormedRing
     letI : NormedRing (Matrix ι ι ℝ) := Matrix.linftyOpNormedRing
     letI : NormedAlgebra ℝ (Matrix ι ι ℝ) := Matrix.linftyOpNormedAlgebra
     letI : SeminormedRing (Matrix κ κ ℝ) := Matrix.linftyOpSemiNormedRing
     letI : NormedRing (Matrix κ κ ℝ) := Matrix.linftyOpNormedRing
     letI : NormedAlgebra ℝ (Matrix κ κ ℝ) := Matrix.linftyOpNormedAlgebra
     letI : SeminormedRing (Matrix (ι ⊕ κ) (ι ⊕ κ) ℝ) := Matrix.linftyOpSemiNormedRing
     letI : NormedRing (Matrix (ι ⊕ κ) (ι ⊕ κ) ℝ) := Matrix.linftyOpNormedRing
     letI : NormedAlgebra ℝ (Matrix (ι ⊕ κ) (ι ⊕ κ) ℝ) := Matrix.linftyOpNormedAlgebra
     exact ⟨NormedSpace.map_exp ℝ (diagBlocksHom ι κ) (continuous_diagBlocksHom ι κ) (A, B),
       Prod.fst_exp ℝ (A, B), Prod.snd_exp ℝ (A, B)⟩)
  | (open scoped Matrix.Norms.Operator in
     exact ⟨NormedSpace.map_exp ℝ (diagBlocksHom ι κ) (continuous_diagBlocksHom ι κ) (A, B),
       Prod.fst_exp ℝ (A, B), Prod.snd_exp ℝ (A, B)⟩)

/-- `exp (A ⊕ B) = exp A ⊕ exp B` for two diagonal blocks (through `diagBlocksHom` and the
exponential of the product ring, which is taken componentwise). -/
theorem exp_real_fromBlocks_diag {ι κ : Type*} [Fintype ι] [DecidableEq ι] [Fintype κ] [DecidableEq κ]
    (A : Matrix ι ι ℝ) (B : Matrix κ κ ℝ) :
    NormedSpace.exp ℝ (fromBlocks A 0 0 B) =
      fromBlocks (NormedSpace.exp ℝ A) 0 0 (NormedSpace.exp ℝ B) := by
  obtain ⟨hmap, hfst, hsnd⟩ := exp_real_prod_facts A B
  calc NormedSpace.exp ℝ (fromBlocks A 0 0 B)
      = NormedSpace.exp ℝ (diagBlocksHom ι κ (A, B)) := rfl
    _ = diagBlocksHom ι κ (NormedSpace.exp ℝ (A, B)) := hmap.symm
    _ = fromBlocks (NormedSpace.exp ℝ (A, B)).1 0 0 (NormedSpace.exp ℝ (A, B)).2 := rfl
    _ = fromBlocks (NormedSpace.exp ℝ A) 0 0 (NormedSpace.exp ℝ B) := by rw [hfst, hsnd]

/-- The exponential of a finite family of real square matrices, as an element of the product ring,
is taken entrywise (`Pi.exp_def` under the `L∞` operator norm on the factors). -/
theorem exp_real_pi {ι n : Type*} [Fintype ι] [Fintype n] [DecidableEq n] (v : ι → Matrix n n ℝ) :
    NormedSpace.exp ℝ v = fun i => NormedSpace.exp ℝ (v i) := by
  first
  | (letI : SeminormedRing (Matrix n n ℝ) := Matrix.linftyOpSemiNormedRing
     letI : NormedRing (Matrix n n ℝ) := Matrix.linftyOpNormedRing
     letI : NormedAlgebra ℝ (Matrix n n ℝ) := Matrix.linftyOpNormedAlgebra
     exact Pi.exp_def ℝ v)
  | (open scoped Matrix.Norms.Operator in
     exact Pi.exp_def ℝ v)

/-- Part of **T0.11**: `exp(M₁ ⊕ M₂) = exp(M₁) ⊕ exp(M₂)` (two blocks). -/
theorem mexp_dsum {a b : ℕ} (M₁ : Matrix (Fin a) (Fin a) ℝ) (M₂ : Matrix (Fin b) (Fin b) ℝ) :
    mexp (dsum M₁ M₂) = dsum (mexp M₁) (mexp M₂) := by
  unfold mexp dsum
  rw [exp_real_submatrix_equiv finSumFinEquiv, exp_real_fromBlocks_diag]
  -- `rw` closes the goal when both sides carry the same instance terms; otherwise they agree
  -- definitionally
  try rfl

/-! ## Small algebraic facts shared by the tiers -/

theorem bracket_eq_zero_iff_commute {n : ℕ} (A B : Matrix (Fin n) (Fin n) ℝ) :
    bracket A B = 0 ↔ Commute A B := by
  unfold bracket
  rw [sub_eq_zero]
  exact Iff.rfl

theorem genSum_transpose {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ)
    (r : Fin dc → ℝ) : (genSum L r)ᵀ = genSum (fun k => (L k)ᵀ) r := by
  unfold genSum
  rw [Matrix.transpose_sum]
  simp only [Matrix.transpose_smul]

theorem genSum_sub {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (r s : Fin dc → ℝ) :
    genSum L (r - s) = genSum L r - genSum L s := by
  unfold genSum
  rw [← Finset.sum_sub_distrib]
  refine Finset.sum_congr rfl fun k _ => ?_
  rw [Pi.sub_apply, sub_smul]

theorem genSum_neg {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (r : Fin dc → ℝ) :
    genSum L (-r) = -genSum L r := by
  unfold genSum
  rw [← Finset.sum_neg_distrib]
  refine Finset.sum_congr rfl fun k _ => ?_
  rw [Pi.neg_apply, neg_smul]

theorem genSum_skew {n dc : ℕ} {L : Fin dc → Matrix (Fin n) (Fin n) ℝ}
    (hL : ∀ k, IsSkew (L k)) (r : Fin dc → ℝ) : IsSkew (genSum L r) := by
  unfold IsSkew genSum
  rw [Matrix.transpose_sum, ← Finset.sum_neg_distrib]
  refine Finset.sum_congr rfl fun k _ => ?_
  have hk : (L k)ᵀ = -L k := hL k
  rw [Matrix.transpose_smul, hk, smul_neg]

theorem genSum_commute {n dc : ℕ} {L : Fin dc → Matrix (Fin n) (Fin n) ℝ}
    (hL : ∀ a b, bracket (L a) (L b) = 0) (r s : Fin dc → ℝ) :
    Commute (genSum L r) (genSum L s) := by
  unfold genSum
  refine Commute.sum_left _ _ _ fun a _ => ?_
  refine Commute.sum_right _ _ _ fun b _ => ?_
  exact (((bracket_eq_zero_iff_commute _ _).mp (hL a b)).smul_left (r a)).smul_right (s b)

/-- `exp` of a skew-symmetric matrix is orthogonal (used by **T2.8**, **T0.18**). -/
theorem mexp_isOrth_of_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    IsOrth (mexp S) := by
  have hS' : Sᵀ = -S := hS
  unfold IsOrth
  rw [← mexp_transpose, hS', mexp_neg_mul_mexp]

/-- An orthogonal matrix has determinant `1` or `-1` (**T0.7**). -/
theorem det_sq_of_isOrth {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ} (hQ : IsOrth Q) :
    Q.det * Q.det = 1 := by
  have hQ' : Qᵀ * Q = 1 := hQ
  have h := congrArg Matrix.det hQ'
  rw [Matrix.det_mul, Matrix.det_transpose, Matrix.det_one] at h
  exact h

/-- `exp` of a skew-symmetric matrix has determinant `1`: `exp S = exp(S/2) exp(S/2)`, so its
determinant is a square, hence `≥ 0`, and it is `±1` by orthogonality (used by **T2.8**,
**T0.18**). -/
theorem det_mexp_of_skew {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S) :
    (mexp S).det = 1 := by
  have hhalf : S = (1 / 2 : ℝ) • S + (1 / 2 : ℝ) • S := by
    rw [← add_smul]
    norm_num
  have hsplit : mexp S = mexp ((1 / 2 : ℝ) • S) * mexp ((1 / 2 : ℝ) • S) := by
    conv_lhs => rw [hhalf]
    exact mexp_add_of_commute _ _ (Commute.refl _)
  have hnonneg : 0 ≤ (mexp S).det := by
    rw [hsplit, Matrix.det_mul]
    exact mul_self_nonneg _
  have hsq := det_sq_of_isOrth (mexp_isOrth_of_skew hS)
  have hfac : ((mexp S).det - 1) * ((mexp S).det + 1) = 0 := by
    linear_combination hsq
  rcases mul_eq_zero.mp hfac with h1 | h1
  · linarith
  · linarith

/-- An orthogonal matrix is invertible with inverse its transpose (**T0.6**). -/
theorem inv_eq_transpose_of_isOrth {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ} (hQ : IsOrth Q) :
    Q⁻¹ = Qᵀ :=
  Matrix.inv_eq_left_inv hQ

/-- For an orthogonal `Q`, also `Q Qᵀ = I`. -/
theorem mul_transpose_of_isOrth {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ} (hQ : IsOrth Q) :
    Q * Qᵀ = 1 :=
  Matrix.mul_eq_one_comm.mp hQ

theorem isUnit_of_isOrth {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ} (hQ : IsOrth Q) : IsUnit Q :=
  ⟨⟨Q, Qᵀ, mul_transpose_of_isOrth hQ, hQ⟩, rfl⟩

/-- Conjugation by an orthogonal `U` is multiplicative. -/
theorem conj_mul_conj {n : ℕ} {U : Matrix (Fin n) (Fin n) ℝ} (hU : IsOrth U)
    (X Y : Matrix (Fin n) (Fin n) ℝ) : (U * X * Uᵀ) * (U * Y * Uᵀ) = U * (X * Y) * Uᵀ := by
  have hU' : Uᵀ * U = 1 := hU
  calc (U * X * Uᵀ) * (U * Y * Uᵀ) = U * X * (Uᵀ * U) * Y * Uᵀ := by
        simp only [Matrix.mul_assoc]
    _ = U * (X * Y) * Uᵀ := by
        rw [hU', Matrix.mul_one]
        simp only [Matrix.mul_assoc]

/-- Conjugation commutes with transposition. -/
theorem orthConj_transpose {n : ℕ} (U X : Matrix (Fin n) (Fin n) ℝ) :
    (U * X * Uᵀ)ᵀ = U * Xᵀ * Uᵀ := by
  rw [Matrix.transpose_mul, Matrix.transpose_mul, Matrix.transpose_transpose, Matrix.mul_assoc]

/-- `A = U (Uᵀ A U) Uᵀ` for orthogonal `U`. -/
theorem eq_conj_of_isOrth {n : ℕ} {U : Matrix (Fin n) (Fin n) ℝ} (hU : IsOrth U)
    (A : Matrix (Fin n) (Fin n) ℝ) : A = U * (Uᵀ * A * U) * Uᵀ := by
  have hUU : U * Uᵀ = 1 := mul_transpose_of_isOrth hU
  calc A = (U * Uᵀ) * A * (U * Uᵀ) := by rw [hUU, Matrix.one_mul, Matrix.mul_one]
    _ = U * (Uᵀ * A * U) * Uᵀ := by simp only [Matrix.mul_assoc]

/-- Moving a matrix across the dot product: `(A y) · z = y · (Aᵀ z)`. -/
theorem mulVec_dotProduct_eq {n : ℕ} (A : Matrix (Fin n) (Fin n) ℝ) (y z : Fin n → ℝ) :
    (A *ᵥ y) ⬝ᵥ z = y ⬝ᵥ (Aᵀ *ᵥ z) := by
  rw [Matrix.dotProduct_mulVec, Matrix.vecMul_transpose]

/-- `vᵀ S v = 0` for skew-symmetric `S`. -/
theorem skew_quadratic_zero {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S)
    (v : Fin n → ℝ) : v ⬝ᵥ (S *ᵥ v) = 0 := by
  have hS' : Sᵀ = -S := hS
  have h := mulVec_dotProduct_eq S v v
  rw [dotProduct_comm, hS', Matrix.neg_mulVec, dotProduct_neg] at h
  linarith

/-- `aᵀ S b = -(bᵀ S a)` for skew-symmetric `S`. -/
theorem skew_dotProduct_antisymm {n : ℕ} {S : Matrix (Fin n) (Fin n) ℝ} (hS : IsSkew S)
    (a b : Fin n → ℝ) : a ⬝ᵥ (S *ᵥ b) = -(b ⬝ᵥ (S *ᵥ a)) := by
  have hS' : Sᵀ = -S := hS
  have h := mulVec_dotProduct_eq S a b
  rw [hS', Matrix.neg_mulVec, dotProduct_neg, dotProduct_comm] at h
  linarith

/-- The real part of `S x` for a real matrix `S` and a complex vector `x` is `S` applied to the
real parts of `x`. -/
theorem re_map_ofReal_mulVec {n : ℕ} (S : Matrix (Fin n) (Fin n) ℝ) (x : Fin n → ℂ) (i : Fin n) :
    ((S.map (fun r : ℝ => (r : ℂ)) *ᵥ x) i).re = (S *ᵥ fun j => (x j).re) i := by
  simp only [Matrix.mulVec, dotProduct, Matrix.map_apply, Complex.re_sum, Complex.re_ofReal_mul]

/-- The imaginary part of `S x` for a real matrix `S` is `S` applied to the imaginary parts. -/
theorem im_map_ofReal_mulVec {n : ℕ} (S : Matrix (Fin n) (Fin n) ℝ) (x : Fin n → ℂ) (i : Fin n) :
    ((S.map (fun r : ℝ => (r : ℂ)) *ᵥ x) i).im = (S *ᵥ fun j => (x j).im) i := by
  simp only [Matrix.mulVec, dotProduct, Matrix.map_apply, Complex.im_sum, Complex.im_ofReal_mul]

/-! ## Direct sums of two blocks -/

theorem dsum_mul {a b : ℕ} (A C : Matrix (Fin a) (Fin a) ℝ) (B D : Matrix (Fin b) (Fin b) ℝ) :
    dsum A B * dsum C D = dsum (A * C) (B * D) := by
  unfold dsum
  rw [Matrix.submatrix_mul_equiv, Matrix.fromBlocks_multiply]
  simp only [Matrix.mul_zero, Matrix.zero_mul, add_zero, zero_add]

theorem dsum_transpose {a b : ℕ} (A : Matrix (Fin a) (Fin a) ℝ) (B : Matrix (Fin b) (Fin b) ℝ) :
    (dsum A B)ᵀ = dsum Aᵀ Bᵀ := by
  unfold dsum
  rw [Matrix.transpose_submatrix, Matrix.fromBlocks_transpose]
  simp only [Matrix.transpose_zero]

theorem dsum_one {a b : ℕ} :
    dsum (1 : Matrix (Fin a) (Fin a) ℝ) (1 : Matrix (Fin b) (Fin b) ℝ) = 1 := by
  unfold dsum
  rw [Matrix.fromBlocks_one, Matrix.submatrix_one_equiv]

theorem dsum_zero {a b : ℕ} :
    dsum (0 : Matrix (Fin a) (Fin a) ℝ) (0 : Matrix (Fin b) (Fin b) ℝ) = 0 := by
  unfold dsum
  rw [Matrix.fromBlocks_zero]
  rfl

end

end Pyverify.Espr
