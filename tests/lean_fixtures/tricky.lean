import Mathlib

/-! Module doc: sorry here is prose. -/

/- a block comment /- with a nested sorry -/ and still a comment: sorry -/

namespace Outer

section Inner

/-- Docstring mentioning sorry and admit. -/
theorem clean (x : ℕ) : x = x := by
  -- sorry in a line comment
  have s : String := "a sorry in a string \" with an escaped quote, still sorry"
  have c : Char := '"'
  rfl

@[simp] private lemma «odd name» : True := by sorry

end Inner

namespace Deeper

theorem x' : 1 = 1 := rfl

end Deeper

axiom choice_like : ∀ n : ℕ, n = n

theorem half_done : 2 = 2 := by
  have h : True := trivial
  admit

end Outer

instance : Inhabited ℕ := ⟨0⟩
