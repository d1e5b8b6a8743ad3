import Mathlib

namespace Decls

/-- `where` clauses. -/
def withWhere (n : ℕ) : ℕ := helper n + 1
where
  helper (k : ℕ) : ℕ := 2 * k

/-- Structural recursion with equations. -/
def fact : ℕ → ℕ
  | 0 => 1
  | n + 1 => (n + 1) * fact n

/-- Well-founded recursion with `termination_by` and `decreasing_by`. -/
def halve (n : ℕ) : ℕ :=
  if h : n < 2 then 0 else 1 + halve (n - 2)
termination_by n
decreasing_by omega

mutual
  def isEven : ℕ → Bool
    | 0 => true
    | n + 1 => isOdd n
  def isOdd : ℕ → Bool
    | 0 => false
    | n + 1 => isEven n
end

structure Point where
  x : ℝ
  y : ℝ
  deriving Inhabited

class HasSize (α : Type*) where
  size : α → ℕ

class inductive Good : ℕ → Prop
  | zero : Good 0

inductive Color
  | red
  | green

abbrev Pair := ℕ × ℕ

instance : HasSize Point := ⟨fun _ => 2⟩

instance instHasSizeColor : HasSize Color where
  size _ := 1

instance (priority := low) instHasSizePair : HasSize Pair := ⟨fun _ => 2⟩

@[simp]
theorem attr_on_its_own_line : True := trivial

@[simp, nolint unusedArguments]
lemma two_attrs (x : ℝ) : x + 0 = x := add_zero x

@[simp] private theorem private_two : (2 : ℕ) = 1 + 1 := rfl

protected theorem Point.protected_one : (1 : ℕ) = 1 := rfl

noncomputable def ncDef : ℝ := Real.pi / 2

private noncomputable def ncPrivate : ℝ := 1 / 3

theorem abs_statement (x : ℝ) (hx : |x| ≤ 1) : |x| ≤ 2 := by
  linarith

example : 1 + 1 = 2 := rfl

opaque hidden : ℕ

axiom assumed : (0 : ℕ) = 0

end Decls
