import Mathlib

/-! Hypotheses planted to force the data to zero, to a single point, or to be unsatisfiable, next to
faithful ones that leave a non-trivial model, and ones outside the translatable fragment. -/

namespace Vac

/-- Planted: `x i = -x i` over ℝ forces every coordinate to zero. -/
theorem antisymmetric_coordinates {n : ℕ} (x : Fin n → ℝ) (hx : ∀ i, x i = - x i) :
    ∑ i, x i ^ 2 ≤ 1 := by
  sorry

/-- Planted: a norm bounded by zero. -/
theorem norm_le_zero (x : EuclideanSpace ℝ (Fin 3)) (hx : ‖x‖ ≤ 0) : ‖x‖ ≤ 1 := by
  sorry

/-- Planted: contradictory bounds. -/
theorem contradictory (a b : ℝ) (h1 : a ≤ b) (h2 : b + 1 ≤ a) : a * b = 7 := by
  sorry

/-- Planted: two equations pin the data to one point. -/
theorem pinned (a b : ℝ) (h1 : a + b = 2) (h2 : a - b = 0) : a * b ≤ 1 := by
  sorry

/-- Planted: a sum of squares that vanishes forces `x` to zero while `y` stays free. -/
theorem squares_vanish {n : ℕ} (x : Fin n → ℝ) (y : ℝ) (hx : ∑ i, x i ^ 2 = 0) (hy : 0 ≤ y) :
    ∑ i, x i * y = 0 := by
  sorry

/-- Faithful: weights on a simplex. -/
theorem simplex_weights {ι : Type*} [Fintype ι] (w : ι → ℝ) (hw : ∀ i, 0 ≤ w i) (hs : ∑ i, w i = 1) :
    ∀ i, w i ≤ 1 := by
  sorry

/-- Faithful: a unit circle (a nonlinear equation). -/
theorem on_the_circle (x y : ℝ) (h : x ^ 2 + y ^ 2 = 1) : x ≤ 1 := by
  sorry

/-- Faithful: a box in every dimension. -/
theorem in_a_box {n : ℕ} (x : Fin n → ℝ) (hx : ∀ i, |x i| ≤ 1) : ∑ i, x i ≤ n := by
  sorry

/-- Outside the fragment: a hypothesis about a function. -/
theorem about_a_function (f : ℝ → ℝ) (x : ℝ) (hf : Continuous f) (hx : 0 ≤ x) : f x ≤ f x + 1 := by
  sorry

end Vac
