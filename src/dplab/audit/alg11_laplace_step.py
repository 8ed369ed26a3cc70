"""Algorithm 11 of Lin, Wang, Ma, Wang (App. J.2, Theorem 5 / Theorem 11) for d > 1: the exact pure ε of its
Laplace release step on the worst neighbouring pair, as printed and corrected.

Definition 33 measures the local sensitivity in ℓ2, Δ_Local = max_{X′≃X} ‖q(X) − q(X′)‖₂, but line 2 of
Algorithm 11 adds per-coordinate noise Lap^{⊗d}(β̂/ε), and the proof of Theorem 11 asserts that on the event
β̂ > Δ_Local "q(D) + Lap^{⊗d}(β̂/ε) satisfies (ε, δ)-probabilistic DP".  For the product Laplace density with scale
b the log density ratio of two means differing by v is Σ_j (|y_j − q′_j| − |y_j − q_j|)/b, whose supremum over y
is ‖v‖₁/b (each term is at most |v_j|/b, with equality for y_j beyond both means).  The worst pair of ℓ2 distance Δ
spreads it evenly, v = (Δ/√d)·1 with ‖v‖₁ = √d·Δ, so at the edge of the proof's event (β̂ = Δ_Local = Δ, b = Δ/ε)
the step is exactly √d·ε-DP, not ε.  Corrected: the scale √d·β̂/ε (an ℓ1 bound, since ‖v‖₁ ≤ √d‖v‖₂), or Δ_Local
measured in ℓ1, gives ε for every d.

What the proof needs from the step is (ε, δ)-DP, with δ the proof's δ = 2ω/(16dRε)^d (ω = 1/100 ∧ 1/(Rε²)).  On a pair
with equal Δ_Local (β̂ then has the same law on both sides) the step's δ(ε) is δ_step = E_β̂[H_ε(β̂)], H_ε the
hockey-stick divergence of the two product Laplace laws at scale β̂/ε (zero once β̂ ≥ β*, the β̂ at which the step's
pure ε falls to ε: √d·Δ as printed, Δ corrected; decreasing in β̂, since a smaller shift per scale is a garbling).
H_ε comes from dp_accounting's privacy loss distributions of the d-fold Laplace (pessimistic: an upper bound,
optimistic: a lower bound), and the expectation over β̂ ~ Δ + Lap(1/ε) + log(2/δ)/ε is bracketed by the lower and
upper Riemann sums of the monotone H_ε on a grid of β̂ (all masses exact, relative to δ).  The same number is the exact δ(2ε)
of the pair (β̂, noisy query) that the proof composes into "(2ε, δ)-DP", on a pair whose Δ_Local differ by 1
(Δ_Local(D′) = Δ_Local(D) + 1, ‖q(D) − q(D′)‖₂ = Δ_Local(D)): below its centre β̂'s density ratio is exactly e^ε,
so sup_S P(S) − e^{2ε}Q(S) of the pair is E_β̂[H_ε(β̂)] under D (when β* lies below that centre
Δ + log(2/δ)/ε, as at every configured point: log(2/δ)/ε ≥ 20 there).  It says nothing about q_apx alone (β̂ is not
released), whose δ can only be smaller.  The proof's event bound
P(β̂ < β*)/δ = e^{ε(β* − Δ)}/4 (β* below the centre of β̂) bounds δ_step/δ from above in closed form.

Only the Laplace step is computed exactly.  The purified output (Algorithm 1 after Proj_Θ) does not factorise over
coordinates: the projection onto the ℓ2 ball Θ and the uniform mixing (which replaces the whole vector) couple
them, and β̂ is shared.  The study's table states the composition bound the proof of Theorem 11 gives with the exact step,
ε (for β̂) + ε_step + ε′ (Theorem 1), against the printed 3ε: an upper bound on the true ε of the output, not its
exact value.
"""

from __future__ import annotations

import math

import numpy as np
from dp_accounting.pld import privacy_loss_distribution
from scipy.stats import laplace

from dplab.checks import as_finite_array, choice, finite, log_probability, positive_finite, whole_number

__all__ = [
    "NOISE_RULES",
    "worst_pair_difference",
    "alg11_noise_scale",
    "laplace_step_epsilon",
    "laplace_step_epsilon_grid",
    "beta_hat_mass_below_over_delta",
    "laplace_step_hockey_stick",
    "laplace_step_delta_bracket",
]

#: "as_printed": Lap(β̂/ε) per coordinate (Algorithm 11, line 2); "corrected": Lap(√d·β̂/ε) (an ℓ1 bound).
NOISE_RULES = ("as_printed", "corrected")
#: The grid of :func:`laplace_step_epsilon_grid` spans this many noise scales beyond both means.
GRID_HALF_WIDTH_SCALES = 20.0
#: Privacy-loss discretisation of dp_accounting's PLDs (the bracket stays valid; only its width depends on it).
PLD_DISCRETISATION = 1e-2
#: The β̂ grid of :func:`laplace_step_delta_bracket` starts at this fraction of β* (below it H_ε ≤ 1 is used).
BETA_GRID_START = 1e-3


def worst_pair_difference(d: int, local_sensitivity: float) -> np.ndarray:
    """v = (Δ/√d)·(1, …, 1): the difference q(X) − q(X′) of ℓ2 norm Δ (Definition 33) with the largest ℓ1 norm
    √d·Δ."""
    d = whole_number("d", d)
    return np.full(d, positive_finite("local_sensitivity", local_sensitivity) / math.sqrt(d))


def alg11_noise_scale(beta_hat: float, epsilon: float, d: int, rule: str) -> float:
    """Per-coordinate Laplace scale of Algorithm 11's line 2: β̂/ε as printed, √d·β̂/ε corrected."""
    d = whole_number("d", d)
    choice("rule", rule, NOISE_RULES)
    scale = positive_finite("beta_hat", beta_hat) / positive_finite("epsilon", epsilon)
    return math.sqrt(d) * scale if rule == "corrected" else scale


def laplace_step_epsilon(difference: np.ndarray, scale: float) -> float:
    """Exact pure ε of y ↦ q + Lap^{⊗d}(b) between means q and q′ = q − v: sup_y log p_q(y)/p_q′(y) = ‖v‖₁/b."""
    return float(np.sum(np.abs(as_finite_array(difference, "difference")))) / positive_finite("scale", scale)


def laplace_step_epsilon_grid(difference: np.ndarray, scale: float, n_grid: int) -> float:
    """Numerical reference for :func:`laplace_step_epsilon`: the maximum over a product grid of the log ratio of
    the product Laplace densities (scipy's 1-D log densities), centred means 0 and −v.  The log ratio of a product
    density is the sum of the coordinates' log ratios, so its maximum over a product grid is the sum of the
    coordinates' maxima over their 1-D grids (``n_grid`` points spanning GRID_HALF_WIDTH_SCALES scales beyond both
    means)."""
    whole_number("n_grid", n_grid, minimum=3)
    scale = positive_finite("scale", scale)
    total = 0.0
    for v in as_finite_array(difference, "difference"):
        half_width = abs(v) + GRID_HALF_WIDTH_SCALES * scale
        y = np.linspace(-half_width, half_width, int(n_grid))
        total += float(np.max(laplace.logpdf(y, loc=0.0, scale=scale) - laplace.logpdf(y, loc=-v, scale=scale)))
    return total


def beta_hat_mass_below_over_delta(beta: float, local_sensitivity: float, epsilon: float, log_delta: float) -> float:
    """P(β̂ ≤ β)/δ for β̂ = Δ_Local + Lap(1/ε) + log(2/δ)/ε (Algorithm 11, line 1), from the Laplace CDF:
    e^{ε(β − Δ)}/4 below the centre Δ + log(2/δ)/ε, (1 − e^{−ε(β − centre)}/2)/δ above it."""
    epsilon = positive_finite("epsilon", epsilon)
    log_delta = log_probability("log_delta", log_delta)
    x = (
        finite("beta", beta)
        - positive_finite("local_sensitivity", local_sensitivity)
        - (math.log(2.0) - log_delta) / epsilon
    )
    log_mass = math.log(0.5) + epsilon * x if x < 0 else math.log1p(-0.5 * math.exp(-epsilon * x))
    return math.exp(log_mass - log_delta)


def laplace_step_hockey_stick(
    beta_hat: float, local_sensitivity: float, epsilon: float, d: int, rule: str, pessimistic: bool
) -> float:
    """H_ε = sup_S P(S) − e^ε Q(S) between q + Lap^{⊗d}(b) and q′ + Lap^{⊗d}(b) on the worst pair, b by ``rule``
    at β̂: the d-fold composition of dp_accounting's Laplace privacy loss distribution with shift |v_j|/b
    (``pessimistic``: an upper bound, else a lower bound), clipped to [0, 1] where every hockey-stick divergence
    lies (the pessimistic PLD returns values far above 1 for shifts of hundreds of scales)."""
    difference = worst_pair_difference(d, local_sensitivity)
    shift = float(difference[0]) / alg11_noise_scale(beta_hat, epsilon, d, rule)
    pld = privacy_loss_distribution.from_laplace_mechanism(
        1.0,
        sensitivity=shift,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=PLD_DISCRETISATION,
        use_connect_dots=pessimistic,
    )
    return float(min(max(pld.self_compose(int(d)).get_delta_for_epsilon(epsilon), 0.0), 1.0))


def laplace_step_delta_bracket(
    local_sensitivity: float, epsilon: float, d: int, rule: str, log_delta: float, n_beta: int
) -> tuple[float, float, float]:
    """(lower, upper) bounds on δ_step/δ = E_β̂[H_ε(β̂)]/δ and the proof's event bound P(β̂ < β*)/δ, where β* is
    the β̂ at which the step's pure ε equals ε (H_ε = 0 above it).  Riemann sums of the decreasing H_ε on
    ``n_beta`` cells of [BETA_GRID_START·β*, β*]: upper with H_ε at the left ends (pessimistic PLD) and H_ε ≤ 1
    below the grid, lower with H_ε at the right ends (optimistic PLD)."""
    whole_number("n_beta", n_beta)
    log_probability("log_delta", log_delta)
    unit_scale = alg11_noise_scale(1.0, epsilon, d, rule)
    top = laplace_step_epsilon(worst_pair_difference(d, local_sensitivity), unit_scale) / epsilon
    edges = np.linspace(BETA_GRID_START * top, top, int(n_beta) + 1)
    mass = [beta_hat_mass_below_over_delta(b, local_sensitivity, epsilon, log_delta) for b in edges]
    lower, upper = 0.0, mass[0]
    for left, right, cell in zip(edges[:-1], edges[1:], np.diff(mass), strict=True):
        upper += cell * laplace_step_hockey_stick(left, local_sensitivity, epsilon, d, rule, pessimistic=True)
        lower += cell * laplace_step_hockey_stick(right, local_sensitivity, epsilon, d, rule, pessimistic=False)
    return lower, upper, mass[-1]
