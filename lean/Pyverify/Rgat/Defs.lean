import Mathlib

/-!
# RGAT supplement (document 003): shared definitions

Definitions of the "Definitions" section of *Riemannian Geometric Algebra Transformers:
supplementary proofs* (registry `claims/rgat.yaml`), used by the statements `S01` … `S14`.

Conventions (those of the registry):
* unit quaternions `ℍ[ℝ]` with `qdot q q = 1` are the points of `S³ = Spin(3)`;
* generators `u ∈ ℝ³` are coordinate triples `Fin 3 → ℝ` with the Euclidean norm `norm3`
  (we do not use the sup norm of `Fin 3 → ℝ`);
* the rotor of `u` is `exp(u) = cos‖u‖ + (sin‖u‖/‖u‖) u` (rotor convention `exp(u)`,
  `‖u‖` is the half-angle), `u` identified with the pure quaternion `(0, u)`;
* the Lie bracket of the Definitions is the cross product `[u, v] = u × v`;
* `d_geo(q, k) = 2 arccos |⟨q, k⟩|` (principal branch).
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-! ## Quaternions, similarity and geodesic distance -/

/-- **RGAT.Def-similarity**: the standard Euclidean inner product of `ℝ⁴` on quaternions,
`⟨q, k⟩ = ∑ᵢ qᵢ kᵢ`. -/
def qdot (q k : ℍ[ℝ]) : ℝ :=
  q.re * k.re + q.imI * k.imI + q.imJ * k.imJ + q.imK * k.imK

/-- **RGAT.Def-similarity**: `q ∈ Spin(3) ⊂ S³`, i.e. `q` is a unit quaternion. -/
def IsUnitQ (q : ℍ[ℝ]) : Prop := qdot q q = 1

/-- **RGAT.Def-similarity**: the sign-invariant similarity `s(q, k) = |⟨q, k⟩|`. -/
def simil (q k : ℍ[ℝ]) : ℝ := |qdot q k|

/-- **RGAT.Def-dgeo**: the geodesic distance `d_geo(q, k) = 2 arccos(s(q, k))` (principal
branch of `arccos`). -/
noncomputable def dgeo (q k : ℍ[ℝ]) : ℝ := 2 * Real.arccos (simil q k)

/-- **RGAT.Def-dgeo-arclength**: the great-circle (round-metric) distance on the unit `S³`,
`arccos ⟨q, k⟩` (the arc length the document speaks of). -/
noncomputable def arcDist (q k : ℍ[ℝ]) : ℝ := Real.arccos (qdot q k)

/-- **RGAT.Def-dgeo-arclength.corrected**: the rotation angle in `[0, π]` of the `SO(3)` rotation
represented by a unit quaternion `p`, `2 arccos |Re p|`. -/
noncomputable def rotAngle (p : ℍ[ℝ]) : ℝ := 2 * Real.arccos |p.re|

/-- **RGAT.Def-Log**: the Euclidean norm of `ℝ⁴` on quaternions (the round metric is induced by
it, **RGAT.Def-metric**). -/
noncomputable def qnorm (v : ℍ[ℝ]) : ℝ := Real.sqrt (qdot v v)

/-- **RGAT.Def-Log** (reading of the registry): the Riemannian exponential of the round `S³` at
the base point `q`, `exp_q(v) = cos‖v‖ q + (sin‖v‖/‖v‖) v` for `v ∈ T_q S³` (`exp_q 0 = q`,
since `x / 0 = 0`). -/
noncomputable def expAt (q v : ℍ[ℝ]) : ℍ[ℝ] :=
  Real.cos (qnorm v) • q + (Real.sin (qnorm v) / qnorm v) • v

/-- **RGAT.Def-Log**: the principal log map of the round `S³` at `q`, defined on
`S³ ∖ {-q}`: `Log_q(k) = (θ / sin θ)(k - ⟨q,k⟩ q)` with `θ = arccos ⟨q, k⟩`
(`Log_q q = 0`, since `x / 0 = 0`). -/
noncomputable def logAt (q k : ℍ[ℝ]) : ℍ[ℝ] :=
  (Real.arccos (qdot q k) / Real.sin (Real.arccos (qdot q k))) • (k - qdot q k • q)

/-- **RGAT.Def-tangent-proj**: the tangent-space projector `P_q v = v - ⟨q, v⟩ q`
(`P_q = I - q qᵀ`). -/
def tangentProj (q v : ℍ[ℝ]) : ℍ[ℝ] := v - qdot q v • q

/-! ## Generators, exponential, bracket -/

/-- **RGAT.Def-liealg**: generators `u ∈ 𝔰𝔭𝔦𝔫(3) ≅ ℝ³`, as coordinate triples. -/
abbrev Vec3 := Fin 3 → ℝ

/-- **RGAT.Def-metric**: the Euclidean inner product of `ℝ³`. -/
def dot3 (u v : Vec3) : ℝ := u 0 * v 0 + u 1 * v 1 + u 2 * v 2

/-- **RGAT.Def-metric**: the Euclidean norm of `ℝ³` ("all vector norms are Euclidean"). -/
noncomputable def norm3 (u : Vec3) : ℝ := Real.sqrt (dot3 u u)

/-- **RGAT.Def-exp**: `u ∈ ℝ³` identified with the pure quaternion `u₁ i + u₂ j + u₃ k`. -/
def pureQ (u : Vec3) : ℍ[ℝ] := ⟨0, u 0, u 1, u 2⟩

/-- **RGAT.Def-exp**: the exponential at the identity,
`exp(u) = cos‖u‖ + (sin‖u‖ / ‖u‖) u`; at `u = 0` the formula gives `exp(0) = 1`
(Lean's `x / 0 = 0`). -/
noncomputable def qexp (u : Vec3) : ℍ[ℝ] :=
  ⟨Real.cos (norm3 u), Real.sin (norm3 u) / norm3 u * u 0,
    Real.sin (norm3 u) / norm3 u * u 1, Real.sin (norm3 u) / norm3 u * u 2⟩

/-- **RGAT.Def-rotor**: the rotor `R(u) = exp(u)` of a generator `u`. -/
noncomputable def rotor (u : Vec3) : ℍ[ℝ] := qexp u

/-- **RGAT.Def-bracket**: the Lie bracket of the Definitions, `[u, v] = u × v`. -/
def bracket (u v : Vec3) : Vec3 :=
  ![u 1 * v 2 - u 2 * v 1, u 2 * v 0 - u 0 * v 2, u 0 * v 1 - u 1 * v 0]

/-- **S12.corrected**: the group commutator of the pure quaternions exponentiated by `exp(u)`,
`uv - vu = 2 u × v`, as a vector of `ℝ³`. -/
def qcomm (u v : Vec3) : Vec3 := (2 : ℝ) • bracket u v

/-- **S12**: the sum of brackets over ordered pairs, `∑_{i<j} [u_i, u_j]`. -/
def pairBracketSum {L : ℕ} (u : Fin L → Vec3) : Vec3 :=
  ∑ i : Fin L, ∑ j : Fin L, if i < j then bracket (u i) (u j) else 0

/-- **S12.corrected**: `∑_{i<j} (u_i u_j - u_j u_i)` with the group commutator `qcomm`. -/
def pairCommSum {L : ℕ} (u : Fin L → Vec3) : Vec3 :=
  ∑ i : Fin L, ∑ j : Fin L, if i < j then qcomm (u i) (u j) else 0

/-- **S12**, **S13**: the ordered product `exp(u₁) exp(u₂) ⋯ exp(u_L)`. -/
noncomputable def rotorProd {L : ℕ} (u : Fin L → Vec3) : ℍ[ℝ] :=
  (List.ofFn fun l => qexp (u l)).prod

/-! ## Softmax, attention, truncation -/

/-- **RGAT.Def-softmax**: `σ(ℓ)_i = exp(ℓ_i) / ∑_k exp(ℓ_k)`. -/
noncomputable def softmax {T : ℕ} (l : Fin T → ℝ) : Fin T → ℝ :=
  fun i => Real.exp (l i) / ∑ k, Real.exp (l k)

/-- **RGAT.Alg** (steps 2–3): the GSM logits `ℓ_ij = -(2τ)⁻¹ d_geo(μ_i, r_j)²`. -/
noncomputable def gsmLogits {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ) :
    Fin m → Fin n → ℝ :=
  fun i j => -(dgeo (μ i) (r j) ^ 2) / (2 * τ)

/-- **S5**: the heat kernel `K_ij = exp(-d_geo(μ_i, r_j)² / (2τ))`. -/
noncomputable def gsmKernel {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ) :
    Fin m → Fin n → ℝ :=
  fun i j => Real.exp (gsmLogits μ r τ i j)

/-- **RGAT.Alg** (step 4), **S5**: the GSM attention weights, the row-wise softmax of the GSM
logits, `P_ij = K_ij / ∑_k K_ik`. -/
noncomputable def gsmWeights {m n : ℕ} (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ) :
    Fin m → Fin n → ℝ :=
  fun i => softmax (gsmLogits μ r τ i)

/-- **S4**: the standard logits `ℓ^std_ij = τ⁻¹ Q_iᵀ K_j`. -/
noncomputable def stdLogits {m n : ℕ} (Q : Fin m → Vec3) (K : Fin n → Vec3) (τ : ℝ) :
    Fin m → Fin n → ℝ :=
  fun i j => dot3 (Q i) (K j) / τ

/-- **S4**: `P^softmax`, the row-wise softmax of the standard logits. -/
noncomputable def stdWeights {m n : ℕ} (Q : Fin m → Vec3) (K : Fin n → Vec3) (τ : ℝ) :
    Fin m → Fin n → ℝ :=
  fun i => softmax (stdLogits Q K τ i)

/-- **S4**: `P^GSM` for generators: the GSM weights of the rotors `R(Q_i)`, `R(K_j)`. -/
noncomputable def gsmWeightsGen {m n : ℕ} (Q : Fin m → Vec3) (K : Fin n → Vec3) (τ : ℝ) :
    Fin m → Fin n → ℝ :=
  gsmWeights (fun i => rotor (Q i)) (fun j => rotor (K j)) τ

/-- **RGAT.Alg** (step 5), **S5**: the attention output `y_i = ∑_j P_ij v_j`. -/
def attnOut {E : Type*} [AddCommMonoid E] [Module ℝ E] {m n : ℕ}
    (P : Fin m → Fin n → ℝ) (v : Fin n → E) : Fin m → E :=
  fun i => ∑ j, P i j • v j

/-- **RGAT.Def-truncation**: the full output of one query row, `y_i = ∑_j P_ij v_j`
(the row index `i` is dropped: `p` is the row `P_i·`). -/
def rowOut {E : Type*} [AddCommMonoid E] [Module ℝ E] {n : ℕ}
    (p : Fin n → ℝ) (v : Fin n → E) : E :=
  ∑ j, p j • v j

/-- **RGAT.Def-truncation**: the retained mass `p_i = ∑_{j ∈ S_i} P_ij`. -/
def keptMass {n : ℕ} (p : Fin n → ℝ) (S : Finset (Fin n)) : ℝ := ∑ j ∈ S, p j

/-- **RGAT.Def-truncation**: the dropped mass `δ_i = 1 - p_i`. -/
def droppedMass {n : ℕ} (p : Fin n → ℝ) (S : Finset (Fin n)) : ℝ := 1 - keptMass p S

/-- **RGAT.Def-truncation**: the renormalised weights `P̃_ij = P_ij / p_i` (`j ∈ S_i`). -/
noncomputable def truncWeight {n : ℕ} (p : Fin n → ℝ) (S : Finset (Fin n)) (j : Fin n) : ℝ :=
  p j / keptMass p S

/-- **RGAT.Def-truncation**, **S7**: the truncated output
`ỹ_i = ∑_{j ∈ S_i} P̃_ij v_j` (which is also `μ_{S_i}` of S7). -/
noncomputable def truncOut {E : Type*} [AddCommMonoid E] [Module ℝ E] {n : ℕ}
    (p : Fin n → ℝ) (S : Finset (Fin n)) (v : Fin n → E) : E :=
  ∑ j ∈ S, truncWeight p S j • v j

/-- **S7**: the mean of the dropped values, `μ_{S_i^c} = δ_i⁻¹ ∑_{j ∉ S_i} P_ij v_j`. -/
noncomputable def meanOut {E : Type*} [AddCommMonoid E] [Module ℝ E] {n : ℕ}
    (p : Fin n → ℝ) (S : Finset (Fin n)) (v : Fin n → E) : E :=
  (droppedMass p S)⁻¹ • ∑ j ∈ Sᶜ, p j • v j

/-! ## Stacks of layers -/

/-- **S4.stack**, **RGAT.Def-indices**: the depth-`n` stack `F_{n-1} ∘ ⋯ ∘ F_0` of the layers
`F_ℓ` (layers indexed `ℓ = 0, …, n-1`, i.e. the document's `ℓ = 1, …, L` shifted by one). -/
def stack {X : Type*} (F : ℕ → X → X) : ℕ → X → X
  | 0 => fun x => x
  | n + 1 => fun x => F n (stack F n x)

theorem stack_zero {X : Type*} (F : ℕ → X → X) (x : X) : stack F 0 x = x := rfl

theorem stack_succ {X : Type*} (F : ℕ → X → X) (n : ℕ) (x : X) :
    stack F (n + 1) x = F n (stack F n x) := rfl

/-- **RGAT.Def-indices**: the max-row `ℓ₂` norm `‖·‖_{∞,2}` of a sequence `X : Fin T → E` is
Mathlib's norm of the function type `Fin T → E` (the supremum of the row norms); for
`E = EuclideanSpace ℝ (Fin d)` the rows carry the Euclidean norm. No separate definition is
needed: the statements below use `‖X‖` for `X : Fin T → E`. -/
abbrev TokenSeq (T : ℕ) (E : Type*) := Fin T → E

/-! ## Basic algebraic facts -/

/-! Component formulas of the quaternion operations, proved by Mathlib's simp set for `ℍ[ℝ]`
(`Quaternion.re_mul`, …, named `Quaternion.mul_re`, … before 2025-08-31), so that the
proofs below do not depend on the lemma names. -/

theorem qre_mul (a b : ℍ[ℝ]) :
    (a * b).re = a.re * b.re - a.imI * b.imI - a.imJ * b.imJ - a.imK * b.imK := by
  simp <;> ring

theorem qimI_mul (a b : ℍ[ℝ]) :
    (a * b).imI = a.re * b.imI + a.imI * b.re + a.imJ * b.imK - a.imK * b.imJ := by
  simp <;> ring

theorem qimJ_mul (a b : ℍ[ℝ]) :
    (a * b).imJ = a.re * b.imJ - a.imI * b.imK + a.imJ * b.re + a.imK * b.imI := by
  simp <;> ring

theorem qimK_mul (a b : ℍ[ℝ]) :
    (a * b).imK = a.re * b.imK + a.imI * b.imJ - a.imJ * b.imI + a.imK * b.re := by
  simp <;> ring

theorem qre_neg (a : ℍ[ℝ]) : (-a).re = -a.re := rfl
theorem qimI_neg (a : ℍ[ℝ]) : (-a).imI = -a.imI := rfl
theorem qimJ_neg (a : ℍ[ℝ]) : (-a).imJ = -a.imJ := rfl
theorem qimK_neg (a : ℍ[ℝ]) : (-a).imK = -a.imK := rfl

theorem qdot_comm (q k : ℍ[ℝ]) : qdot q k = qdot k q := by
  unfold qdot; ring

theorem qdot_neg_left (q k : ℍ[ℝ]) : qdot (-q) k = -qdot q k := by
  simp only [qdot, qre_neg, qimI_neg, qimJ_neg, qimK_neg]
  ring

theorem qdot_neg_right (q k : ℍ[ℝ]) : qdot q (-k) = -qdot q k := by
  simp only [qdot, qre_neg, qimI_neg, qimJ_neg, qimK_neg]
  ring

/-- Left multiplication scales the inner product of `ℝ⁴` by `|g|²` (polarised multiplicativity
of the quaternion norm). -/
theorem qdot_mul_left (g a b : ℍ[ℝ]) : qdot (g * a) (g * b) = qdot g g * qdot a b := by
  simp only [qdot, qre_mul, qimI_mul, qimJ_mul, qimK_mul]
  ring

/-- Right multiplication scales the inner product of `ℝ⁴` by `|g|²`. -/
theorem qdot_mul_right (g a b : ℍ[ℝ]) : qdot (a * g) (b * g) = qdot g g * qdot a b := by
  simp only [qdot, qre_mul, qimI_mul, qimJ_mul, qimK_mul]
  ring

theorem bracket_apply_zero (u v : Vec3) : bracket u v 0 = u 1 * v 2 - u 2 * v 1 := rfl
theorem bracket_apply_one (u v : Vec3) : bracket u v 1 = u 2 * v 0 - u 0 * v 2 := rfl
theorem bracket_apply_two (u v : Vec3) : bracket u v 2 = u 0 * v 1 - u 1 * v 0 := rfl

theorem dot3_self_nonneg (u : Vec3) : 0 ≤ dot3 u u := by
  unfold dot3; nlinarith [sq_nonneg (u 0), sq_nonneg (u 1), sq_nonneg (u 2)]

theorem norm3_nonneg (u : Vec3) : 0 ≤ norm3 u := Real.sqrt_nonneg _

theorem norm3_sq (u : Vec3) : norm3 u ^ 2 = dot3 u u := Real.sq_sqrt (dot3_self_nonneg u)

/-- Splitting a row output along `S` and its complement. -/
theorem rowOut_split {E : Type*} [AddCommMonoid E] [Module ℝ E] {n : ℕ}
    (p : Fin n → ℝ) (S : Finset (Fin n)) (v : Fin n → E) :
    rowOut p v = ∑ j ∈ S, p j • v j + ∑ j ∈ Sᶜ, p j • v j :=
  (Finset.sum_add_sum_compl S fun j => p j • v j).symm

theorem truncOut_eq {E : Type*} [AddCommMonoid E] [Module ℝ E] {n : ℕ}
    (p : Fin n → ℝ) (S : Finset (Fin n)) (v : Fin n → E) :
    truncOut p S v = (keptMass p S)⁻¹ • ∑ j ∈ S, p j • v j := by
  simp only [truncOut, truncWeight, Finset.smul_sum, smul_smul, div_eq_inv_mul]

/-- A weighted sum with nonnegative weights of vectors of norm at most `V` has norm at most
(total weight) · `V`. -/
theorem norm_wsum_le {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E] {ι : Type*}
    (s : Finset ι) (w : ι → ℝ) (v : ι → E) (V : ℝ)
    (hw : ∀ j ∈ s, 0 ≤ w j) (hv : ∀ j ∈ s, ‖v j‖ ≤ V) :
    ‖∑ j ∈ s, w j • v j‖ ≤ (∑ j ∈ s, w j) * V := by
  calc ‖∑ j ∈ s, w j • v j‖ ≤ ∑ j ∈ s, ‖w j • v j‖ := norm_sum_le _ _
    _ = ∑ j ∈ s, w j * ‖v j‖ := by
        refine Finset.sum_congr rfl (fun j hj => ?_)
        rw [norm_smul, Real.norm_eq_abs, abs_of_nonneg (hw j hj)]
    _ ≤ ∑ j ∈ s, w j * V :=
        Finset.sum_le_sum (fun j hj => mul_le_mul_of_nonneg_left (hv j hj) (hw j hj))
    _ = (∑ j ∈ s, w j) * V := by rw [Finset.sum_mul]

end

end Pyverify.Rgat
