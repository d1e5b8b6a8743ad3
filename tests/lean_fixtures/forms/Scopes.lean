import Mathlib

/-!
# Scopes a reader must follow

A module doc: `theorem not_here : True` and `end` in a module doc are prose.
-/

namespace Alpha.Beta

theorem in_both : True := trivial

end Beta

theorem in_alpha : True := trivial

namespace Gamma

def in_gamma : ℕ := 1

end Alpha.Gamma

section Named.Sub

lemma in_named_section : True := trivial

end Named.Sub

theorem _root_.at_root : True := trivial

noncomputable section

/-- A docstring with a /- nested -/ comment and the word sorry. -/
def half (x : ℝ) : ℝ := x / 2

namespace Open

theorem left_open_at_the_end : True := trivial
