import Pyverify.Rgat.S04
import Pyverify.Rgat.DefClaims

/-!
# RGAT supplement, Theorem S4 stack-level clause: the printed clause is false

Witness (exact, in the spirit of the registry's check): `T = 2`, depth `L = 1`, `ε = ε₀ = τ =
τ_min = 1`, queries `Q = (0, 0)`, keys `K = (0, e₁)`, values `V = (1, 0)` (in `E = ℝ`), and the
layer `X ↦ P V`, which does not depend on its input, so its Lipschitz constant is `L₁ = 0` and
`C_stack = C_head · 0 = 0`. The printed bound then forces `P^GSM V = P^softmax V`, but the
softmax row is uniform (`1/2`) while the GSM row is not (`d_geo(1, exp e₁) = 2 arccos |cos 1| > 0`).
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-- The generator `e₁ = (1, 0, 0)`. -/
def e1 : Vec3 := ![1, 0, 0]

theorem e1_apply_zero : e1 0 = 1 := rfl
theorem e1_apply_one : e1 1 = 0 := rfl
theorem e1_apply_two : e1 2 = 0 := rfl

theorem norm3_e1 : norm3 e1 = 1 := by
  unfold norm3 dot3
  rw [e1_apply_zero, e1_apply_one, e1_apply_two]
  norm_num

/-- Queries of the witness: all zero. -/
def negQ : ℕ → Fin 2 → Vec3 := fun _ _ => 0

/-- Keys of the witness: `(0, e₁)` in every layer. -/
def negK : ℕ → Fin 2 → Vec3 := fun _ => ![0, e1]

/-- Values of the witness. -/
def negV : Fin 2 → ℝ := ![1, 0]

/-- The input-independent layer `X ↦ P V`. -/
def negΦ : ℕ → (Fin 2 → Fin 2 → ℝ) → (Fin 2 → ℝ) → (Fin 2 → ℝ) := fun _ P _ => attnOut P negV

theorem qdot_one_one : qdot 1 1 = 1 := by
  show (1 : ℝ) * 1 + 0 * 0 + 0 * 0 + 0 * 0 = 1
  norm_num

theorem dgeo_one_one : dgeo 1 1 = 0 := by
  unfold dgeo simil
  rw [qdot_one_one, abs_one, Real.arccos_one, mul_zero]

theorem qdot_one_qexp_e1 : qdot 1 (qexp e1) = Real.cos 1 := by
  show (1 : ℝ) * Real.cos (norm3 e1) + 0 * (Real.sin (norm3 e1) / norm3 e1 * e1 0)
    + 0 * (Real.sin (norm3 e1) / norm3 e1 * e1 1) + 0 * (Real.sin (norm3 e1) / norm3 e1 * e1 2)
    = Real.cos 1
  rw [norm3_e1]
  ring

theorem abs_cos_one_lt_one : |Real.cos 1| < 1 := by
  have hs : 0 < Real.sin 1 :=
    Real.sin_pos_of_pos_of_lt_pi one_pos (by linarith [Real.pi_gt_three])
  have hsc := Real.sin_sq_add_cos_sq 1
  have hss := mul_pos hs hs
  -- `cos² 1 = 1 - sin² 1 < 1`; each side from a square: `(cos 1 ± 1)² ≥ 0`
  rw [abs_lt]
  constructor
  · nlinarith [sq_nonneg (Real.cos 1 + 1)]
  · nlinarith [sq_nonneg (Real.cos 1 - 1)]

theorem dgeo_one_qexp_e1_pos : 0 < dgeo 1 (qexp e1) := by
  unfold dgeo simil
  rw [qdot_one_qexp_e1]
  exact mul_pos two_pos (Real.arccos_pos.mpr abs_cos_one_lt_one)

/-- **S4.stack** is false as printed: a layer that ignores its input has Lipschitz constant `0`,
so `C_stack = 0`, yet the RGAT and Transformer outputs differ. -/
theorem not_bridge_stack : ¬ BridgeStackStatement := by
  intro h
  obtain ⟨C, _, hC⟩ := h 1 one_pos
  have hqexp0 : qexp 0 = 1 := qexp_formula.1
  have hπ : (1 : ℝ) < Real.pi := by linarith [Real.pi_gt_three]
  have hQ : ∀ (l : ℕ) (i : Fin 2), norm3 (negQ l i) ≤ 1 := by
    intro l i
    show norm3 0 ≤ 1
    exact (le_of_eq norm3_zero).trans zero_le_one
  have hK : ∀ (l : ℕ) (j : Fin 2), norm3 (negK l j) ≤ 1 := by
    intro l j
    fin_cases j
    · show norm3 0 ≤ 1
      exact (le_of_eq norm3_zero).trans zero_le_one
    · show norm3 e1 ≤ 1
      exact le_of_eq norm3_e1
  have hLipG : ∀ (l : ℕ) (x y : Fin 2 → ℝ),
      ‖negΦ l (gsmWeightsGen (negQ l) (negK l) 1) x
        - negΦ l (gsmWeightsGen (negQ l) (negK l) 1) y‖
        ≤ (fun _ : ℕ => (0 : ℝ)) l * ‖x - y‖ := by
    intro l x y
    simp only [negΦ, sub_self, norm_zero, zero_mul, le_refl]
  have hLipS : ∀ (l : ℕ) (x y : Fin 2 → ℝ),
      ‖negΦ l (stdWeights (negQ l) (negK l) 1) x - negΦ l (stdWeights (negQ l) (negK l) 1) y‖
        ≤ (fun _ : ℕ => (0 : ℝ)) l * ‖x - y‖ := by
    intro l x y
    simp only [negΦ, sub_self, norm_zero, zero_mul, le_refl]
  have key := hC ℝ 2 1 1 1 1 negQ negK negΦ (fun _ => 0) 0 one_pos le_rfl hπ le_rfl hQ hK
    (fun _ => le_rfl) hLipG hLipS
  simp only [Finset.prod_range_one, mul_zero, zero_mul] at key
  have hD := norm_le_zero_iff.mp key
  have h0 := congrFun hD 0
  have h1 : (∑ j : Fin 2, gsmWeightsGen (negQ 0) (negK 0) 1 0 j • negV j)
      - ∑ j : Fin 2, stdWeights (negQ 0) (negK 0) 1 0 j • negV j = 0 := h0
  have hv0 : negV 0 = 1 := rfl
  have hv1 : negV 1 = 0 := rfl
  simp only [Fin.sum_univ_two, hv0, hv1, smul_eq_mul, mul_one, mul_zero, add_zero] at h1
  -- the softmax row is uniform
  have hS : stdWeights (negQ 0) (negK 0) 1 0 0 = 1 / 2 := by
    have hl : ∀ j, stdLogits (negQ 0) (negK 0) 1 0 j = 0 := by
      intro j
      show dot3 0 (negK 0 j) / 1 = 0
      simp [dot3]
    show Real.exp (stdLogits (negQ 0) (negK 0) 1 0 0)
        / ∑ k, Real.exp (stdLogits (negQ 0) (negK 0) 1 0 k) = 1 / 2
    simp only [Fin.sum_univ_two, hl, Real.exp_zero]
    norm_num
  -- the GSM row is not
  have hl0 : gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 0 = 0 := by
    show -(dgeo (qexp 0) (qexp 0) ^ 2) / (2 * 1) = 0
    rw [hqexp0, dgeo_one_one]
    norm_num
  have hl1 : gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 1 ≠ 0 := by
    show -(dgeo (qexp 0) (qexp e1) ^ 2) / (2 * 1) ≠ 0
    rw [hqexp0]
    have hneg : -(dgeo 1 (qexp e1) ^ 2) / (2 * 1) < 0 :=
      div_neg_of_neg_of_pos (neg_lt_zero.mpr (pow_pos dgeo_one_qexp_e1_pos 2)) (by norm_num)
    exact hneg.ne
  have hG : gsmWeightsGen (negQ 0) (negK 0) 1 0 0
      = Real.exp 0 / (Real.exp 0 + Real.exp
          (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 1)) := by
    show Real.exp (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 0)
        / ∑ k, Real.exp (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 k)
      = Real.exp 0 / (Real.exp 0 + Real.exp
          (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 1))
    simp only [Fin.sum_univ_two, hl0]
  rw [hG, hS, Real.exp_zero] at h1
  have hpos : 0 < 1 + Real.exp
      (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 1) := by
    positivity
  have h3 := mul_one_div_cancel hpos.ne'
  have h4 : 1 / (1 + Real.exp
      (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 1)) = 1 / 2 := by
    linarith
  rw [h4] at h3
  have h5 : Real.exp
      (gsmLogits (fun i => rotor (negQ 0 i)) (fun j => rotor (negK 0 j)) 1 0 1) = 1 := by
    linarith
  exact hl1 ((Real.exp_eq_one_iff (x := _)).mp h5)

/-- **RGAT.Def-constants** is false: its `C_stack` clause is the printed S4.stack. -/
theorem not_absorbed_constants : ¬ AbsorbedConstantsStatement :=
  fun h => not_bridge_stack h.2

end

end Pyverify.Rgat
