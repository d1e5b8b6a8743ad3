import Lake
open Lake DSL

/-! The Lake configuration of pyverify's Lean 4 formalization (`lean/`), pinned to Mathlib v4.24.0
(`lean-toolchain`: leanprover/lean4:v4.24.0; exact revisions in `lake-manifest.json`). -/

package pyverify where
  leanOptions := #[⟨`autoImplicit, false⟩]

require mathlib from git
  "https://github.com/leanprover-community/mathlib4" @ "v4.24.0"

@[default_target]
lean_lib Pyverify where
  srcDir := "lean"
