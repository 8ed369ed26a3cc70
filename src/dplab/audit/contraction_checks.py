"""Numerical checks of Lemmas 1-2, Theorem 2 and eq. (3) of Asoodeh, Diaz, Calmon (2020), "Privacy Amplification of
Iterative Algorithms via Contraction Coefficients": each closed form next to an independent reference (adaptive
quadrature of the definition, Google's ``dp_accounting`` privacy-loss objects, or a brute-force supremum), one record
per check with the largest absolute disagreement.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from dplab.accounting.hockey_stick import gaussian_hockey_stick, laplace_hockey_stick
from dplab.audit.quadrature import (
    gaussian_renyi_quadrature,
    hockey_stick_integral,
    projected_gaussian_hockey_stick_quadrature,
)
from dplab.checks import in_range, non_negative_finite, positive_finite, whole_number
from dplab.theory.contraction import log_projected_gaussian_contraction_exact

__all__ = [
    "hockey_stick_lemma_checks",
    "projected_gaussian_contraction_check",
    "unconstrained_gaussian_kernel_check",
    "gaussian_renyi_check",
]

#: The half-width of the quadrature span in units of the scale: [−40 s − Δ, 40 s + Δ].
_SPAN_SCALES = 40.0


def hockey_stick_lemma_checks(epsilon: float, shift: float, scale: float) -> list[dict[str, object]]:
    """Lemma 1 (Laplace, E_{e^ε}(Lap(0, b) ‖ Lap(Δ, b))) and Lemma 2 (Gaussian, E_{e^ε}(N(Δ, s²) ‖ N(0, s²)) = θ_{e^ε}(Δ/s))
    at one (ε, Δ = ``shift``, b = s = ``scale``): the closed form, the quadrature of the definition (eq. (6)) over
    [−40s − Δ, 40s + Δ], and ``dp_accounting``'s ``LaplacePrivacyLoss`` / ``GaussianPrivacyLoss`` at sensitivity Δ;
    ``max_abs_error`` is the larger distance of the closed form to either reference."""
    from dp_accounting.pld.privacy_loss_mechanism import GaussianPrivacyLoss, LaplacePrivacyLoss  # heavy, on use

    epsilon = non_negative_finite("epsilon", epsilon)
    shift, scale = positive_finite("shift", shift), positive_finite("scale", scale)
    laplace_p = stats.laplace(loc=0.0, scale=scale).pdf
    laplace_q = stats.laplace(loc=shift, scale=scale).pdf
    gauss_p = stats.norm(loc=shift, scale=scale).pdf
    gauss_q = stats.norm(loc=0.0, scale=scale).pdf
    span = (-_SPAN_SCALES * scale - shift, _SPAN_SCALES * scale + shift)
    cases = (
        (
            "lemma1_laplace",
            float(laplace_hockey_stick(epsilon, shift=shift, scale=scale)),
            hockey_stick_integral(laplace_p, laplace_q, epsilon, span),
            LaplacePrivacyLoss(scale, sensitivity=shift).get_delta_for_epsilon(epsilon),
        ),
        (
            "lemma2_gaussian",
            float(gaussian_hockey_stick(epsilon, shift / scale)),
            hockey_stick_integral(gauss_p, gauss_q, epsilon, span),
            GaussianPrivacyLoss(scale, sensitivity=shift).get_delta_for_epsilon(epsilon),
        ),
    )
    return [
        {
            "check": claim,
            "epsilon": epsilon,
            "shift": shift,
            "scale": scale,
            "closed_form": closed,
            "quadrature": numeric,
            "dp_accounting": library,
            "max_abs_error": max(abs(closed - numeric), abs(closed - library)),
        }
        for claim, closed, numeric, library in cases
    ]


def projected_gaussian_contraction_check(epsilon: float, diameter: float, n_points: int = 21) -> dict[str, object]:
    """Theorem 2 for the projected Gaussian kernel K(y) = Π_[0,D](y + N(0, 1)): η_{e^ε}(K) = sup_{y1,y2} E_{e^ε}(K(y1) ‖
    K(y2)) by brute force over an ``n_points`` × ``n_points`` grid of starting points in [0, D] (each E_{e^ε} by
    quadrature), against the exact value at the endpoints (:func:`log_projected_gaussian_contraction_exact`) and the
    paper's bound θ_{e^ε}(D) (Theorem 4's contraction factor, ``paper_bound``)."""
    epsilon, diameter = non_negative_finite("epsilon", epsilon), positive_finite("diameter", diameter)
    starts = np.linspace(0.0, diameter, whole_number("n_points", n_points, minimum=2))
    brute = max(
        projected_gaussian_hockey_stick_quadrature(epsilon, y1, y2, diameter=diameter, scale=1.0)
        for y1 in starts
        for y2 in starts
    )
    exact = float(np.exp(log_projected_gaussian_contraction_exact(epsilon, diameter=diameter, scale=1.0)))
    return {
        "check": "theorem2_projected_gaussian",
        "epsilon": epsilon,
        "shift": diameter,
        "scale": 1.0,
        "closed_form": exact,
        "quadrature": brute,
        "dp_accounting": np.nan,
        "paper_bound": float(gaussian_hockey_stick(epsilon, diameter)),
        "max_abs_error": abs(exact - brute),
    }


def unconstrained_gaussian_kernel_check(epsilon: float, shift: float) -> dict[str, object]:
    """The unconstrained Gaussian kernel does not contract (Section III of the paper): θ_{e^ε}(Δ) for unit noise at a
    far starting distance Δ = ``shift`` against the trivial bound 1 (``max_abs_error`` = 1 − θ_{e^ε}(Δ))."""
    epsilon, shift = non_negative_finite("epsilon", epsilon), positive_finite("shift", shift)
    unconstrained = float(gaussian_hockey_stick(epsilon, shift))
    return {
        "check": "unconstrained_gaussian_kernel",
        "epsilon": epsilon,
        "shift": shift,
        "scale": 1.0,
        "closed_form": unconstrained,
        "quadrature": np.nan,
        "dp_accounting": np.nan,
        "paper_bound": 1.0,
        "max_abs_error": abs(1.0 - unconstrained),
    }


def gaussian_renyi_check(order: float, shift: float, scale: float) -> dict[str, object]:
    """Rényi divergence of order α between N(Δ, σ²) and N(0, σ²), (1/(α−1)) log ∫ p^α q^(1−α), by quadrature against
    α Δ²/(2σ²): the form eq. (3) of the paper needs (it prints the distance unsquared)."""
    order = in_range("order", order, 1.0, np.inf, low_open=True, high_open=True)
    shift, scale = positive_finite("shift", shift), positive_finite("scale", scale)
    closed = order * shift**2 / (2 * scale**2)
    numeric = gaussian_renyi_quadrature(order, shift, scale)
    return {
        "check": "renyi_gaussian",
        "order": order,
        "shift": shift,
        "scale": scale,
        "closed_form": closed,
        "quadrature": numeric,
        "max_abs_error": abs(closed - numeric),
    }
