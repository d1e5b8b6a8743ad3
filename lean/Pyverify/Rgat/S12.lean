import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Lemma S12 (iterated BCH accumulation) and Theorem S13 (depth accumulates
curvature), with their corrections

Conventions of the claims: rotor `exp(u)` (**RGAT.Def-exp**), bracket `[u, v] = u × v`
(**RGAT.Def-bracket**); the corrections use the group commutator `uv - vu = 2 u × v`
(`qcomm`) or, equivalently, drop the `½`.
-/

namespace Pyverify.Rgat

noncomputable section

/-- **S12** (rgat, Lemma S12), as printed: for `u_1, …, u_L ∈ ℝ³` with `‖u_ℓ‖ ≤ ε`,
`0 < ε ≤ ε₀ / L` (`ε₀ < π` below the injectivity radius, so `Lε` is below it) and `Lε ≤ 1`,
there is `w_L` with `exp(u_1)⋯exp(u_L) = exp(w_L)`, and constants `C_1, C_2 > 0` (depending
only on the metric and the bracket, so chosen before the data) with
`‖w_L - ∑ u_ℓ - ½ ∑_{i<j} [u_i, u_j]‖ ≤ C_1 L³ ε³` and `‖w_L - ∑ u_ℓ‖ ≤ C_2 L² ε²`. -/
def IteratedBCHStatement : Prop :=
  ∃ C1 C2 : ℝ, 0 < C1 ∧ 0 < C2 ∧ ∀ (L : ℕ) (u : Fin L → Vec3) (ε ε0 : ℝ),
    0 < L → ε0 < Real.pi → 0 < ε → ε ≤ ε0 / L → L * ε ≤ 1 → (∀ l, norm3 (u l) ≤ ε) →
    ∃ w : Vec3, rotorProd u = qexp w ∧
      norm3 (w - ∑ l, u l - (1 / 2 : ℝ) • pairBracketSum u) ≤ C1 * L ^ 3 * ε ^ 3 ∧
      norm3 (w - ∑ l, u l) ≤ C2 * L ^ 2 * ε ^ 2

/-- **S12.corrected** (rgat, Lemma S12 corrected): the hypotheses of S12 with the bracket
`[u, v] = uv - vu = 2 u × v` (the group commutator of the pure quaternions): the same two
bounds with `½ ∑_{i<j} (u_i u_j - u_j u_i)`. -/
def IteratedBCHCorrectedStatement : Prop :=
  ∃ C1 C2 : ℝ, 0 < C1 ∧ 0 < C2 ∧ ∀ (L : ℕ) (u : Fin L → Vec3) (ε ε0 : ℝ),
    0 < L → ε0 < Real.pi → 0 < ε → ε ≤ ε0 / L → L * ε ≤ 1 → (∀ l, norm3 (u l) ≤ ε) →
    ∃ w : Vec3, rotorProd u = qexp w ∧
      norm3 (w - ∑ l, u l - (1 / 2 : ℝ) • pairCommSum u) ≤ C1 * L ^ 3 * ε ^ 3 ∧
      norm3 (w - ∑ l, u l) ≤ C2 * L ^ 2 * ε ^ 2

/-- **S12.corrected**. Not proved here (BCH expansion of the quaternion product). -/
theorem iterated_bch_corrected : IteratedBCHCorrectedStatement := by
  sorry

/-- **S13** (rgat, Theorem S13), as printed: for small-angle generators `u_1, …, u_L`
(`‖u_ℓ‖ ≤ ε`, with the hypotheses of S12 that its proof invokes) and `Q_L = ∏ exp(u_ℓ)`:
there is `w_L` with `Q_L = exp(w_L)` and
`w_L = ∑ u_ℓ + ½ ∑_{i<j} [u_i, u_j] + R_L`, `‖R_L‖ ≤ C L³ ε³`, the constant `C` (like `C_1`
of S12) chosen before the data; consequently the commutator curvature term has size
`O(L² ε²)` (second conjunct, its constant also chosen before the data). -/
def DepthCurvatureStatement : Prop :=
  (∃ C : ℝ, ∀ (L : ℕ) (u : Fin L → Vec3) (ε ε0 : ℝ),
    0 < L → ε0 < Real.pi → 0 < ε → ε ≤ ε0 / L → L * ε ≤ 1 → (∀ l, norm3 (u l) ≤ ε) →
    ∃ w : Vec3, rotorProd u = qexp w ∧
      norm3 (w - ∑ l, u l - (1 / 2 : ℝ) • pairBracketSum u) ≤ C * L ^ 3 * ε ^ 3) ∧
  (∃ C' : ℝ, ∀ (L : ℕ) (u : Fin L → Vec3) (ε : ℝ), (∀ l, norm3 (u l) ≤ ε) →
    norm3 ((1 / 2 : ℝ) • pairBracketSum u) ≤ C' * L ^ 2 * ε ^ 2)

/-- **S13.corrected** (rgat, Theorem S13 corrected): with rotor `exp(u)` and `[u, v] = u × v`,
`Q_L = exp(w_L)` with `w_L = ∑ u_ℓ + ∑_{i<j} u_i × u_j + R_L`, `‖R_L‖ ≤ C L³ ε³` (no `½`;
`C` chosen before the data), under the hypotheses of S13 (those of S12). -/
def DepthCurvatureCorrectedStatement : Prop :=
  ∃ C : ℝ, ∀ (L : ℕ) (u : Fin L → Vec3) (ε ε0 : ℝ),
    0 < L → ε0 < Real.pi → 0 < ε → ε ≤ ε0 / L → L * ε ≤ 1 → (∀ l, norm3 (u l) ≤ ε) →
    ∃ w : Vec3, rotorProd u = qexp w ∧
      norm3 (w - ∑ l, u l - pairBracketSum u) ≤ C * L ^ 3 * ε ^ 3

/-- `½ (uv - vu) = u × v`: the corrected S12 and S13 are the same expansion. -/
theorem half_pairCommSum {L : ℕ} (u : Fin L → Vec3) :
    (1 / 2 : ℝ) • pairCommSum u = pairBracketSum u := by
  have h2 : (1 / 2 : ℝ) * 2 = 1 := by norm_num
  first
  | (simp only [pairCommSum, pairBracketSum, qcomm, Finset.smul_sum, smul_ite, smul_zero,
       smul_smul, h2, one_smul]
     done)
  | (simp only [pairCommSum, pairBracketSum, qcomm, Finset.smul_sum, smul_ite, smul_zero,
       smul_smul]
     norm_num)

/-- **S13.corrected**, from **S12.corrected**. -/
theorem depth_curvature_corrected : DepthCurvatureCorrectedStatement := by
  obtain ⟨C1, _, _, _, h⟩ := iterated_bch_corrected
  refine ⟨C1, fun L u ε ε0 hL hε0 hε hεL hLε hu => ?_⟩
  obtain ⟨w, hw, h1, _⟩ := h L u ε ε0 hL hε0 hε hεL hLε hu
  refine ⟨w, hw, ?_⟩
  rw [← half_pairCommSum]
  exact h1

end

end Pyverify.Rgat
