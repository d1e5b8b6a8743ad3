import Pyverify.Rgat.Defs

/-!
# RGAT supplement: the claims of the Definitions section (`RGAT.Def-*`)

Statements (and proofs where robust) of the entries of the Definitions section with
mathematical content, and of their corrections.
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-! ## Component lemmas used below -/

theorem qre_sub (a b : ℍ[ℝ]) : (a - b).re = a.re - b.re := rfl
theorem qimI_sub (a b : ℍ[ℝ]) : (a - b).imI = a.imI - b.imI := rfl
theorem qimJ_sub (a b : ℍ[ℝ]) : (a - b).imJ = a.imJ - b.imJ := rfl
theorem qimK_sub (a b : ℍ[ℝ]) : (a - b).imK = a.imK - b.imK := rfl
theorem qre_smul (c : ℝ) (a : ℍ[ℝ]) : (c • a).re = c * a.re := rfl
theorem qimI_smul (c : ℝ) (a : ℍ[ℝ]) : (c • a).imI = c * a.imI := rfl
theorem qimJ_smul (c : ℝ) (a : ℍ[ℝ]) : (c • a).imJ = c * a.imJ := rfl
theorem qimK_smul (c : ℝ) (a : ℍ[ℝ]) : (c • a).imK = c * a.imK := rfl

theorem qre_zero : (0 : ℍ[ℝ]).re = 0 := rfl
theorem qimI_zero : (0 : ℍ[ℝ]).imI = 0 := rfl
theorem qimJ_zero : (0 : ℍ[ℝ]).imJ = 0 := rfl
theorem qimK_zero : (0 : ℍ[ℝ]).imK = 0 := rfl

theorem qre_star (a : ℍ[ℝ]) : (star a).re = a.re := by simp
theorem qimI_star (a : ℍ[ℝ]) : (star a).imI = -a.imI := by simp
theorem qimJ_star (a : ℍ[ℝ]) : (star a).imJ = -a.imJ := by simp
theorem qimK_star (a : ℍ[ℝ]) : (star a).imK = -a.imK := by simp

theorem pureQ_re (u : Vec3) : (pureQ u).re = 0 := rfl
theorem pureQ_imI (u : Vec3) : (pureQ u).imI = u 0 := rfl
theorem pureQ_imJ (u : Vec3) : (pureQ u).imJ = u 1 := rfl
theorem pureQ_imK (u : Vec3) : (pureQ u).imK = u 2 := rfl

theorem qdot_sub_right (q a b : ℍ[ℝ]) : qdot q (a - b) = qdot q a - qdot q b := by
  unfold qdot
  rw [qre_sub, qimI_sub, qimJ_sub, qimK_sub]
  ring

theorem qdot_sub_left (q a b : ℍ[ℝ]) : qdot (a - b) q = qdot a q - qdot b q := by
  unfold qdot
  rw [qre_sub, qimI_sub, qimJ_sub, qimK_sub]
  ring

theorem qdot_smul_right (q a : ℍ[ℝ]) (c : ℝ) : qdot q (c • a) = c * qdot q a := by
  unfold qdot
  rw [qre_smul, qimI_smul, qimJ_smul, qimK_smul]
  ring

theorem qdot_smul_left (q a : ℍ[ℝ]) (c : ℝ) : qdot (c • a) q = c * qdot a q := by
  unfold qdot
  rw [qre_smul, qimI_smul, qimJ_smul, qimK_smul]
  ring

theorem qdot_self_nonneg (q : ℍ[ℝ]) : 0 ≤ qdot q q := by
  unfold qdot
  nlinarith [sq_nonneg q.re, sq_nonneg q.imI, sq_nonneg q.imJ, sq_nonneg q.imK]

/-- Cauchy–Schwarz on `S³`: `|⟨q, k⟩| ≤ 1` for unit quaternions. -/
theorem abs_qdot_le_one {q k : ℍ[ℝ]} (hq : IsUnitQ q) (hk : IsUnitQ k) : |qdot q k| ≤ 1 := by
  have hq' : q.re * q.re + q.imI * q.imI + q.imJ * q.imJ + q.imK * q.imK = 1 := hq
  have hk' : k.re * k.re + k.imI * k.imI + k.imJ * k.imJ + k.imK * k.imK = 1 := hk
  unfold qdot
  rw [abs_le]
  constructor
  · nlinarith [sq_nonneg (q.re + k.re), sq_nonneg (q.imI + k.imI), sq_nonneg (q.imJ + k.imJ),
      sq_nonneg (q.imK + k.imK)]
  · nlinarith [sq_nonneg (q.re - k.re), sq_nonneg (q.imI - k.imI), sq_nonneg (q.imJ - k.imJ),
      sq_nonneg (q.imK - k.imK)]

theorem vec3_ext {u v : Vec3} (h0 : u 0 = v 0) (h1 : u 1 = v 1) (h2 : u 2 = v 2) : u = v := by
  funext i
  fin_cases i
  · exact h0
  · exact h1
  · exact h2

/-! ## Manifold and group structure -/

/-- **RGAT.Def-similarity** (rgat, Definitions): for unit quaternions `q, k`,
`s(q, k) = |⟨q, k⟩|` is sign-invariant in each argument, lies in `[0, 1]` (so `arccos` in
`d_geo` is defined) and `s(q, q) = 1`. -/
def SimilarityStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k →
    simil (-q) k = simil q k ∧ simil q (-k) = simil q k ∧ 0 ≤ simil q k ∧ simil q k ≤ 1 ∧
    simil q q = 1

theorem similarity_props : SimilarityStatement := by
  intro q k hq hk
  refine ⟨?_, ?_, abs_nonneg _, abs_qdot_le_one hq hk, ?_⟩
  · unfold simil; rw [qdot_neg_left, abs_neg]
  · unfold simil; rw [qdot_neg_right, abs_neg]
  · unfold simil; rw [show qdot q q = 1 from hq, abs_one]

/-- **RGAT.Def-dgeo** (rgat, Definitions): `d_geo(q, k) = 2 arccos(s(q, k))` (principal branch)
satisfies `cos(d_geo/2) = |⟨q, k⟩|`, takes values in `[0, π]`, is symmetric and satisfies the
triangle inequality (a metric on `S³/{±1}`), for unit quaternions. -/
def DgeoStatement : Prop :=
  ∀ p q k : ℍ[ℝ], IsUnitQ p → IsUnitQ q → IsUnitQ k →
    Real.cos (dgeo q k / 2) = |qdot q k| ∧ 0 ≤ dgeo q k ∧ dgeo q k ≤ Real.pi ∧
    dgeo k q = dgeo q k ∧ dgeo q k ≤ dgeo q p + dgeo p k

/-- **RGAT.Def-dgeo**: the first four clauses are proved; the triangle inequality is left as
`sorry` (it is the triangle inequality of the round metric on `ℝP³`). -/
theorem dgeo_props : DgeoStatement := by
  intro p q k _ hq hk
  have h1 := abs_qdot_le_one hq hk
  have h0 : 0 ≤ |qdot q k| := abs_nonneg _
  refine ⟨?_, ?_, ?_, ?_, ?_⟩
  · unfold dgeo simil
    rw [mul_div_cancel_left₀ _ (two_ne_zero : (2 : ℝ) ≠ 0)]
    exact Real.cos_arccos (by linarith) h1
  · unfold dgeo
    exact mul_nonneg zero_le_two (Real.arccos_nonneg _)
  · unfold dgeo simil
    have h := Real.arccos_le_pi_div_two.mpr h0
    linarith
  · unfold dgeo simil
    rw [qdot_comm]
  · sorry

/-- **RGAT.Def-dgeo-arclength** (rgat, Definitions), as printed: `d_geo(q, k) = 2 arccos s(q, k)`
measures the arc length on the unit 3-sphere, read (most favourably, sign-invariantly) as
`d_geo(q, k) = min(dist_{S³}(q, k), dist_{S³}(q, -k))` with `dist_{S³} = arccos ⟨·,·⟩`. -/
def DgeoArcLengthStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → dgeo q k = min (arcDist q k) (arcDist q (-k))

/-- The unit quaternions `1` and `i`, for counterexamples. -/
def qOne : ℍ[ℝ] := ⟨1, 0, 0, 0⟩

/-- The unit quaternion `i`. -/
def qI : ℍ[ℝ] := ⟨0, 1, 0, 0⟩

theorem qOne_unit : IsUnitQ qOne := by
  show qOne.re * qOne.re + qOne.imI * qOne.imI + qOne.imJ * qOne.imJ + qOne.imK * qOne.imK = 1
  norm_num [qOne]

theorem qI_unit : IsUnitQ qI := by
  show qI.re * qI.re + qI.imI * qI.imI + qI.imJ * qI.imJ + qI.imK * qI.imK = 1
  norm_num [qI]

theorem qdot_qOne_qI : qdot qOne qI = 0 := by
  show qOne.re * qI.re + qOne.imI * qI.imI + qOne.imJ * qI.imJ + qOne.imK * qI.imK = 0
  norm_num [qOne, qI]

/-- **RGAT.Def-dgeo-arclength** is false: at `q = 1`, `k = i`, `d_geo = 2 arccos 0 = π` while
both arc lengths are `arccos 0 = π/2` (the registry's witness family: `d_geo` is twice the arc
length). -/
theorem not_dgeo_arc_length : ¬ DgeoArcLengthStatement := by
  intro h
  have h1 := h qOne qI qOne_unit qI_unit
  have hneg : qdot qOne (-qI) = 0 := by rw [qdot_neg_right, qdot_qOne_qI, neg_zero]
  unfold dgeo simil arcDist at h1
  rw [qdot_qOne_qI, hneg, abs_zero, Real.arccos_zero, min_self] at h1
  have hpi := Real.pi_pos
  linarith

/-- **RGAT.Def-dgeo-arclength.corrected** (rgat, Definitions, corrected):
`d_geo(q, k) = 2 arccos |⟨q, k⟩| = 2 min(dist_{S³}(q, k), dist_{S³}(q, -k))` = the rotation angle
of `q* k`, in `[0, π]`. -/
def DgeoArcLengthCorrectedStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k →
    dgeo q k = 2 * min (arcDist q k) (arcDist q (-k)) ∧ dgeo q k = rotAngle (star q * k)

theorem dgeo_eq_twice_arc : DgeoArcLengthCorrectedStatement := by
  intro q k _ _
  constructor
  · unfold dgeo simil arcDist
    rw [qdot_neg_right, Real.arccos_neg]
    rcases le_or_lt 0 (qdot q k) with hc | hc
    · have h := Real.arccos_le_pi_div_two.mpr hc
      rw [abs_of_nonneg hc, min_eq_left (show Real.arccos (qdot q k)
        ≤ Real.pi - Real.arccos (qdot q k) by linarith)]
    · have h := Real.arccos_le_pi_div_two.mpr (neg_nonneg.mpr hc.le)
      rw [Real.arccos_neg] at h
      rw [abs_of_neg hc, Real.arccos_neg, min_eq_right (show Real.pi - Real.arccos (qdot q k)
        ≤ Real.arccos (qdot q k) by linarith)]
  · have hre : (star q * k).re = qdot q k := by
      rw [qre_mul, qre_star, qimI_star, qimJ_star, qimK_star]
      unfold qdot
      ring
    unfold dgeo simil rotAngle
    rw [hre]

/-- **RGAT.Def-Log** (rgat, Definitions): `Log_q` is defined on `Spin(3) ∖ {-q}` so that
`k = exp_q(Log_q(k))` (`exp_q` the Riemannian exponential of the round `S³` at `q`, the
registry's reading); also `‖Log_q(k)‖ ≤ π`. -/
def LogStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → k ≠ -q →
    expAt q (logAt q k) = k ∧ qnorm (logAt q k) ≤ Real.pi


/-- **RGAT.Def-Log-norm** (rgat, Definitions), as printed:
`‖Log_q(k)‖ = d_geo(q, k)/2` for `k ∈ Spin(3) ∖ {-q}`. (False for `⟨q, k⟩ < 0`.) -/
def LogNormStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → k ≠ -q → qnorm (logAt q k) = dgeo q k / 2

/-- **RGAT.Def-Log-norm.corrected** (rgat, Definitions, corrected):
`‖Log_q(k)‖ = arccos ⟨q, k⟩`, hence `‖Log_q(k)‖ = d_geo(q, k)/2 ↔ ⟨q, k⟩ ≥ 0`
(`k ∈ S³ ∖ {-q}`). -/
def LogNormCorrectedStatement : Prop :=
  ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → k ≠ -q →
    qnorm (logAt q k) = arcDist q k ∧ (qnorm (logAt q k) = dgeo q k / 2 ↔ 0 ≤ qdot q k)

/-- **RGAT.Def-injrad** (rgat, Definitions), as printed: `inj(Spin(3)) = π`, "half the
diameter of `S³`": `exp` is injective on the open ball `‖u‖ < π` and maps the sphere `‖u‖ = π`
to `-1` (so the injectivity radius is `π`), and `π = D/2` where `D` is the diameter of the
unit `S³` (largest arc length between two of its points). -/
def InjRadStatement : Prop :=
  (∀ u v : Vec3, norm3 u < Real.pi → norm3 v < Real.pi → qexp u = qexp v → u = v) ∧
  (∀ u : Vec3, norm3 u = Real.pi → qexp u = -1) ∧
  ∃ D : ℝ, (∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → arcDist q k ≤ D) ∧
    (∃ q k : ℍ[ℝ], IsUnitQ q ∧ IsUnitQ k ∧ arcDist q k = D) ∧ Real.pi = D / 2

/-- **RGAT.Def-injrad.corrected** (rgat, Definitions, corrected): as `InjRadStatement` with
`π = D` (the diameter of the unit `S³` is `π`, half the length of a great circle). -/
def InjRadCorrectedStatement : Prop :=
  (∀ u v : Vec3, norm3 u < Real.pi → norm3 v < Real.pi → qexp u = qexp v → u = v) ∧
  (∀ u : Vec3, norm3 u = Real.pi → qexp u = -1) ∧
  ∃ D : ℝ, (∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → arcDist q k ≤ D) ∧
    (∃ q k : ℍ[ℝ], IsUnitQ q ∧ IsUnitQ k ∧ arcDist q k = D) ∧ Real.pi = D

theorem qdot_qOne_neg : qdot qOne (-qOne) = -1 := by
  rw [qdot_neg_right, show qdot qOne qOne = 1 from qOne_unit]

/-- The diameter of the unit `S³` is `π`: any `D` that bounds all arc lengths and is attained
equals `π`. -/
theorem diam_eq_pi {D : ℝ} (hle : ∀ q k : ℍ[ℝ], IsUnitQ q → IsUnitQ k → arcDist q k ≤ D)
    (hatt : ∃ q k : ℍ[ℝ], IsUnitQ q ∧ IsUnitQ k ∧ arcDist q k = D) : D = Real.pi := by
  have h1 := hle qOne (-qOne) qOne_unit (by
    show qdot (-qOne) (-qOne) = 1
    rw [qdot_neg_left, qdot_neg_right, neg_neg]
    exact qOne_unit)
  unfold arcDist at h1
  rw [qdot_qOne_neg, Real.arccos_neg_one] at h1
  obtain ⟨q, k, _, _, hqk⟩ := hatt
  have h2 : arcDist q k ≤ Real.pi := Real.arccos_le_pi _
  linarith

/-- **RGAT.Def-injrad** is false: the diameter of the unit `S³` is `π`, not `2π`. -/
theorem not_inj_rad : ¬ InjRadStatement := by
  rintro ⟨_, _, D, hle, hatt, hD⟩
  have h := diam_eq_pi hle hatt
  have hpi := Real.pi_pos
  rw [h] at hD
  linarith

/-- A quaternion with `⟨v, v⟩ = 0` is zero. -/
theorem eq_zero_of_qdot_self {v : ℍ[ℝ]} (h : qdot v v = 0) : v = 0 := by
  unfold qdot at h
  have a := mul_self_nonneg v.re
  have b := mul_self_nonneg v.imI
  have c := mul_self_nonneg v.imJ
  have d := mul_self_nonneg v.imK
  -- four nonnegative squares summing to zero: each is zero (linear in the squares)
  have h0 : v.re = 0 := mul_self_eq_zero.mp (by linarith)
  have h1 : v.imI = 0 := mul_self_eq_zero.mp (by linarith)
  have h2 : v.imJ = 0 := mul_self_eq_zero.mp (by linarith)
  have h3 : v.imK = 0 := mul_self_eq_zero.mp (by linarith)
  ext
  · exact h0
  · exact h1
  · exact h2
  · exact h3

/-- A generator of norm `0` is zero. -/
theorem eq_zero_of_norm3_eq_zero {u : Vec3} (h : norm3 u = 0) : u = 0 := by
  unfold norm3 at h
  have hd : dot3 u u ≤ 0 := Real.sqrt_eq_zero'.mp h
  unfold dot3 at hd
  have a := mul_self_nonneg (u 0)
  have b := mul_self_nonneg (u 1)
  have c := mul_self_nonneg (u 2)
  apply vec3_ext
  · show u 0 = 0
    exact mul_self_eq_zero.mp (by linarith)
  · show u 1 = 0
    exact mul_self_eq_zero.mp (by linarith)
  · show u 2 = 0
    exact mul_self_eq_zero.mp (by linarith)

/-- `exp` is injective on the open ball `‖u‖ < π`. -/
theorem qexp_injOn {u v : Vec3} (hu : norm3 u < Real.pi) (hv : norm3 v < Real.pi)
    (h : qexp u = qexp v) : u = v := by
  have hre : Real.cos (norm3 u) = Real.cos (norm3 v) := congrArg (fun q : ℍ[ℝ] => q.re) h
  have hI : Real.sin (norm3 u) / norm3 u * u 0 = Real.sin (norm3 v) / norm3 v * v 0 :=
    congrArg (fun q : ℍ[ℝ] => q.imI) h
  have hJ : Real.sin (norm3 u) / norm3 u * u 1 = Real.sin (norm3 v) / norm3 v * v 1 :=
    congrArg (fun q : ℍ[ℝ] => q.imJ) h
  have hK : Real.sin (norm3 u) / norm3 u * u 2 = Real.sin (norm3 v) / norm3 v * v 2 :=
    congrArg (fun q : ℍ[ℝ] => q.imK) h
  have hn : norm3 u = norm3 v :=
    Real.injOn_cos ⟨norm3_nonneg u, hu.le⟩ ⟨norm3_nonneg v, hv.le⟩ hre
  rcases (norm3_nonneg u).lt_or_eq with hpos | hzero
  · have hs : 0 < Real.sin (norm3 u) := Real.sin_pos_of_pos_of_lt_pi hpos hu
    have hc : Real.sin (norm3 u) / norm3 u ≠ 0 := (div_pos hs hpos).ne'
    rw [← hn] at hI hJ hK
    apply vec3_ext
    · exact mul_left_cancel₀ hc hI
    · exact mul_left_cancel₀ hc hJ
    · exact mul_left_cancel₀ hc hK
  · have hv0 : norm3 v = 0 := by rw [← hn]; exact hzero.symm
    rw [eq_zero_of_norm3_eq_zero hzero.symm, eq_zero_of_norm3_eq_zero hv0]

/-- `exp` maps the sphere `‖u‖ = π` to `-1`. -/
theorem qexp_of_norm3_eq_pi {u : Vec3} (hu : norm3 u = Real.pi) : qexp u = -1 := by
  ext
  · show Real.cos (norm3 u) = -1
    rw [hu, Real.cos_pi]
  · show Real.sin (norm3 u) / norm3 u * u 0 = -0
    rw [hu, Real.sin_pi, zero_div, zero_mul, neg_zero]
  · show Real.sin (norm3 u) / norm3 u * u 1 = -0
    rw [hu, Real.sin_pi, zero_div, zero_mul, neg_zero]
  · show Real.sin (norm3 u) / norm3 u * u 2 = -0
    rw [hu, Real.sin_pi, zero_div, zero_mul, neg_zero]

theorem inj_rad_corrected : InjRadCorrectedStatement := by
  refine ⟨fun u v hu hv h => qexp_injOn hu hv h, fun u hu => qexp_of_norm3_eq_pi hu,
    Real.pi, fun q k _ _ => Real.arccos_le_pi _, ⟨qOne, -qOne, qOne_unit, ?_, ?_⟩, rfl⟩
  · show qdot (-qOne) (-qOne) = 1
    rw [qdot_neg_left, qdot_neg_right, neg_neg]
    exact qOne_unit
  · unfold arcDist
    rw [qdot_qOne_neg, Real.arccos_neg_one]

/-! ## Metric and exponential map -/

/-- **RGAT.Def-metric** (rgat, Definitions): the round metric induced by `S³ ⊂ ℝ⁴` is
bi-invariant: left and right multiplication by a unit quaternion preserve the inner product
of `ℝ⁴`. -/
def MetricStatement : Prop :=
  ∀ g a b : ℍ[ℝ], IsUnitQ g → qdot (g * a) (g * b) = qdot a b ∧ qdot (a * g) (b * g) = qdot a b

theorem metric_bi_invariant : MetricStatement := by
  intro g a b hg
  refine ⟨?_, ?_⟩
  · rw [qdot_mul_left, show qdot g g = 1 from hg, one_mul]
  · rw [qdot_mul_right, show qdot g g = 1 from hg, one_mul]

/-- **RGAT.Def-exp** (rgat, Definitions): `exp(u) = cos‖u‖ + (sin‖u‖/‖u‖) u` for `u ∈ ℝ³`
(identified with a pure quaternion) and `exp(0) = 1`. -/
def ExpStatement : Prop :=
  qexp 0 = 1 ∧
  ∀ u : Vec3, qexp u = (Real.cos (norm3 u) : ℍ[ℝ]) + (Real.sin (norm3 u) / norm3 u) • pureQ u

theorem norm3_zero : norm3 0 = 0 := by
  unfold norm3 dot3
  simp

theorem qexp_zero : qexp 0 = 1 := by
  ext
  · show Real.cos (norm3 0) = 1
    rw [norm3_zero, Real.cos_zero]
  · show Real.sin (norm3 0) / norm3 0 * (0 : Vec3) 0 = 0
    rw [norm3_zero, Real.sin_zero, zero_div, zero_mul]
  · show Real.sin (norm3 0) / norm3 0 * (0 : Vec3) 1 = 0
    rw [norm3_zero, Real.sin_zero, zero_div, zero_mul]
  · show Real.sin (norm3 0) / norm3 0 * (0 : Vec3) 2 = 0
    rw [norm3_zero, Real.sin_zero, zero_div, zero_mul]

theorem qexp_formula : ExpStatement := by
  refine ⟨qexp_zero, fun u => ?_⟩
  ext
  · show Real.cos (norm3 u) = Real.cos (norm3 u) + Real.sin (norm3 u) / norm3 u * 0
    ring
  · show Real.sin (norm3 u) / norm3 u * u 0 = 0 + Real.sin (norm3 u) / norm3 u * u 0
    ring
  · show Real.sin (norm3 u) / norm3 u * u 1 = 0 + Real.sin (norm3 u) / norm3 u * u 1
    ring
  · show Real.sin (norm3 u) / norm3 u * u 2 = 0 + Real.sin (norm3 u) / norm3 u * u 2
    ring

/-- **RGAT.Def-exp-halfangle** (rgat, Definitions): `‖u‖` is the half-angle of the rotation
corresponding to `exp(u)`: its rotation angle (in `[0, π]`, `rotAngle`) is `2‖u‖`, for
`‖u‖ ≤ π/2` (the range where `2‖u‖ ≤ π`). -/
def ExpHalfAngleStatement : Prop :=
  ∀ u : Vec3, norm3 u ≤ Real.pi / 2 → rotAngle (qexp u) = 2 * norm3 u

theorem qexp_half_angle : ExpHalfAngleStatement := by
  intro u hu
  have h0 := norm3_nonneg u
  have hpi := Real.pi_pos
  unfold rotAngle
  rw [show (qexp u).re = Real.cos (norm3 u) from rfl,
    abs_of_nonneg (Real.cos_nonneg_of_mem_Icc ⟨by linarith, hu⟩),
    Real.arccos_cos h0 (by linarith)]

/-! ## Lie algebra and bracket -/

/-- **RGAT.Def-liealg** (rgat, Definitions): `𝔰𝔭𝔦𝔫(3) ≅ ℝ³` under the commutator bracket: the
commutator `uv - vu` of pure quaternions is pure (scalar part `0`) and, as a vector of `ℝ³`
(`qcomm`), is antisymmetric and satisfies the Jacobi identity. -/
def LieAlgStatement : Prop :=
  ∀ u v w : Vec3,
    (pureQ u * pureQ v - pureQ v * pureQ u).re = 0 ∧
    pureQ (qcomm u v) = pureQ u * pureQ v - pureQ v * pureQ u ∧
    qcomm v u = -qcomm u v ∧
    qcomm u (qcomm v w) + qcomm v (qcomm w u) + qcomm w (qcomm u v) = 0

theorem qcomm_apply_zero (u v : Vec3) : qcomm u v 0 = 2 * (u 1 * v 2 - u 2 * v 1) := rfl
theorem qcomm_apply_one (u v : Vec3) : qcomm u v 1 = 2 * (u 2 * v 0 - u 0 * v 2) := rfl
theorem qcomm_apply_two (u v : Vec3) : qcomm u v 2 = 2 * (u 0 * v 1 - u 1 * v 0) := rfl

theorem lie_algebra_commutator : LieAlgStatement := by
  intro u v w
  refine ⟨?_, ?_, ?_, ?_⟩
  · simp only [qre_sub, qre_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK]
    ring
  · ext
    · simp only [qre_sub, qre_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        qcomm_apply_zero, qcomm_apply_one, qcomm_apply_two]
      ring
    · simp only [qimI_sub, qimI_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        qcomm_apply_zero, qcomm_apply_one, qcomm_apply_two]
      ring
    · simp only [qimJ_sub, qimJ_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        qcomm_apply_zero, qcomm_apply_one, qcomm_apply_two]
      ring
    · simp only [qimK_sub, qimK_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        qcomm_apply_zero, qcomm_apply_one, qcomm_apply_two]
      ring
  · apply vec3_ext
    · simp only [Pi.neg_apply, qcomm_apply_zero]; ring
    · simp only [Pi.neg_apply, qcomm_apply_one]; ring
    · simp only [Pi.neg_apply, qcomm_apply_two]; ring
  · apply vec3_ext
    · simp only [Pi.add_apply, Pi.zero_apply, qcomm_apply_zero, qcomm_apply_one,
        qcomm_apply_two]
      ring
    · simp only [Pi.add_apply, Pi.zero_apply, qcomm_apply_zero, qcomm_apply_one,
        qcomm_apply_two]
      ring
    · simp only [Pi.add_apply, Pi.zero_apply, qcomm_apply_zero, qcomm_apply_one,
        qcomm_apply_two]
      ring

/-- **RGAT.Def-bracket** (rgat, Definitions): `[u, v] = u × v`; it equals half the quaternion
commutator of the pure quaternions `(0, u)`, `(0, v)`, is antisymmetric and satisfies the
Jacobi identity. -/
def BracketStatement : Prop :=
  ∀ u v w : Vec3,
    pureQ (bracket u v) = (1 / 2 : ℝ) • (pureQ u * pureQ v - pureQ v * pureQ u) ∧
    bracket v u = -bracket u v ∧
    bracket u (bracket v w) + bracket v (bracket w u) + bracket w (bracket u v) = 0

theorem bracket_cross_product : BracketStatement := by
  intro u v w
  refine ⟨?_, ?_, ?_⟩
  · ext
    · simp only [qre_smul, qre_sub, qre_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        bracket_apply_zero, bracket_apply_one, bracket_apply_two]
      ring
    · simp only [qimI_smul, qimI_sub, qimI_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        bracket_apply_zero, bracket_apply_one, bracket_apply_two]
      ring
    · simp only [qimJ_smul, qimJ_sub, qimJ_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        bracket_apply_zero, bracket_apply_one, bracket_apply_two]
      ring
    · simp only [qimK_smul, qimK_sub, qimK_mul, pureQ_re, pureQ_imI, pureQ_imJ, pureQ_imK,
        bracket_apply_zero, bracket_apply_one, bracket_apply_two]
      ring
  · apply vec3_ext
    · simp only [Pi.neg_apply, bracket_apply_zero]; ring
    · simp only [Pi.neg_apply, bracket_apply_one]; ring
    · simp only [Pi.neg_apply, bracket_apply_two]; ring
  · apply vec3_ext
    · simp only [Pi.add_apply, Pi.zero_apply, bracket_apply_zero, bracket_apply_one,
        bracket_apply_two]
      ring
    · simp only [Pi.add_apply, Pi.zero_apply, bracket_apply_zero, bracket_apply_one,
        bracket_apply_two]
      ring
    · simp only [Pi.add_apply, Pi.zero_apply, bracket_apply_zero, bracket_apply_one,
        bracket_apply_two]
      ring

/-- **RGAT.Def-bracket-bound** (rgat, Definitions): `‖[u, v]‖ ≤ ‖u‖ ‖v‖`. -/
def BracketBoundStatement : Prop :=
  ∀ u v : Vec3, norm3 (bracket u v) ≤ norm3 u * norm3 v

theorem bracket_bound : BracketBoundStatement := by
  intro u v
  unfold norm3
  rw [← Real.sqrt_mul (dot3_self_nonneg u)]
  apply Real.sqrt_le_sqrt
  unfold dot3
  simp only [bracket_apply_zero, bracket_apply_one, bracket_apply_two]
  nlinarith [sq_nonneg (u 0 * v 0 + u 1 * v 1 + u 2 * v 2)]

/-- **RGAT.Def-ad-skew** (rgat, Definitions): `ad_u` is skew-adjoint for the bi-invariant
metric, so `⟨u, [u, w]⟩ = 0`. -/
def AdSkewStatement : Prop :=
  ∀ u w : Vec3, dot3 u (bracket u w) = 0

theorem ad_skew : AdSkewStatement := by
  intro u w
  unfold dot3
  simp only [bracket_apply_zero, bracket_apply_one, bracket_apply_two]
  ring

/-- **RGAT.Def-BCH** (rgat, Definitions), as printed:
`exp(u) exp(v) = exp(u + v + ½[u, v] + …)` with higher-order (third-order) terms: there are
`C, r > 0` such that for `‖u‖, ‖v‖ ≤ r` some `w` with `exp(u) exp(v) = exp(w)` satisfies
`‖w - (u + v + ½ [u, v])‖ ≤ C (‖u‖³ + ‖v‖³)`. -/
def BCHStatement : Prop :=
  ∃ C r : ℝ, 0 < r ∧ ∀ u v : Vec3, norm3 u ≤ r → norm3 v ≤ r →
    ∃ w : Vec3, qexp u * qexp v = qexp w ∧
      norm3 (w - (u + v + (1 / 2 : ℝ) • bracket u v)) ≤ C * (norm3 u ^ 3 + norm3 v ^ 3)

/-- **RGAT.Def-BCH.corrected** (rgat, Definitions, corrected): with the document's `exp` and
`[u, v] = u × v`, `exp(u) exp(v) = exp(u + v + [u, v] + O(‖u‖³ + ‖v‖³))`. -/
def BCHCorrectedStatement : Prop :=
  ∃ C r : ℝ, 0 < r ∧ ∀ u v : Vec3, norm3 u ≤ r → norm3 v ≤ r →
    ∃ w : Vec3, qexp u * qexp v = qexp w ∧
      norm3 (w - (u + v + bracket u v)) ≤ C * (norm3 u ^ 3 + norm3 v ^ 3)

theorem bch_corrected : BCHCorrectedStatement := by
  sorry

/-! ## Sparse attention, indices, softmax -/

/-- **RGAT.Def-truncation** (rgat, Definitions): for a stochastic row and `p_i > 0`, the
dropped mass `δ_i = 1 - p_i` is the mass outside `S_i` and the renormalised weights
`P̃_ij = P_ij / p_i` (`j ∈ S_i`) sum to one. -/
def TruncationStatement : Prop :=
  ∀ (n : ℕ) (p : Fin n → ℝ) (S : Finset (Fin n)),
    ∑ j, p j = 1 → 0 < keptMass p S →
    droppedMass p S = ∑ j ∈ Sᶜ, p j ∧ ∑ j ∈ S, truncWeight p S j = 1

theorem truncation_weights : TruncationStatement := by
  intro n p S hsum hk
  refine ⟨?_, ?_⟩
  · unfold droppedMass keptMass
    have h := Finset.sum_add_sum_compl S p
    rw [hsum] at h
    linarith
  · unfold truncWeight
    rw [← Finset.sum_div]
    exact div_self hk.ne'

/-- **RGAT.Def-softmax** (rgat, Definitions): `σ(ℓ)_i = exp(ℓ_i) / ∑_k exp(ℓ_k)` is a probability
vector (positive entries summing to one), for `T ≥ 1`. -/
def SoftmaxStatement : Prop :=
  ∀ (T : ℕ) (l : Fin T → ℝ), 0 < T → (∀ i, 0 < softmax l i) ∧ ∑ i, softmax l i = 1

theorem softmax_prob : SoftmaxStatement := by
  intro T l hT
  haveI : Nonempty (Fin T) := ⟨⟨0, hT⟩⟩
  have hpos : 0 < ∑ k, Real.exp (l k) :=
    Finset.sum_pos (fun k _ => Real.exp_pos _) Finset.univ_nonempty
  refine ⟨fun i => div_pos (Real.exp_pos _) hpos, ?_⟩
  simp only [softmax]
  rw [← Finset.sum_div]
  exact div_self hpos.ne'

/-! ## Temperature -/

/-- The Shannon entropy `-∑ p log p` of a weight vector. -/
noncomputable def entropy {n : ℕ} (p : Fin n → ℝ) : ℝ := -∑ j, p j * Real.log (p j)

/-- **RGAT.Def-tau-sharpness** (rgat, Definitions), in the registry's checkable reading: for
the heat-kernel weights of one query row, `P_j ∝ exp(-d_j² / (2τ))` (`d_j ≥ 0` the geodesic
distances to the keys), a smaller `τ` gives sharper attention: for `0 < τ₁ ≤ τ₂` the row entropy
and the expected squared distance do not decrease from `τ₁` to `τ₂`, and the largest weight
(that of the nearest keys) does not increase. -/
def TauSharpnessStatement : Prop :=
  ∀ (n : ℕ) (d : Fin n → ℝ) (τ1 τ2 : ℝ), 0 < n → (∀ j, 0 ≤ d j) → 0 < τ1 → τ1 ≤ τ2 →
    entropy (softmax fun j => -(d j ^ 2) / (2 * τ1))
        ≤ entropy (softmax fun j => -(d j ^ 2) / (2 * τ2)) ∧
    ∑ j, softmax (fun j => -(d j ^ 2) / (2 * τ1)) j * d j ^ 2
        ≤ ∑ j, softmax (fun j => -(d j ^ 2) / (2 * τ2)) j * d j ^ 2 ∧
    (∀ i, (∀ j, d i ≤ d j) →
      softmax (fun j => -(d j ^ 2) / (2 * τ2)) i
        ≤ softmax (fun j => -(d j ^ 2) / (2 * τ1)) i)

/-- **RGAT.Def-tau-sharpness**. Not proved here (Gibbs-family monotonicity:
`d entropy / dτ = Var(E)/τ³ ≥ 0`). -/
theorem tau_sharpness : TauSharpnessStatement := by
  sorry

/-! ## Rotor projection -/

/-- **RGAT.Def-Prot**: the scalar + bivector (even) part of a multivector of `Cl(3,0)` in the
layout `(1, e₁, e₂, e₃, e₁₂, e₁₃, e₂₃, e₁₂₃)` (the mechanism's layout; the document fixes none),
as a quaternion. -/
def evenPart (m : Fin 8 → ℝ) : ℍ[ℝ] := ⟨m 0, m 4, m 5, m 6⟩

/-- **RGAT.Def-Prot**: the rotor projection `P_rot(m) = even(m) / ‖even(m)‖` (undefined, here
`0`, when the even part vanishes). -/
noncomputable def rotorProj (m : Fin 8 → ℝ) : ℍ[ℝ] := (qnorm (evenPart m))⁻¹ • evenPart m

/-- **RGAT.Def-Prot** (rgat, Definitions): `P_rot` extracts the scalar + bivector components
and normalises to unit norm: for a multivector with nonzero even part, `P_rot(m)` is a unit
quaternion (a rotor), and it is unchanged by positive scaling of `m`. -/
def RotorProjStatement : Prop :=
  ∀ (m : Fin 8 → ℝ) (c : ℝ), 0 < qdot (evenPart m) (evenPart m) → 0 < c →
    IsUnitQ (rotorProj m) ∧ rotorProj (c • m) = rotorProj m

theorem rotorProj_unit (m : Fin 8 → ℝ) (hm : 0 < qdot (evenPart m) (evenPart m)) :
    IsUnitQ (rotorProj m) := by
  show qdot ((qnorm (evenPart m))⁻¹ • evenPart m) ((qnorm (evenPart m))⁻¹ • evenPart m) = 1
  rw [qdot_smul_left, qdot_smul_right, ← mul_assoc, ← mul_inv, ← pow_two]
  unfold qnorm
  rw [Real.sq_sqrt hm.le, inv_mul_cancel₀ hm.ne']

theorem evenPart_smul (c : ℝ) (m : Fin 8 → ℝ) : evenPart (c • m) = c • evenPart m := by
  ext <;> simp [evenPart]

theorem qnorm_smul {c : ℝ} (hc : 0 ≤ c) (x : ℍ[ℝ]) : qnorm (c • x) = c * qnorm x := by
  unfold qnorm
  rw [qdot_smul_left, qdot_smul_right, ← mul_assoc, Real.sqrt_mul (mul_self_nonneg c),
    Real.sqrt_mul_self hc]

theorem rotor_projection : RotorProjStatement := by
  intro m c hm hc
  refine ⟨rotorProj_unit m hm, ?_⟩
  unfold rotorProj
  rw [evenPart_smul, qnorm_smul hc.le, smul_smul, mul_inv, mul_comm c⁻¹, mul_assoc,
    inv_mul_cancel₀ hc.ne', mul_one]

/-! ## Group actions -/

/-- **RGAT.Def-action** (rgat, Definitions): `g ∈ Spin(3)` acts on rotors by left
multiplication `q ↦ g q`: it maps rotors to rotors and is an action. -/
def ActionStatement : Prop :=
  ∀ g h q : ℍ[ℝ], IsUnitQ g → IsUnitQ q →
    IsUnitQ (g * q) ∧ (g * h) * q = g * (h * q) ∧ (1 : ℍ[ℝ]) * q = q

theorem left_action : ActionStatement := by
  intro g h q hg hq
  refine ⟨?_, mul_assoc g h q, one_mul q⟩
  show qdot (g * q) (g * q) = 1
  rw [qdot_mul_left, show qdot g g = 1 from hg, show qdot q q = 1 from hq, one_mul]

/-- **RGAT.Def-orthrep** (rgat, Definitions): orthogonal representations
`L(g)ᵀ L(g) = I`, `L(g₁ g₂) = L(g₁) L(g₂)` exist; the one S9 relies on is the rotor action
`x ↦ g x g*` on pure quaternions (`ℝ³`): it preserves the inner product (orthogonality) and is
multiplicative, for unit `g, h`. -/
def OrthRepStatement : Prop :=
  ∀ g h x y : ℍ[ℝ], IsUnitQ g → IsUnitQ h →
    qdot (g * x * star g) (g * y * star g) = qdot x y ∧
    (g * h) * x * star (g * h) = g * (h * x * star h) * star g

theorem qdot_star_self (g : ℍ[ℝ]) : qdot (star g) (star g) = qdot g g := by
  unfold qdot
  rw [qre_star, qimI_star, qimJ_star, qimK_star]
  ring

theorem rotor_action_orthogonal : OrthRepStatement := by
  intro g h x y hg _
  refine ⟨?_, ?_⟩
  · rw [qdot_mul_right, qdot_star_self, qdot_mul_left, show qdot g g = 1 from hg, one_mul,
      one_mul]
  · rw [star_mul]
    simp only [mul_assoc]

/-- **RGAT.Def-tangent-proj** (rgat, Definitions): for unit `q`, `P_q = I - q qᵀ` is the
orthogonal projector onto `T_q S³ = q^⊥`: `P_q q = 0`, `⟨q, P_q w⟩ = 0`, `P_q` is idempotent,
fixes tangent vectors and is symmetric. -/
def TangentProjStatement : Prop :=
  ∀ q v w : ℍ[ℝ], IsUnitQ q →
    tangentProj q q = 0 ∧ qdot q (tangentProj q w) = 0 ∧
    tangentProj q (tangentProj q w) = tangentProj q w ∧
    (qdot q w = 0 → tangentProj q w = w) ∧
    qdot v (tangentProj q w) = qdot (tangentProj q v) w

theorem tangent_projector : TangentProjStatement := by
  intro q v w hq
  have hq' : qdot q q = 1 := hq
  have horth : qdot q (tangentProj q w) = 0 := by
    unfold tangentProj
    rw [qdot_sub_right, qdot_smul_right, hq', mul_one, sub_self]
  refine ⟨?_, horth, ?_, fun h => ?_, ?_⟩
  · unfold tangentProj
    rw [hq', one_smul, sub_self]
  · show tangentProj q w - qdot q (tangentProj q w) • q = tangentProj q w
    rw [horth, zero_smul, sub_zero]
  · unfold tangentProj
    rw [h, zero_smul, sub_zero]
  · unfold tangentProj
    rw [qdot_sub_right, qdot_smul_right, qdot_sub_left, qdot_smul_left, qdot_comm v q]
    ring

end

end Pyverify.Rgat
