import Pyverify.Rgat.DefClaims

/-!
# RGAT supplement: the log map of the round `S³` (RGAT.Def-Log, RGAT.Def-Log-norm and its
correction)

Proofs of the statements `LogStatement`, `LogNormCorrectedStatement` (stated in `DefClaims`) and
the negation of `LogNormStatement` with a rational witness.
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-- `⟨a - b, a - b⟩ = ⟨a, a⟩ - 2⟨a, b⟩ + ⟨b, b⟩`. -/
theorem qdot_sub_self (a b : ℍ[ℝ]) :
    qdot (a - b) (a - b) = qdot a a - 2 * qdot a b + qdot b b := by
  simp only [qdot_sub_left, qdot_sub_right]
  rw [qdot_comm b a]
  ring

/-- For unit `q, k`, the component of `k` orthogonal to `q` has squared norm `1 - ⟨q, k⟩²`. -/
theorem qdot_perp_self {q k : ℍ[ℝ]} (hq : IsUnitQ q) (hk : IsUnitQ k) :
    qdot (k - qdot q k • q) (k - qdot q k • q) = 1 - qdot q k ^ 2 := by
  have hq' : qdot q q = 1 := hq
  have hk' : qdot k k = 1 := hk
  rw [qdot_sub_self, qdot_smul_right, qdot_smul_left, qdot_smul_right, hq', hk',
    qdot_comm k q]
  ring

/-- `⟨q, k⟩ = -1` is impossible for unit `q, k` with `k ≠ -q`. -/
theorem qdot_ne_neg_one {q k : ℍ[ℝ]} (hq : IsUnitQ q) (hk : IsUnitQ k) (hne : k ≠ -q) :
    qdot q k ≠ -1 := by
  intro hc
  have hq' : qdot q q = 1 := hq
  have hk' : qdot k k = 1 := hk
  apply hne
  have h0 : qdot (k - -q) (k - -q) = 0 := by
    rw [qdot_sub_self, qdot_neg_right, qdot_neg_left, qdot_neg_right, neg_neg, hq', hk',
      qdot_comm k q, hc]
    ring
  exact sub_eq_zero.mp (eq_zero_of_qdot_self h0)

/-- **RGAT.Def-Log-norm.corrected** (first clause): `‖Log_q(k)‖ = arccos ⟨q, k⟩` for unit
`q, k` with `k ≠ -q`. -/
theorem qnorm_logAt {q k : ℍ[ℝ]} (hq : IsUnitQ q) (hk : IsUnitQ k) (hne : k ≠ -q) :
    qnorm (logAt q k) = Real.arccos (qdot q k) := by
  have hc := abs_le.mp (abs_qdot_le_one hq hk)
  rcases hc.2.lt_or_eq with hlt | heq
  · -- `-1 < ⟨q, k⟩ < 1`
    have hgt : -1 < qdot q k := lt_of_le_of_ne hc.1 (qdot_ne_neg_one hq hk hne).symm
    have h1 : 0 < 1 - qdot q k ^ 2 := by nlinarith
    have hs : Real.sin (Real.arccos (qdot q k)) = Real.sqrt (1 - qdot q k ^ 2) :=
      Real.sin_arccos _
    have hspos : 0 < Real.sin (Real.arccos (qdot q k)) := by
      rw [hs]; exact Real.sqrt_pos.mpr h1
    have hs2 : Real.sin (Real.arccos (qdot q k)) ^ 2 = 1 - qdot q k ^ 2 := by
      rw [hs]; exact Real.sq_sqrt h1.le
    have hθ : 0 ≤ Real.arccos (qdot q k) := Real.arccos_nonneg _
    unfold qnorm logAt
    rw [qdot_smul_left, qdot_smul_right, qdot_perp_self hq hk, ← hs2]
    have key : Real.arccos (qdot q k) / Real.sin (Real.arccos (qdot q k)) *
        (Real.arccos (qdot q k) / Real.sin (Real.arccos (qdot q k)) *
          Real.sin (Real.arccos (qdot q k)) ^ 2)
        = Real.arccos (qdot q k) ^ 2 *
          (Real.sin (Real.arccos (qdot q k)) / Real.sin (Real.arccos (qdot q k))) ^ 2 := by
      ring
    rw [key, div_self hspos.ne', one_pow, mul_one]
    exact Real.sqrt_sq hθ
  · -- `⟨q, k⟩ = 1`: `Log_q(k) = 0`
    unfold qnorm logAt
    rw [heq, Real.arccos_one, zero_div, zero_smul]
    simp only [qdot, qre_zero, qimI_zero, qimJ_zero, qimK_zero]
    norm_num

theorem exp_log_at : LogStatement := by
  intro q k hq hk hne
  have hn := qnorm_logAt hq hk hne
  refine ⟨?_, by rw [hn]; exact Real.arccos_le_pi _⟩
  have hc := abs_le.mp (abs_qdot_le_one hq hk)
  rcases hc.2.lt_or_eq with hlt | heq
  · have hgt : -1 < qdot q k := lt_of_le_of_ne hc.1 (qdot_ne_neg_one hq hk hne).symm
    have h1 : 0 < 1 - qdot q k ^ 2 := by nlinarith
    have hspos : 0 < Real.sin (Real.arccos (qdot q k)) := by
      rw [Real.sin_arccos]; exact Real.sqrt_pos.mpr h1
    have hθpos : 0 < Real.arccos (qdot q k) := Real.arccos_pos.mpr hlt
    have hcoef : Real.sin (Real.arccos (qdot q k)) / Real.arccos (qdot q k) *
        (Real.arccos (qdot q k) / Real.sin (Real.arccos (qdot q k))) = 1 := by
      rw [div_mul_div_comm, mul_comm (Real.sin (Real.arccos (qdot q k))),
        div_self (mul_ne_zero hθpos.ne' hspos.ne')]
    unfold expAt
    rw [hn, Real.cos_arccos hc.1 hc.2]
    unfold logAt
    rw [smul_smul, hcoef, one_smul]
    abel
  · -- `⟨q, k⟩ = 1` forces `k = q` and `Log_q(k) = 0`
    have hq' : qdot q q = 1 := hq
    have hk' : qdot k k = 1 := hk
    have h0 : qdot (k - q) (k - q) = 0 := by
      rw [qdot_sub_self, hq', hk', qdot_comm k q, heq]
      ring
    have hkq : k = q := sub_eq_zero.mp (eq_zero_of_qdot_self h0)
    have hL : logAt q k = 0 := by
      unfold logAt
      rw [heq, Real.arccos_one, zero_div, zero_smul]
    unfold expAt
    rw [hn, heq, Real.arccos_one, Real.cos_zero, one_smul, hL, smul_zero, add_zero, hkq]

theorem log_norm_corrected : LogNormCorrectedStatement := by
  intro q k hq hk hne
  have hn := qnorm_logAt hq hk hne
  have hc := abs_le.mp (abs_qdot_le_one hq hk)
  refine ⟨hn, ?_⟩
  have hd : dgeo q k / 2 = Real.arccos |qdot q k| := by
    unfold dgeo simil
    rw [mul_div_cancel_left₀ _ (two_ne_zero : (2 : ℝ) ≠ 0)]
  rw [hn, hd]
  constructor
  · intro h
    by_contra hneg
    have hlt : qdot q k < 0 := not_le.mp hneg
    have habs : |qdot q k| = -qdot q k := abs_of_neg hlt
    have h2 := congrArg Real.cos h
    rw [Real.cos_arccos hc.1 hc.2, habs, Real.cos_arccos (show -1 ≤ -qdot q k by linarith)
      (show -qdot q k ≤ 1 by linarith)] at h2
    linarith
  · intro h
    rw [abs_of_nonneg h]

/-- The unit quaternion `-3/5 + (4/5) i`, the (rational) witness against Def-Log-norm. -/
def kLog : ℍ[ℝ] := ⟨-3 / 5, 4 / 5, 0, 0⟩

theorem kLog_unit : IsUnitQ kLog := by
  show kLog.re * kLog.re + kLog.imI * kLog.imI + kLog.imJ * kLog.imJ + kLog.imK * kLog.imK = 1
  norm_num [kLog]

theorem qdot_qOne_kLog : qdot qOne kLog = -3 / 5 := by
  show qOne.re * kLog.re + qOne.imI * kLog.imI + qOne.imJ * kLog.imJ + qOne.imK * kLog.imK
    = -3 / 5
  norm_num [qOne, kLog]

theorem kLog_ne : kLog ≠ -qOne := by
  intro h
  have h1 : kLog.imI = (-qOne).imI := congrArg (fun x : ℍ[ℝ] => x.imI) h
  rw [qimI_neg] at h1
  norm_num [kLog, qOne] at h1

/-- **RGAT.Def-Log-norm** is false: at `q = 1`, `k = -3/5 + (4/5) i` (a rational point with
`⟨q, k⟩ < 0`), `‖Log_q(k)‖ = arccos(-3/5) ≠ arccos(3/5) = d_geo(q, k)/2`. -/
theorem not_log_norm : ¬ LogNormStatement := by
  intro h
  have h1 := h qOne kLog qOne_unit kLog_unit kLog_ne
  have h2 := (log_norm_corrected qOne kLog qOne_unit kLog_unit kLog_ne).2.mp h1
  rw [qdot_qOne_kLog] at h2
  norm_num at h2

end

end Pyverify.Rgat
