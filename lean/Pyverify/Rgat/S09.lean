import Pyverify.Rgat.Defs

/-!
# RGAT supplement, Theorem S9 (gauge equivariance of GSM attention)
-/

open scoped Quaternion

namespace Pyverify.Rgat

noncomputable section

/-- Left multiplication by a unit quaternion preserves `d_geo`. -/
theorem dgeo_mul_left {g : ℍ[ℝ]} (hg : IsUnitQ g) (q k : ℍ[ℝ]) :
    dgeo (g * q) (g * k) = dgeo q k := by
  unfold dgeo simil
  rw [qdot_mul_left, show qdot g g = 1 from hg, one_mul]

/-- Right multiplication by a unit quaternion preserves `d_geo` (bi-invariance). -/
theorem dgeo_mul_right {g : ℍ[ℝ]} (hg : IsUnitQ g) (q k : ℍ[ℝ]) :
    dgeo (q * g) (k * g) = dgeo q k := by
  unfold dgeo simil
  rw [qdot_mul_right, show qdot g g = 1 from hg, one_mul]

/-- **S9** (rgat, Theorem S9): for `g ∈ Spin(3)` acting by left multiplication,
`μ'_i = g μ_i`, `r'_j = g r_j`: `d_geo(μ'_i, r'_j) = d_geo(μ_i, r_j)`, hence `P'_ij = P_ij`;
if values transform by an orthogonal representation, `v'_j = L(g) v_j` with `L(g)` linear and
norm-preserving, then `y'_i = L(g) y_i`. (Only the value `L(g)` of the representation at the
given `g` enters; its homomorphism property is not needed.) -/
def GaugeEquivarianceStatement : Prop :=
  ∀ (E : Type) [NormedAddCommGroup E] [NormedSpace ℝ E] (m n : ℕ) (g : ℍ[ℝ])
    (μ : Fin m → ℍ[ℝ]) (r : Fin n → ℍ[ℝ]) (τ : ℝ) (Lg : E →ₗ[ℝ] E) (v : Fin n → E),
    IsUnitQ g → (∀ i, IsUnitQ (μ i)) → (∀ j, IsUnitQ (r j)) → (∀ x, ‖Lg x‖ = ‖x‖) →
    (∀ i j, dgeo (g * μ i) (g * r j) = dgeo (μ i) (r j)) ∧
    (∀ i j, gsmWeights (fun i => g * μ i) (fun j => g * r j) τ i j = gsmWeights μ r τ i j) ∧
    (∀ i, attnOut (gsmWeights (fun i => g * μ i) (fun j => g * r j) τ) (fun j => Lg (v j)) i
        = Lg (attnOut (gsmWeights μ r τ) v i))

/-- **S9**: GSM attention is gauge equivariant. -/
theorem gsm_gauge_equivariant : GaugeEquivarianceStatement := by
  intro E _ _ m n g μ r τ Lg v hg _ _ _
  have hd : ∀ i j, dgeo (g * μ i) (g * r j) = dgeo (μ i) (r j) :=
    fun i j => dgeo_mul_left hg (μ i) (r j)
  have hP : gsmWeights (fun i => g * μ i) (fun j => g * r j) τ = gsmWeights μ r τ := by
    funext i j
    simp only [gsmWeights, softmax, gsmLogits, hd]
  refine ⟨hd, fun i j => by rw [hP], fun i => ?_⟩
  rw [hP]
  simp only [attnOut, map_sum, map_smul]

end

end Pyverify.Rgat
