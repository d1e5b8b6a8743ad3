import Mathlib

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

/-! ## Vector norms (T0.9) used by the later tiers -/

/-- **T0.9** (espr-derivation): the squared Euclidean norm `|x|² = Σ_u x_u² = x ⬝ x`. -/
def vecSqNorm {n : ℕ} (x : Fin n → ℝ) : ℝ := x ⬝ᵥ x

/-- **T0.9** (espr-derivation): the Euclidean norm `|x| = (Σ_u x_u²)^{1/2}`. -/
def vecNorm {n : ℕ} (x : Fin n → ℝ) : ℝ := Real.sqrt (vecSqNorm x)

/-- **T0.9** (espr-derivation): the l1 norm `|x|_1 = Σ_u |x_u|`. -/
def vecL1 {n : ℕ} (x : Fin n → ℝ) : ℝ := ∑ u, |x u|

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
