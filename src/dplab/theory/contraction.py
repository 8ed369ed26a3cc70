"""Asoodeh, Diaz, Calmon, "Privacy Amplification of Iterative Algorithms via Contraction Coefficients"
(arXiv 2001.06546, ISIT 2020).

Privacy of projected noisy SGD (PNSGD) for the user at position i of n, from the strong data-processing
inequality for E_γ:  δ = (first-step E_γ) × (contraction coefficient)^(n − i).  Every bound is returned as a
natural log of δ (``-inf`` exactly where δ = 0) so that values far below 1e-300 stay representable.

Naming (a convention of this library for the symbols of the paper's Section IV): ``lr`` is the step size η,
``beta_smooth`` the smoothness β, ``rho`` the strong convexity, ``M`` the Lipschitz constant of the gradient step
(eq. (14)), ``diameter`` D_𝕂 = b − a, ``v`` the Laplace scale, ``sigma`` the Gaussian standard deviation of
Z (the iterate receives lr·Z).  Positions i run from 1 to n.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy.special import log_ndtr

from dplab.accounting._arrays import scalar_or_array
from dplab.accounting.hockey_stick import (
    log_gaussian_hockey_stick,
    log_gaussian_hockey_stick_complement,
    log_laplace_hockey_stick,
)
from dplab.accounting.inversion import epsilon_for_delta
from dplab.checks import (
    as_float_array,
    as_integer_array,
    as_non_negative_array,
    as_positive_array,
    choice,
    non_negative_finite,
    positive_finite,
    probability,
    require,
    whole_number,
)
from dplab.numerics import log1mexp

__all__ = [
    "EPSILON_SEARCH_LIMIT",
    "epsilon_thm4",
    "thm4_prop1_crossover_diameter",
    "certified_epsilons",
    "contraction_modulus",
    "epsilon_prop1",
    "gradient_step_lipschitz",
    "kappa_prop1",
    "lemma4_modulus_as_printed",
    "log_delta_prop1",
    "log_delta_thm3",
    "log_delta_thm4",
    "log_delta_thm5",
    "log_projected_gaussian_contraction_exact",
    "pure_dp_threshold_thm3",
    "pure_dp_threshold_thm3_as_printed",
]


# ----------------------------------------------------------------------------------------------- checks


def _remaining_steps(n: ArrayLike, i: ArrayLike) -> np.ndarray:
    """n − i, the number of contracting steps after user i's step; checks 1 <= i <= n (whole numbers)."""
    n_int = as_integer_array(n, "n")
    i_int = as_integer_array(i, "i")
    require(n_int >= 1, "n", n_int, "n >= 1")
    require((i_int >= 1) & (i_int <= n_int), "i", i_int, f"1 <= i <= n (n={n_int.tolist()})")
    return n_int - i_int


def _add_power(log_first: np.ndarray | float, log_factor: np.ndarray | float, steps: np.ndarray) -> np.ndarray:
    """log(first · factor^steps) with 0^0 = 1 (steps = 0 ignores the factor even where it is 0, i.e. log = -inf)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(log_first) + np.where(steps == 0, 0.0, steps * np.asarray(log_factor))


def _normalised_gaps(
    *, L: ArrayLike, noise: ArrayLike, noise_name: str, M: ArrayLike, diameter: ArrayLike, lr: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """(2L/noise, M D/(lr · noise)): the mean gaps of the first step (2 lr L, eqs. (21), (24)) and of a contraction
    step (M D, eqs. (20), (23)), each divided by the per-step noise scale lr · noise (noise = v or σ)."""
    noise_a = as_positive_array(noise, noise_name)
    first = 2.0 * as_non_negative_array(L, "L") / noise_a
    contraction = as_non_negative_array(M, "M") * as_positive_array(diameter, "diameter")
    return first, contraction / (as_positive_array(lr, "lr") * noise_a)


# ----------------------------------------------------------------------------------------------- Lemma 4


def lemma4_modulus_as_printed(*, lr: ArrayLike, beta_smooth: ArrayLike, rho: ArrayLike) -> float | np.ndarray:
    """M = √(1 − 2 η β ρ / (β + ρ)) of eq. (14) at any step size η > 0, without Lemma 4's condition
    η < 2/(β + ρ) (to see where the lemma's constant stops bounding the gradient step); NaN where
    2 η β ρ / (β + ρ) > 1 (no real square root, possible only for η > 2/(β + ρ))."""
    lr_a = as_positive_array(lr, "lr")
    beta = as_positive_array(beta_smooth, "beta_smooth")
    rho_a = as_non_negative_array(rho, "rho")
    square = 1.0 - 2.0 * lr_a * beta * rho_a / (beta + rho_a)
    return scalar_or_array(np.sqrt(np.where(square >= 0, square, np.nan)))


def contraction_modulus(*, lr: ArrayLike, beta_smooth: ArrayLike, rho: ArrayLike) -> float | np.ndarray:
    """M = √(1 − 2 η β ρ / (β + ρ))  (eq. (14); Lemma 4, from Bubeck 2015 Thm 3.12): the Lipschitz constant of the
    gradient step y ↦ y − η∇ℓ(y) for a β-smooth, ρ-strongly convex loss, valid for η < 2/(β + ρ).

    ``ValueError`` if lr <= 0, beta_smooth <= 0, rho < 0 or lr >= 2/(beta_smooth + rho).  ρ > β (physically
    impossible, but printed in the paper's Fig. 3 caption, ρ = 0.4 > β = 0.3) is accepted.  M = 1 for ρ = 0.
    """
    lr_a = as_positive_array(lr, "lr")
    beta = as_positive_array(beta_smooth, "beta_smooth")
    rho_a = as_non_negative_array(rho, "rho")
    limit = 2.0 / (beta + rho_a)
    require(lr_a < limit, "lr", lr_a, f"lr < 2/(beta_smooth+rho) = {np.array2string(np.asarray(limit), precision=4)}")
    return lemma4_modulus_as_printed(lr=lr_a, beta_smooth=beta, rho=rho_a)


def gradient_step_lipschitz(*, lr: ArrayLike, beta_smooth: ArrayLike, rho: ArrayLike) -> float | np.ndarray:
    """max(|1 − η ρ|, |1 − η β|): the smallest constant that bounds the Lipschitz constant of ψ(a) = a − η∇f(a)
    for every β-smooth, ρ-strongly convex f (ρ <= β), at any step size η > 0 (the exact value Lemma 4 bounds).

    Why: for twice-differentiable f, ψ(x) − ψ(y) = (I − η H)(x − y) with H = ∫_0^1 ∇²f(y + t(x − y)) dt, whose
    eigenvalues lie in [ρ, β], so ‖ψ(x) − ψ(y)‖ <= max_{λ∈[ρ,β]} |1 − η λ| ‖x − y‖ (the maximum of a convex function
    of λ sits at an end point); the quadratic f(a) = aᵀ diag(ρ, β) a / 2 attains it.  Lemma 4's M is at least this
    value exactly when η <= 2/(β + ρ): M² − (1 − η ρ)² = η ρ² (2/(β + ρ) − η), and the same with ρ and β exchanged.
    """
    lr_a = as_positive_array(lr, "lr")
    beta = as_positive_array(beta_smooth, "beta_smooth")
    rho_a = as_non_negative_array(rho, "rho")
    require(rho_a <= beta, "rho", rho_a, "rho <= beta_smooth (a rho-strongly convex, beta-smooth function)")
    return scalar_or_array(np.maximum(np.abs(1.0 - lr_a * rho_a), np.abs(1.0 - lr_a * beta)))


# ----------------------------------------------------------------------------------------------- Theorem 3


def log_delta_thm3(
    epsilon: ArrayLike,
    *,
    L: ArrayLike,
    v: ArrayLike,
    M: ArrayLike,
    diameter: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    i: ArrayLike,
) -> float | np.ndarray:
    """log δ of Theorem 3 (Laplace PNSGD on 𝕂 = [a, b], D = b − a, noise lr·𝓛(0, v)):

    δ = (1 − e^{ε/2 − L/v})_+ · (1 − e^{ε/2 − M D/(2 η v)})_+^(n − i),

    the first factor Lemma 1 with shift 2ηL and scale ηv (eq. (21)), the second the contraction bound eq. (20)
    (Lemma 1 with shift M D and scale ηv); Lemma 1 depends on shift/scale only.
    Uses 0^0 = 1, so for i = n the second factor is 1 (no contraction step follows the user's own step).
    """
    steps = _remaining_steps(n, i)
    first, contraction = _normalised_gaps(L=L, noise=v, noise_name="v", M=M, diameter=diameter, lr=lr)
    log_first = log_laplace_hockey_stick(epsilon, shift=first, scale=1.0)
    log_factor = log_laplace_hockey_stick(epsilon, shift=contraction, scale=1.0)
    return scalar_or_array(_add_power(log_first, log_factor, steps))


def pure_dp_threshold_thm3(
    *, L: ArrayLike, v: ArrayLike, M: ArrayLike, diameter: ArrayLike, lr: ArrayLike, n: ArrayLike, i: ArrayLike
) -> float | np.ndarray:
    """Smallest ε with δ_Thm3(ε) = 0, read off the formula of Theorem 3: the first factor vanishes for
    ε ≥ 2L/v and (when i < n) the contraction factor for ε ≥ M D/(η v), so

    ε* = min{2L/v, M D/(η v)} for i < n,   ε* = 2L/v for i = n (no contraction step).
    """
    steps = _remaining_steps(n, i)
    first, contraction = _normalised_gaps(L=L, noise=v, noise_name="v", M=M, diameter=diameter, lr=lr)
    return scalar_or_array(np.where(steps > 0, np.minimum(first, contraction), first))


def pure_dp_threshold_thm3_as_printed(
    *, L: ArrayLike, v: ArrayLike, M: ArrayLike, diameter: ArrayLike, lr: ArrayLike
) -> float | np.ndarray:
    """The paper's corollary to Theorem 3, "δ = 0 if ε ≥ min{2L/v, M(b − a)/(η v)}", as printed.

    Erratum: wrong for i = n, where the threshold is 2L/v (see ``pure_dp_threshold_thm3``).  Counterexample:
    L = v = η = 1, 𝕂 = [0, 1], n = 40, ε = 1.5: Theorem 3 gives δ = 0.2211992 at i = 40 although
    ε ≥ M(b − a)/(η v) = 1 (and δ = 0 at i = 39).
    """
    first, contraction = _normalised_gaps(L=L, noise=v, noise_name="v", M=M, diameter=diameter, lr=lr)
    return scalar_or_array(np.minimum(first, contraction))


# ----------------------------------------------------------------------------------------------- Theorems 4-5


def log_delta_thm4(
    epsilon: ArrayLike,
    *,
    L: ArrayLike,
    sigma: ArrayLike,
    M: ArrayLike,
    diameter: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    i: ArrayLike,
) -> float | np.ndarray:
    """log δ of Theorem 4 (Gaussian PNSGD, 𝕂 ⊂ ℝ^d compact convex of diameter D, noise lr·N(0, σ² I)):

    δ = θ_{e^ε}(2L/σ) · θ_{e^ε}(M D/(η σ))^(n − i),  i.e.  log δ = log θ(2L/σ) + (n − i) log θ(M D/(η σ)),

    θ the Gaussian hockey-stick function (eq. (10)); contraction bound eq. (23), first step eq. (24).
    """
    steps = _remaining_steps(n, i)
    first, contraction = _normalised_gaps(L=L, noise=sigma, noise_name="sigma", M=M, diameter=diameter, lr=lr)
    log_first = log_gaussian_hockey_stick(epsilon, first)
    log_factor = log_gaussian_hockey_stick(epsilon, contraction)
    return scalar_or_array(_add_power(log_first, log_factor, steps))


#: Below this log(1 − θ_c) (1 − θ_c < 1e-300), every θ_c^j of Theorem 5's partial sum is 1 in double precision.
_LOG_NEGLIGIBLE_COMPLEMENT = math.log(1e-300)


def log_delta_thm5(
    epsilon: ArrayLike,
    *,
    L: ArrayLike,
    sigma: ArrayLike,
    M: ArrayLike,
    diameter: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    i: ArrayLike | None = None,
) -> float | np.ndarray:
    """log δ of Theorem 5 (randomly stopped Gaussian PNSGD, T ~ Unif{1..n}), capped at δ ≤ 1 (log ≤ 0).

    ``i=None``: the uniform bound of eq. (16),  δ = θ(2L/σ) / (n (1 − θ(M D/(η σ)))).
    ``i`` given: the tighter intermediate form in the proof of Theorem 5 (Appendix A),
    δ_i = θ(2L/σ)/n · (1 − θ_c^(n−i+1)) / (1 − θ_c) = θ(2L/σ)/n · Σ_{r=i}^{n} θ_c^(r−i),  θ_c = θ(M D/(η σ)).

    Log space throughout: log(1 − θ_c) = logaddexp(log Φ(a), ε + log Q(b)) (never formed in linear scale, where it
    underflows to 0 from 1 − θ_c ≈ 1e-308 on: at σ = 0.1, η = 0.1, D = 4 that is every ε below about 64,800, while
    δ(4000.16) ≈ 1.01e-5 at n = 1000), log θ_c = log1mexp(log(1 − θ_c)) and log(1 − θ_c^k) = log1mexp(k log θ_c).
    Where 1 − θ_c < 1e-300 the partial sum is k = n − i + 1 to relative accuracy k (1 − θ_c) (each term is 1).
    """
    n_int = as_integer_array(n, "n")
    require(n_int >= 1, "n", n_int, "n >= 1")
    first, contraction = _normalised_gaps(L=L, noise=sigma, noise_name="sigma", M=M, diameter=diameter, lr=lr)
    log_first = log_gaussian_hockey_stick(epsilon, first)
    log_complement = np.asarray(log_gaussian_hockey_stick_complement(epsilon, contraction))
    if i is None:
        log_sum = -log_complement
    else:
        terms = _remaining_steps(n_int, i) + 1
        with np.errstate(divide="ignore", invalid="ignore"):
            log_partial = log1mexp(terms * log1mexp(log_complement)) - log_complement
        log_sum = np.where(log_complement > _LOG_NEGLIGIBLE_COMPLEMENT, log_partial, np.log(terms))
    return scalar_or_array(np.minimum(log_first - np.log(n_int) + log_sum, 0.0))


# ----------------------------------------------------------------------------------------------- Proposition 1


def kappa_prop1(*, L: ArrayLike, sigma: ArrayLike, M: ArrayLike, n: ArrayLike, i: ArrayLike) -> float | np.ndarray:
    """κ of Proposition 1 (main text; Balle et al. 2019 Thm 5): PNSGD is (α, κα)-RDP for its i-th input with

    κ = 2L² M^(n−i+1) / ((n − i) σ²) for i < n,   κ = 2L²/σ² for i = n.

    Erratum: the appendix version (no σ², "κ = 2αL²" for i = n) is a typo of the main-text formula.  The (n − i)
    denominator is printed in both places and kept as printed (it gives the larger, more conservative κ).
    """
    steps = _remaining_steps(n, i)
    base = 2.0 * as_non_negative_array(L, "L") ** 2 / as_positive_array(sigma, "sigma") ** 2
    M_a = as_non_negative_array(M, "M")
    amplified = base * M_a ** (steps + 1) / np.where(steps > 0, steps, 1)
    return scalar_or_array(np.where(steps > 0, amplified, base))


def log_delta_prop1(epsilon: ArrayLike, *, kappa: ArrayLike) -> float | np.ndarray:
    """log δ̃ of Proposition 1, eq. (27): −(ε − κ)²/(4κ) for ε > κ (optimal order α* = (ε + κ)/(2κ) > 1 in the
    Mironov conversion eq. (26) of an (α, κα)-RDP curve), and 0 (δ̃ = 1, the limit α → 1) for ε ≤ κ (the paper leaves
    this case undefined: it needs α* > 1; a convention of this library).
    """
    eps = as_non_negative_array(epsilon, "epsilon")
    k = as_positive_array(kappa, "kappa")
    return scalar_or_array(np.where(eps > k, -((eps - k) ** 2) / (4.0 * k), 0.0))


def epsilon_prop1(delta: ArrayLike, *, kappa: ArrayLike) -> float | np.ndarray:
    """ε̃(δ) = κ + 2√(κ log(1/δ)), the inverse of eq. (27) for δ ∈ (0, 1) (+inf at δ = 0; κ at δ = 1)."""
    d = as_float_array(delta, "delta")
    require((d >= 0) & (d <= 1), "delta", d, "0 <= delta <= 1")
    k = as_positive_array(kappa, "kappa")
    with np.errstate(divide="ignore"):
        return scalar_or_array(k + 2.0 * np.sqrt(-k * np.log(d)))


# ----------------------------------------------------------------- exact contraction (an extension, not in the paper)


def log_projected_gaussian_contraction_exact(
    epsilon: ArrayLike, *, diameter: ArrayLike, scale: ArrayLike
) -> float | np.ndarray:
    """(Extension, not in the paper.) log η_{e^ε}(K), the exact E_γ contraction coefficient (Theorem 2) of the
    1-D kernel K(y) = Π_[0,D](y + N(0, s²)), y ∈ [0, D]; the paper bounds it by θ_{e^ε}(D/s) (eq. (23) with
    M D = D).

    Why the sup of Theorem 2 sits at the pair (y1, y2) = (0, D).  For y1 < y2 the likelihood ratio of K(y1) to
    K(y2) is non-increasing on [0, D] (Gaussian location family; the atoms at 0 and D carry the tails
    {y + sZ ≤ 0} and {y + sZ ≥ D}, which keep the order), so the optimal event {dK(y1)/dK(y2) > γ} is a lower set
    [0, t] and E_γ(K(y1)‖K(y2)) = max(0, sup_{0≤t<D} F_{y1}(t) − γ F_{y2}(t)), where on [0, D) the projected cdf is
    F_y(t) = Φ((t − y)/s).  For each t this is decreasing in y1 and increasing in y2, hence maximal at y1 = 0,
    y2 = D; pairs with y1 > y2 give the same values by the reflection t ↦ D − t.

    Closed form.  The stationary point of Φ(t/s) − γΦ((t − D)/s) is t* = D/2 − ε s²/D ≤ D/2.  With r = D/s:
    if t* ≥ 0 (ε ≤ r²/2) the sup is the unprojected value θ_{e^ε}(r); otherwise it is at t = 0 (the atom at 0
    alone): [1/2 − e^ε Q(r)]_+, which vanishes for ε ≥ −log(2 Q(r)) (bounded privacy loss; pure DP).
    Check values (our own computation): D = s = 1 gives 0.382925 (ε = 0) and 0.068730 (ε = 1, bound 0.126937);
    D = 4, ε = 1: 0.926711.
    """
    eps = as_non_negative_array(epsilon, "epsilon")
    ratio = as_positive_array(diameter, "diameter") / as_positive_array(scale, "scale")
    eps, ratio = np.broadcast_arrays(eps, ratio)
    interior_optimum = eps <= ratio**2 / 2.0
    log_unprojected = np.asarray(log_gaussian_hockey_stick(eps, ratio))
    log_atom_excess = math.log(2.0) + eps + log_ndtr(-ratio)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_atom = np.where(log_atom_excess < 0, math.log(0.5) + log1mexp(np.minimum(log_atom_excess, 0.0)), -np.inf)
    return scalar_or_array(np.where(interior_optimum, log_unprojected, log_atom))


#: The inversion widens its bracket up to here: certified epsilons above 100 are computed.
EPSILON_SEARCH_LIMIT = 1e9


def certified_epsilons(
    noise: str,
    *,
    users: Mapping[str, int],
    n: int,
    radius: float,
    lr: float,
    scale: float,
    delta: float,
    L: float,
    beta_smooth: float,
) -> dict[str, float]:
    """Epsilon at ``delta`` that Asoodeh, Diaz, Calmon certify for one pass of projected noisy SGD (L-Lipschitz,
    β-smooth convex loss, domain of diameter 2·radius) to each user of ``users`` (name -> position i): Theorem 4
    (Gaussian, σ = ``scale``) or Theorem 3 (Laplace, v = ``scale``), Proposition 1 at the ``"middle"`` user
    (Gaussian) and Theorem 5 (Gaussian, randomly stopped, uniform over users); NaN where a result does not apply.
    ``inf`` only without noise (no finite epsilon exists); with noise the inversion's bracket widens until it holds
    the epsilon (e.g. Theorem 4 at sigma = 0.1 certifies about 284, Theorem 5 about 4000), up to
    ``EPSILON_SEARCH_LIMIT``."""
    choice("noise", noise, ("gaussian", "laplace"))
    n, radius, lr = whole_number("n", n), positive_finite("radius", radius), positive_finite("lr", lr)
    scale, delta = non_negative_finite("scale", scale), probability("delta", delta)
    L, beta_smooth = positive_finite("L", L), positive_finite("beta_smooth", beta_smooth)
    names = dict(users)
    keys = [f"epsilon_thm_{u}" for u in names] + ["epsilon_prop1_middle", "epsilon_thm5"]
    if scale <= 0:
        return dict.fromkeys(keys, np.inf)
    M = contraction_modulus(lr=lr, beta_smooth=beta_smooth, rho=0.0)
    common = {"L": L, "M": M, "diameter": 2 * radius, "lr": lr, "n": n}
    result = {}
    for user, i in names.items():
        if noise == "gaussian":
            fn = lambda e, i=i: float(log_delta_thm4(e, sigma=scale, i=i, **common))  # noqa: E731
        else:
            fn = lambda e, i=i: float(log_delta_thm3(e, v=scale, i=i, **common))  # noqa: E731
        result[f"epsilon_thm_{user}"] = epsilon_for_delta(fn, delta, expand_to=EPSILON_SEARCH_LIMIT)
    if noise == "gaussian":
        kappa = kappa_prop1(L=L, sigma=scale, M=M, n=n, i=names["middle"])
        result["epsilon_prop1_middle"] = float(epsilon_prop1(delta, kappa=kappa))
        result["epsilon_thm5"] = epsilon_for_delta(
            lambda e: float(log_delta_thm5(e, sigma=scale, **common)), delta, expand_to=EPSILON_SEARCH_LIMIT
        )
    else:
        result["epsilon_prop1_middle"] = np.nan
        result["epsilon_thm5"] = np.nan
    return result


def epsilon_thm4(
    delta: float, *, L: float, sigma: float, M: float, diameter: float, lr: float, n: int, i: int
) -> float:
    """The smallest ε with Theorem 4's δ(ε) ≤ ``delta`` (:func:`log_delta_thm4` inverted by
    :func:`dplab.accounting.inversion.epsilon_for_delta`): what Theorem 4 certifies to user i at this δ."""
    probability("delta", delta)
    return epsilon_for_delta(
        lambda e: float(log_delta_thm4(e, L=L, sigma=sigma, M=M, diameter=diameter, lr=lr, n=n, i=i)), delta
    )


def thm4_prop1_crossover_diameter(
    low: float, high: float, delta: float, *, L: float, sigma: float, M: float, lr: float, n: int, i: int
) -> float:
    """The domain diameter D in [low, high] at which Theorem 4 and Proposition 1 certify the same ε at ``delta``
    (Proposition 1 does not depend on D; Theorem 4's contraction factor θ(MD/(ησ)) tends to 1 as D grows), by
    Brent's method to 1e-6; [low, high] must bracket the sign change of ε_thm4(D) − ε_prop1."""
    low, high = positive_finite("low", low), positive_finite("high", high)
    require(low < high, "high", high, f"a number > low = {low:g}")
    eps_prop1 = float(epsilon_prop1(delta, kappa=kappa_prop1(L=L, sigma=sigma, M=M, n=n, i=i)))

    def difference(diameter: float) -> float:
        return epsilon_thm4(delta, L=L, sigma=sigma, M=M, diameter=diameter, lr=lr, n=n, i=i) - eps_prop1

    return float(optimize.brentq(difference, low, high, xtol=1e-6))
