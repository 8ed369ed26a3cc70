"""Per-user privacy curves of projected noisy SGD (Asoodeh, Diaz, Calmon 2020, Theorems 3, 4 and 5) as objects.

A :class:`PNSGDCurve` holds the user's PNSGD parameters and answers δ(ε) and ε(δ) for the user whose record is
visited at position ``i`` of ``n`` steps (Theorems 3 and 4) or for a randomly stopped run (Theorem 5).  The formulas
are those of :mod:`dplab.theory.contraction`; this module only binds the parameters and inverts the curve.

Composition with dp_accounting: the curve bounds the whole run for one user, not a per-step mechanism, so it cannot
be turned into a privacy-loss distribution exactly.  :meth:`PNSGDCurve.to_pld` returns the dominating PLD of one
point (ε, δ(ε)) of the curve (``from_privacy_parameters``), which composes soundly with other dp_accounting PLDs
but discards the rest of the curve.  Composing two curves with each other is not offered: the contraction
bound of Theorem 4 is not a Gaussian or Laplace mechanism, and no exact composition rule is proved in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dplab.accounting.inversion import epsilon_for_delta
from dplab.checks import non_negative_finite, positive_finite, require, whole_number
from dplab.theory.contraction import log_delta_thm3, log_delta_thm4, log_delta_thm5

__all__ = ["PNSGDCurve", "pnsgd_curve"]

_NOISE_BY_THEOREM = {3: "Laplace", 4: "Gaussian", 5: "Gaussian"}


@dataclass(frozen=True)
class PNSGDCurve:
    """Privacy curve δ(ε) of projected noisy SGD for one user (Asoodeh, Diaz, Calmon 2020).

    ``theorem`` 3: Laplace noise lr·𝓛(0, noise) on an interval of length ``diameter``;
    ``theorem`` 4: Gaussian noise lr·N(0, noise² I) on a convex set of diameter ``diameter``;
    ``theorem`` 5: Theorem 4's run stopped at a uniform time T ~ Unif{1..n} (``position=None``: eq. (16)).
    ``lipschitz`` is L, ``contraction_gap`` is M (the per-step contraction constant of the projected step),
    ``position`` is i, the step at which the user's record is used.  Checked on construction: ``noise``,
    ``diameter``, ``lr`` finite and > 0, ``lipschitz`` and ``contraction_gap`` finite and >= 0, ``steps`` and
    ``position`` whole numbers with 1 <= position <= steps (booleans are not numbers).
    """

    theorem: int
    noise: float
    lipschitz: float
    contraction_gap: float
    diameter: float
    lr: float
    steps: int
    position: int | None

    def __post_init__(self) -> None:
        if isinstance(self.theorem, bool) or self.theorem not in _NOISE_BY_THEOREM:
            raise ValueError(f"theorem={self.theorem!r} is invalid; allowed: one of 3, 4, 5")
        for name in ("noise", "diameter", "lr"):
            positive_finite(name, getattr(self, name))
        non_negative_finite("lipschitz", self.lipschitz)
        non_negative_finite("contraction_gap", self.contraction_gap)
        steps = whole_number("steps", self.steps)
        if self.position is None:
            require(
                self.theorem == 5, "position", self.position, "a whole number in [1, steps] (None only for theorem 5)"
            )
        else:
            whole_number("position", self.position, maximum=steps)
        self.log_delta(1.0)  # the theorem functions check the remaining combinations

    def _parameters(self) -> dict:
        noise_name = "v" if self.theorem == 3 else "sigma"
        return {
            noise_name: self.noise,
            "L": self.lipschitz,
            "M": self.contraction_gap,
            "diameter": self.diameter,
            "lr": self.lr,
            "n": self.steps,
            "i": self.position,
        }

    def log_delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """log δ(ε) of the chosen theorem (Theorem 3: eqs. (20)-(21); Theorem 4: eqs. (23)-(24); Theorem 5: eq. (16))."""
        theorem_fn = {3: log_delta_thm3, 4: log_delta_thm4, 5: log_delta_thm5}[self.theorem]
        return theorem_fn(epsilon, **self._parameters())

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """δ(ε) = exp(log δ(ε))."""
        return np.exp(self.log_delta(epsilon))

    def epsilon(self, delta: float, *, epsilon_max: float = 100.0) -> float:
        """Smallest ε with δ(ε) ≤ ``delta`` (bisection on log δ; ``math.inf`` if not met at ``epsilon_max``)."""
        return epsilon_for_delta(lambda eps: float(self.log_delta(eps)), delta, epsilon_max=epsilon_max)

    def at_position(self, position: int) -> PNSGDCurve:
        """The same run seen by the user visited at step ``position``."""
        return PNSGDCurve(**{**self.__dict__, "position": position})

    def epsilon_per_position(self, delta: float) -> np.ndarray:
        """ε(δ) for every position i = 1..n (index i − 1): later users get less contraction, hence larger ε."""
        return np.array([self.at_position(i).epsilon(delta) for i in range(1, self.steps + 1)])

    def to_pld(self, epsilon: float, *, value_discretization_interval: float = 1e-4):
        """dp_accounting PLD dominating the point (ε, δ(ε)) of this curve (sound for composition, loses the curve)."""
        from dp_accounting.pld import common, privacy_loss_distribution

        delta = float(self.delta(epsilon))
        require(delta < 1.0, "epsilon", epsilon, "a value where delta(epsilon) < 1")
        parameters = common.DifferentialPrivacyParameters(epsilon=epsilon, delta=delta)
        return privacy_loss_distribution.from_privacy_parameters(
            parameters, value_discretization_interval=value_discretization_interval
        )

    @property
    def noise_distribution(self) -> str:
        """ "Laplace" (Theorem 3) or "Gaussian" (Theorems 4, 5)."""
        return _NOISE_BY_THEOREM[self.theorem]


def pnsgd_curve(
    *,
    theorem: int = 4,
    noise: float,
    lipschitz: float,
    contraction_gap: float,
    diameter: float,
    lr: float,
    steps: int,
    position: int | None = None,
) -> PNSGDCurve:
    """Keyword constructor for :class:`PNSGDCurve`; ``position`` defaults to the last step (the worst user, i = n)
    for Theorems 3 and 4 and to the uniform bound eq. (16) for Theorem 5."""
    if position is None and theorem != 5:
        position = steps
    return PNSGDCurve(
        theorem=theorem,
        noise=noise,
        lipschitz=lipschitz,
        contraction_gap=contraction_gap,
        diameter=diameter,
        lr=lr,
        steps=steps,
        position=position,
    )
