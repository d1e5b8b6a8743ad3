import Mathlib

/-! The faithful versions of the planted statements: nothing to flag. -/

namespace Fixture

/-- **S12.corrected** (fixture): a bound under a satisfiable, non-trivial hypothesis. -/
def UnitBoundStatement : Prop :=
  ∀ (x : EuclideanSpace ℝ (Fin 3)) (hx : ‖x‖ ≤ 1), ‖x‖ ≤ 1

/-- **S12.corrected** (fixture). -/
theorem unit_bound : UnitBoundStatement := by
  intro x hx
  exact hx

/-- **S13.corrected** (fixture): one constant for every input. -/
def UniformConstantStatement : Prop :=
  ∃ C : ℝ, ∀ x : ℝ, |Real.sin x| ≤ C

/-- **S13.corrected** (fixture). -/
theorem uniform_constant : UniformConstantStatement := by
  exact ⟨1, fun x => Real.abs_sin_le_one x⟩

end Fixture
