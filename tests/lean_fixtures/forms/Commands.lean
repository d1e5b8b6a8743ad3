module

public import Mathlib.Data.Real.Basic
import Mathlib.Tactic

@[expose] public section

open Real in
theorem after_open_in : True := trivial

set_option maxHeartbeats 400000 in
/-- Documented, after `set_option ... in`. -/
theorem after_set_option_in (x : ℝ) : |x| ≤ |x| + 1 := by
  have h : (0 : ℝ) ≤ 1 := zero_le_one
  linarith [abs_nonneg x]

variable {α : Type*} [Inhabited α] (n : ℕ)

variable (n) in def with_variable_in : ℕ := n + 1

local notation "absval " x => |x|

notation:50 a " ≺ " b => a < b

scoped[Scoped] notation "𝟙" => (1 : ℕ)

macro "my_trivial" : tactic => `(tactic| exact trivial)

syntax "my_syntax" : tactic

macro_rules
  | `(tactic| my_syntax) => `(tactic| exact trivial)

elab "my_elab" : tactic => pure ()

#check after_open_in
#eval 1 + 1
#print axioms after_open_in

attribute [local instance] Classical.propDecidable

attribute [simp] with_variable_in

structure Tag where
  n : ℕ

deriving instance Repr for Tag

theorem after_commands : True := by my_trivial

theorem universe_params.{u} (β : Type u) : β = β := rfl

#guard_msgs in
def after_guard_msgs : ℕ := 2

#exit

theorem after_exit_is_not_read : True := trivial
this is not Lean, and "an unterminated string
