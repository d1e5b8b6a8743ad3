import Mathlib
import Pyverify.Espr.Defs

/-!
# Definitions for the ESPR derivation, tiers T5–T8′

Definitions that tiers T5, T6, T6′, T7 and T8′ of "Equivariant Structured Positional Rotations:
Complete Algebraic Derivation" (seed 000, cross-read with 001) introduce, or that they use and
tiers T0–T4 do not provide. Each definition cites the claim of the registry (`claims/`) that
defines it.

Vectors are functions `Fin n → ℝ`; matrices are `Matrix (Fin n) (Fin n) ℝ`.
-/

open Matrix MeasureTheory ProbabilityTheory

namespace Pyverify.Espr

noncomputable section

/-! ## Vector norms (T0.9) used by the later tiers

The Euclidean norm `vnorm`, the l1 norm `vnorm1`, the operator norm `opNorm` and `σ_min`
(`sigmaMin`) are those of `Pyverify.Espr.Defs` (T0.8, T0.9). -/

/-- **T0.9** (espr-derivation): the squared Euclidean norm `|x|² = Σ_u x_u² = xᵀx`, written as a
dot product (`vnorm x ^ 2` of `Defs`). -/
def vecSqNorm {n : ℕ} (x : Fin n → ℝ) : ℝ := x ⬝ᵥ x

/-- **T8′.0** (espr-derivation, Tier 8′): the Frobenius norm `|M|_F = sqrt(tr(Mᵀ M))`. -/
def frobNorm {m n : ℕ} (M : Matrix (Fin m) (Fin n) ℝ) : ℝ :=
  Real.sqrt (Matrix.trace (Mᵀ * M))

/-- **T8′.0** (espr-derivation, Tier 8′): `|M|_2 = |M|`, the operator norm of **T0.9**. -/
def opNorm2 {m n : ℕ} (M : Matrix (Fin m) (Fin n) ℝ) : ℝ := opNorm M

/-- **T8′.0** (espr-derivation, Tier 8′): the unit sphere `S^{d_h - 1} = {z ∈ ℝ^{d_h} | |z| = 1}`. -/
def unitSphere (n : ℕ) : Set (Fin n → ℝ) := {z | vnorm z = 1}

/-! ## The local matrix logarithm (T0.11) -/

/-- **T0.11** (espr-derivation): `log(X)`, "locally defined as `exp⁻¹(X)` near `I_n`", as the
Mercator series `Σ_{k≥1} (−1)^{k+1} (X − I)^k / k` (the local inverse of `exp` for `|X − I| < 1`;
outside the region of convergence the `tsum` has Mathlib's junk value). Used by T5.2, T6′.2,
T6′.2.corrected, T6′.3. -/
def mlogLocal {n : ℕ} (X : Matrix (Fin n) (Fin n) ℝ) : Matrix (Fin n) (Fin n) ℝ :=
  ∑' k : ℕ, ((-1 : ℝ) ^ k / ((k : ℝ) + 1)) • (X - 1) ^ (k + 1)

/-! ## Two facts about the operator norm of T0.9 (Mathlib's `L²` operator norm) -/

section L2Norm

attribute [local instance] Matrix.instL2OpNormedAddCommGroup

/-- `|0| = 0` for the operator norm of T0.9. -/
theorem opNorm_zero_matrix {m n : ℕ} : opNorm (0 : Matrix (Fin m) (Fin n) ℝ) = 0 := by
  unfold opNorm
  exact norm_zero

/-- `|M| > 0` for `M ≠ 0` (the operator norm of T0.9 is a norm). -/
theorem opNorm_pos_of_ne_zero {m n : ℕ} {M : Matrix (Fin m) (Fin n) ℝ} (h : M ≠ 0) :
    0 < opNorm M := by
  unfold opNorm
  exact norm_pos_iff.mpr h

end L2Norm

/-! ## Tier 5 / Tier 6′: commutator sizes and constants -/

/-- **T5.1** (espr-derivation, Tier 5): `ε_ab = |[L_a, L_b]|`. -/
def epsAB {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (a b : Fin dc) : ℝ :=
  opNorm (bracket (L a) (L b))

/-- **T5.1** / **T6′.0** (espr-derivation): `ε = ε_comm = max_{a,b} |[L_a, L_b]|` (`0` when
`d_c = 0`). -/
def epsComm {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) : ℝ :=
  ⨆ a : Fin dc, ⨆ b : Fin dc, epsAB L a b

/-- **T6′.0** (espr-derivation, Tier 6′): `Λ = Σ_{k=1}^{d_c} max_{u ∈ {1..m}} |λ_{k,u}|` for the
eigenvalue parameters `lam k u = λ_{k,u}` of the joint block form (**T2.3**). -/
def bigLambda {dc m : ℕ} (lam : Fin dc → Fin m → ℝ) : ℝ :=
  ∑ k, ⨆ u : Fin m, |lam k u|

/-- **T6′.0** (espr-derivation, Tier 6′): `R = max_i |r_i|_1` over the positions `r_i`
(registry symbol `R_rad`). -/
def radR {N dc : ℕ} (r : Fin N → Fin dc → ℝ) : ℝ :=
  ⨆ i : Fin N, vnorm1 (r i)

/-- **T6′.1** (espr-derivation, Tier 6′): `C_BCH(r, s) = C_⋆ exp(2Λ(|r|_1 + |s|_1))` for an
unspecified constant `C_⋆`. -/
def cBCH (Cstar Lam : ℝ) {dc : ℕ} (r s : Fin dc → ℝ) : ℝ :=
  Cstar * Real.exp (2 * Lam * (vnorm1 r + vnorm1 s))

/-- **T6′.0** (espr-derivation), reading for generators that need not be in joint block form:
`Λ_op = Σ_k |L_k|`. For generators in joint block form `|L_k| = max_u |λ_{k,u}|`, so `Λ_op = Λ`
(the registry's check of T6′.0 compares exactly these). -/
def lambdaOp {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) : ℝ :=
  ∑ k, opNorm (L k)

/-- **T6′.0** (espr-derivation, Tier 6′): `S = S₋ + E` with `S₋ᵀ = −S₋` and `Eᵀ = −E` (so `S` is
skew); `ρ = |S|` and `η = |E|` are written `opNorm S`, `opNorm E`. -/
def SkewSplitParam {n : ℕ} (S Sm E : Matrix (Fin n) (Fin n) ℝ) : Prop :=
  S = Sm + E ∧ IsSkew Sm ∧ IsSkew E

/-! ## Joint block form with a reference basis (T2.3) -/

/-- **T2.3** (espr-derivation): the generators `L_k` are in joint block form in the basis `U`:
`U ∈ O(d_h)` and `Uᵀ L_k U = (⊕_u λ_{k,u} J) ⊕ 0_{d_null}`. (Implies commuting skew generators.) -/
def HasJointBlockForm {m dnull dc : ℕ}
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) (lam : Fin dc → Fin m → ℝ) : Prop :=
  IsOrth U ∧ ∀ k, Uᵀ * L k * U = jointBlockForm dnull (lam k)

/-! ## Blocks of a post-rotation (T5.8, T6′.8) -/

/-- **T5.8** (espr-derivation, Tier 5): `Uᵀ P_sp U` as a block matrix on `Fin (2m) ⊕ Fin d_null`,
so that `P_sp = U [[A, B], [C, D]] Uᵀ`. -/
def postBlocks {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin (2 * m) ⊕ Fin dnull) (Fin (2 * m) ⊕ Fin dnull) ℝ :=
  (Uᵀ * P * U).submatrix finSumFinEquiv finSumFinEquiv

/-- **T5.8**: the active block `A` (`2m × 2m`) of `Uᵀ P_sp U` (not `A(r)`). -/
def blkA {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin (2 * m)) (Fin (2 * m)) ℝ := (postBlocks U P).toBlocks₁₁

/-- **T5.8**: the block `B` (active rows, null columns) of `Uᵀ P_sp U`. -/
def blkB {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin (2 * m)) (Fin dnull) ℝ := (postBlocks U P).toBlocks₁₂

/-- **T5.8**: the block `C` (null rows, active columns) of `Uᵀ P_sp U`. -/
def blkC {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin dnull) (Fin (2 * m)) ℝ := (postBlocks U P).toBlocks₂₁

/-- **T5.8**: the null block `D` of `Uᵀ P_sp U`. -/
def blkD {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Matrix (Fin dnull) (Fin dnull) ℝ := (postBlocks U P).toBlocks₂₂

/-- **T5.8** (espr-derivation, Tier 5): `η_mix = |B| + |C|`. -/
def etaMixSum {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) : ℝ :=
  opNorm (blkB U P) + opNorm (blkC U P)

/-- **T6′.0** (espr-derivation, Tier 6′): `η_mix = max{|Π_null P_sp Π_act|, |Π_act P_sp Π_null|}`. -/
def etaMixMax {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) : ℝ :=
  max (opNorm (piNull U * P * piAct U)) (opNorm (piAct U * P * piNull U))

/-- **T5.9.corrected** (espr-derivation): the Frobenius distance `dist_F(P_sp, 𝓐)` of a
post-rotation to the structured family `𝓐` of **T3.4** (registry symbol `calA`). -/
def distToPostA {m dnull : ℕ} (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) : ℝ :=
  sInf ((fun Q => frobNorm (P - Q)) '' postA U)

/-! ## Logits (T4.4, T6′.10) -/

/-- **T4.4** (espr-derivation): the ESPR logit `α_ij = q̃_iᵀ k̃_j / sqrt(2m)` with
`q̃_i = Π_act R_sp(r_i) q_i^(act)`, `k̃_j = Π_act R_sp(r_j) k_j^(act)`, `R_sp(r) = R_STR(r) P_sp`,
`Π_act` from the basis `U`. -/
def alphaLogit {m dnull dc : ℕ}
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U P : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ) : ℝ :=
  logit m (rotated (piAct U) (rsp L ri P) q) (rotated (piAct U) (rsp L rj P) k)

/-- **T6′.10** (espr-derivation, Tier 6′): the relative (target) logit
`α*_ij = (1/sqrt(2m)) (q_i^(act))ᵀ Π_act R_STR(r_j − r_i) Π_act k_j^(act)`. -/
def alphaStar {m dnull dc : ℕ}
    (L : Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ)
    (q k : Fin (2 * m + dnull) → ℝ) (ri rj : Fin dc → ℝ) : ℝ :=
  (1 / Real.sqrt (2 * m)) *
    (actPart (piAct U) q ⬝ᵥ ((piAct U * rstr L (disp ri rj) * piAct U) *ᵥ actPart (piAct U) k))

/-! ## Tier 8′: the IR_spec functional -/

/-- **T8′.7** (espr-derivation, Tier 8′): `R_sp(r) = P_spᵀ R_STR(r) P_sp` (re-definition as a
conjugation, for `P_sp ∈ SO(d_h)`). -/
def rspConj {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (P : Matrix (Fin n) (Fin n) ℝ)
    (r : Fin dc → ℝ) : Matrix (Fin n) (Fin n) ℝ :=
  Pᵀ * rstr L r * P

/-- **T8′.7** (espr-derivation, Tier 8′): the integrand
`|Π_act R_sp(r)ᵀ R_sp(r + Δ) Π_act − Π_act R_STR(Δ) Π_act|_2` of `IR_spec`. -/
def irIntegrand {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ)
    (Pa P : Matrix (Fin n) (Fin n) ℝ) (r dl : Fin dc → ℝ) : ℝ :=
  opNorm2 (Pa * ((rspConj L P r)ᵀ * rspConj L P (r + dl)) * Pa - Pa * rstr L dl * Pa)

/-- **T8′.7** (espr-derivation, Tier 8′):
`IR_spec(f) = 𝔼_{Δ∼ν}[ sup_{|r|_1 ≤ R} |Π_act R_sp(r)ᵀ R_sp(r + Δ) Π_act − Π_act R_STR(Δ) Π_act|_2 ]`
for the model `f = (L, P_sp)`. -/
def irSpec {n dc : ℕ} (L : Fin dc → Matrix (Fin n) (Fin n) ℝ) (Pa P : Matrix (Fin n) (Fin n) ℝ)
    (ν : Measure (Fin dc → ℝ)) (R : ℝ) : ℝ :=
  ∫ dl, (⨆ r : {r : Fin dc → ℝ // vnorm1 r ≤ R}, irIntegrand L Pa P r.1 dl) ∂ν

/-- **T8′.6** (espr-derivation, Tier 8′): `𝓗_STRING = {f : P_sp ∈ 𝓐, [L_a, L_b] = 0}`, models
`f = (L, P_sp)` over the basis `U`. -/
def hString {m dnull dc : ℕ} (U : Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :
    Set ((Fin dc → Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) ×
      Matrix (Fin (2 * m + dnull)) (Fin (2 * m + dnull)) ℝ) :=
  {f | f.2 ∈ postA U ∧ ∀ a b, bracket (f.1 a) (f.1 b) = 0}

/-- **T8′.6** (espr-derivation, Tier 8′): `𝓗_ESPR = {f : P_sp ∈ SO(d_h), |[L_a, L_b]| ≤ ε_comm}`
(`ε_comm` a tolerance; `η_mix` as in T6′.0 is unconstrained). -/
def hEspr {n dc : ℕ} (epsTol : ℝ) :
    Set ((Fin dc → Matrix (Fin n) (Fin n) ℝ) × Matrix (Fin n) (Fin n) ℝ) :=
  {f | IsSO f.2 ∧ ∀ a b, opNorm (bracket (f.1 a) (f.1 b)) ≤ epsTol}

/-! ## Tier 7: Gaussian draws and positive random features -/

/-- **T7.0** (espr-derivation): the standard Gaussian law `𝒩(0, I_n)` on `ℝⁿ`, the law of `n`
independent standard real Gaussians (product of `gaussianReal 0 1`). -/
abbrev stdGaussian (n : ℕ) : Measure (Fin n → ℝ) :=
  Measure.pi (fun _ : Fin n => gaussianReal 0 1)

/-- **T7.0** (espr-derivation): `Var[Z] = 𝔼[Z²] − (𝔼[Z])²` of a scalar random variable `Z` under
the law `μ`, as printed (a definition, not Mathlib's `variance`). -/
def rfVar {Ω : Type*} [MeasurableSpace Ω] (μ : Measure Ω) (Z : Ω → ℝ) : ℝ :=
  (∫ ω, Z ω ^ 2 ∂μ) - (∫ ω, Z ω ∂μ) ^ 2

/-- **T7.1** (espr-derivation): the positive softmax random feature
`φ_w(x) = exp(wᵀx − |x|²/2)` (convention `feature_sign: plus`). -/
def rfPhi {n : ℕ} (w x : Fin n → ℝ) : ℝ := Real.exp (w ⬝ᵥ x - (1 / 2) * vecSqNorm x)

/-- **T7.1** (espr-derivation): the single-draw estimator `Z(x, y; w) = φ_w(x) φ_w(y)`. -/
def rfZ {n : ℕ} (x y w : Fin n → ℝ) : ℝ := rfPhi w x * rfPhi w y

/-- **T7.1** (espr-derivation): the Monte Carlo estimator
`SM̂_{n_rf}(x, y) = (1/n_rf) Σ_{t=1}^{n_rf} Z(x, y; w_t)` of the draws `W = (w_1, …, w_{n_rf})`. -/
def rfSMHat {n nrf : ℕ} (W : Fin nrf → Fin n → ℝ) (x y : Fin n → ℝ) : ℝ :=
  (1 / (nrf : ℝ)) * ∑ t, rfZ x y (W t)

/-- **T7.1** (espr-derivation): the joint law of `n_rf` i.i.d. draws `w_t ∼ 𝒩(0, I_n)`. -/
abbrev stdGaussianDraws (n nrf : ℕ) : Measure (Fin nrf → Fin n → ℝ) :=
  Measure.pi (fun _ : Fin nrf => stdGaussian n)

end

end Pyverify.Espr
