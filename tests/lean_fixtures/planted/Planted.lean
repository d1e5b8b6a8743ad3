import Mathlib

/-! Statements with planted unfaithfulness: hypotheses forcing every input to zero, and a constant
chosen after the data it bounds. The audit must flag both. -/

namespace Fixture

/-- **S12** (fixture): a bound whose hypothesis forces the input to be zero. -/
def ZeroBoundStatement : Prop :=
  ∀ (x : EuclideanSpace ℝ (Fin 3)) (hx : ‖x‖ ≤ 0), ‖x‖ ≤ 1

/-- **S12** (fixture). -/
theorem zero_bound : ZeroBoundStatement := by
  intro x hx
  linarith [norm_nonneg x]

/-- **S13** (fixture): the constant is chosen after the data, so the bound is trivially true. -/
def LateConstantStatement : Prop :=
  ∀ x : ℝ, ∃ C : ℝ, |Real.sin x| ≤ C

/-- **S13** (fixture). -/
theorem late_constant : LateConstantStatement := by
  intro x
  exact ⟨|Real.sin x|, le_refl _⟩

end Fixture
