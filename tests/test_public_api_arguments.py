"""Every public function of the library refuses bad arguments with an error that names the argument.

The public functions are found by walking the packages and the front-door modules (``__all__`` of every module); each
one must have an entry in ``EXAMPLES`` below (valid example arguments), or in ``NO_NUMERIC_ARGUMENTS`` with the reason
it has nothing to check, so a new public function fails ``test_every_public_function_is_registered`` until it is
registered.

For each registered function and each of its numeric arguments, Hypothesis draws values outside the argument's
allowed set (its *kind*: NaN, ±inf, negative, zero, out-of-range probabilities, fractional sizes, {0, 1} labels, ...)
and the test asserts ``ValueError`` (or ``TypeError``) with the argument's name in the message. Array arguments get
one bad entry (a non-finite data entry where the kind is finite); arguments whose shapes must agree also get wrong
shapes. The valid example itself must be accepted. Every numeric argument also gets the classes of bad input that do
not depend on its kind: a boolean (``True`` is not 1: ``TypeError``), a complex value with a valid real part (never
truncated), for torch tensors an integer, float16 or complex dtype (refused unless the example declares the conversion
its docstring states), for pairs of arguments that must have one length (``LENGTH_PAIRS``) one row fewer or one more
(never truncated: the error names both), and for size arguments an oversized value (``oversized``: refused before
allocating, the error naming the argument and the memory; every argument named like a sample count must have one).
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import math
import pkgutil
import re
import tempfile
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dplab.audit.accountant_check import check_dpsgd_accountant
from dplab.audit.grid import UniformGrid, linear_loss_psi
from dplab.audit.interval_laws import Law1D
from dplab.learning.engine import NoisyGradientConfig
from dplab.learning.losses import LinearLoss, LogisticLoss
from dplab.learning.projections import Ball
from dplab.mechanisms.adassp import sufficient_statistics
from dplab.mechanisms.frank_wolfe import QuadraticLoss
from dplab.mechanisms.local_sensitivity import alg11_parameters
from dplab.mechanisms.purification import LqBall
from dplab.preprocessing.clusters import PreprocessedDataset
from dplab.theory.smooth_rdp import gaussian_mechanism

PACKAGES = ("accounting", "theory", "mechanisms", "learning", "audit", "preprocessing", "data")
#: The front-door modules of ``dplab`` (``import dplab; dplab.train_dpsgd(...)``), walked like the packages' modules.
FRONT_DOOR = ("train", "purify", "account", "calibrate", "verify")


# --------------------------------------------------------------------------------------------------------------------
# Kinds of numeric argument: which scalar values are allowed (every entry of an array argument must be allowed).
# --------------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    name: str
    allowed: Callable[[float], bool]


def _whole(x: float) -> bool:
    return math.isfinite(x) and x == round(x)


KINDS = {
    "real": Kind("a finite number", math.isfinite),
    "not_nan": Kind("any number but NaN (±inf allowed)", lambda x: not math.isnan(x)),
    "pos": Kind("a finite number > 0", lambda x: math.isfinite(x) and x > 0),
    "nonneg": Kind("a finite number >= 0", lambda x: math.isfinite(x) and x >= 0),
    "prob": Kind("a probability in (0, 1)", lambda x: 0 < x < 1),
    "prob0": Kind("a probability in [0, 1)", lambda x: 0 <= x < 1),
    "prob1": Kind("a probability in (0, 1]", lambda x: 0 < x <= 1),
    "prob01": Kind("a probability in [0, 1]", lambda x: 0 <= x <= 1),
    "logp": Kind("a log-probability in (-inf, 0)", lambda x: -math.inf < x < 0),
    "logp_inf": Kind("a log-probability in [-inf, 0)", lambda x: x < 0),
    "logp1": Kind("a log-probability in (-inf, 0]", lambda x: -math.inf < x <= 0),
    "pos_inf": Kind("a number > 0 (inf allowed)", lambda x: x > 0),
    "order_inf": Kind("a Rényi order > 1 (inf allowed)", lambda x: x > 1),
    "nonneg_inf": Kind("a number >= 0 (inf allowed)", lambda x: x >= 0),
    "order1": Kind("a finite Rényi order >= 1", lambda x: math.isfinite(x) and x >= 1),
    "logp_inf1": Kind("a log-probability in [-inf, 0]", lambda x: x <= 0),
    "not_below_one": Kind("a number >= 1 (inf allowed)", lambda x: x >= 1),
    "not_inf": Kind("a finite number or NaN (NaN marks a missing value)", lambda x: not math.isinf(x)),
    "size": Kind("a whole number >= 1", lambda x: _whole(x) and x >= 1),
    "count": Kind("a whole number >= 0", lambda x: _whole(x) and x >= 0),
    "order": Kind("a Rényi order > 1 (finite)", lambda x: math.isfinite(x) and x > 1),
    "labels": Kind("labels in {-1, +1}", lambda x: x in (-1.0, 1.0)),
    "int": Kind("a whole number (any sign)", _whole),
    "bits": Kind("bits in {0, 1}", lambda x: x in (0.0, 1.0)),
    "log_density": Kind("a log-mass or log-density in [-inf, inf)", lambda x: x < math.inf),
}

#: The kind of an argument from its name, unless an example overrides it (``None``: not mutated).
KIND_BY_NAME = {
    **dict.fromkeys(["eps", "epsilon", "epsilon0", "eps0", "eps_tilde", "epsilon_prime", "eps_prime"], "nonneg"),
    **dict.fromkeys(
        [
            "sigma",
            "scale",
            "laplace_scale",
            "noise_scale",
            "sensitivity",
            "lr",
            "L",
            "diameter",
            "radius",
            "bound_x",
            "bound_y",
            "zeta",
            "gap",
            "beta",
            "eta",
            "lipschitz",
            "mu",
            "kappa",
            "beta_smooth",
            "clip_norm",
            "max_norm",
            "inverse_temperature",
            "lambda_max",
            "lambda_min",
            "tau",
            "gamma",
            "epsilon_max",
            "tol",
            "w_star_norm",
            "rho",
        ],
        "pos",
    ),
    "shift": "nonneg",
    **dict.fromkeys(["delta", "delta_tilde", "delta0", "delta_prime"], "prob0"),
    **dict.fromkeys(["delta_target", "omega", "alpha_level", "missing_rate"], "prob"),
    **dict.fromkeys(["log_delta", "log_omega"], "logp"),
    **dict.fromkeys(["log_inv_delta"], "pos"),
    **dict.fromkeys(
        [
            "n",
            "d",
            "k",
            "T",
            "N",
            "rounds",
            "size",
            "runs",
            "steps",
            "n_bits",
            "n_cells",
            "n_vertices",
            "universe_size",
            "iterations",
            "n_scan",
            "batch_size",
            "B",
            "features_imputed",
            "max_cluster_size",
            "n_levels",
            "width",
            "m",
            "i",
            "inputs",
            "hidden",
        ],
        "size",
    ),
    **dict.fromkeys(
        [
            "X",
            "x",
            "utility",
            "counts",
            "data",
            "data_prime",
            "z1",
            "z2",
            "z",
            "theta",
            "means",
            "eigenvalues",
            "weights",
            "values",
        ],
        "real",
    ),
}


def _kind_of(example: Example, argument: str, value: Any) -> str | None:
    """The kind of ``argument``: the example's override, else by name for numeric values (``None``: not mutated)."""
    if argument in example.kinds:
        return example.kinds[argument]
    return KIND_BY_NAME.get(argument) if _is_numeric(value) else None


def _is_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, torch.Tensor):
        return value.numel() > 0 and value.dtype != torch.bool
    if isinstance(value, np.ndarray):
        return value.size > 0 and value.dtype.kind in "fiu"
    return isinstance(value, (int, float, np.integer, np.floating))


# --------------------------------------------------------------------------------------------------------------------
# The registry: valid example arguments of every public function. Keys are <defining module>.<name>.
# --------------------------------------------------------------------------------------------------------------------
@dataclass
class Example:
    """Valid keyword arguments of one public function; ``kinds`` overrides the kind by name (``None`` skips an
    argument); ``shapes`` lists wrongly shaped values per argument; ``named`` is the text the error must contain
    when it differs from the argument's name; ``oversized`` lists argument overrides whose allocation cannot fit in
    memory (the first key must be named in the refusal); ``converts`` lists torch-tensor arguments whose docstring
    states an explicit dtype conversion (their integer/float16 dtypes are then accepted, not refused)."""

    kwargs: dict[str, Any]
    kinds: dict[str, str | None] = field(default_factory=dict)
    shapes: dict[str, list[Any]] = field(default_factory=dict)
    named: dict[str, str] = field(default_factory=dict)
    oversized: list[dict[str, Any]] = field(default_factory=list)
    converts: tuple[str, ...] = ()


def E(kinds=None, shapes=None, named=None, oversized=None, converts=(), **kwargs: Any) -> Example:  # noqa: N802
    """Short constructor for the table."""
    return Example(kwargs, kinds or {}, shapes or {}, named or {}, oversized or [], tuple(converts))


RNG = np.random.default_rng(0)
ORDERS = np.array([1.5, 2.0, 4.0, 8.0, 32.0])
RDP = ORDERS / 2.0
P3 = np.array([0.2, 0.3, 0.5])
Q3 = np.array([0.5, 0.3, 0.2])
X_SMALL = np.random.default_rng(1).normal(size=(6, 2)) / 3
Y_SIGNS = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
X_T = torch.tensor(X_SMALL)
Y_T = torch.tensor(Y_SIGNS)
STATS = sufficient_statistics(X_SMALL / 2, Y_SIGNS / 2)
GRID = UniformGrid(-1.0, 1.0, 8)
ACCOUNTANT_CHECK = check_dpsgd_accountant(noise_multiplier=1.0, steps=2, sampling_rate=0.5, samples=200)
ADJACENCY = np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]])
COUNTS = np.array([5, 2, 1, 0])
QUERIES = np.array([[1, 0, 1, 0], [0, 1, 1, 0]])
X_MISSING = np.array([[0.1, 0.2], [0.3, np.nan], [0.2, 0.1], [0.0, 0.3], [0.1, 0.1]])
X_PCA = np.random.default_rng(2).normal(size=(8, 3))
LIN = LinearLoss()
#: A size far beyond any machine's memory (10^13 float64 values are 80 TB): refused before allocating anywhere.
HUGE = 10**13

ACCOUNTING = {
    "composition.kl_bound_lemma5": E(eps=0.5),
    "composition.basic_composition": E(eps=0.5, delta=1e-5, T=10),
    "composition.drv_epsilon": E(eps=0.5, T=10, delta_tilde=1e-5),
    "composition.drv_delta": E(delta=1e-6, T=10, delta_tilde=1e-5),
    "composition.kov_epsilon_terms": E(eps=0.5, T=10, delta_tilde=1e-5),
    "composition.kov_epsilon": E(eps=0.5, T=10, delta_tilde=1e-5),
    "composition.kov_epsilon_heterogeneous": E(
        eps_steps=np.array([0.1, 0.2]), delta_tilde=1e-5, kinds={"eps_steps": "nonneg"}
    ),
    "composition.kov_delta": E(delta=1e-6, T=10, delta_tilde=1e-5),
    "composition.lower_bound_delta": E(delta=1e-6, T=10),
    "composition.log_lower_bound_delta": E(delta=1e-6, T=10),
    "composition.optimal_log_delta": E(eps=0.5, delta=1e-6, T=5, eps_prime=1.0),
    "composition.optimal_delta": E(eps=0.5, delta=1e-6, T=5, eps_prime=1.0),
    "composition.optimal_epsilon": E(eps=0.5, delta=1e-6, T=5, delta_target=1e-3),
    "composition.kov_pair": E(eps=0.5, delta=1e-6),
    "composition.brute_force_product_delta": E(
        p=P3, q=Q3, T=2, eps_prime=0.5, kinds={"p": "nonneg", "q": "nonneg"}, shapes={"q": [Q3[:2]]}
    ),
    "composition.brute_force_heterogeneous_product_delta": E(
        p_steps=np.array([P3, P3]),
        q_steps=np.array([Q3, Q3]),
        eps_prime=0.5,
        kinds={"p_steps": "nonneg", "q_steps": "nonneg"},
        shapes={"q_steps": [np.array([Q3])]},
    ),
    "composition.cor2_delta": E(eps=0.5, delta=1e-6, T=10, eps_prime=2.0, delta_tilde=1e-5),
    "composition.cor2_delta_first_order": E(eps=0.5, delta=1e-6, T=10, eps_prime=2.0, delta_tilde=1e-5),
    "composition.thm4_delta": E(eps=0.5, delta=1e-6, T=10, eps_prime=2.0, delta_tilde=1e-5),
    "composition.thm4_delta_heterogeneous": E(
        eps_steps=np.array([0.5, 0.5]),
        delta_steps=np.array([1e-6, 1e-6]),
        eps_prime=0.8,
        delta_tilde=1e-5,
        kinds={"eps_steps": "nonneg", "delta_steps": "prob0"},
        shapes={"delta_steps": [np.array([1e-6])]},
    ),
    "composition.lemma6_objective": E(
        alpha=np.array([1.5, 2.0]),
        A=np.array([0.1, 0.2]),
        kinds={"alpha": "pos", "A": "pos"},
        shapes={"A": [np.array([0.1, 0.2, 0.3])]},
    ),
    "composition.lemma6_boundary_maximum": E(
        A=np.array([0.1, 0.2]),
        caps=np.array([3.0, 2.0]),
        product=4.0,
        kinds={"A": "pos", "caps": "pos"},
        shapes={"caps": [np.array([3.0])]},
    ),
    "composition.lemma6_grid_maximum": E(
        A=np.array([0.1, 0.2]),
        caps=np.array([3.0, 2.0]),
        product=4.0,
        points=11,
        kinds={"A": "pos", "caps": "pos", "points": "size"},
        shapes={"caps": [np.array([3.0])]},
    ),
    "composition.cor3_epsilon": E(eps=0.5, T=10, delta_tilde=1e-5),
    "composition.cor3_log_delta_double_prime": E(eps=0.5, T=10, eps_prime=2.0),
    "composition.cor3_delta": E(eps=0.5, delta=1e-6, T=10, delta_tilde=1e-5),
    "composition.min_epsilon_at_target": E(method="kov", eps=0.5, delta=1e-6, T=5, delta_target=1e-3, n_scan=50),
    "calibration.calibrate_dpsgd_sigma": E(
        sampling_rate=0.1, steps=5, epsilon=1.0, log_delta=-10.0, kinds={"sampling_rate": "prob1", "epsilon": "pos"}
    ),
    "conversions.epsilon_from_rdp_cks": E(
        delta=1e-5,
        orders=ORDERS,
        rdp=RDP,
        kinds={"delta": "prob01", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.epsilon_from_rdp_cks_with_order": E(
        delta=1e-5,
        orders=ORDERS,
        rdp=RDP,
        kinds={"delta": "prob01", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.epsilon_from_rdp_mironov": E(
        delta=1e-5,
        orders=ORDERS,
        rdp=RDP,
        kinds={"delta": "prob01", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.epsilon_from_rdp_mironov_with_order": E(
        delta=1e-5,
        orders=ORDERS,
        rdp=RDP,
        kinds={"delta": "prob01", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.gaussian_rdp": E(
        orders=ORDERS, sensitivity=1.0, sigma=2.0, kinds={"orders": "pos", "sensitivity": "nonneg"}
    ),
    "conversions.log_delta_from_rdp_cks": E(
        epsilon=1.0,
        orders=ORDERS,
        rdp=RDP,
        kinds={"epsilon": "not_nan", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.log_delta_from_rdp_cks_with_order": E(
        epsilon=1.0,
        orders=ORDERS,
        rdp=RDP,
        kinds={"epsilon": "not_nan", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.log_delta_from_rdp_mironov": E(
        epsilon=1.0,
        orders=ORDERS,
        rdp=RDP,
        kinds={"epsilon": "not_nan", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "conversions.log_delta_from_rdp_mironov_with_order": E(
        epsilon=1.0,
        orders=ORDERS,
        rdp=RDP,
        kinds={"epsilon": "not_nan", "orders": "order1", "rdp": "nonneg_inf"},
        shapes={"rdp": [RDP[:2]]},
    ),
    "hockey_stick.discrete_hockey_stick": E(
        p=P3, q=Q3, epsilon=0.5, kinds={"p": "nonneg", "q": "nonneg"}, shapes={"q": [Q3[:2]]}
    ),
    "hockey_stick.gaussian_hockey_stick": E(epsilon=0.5, r=1.0, kinds={"r": "nonneg_inf"}),
    "hockey_stick.gaussian_hockey_stick_complement": E(epsilon=0.5, r=1.0, kinds={"r": "nonneg_inf"}),
    "hockey_stick.laplace_hockey_stick": E(epsilon=0.5, shift=1.0, scale=1.0, kinds={"shift": "real"}),
    "hockey_stick.log_gaussian_hockey_stick": E(epsilon=0.5, r=1.0, kinds={"r": "nonneg_inf"}),
    "hockey_stick.log_gaussian_hockey_stick_complement": E(epsilon=0.5, r=1.0, kinds={"r": "nonneg_inf"}),
    "hockey_stick.log_laplace_hockey_stick": E(epsilon=0.5, shift=1.0, scale=1.0, kinds={"shift": "real"}),
    "hockey_stick.projected_laplace_hockey_stick": E(
        epsilon=0.5,
        loc_p=0.0,
        loc_q=1.0,
        lo=0.0,
        hi=1.0,
        scale=1.0,
        kinds={"loc_p": "real", "loc_q": "real", "lo": "real", "hi": "real"},
    ),
    "inversion.epsilon_for_delta": E(log_delta_fn=lambda e: -e, delta=1e-3, kinds={"delta": "prob01"}),
    "renyi.laplace_renyi": E(order=2.0, shift=1.0, scale=1.0, kinds={"order": "order_inf", "shift": "real"}),
    "renyi.discrete_renyi": E(
        log_p=np.log(P3),
        log_q=np.log(Q3),
        order=2.0,
        kinds={"log_p": "logp_inf1", "log_q": "logp_inf1", "order": "order_inf"},
        shapes={"log_q": [np.log(Q3[:2])]},
    ),
}

CONTRACTION = dict(L=1.0, M=1.0, diameter=2.0, lr=0.1, n=10, i=3)
THEORY = {
    "contraction.contraction_modulus": E(lr=0.1, beta_smooth=1.0, rho=0.5, kinds={"rho": "nonneg"}),
    "contraction.epsilon_prop1": E(delta=1e-5, kappa=1.0, kinds={"delta": "prob01"}),
    "contraction.gradient_step_lipschitz": E(lr=0.1, beta_smooth=1.0, rho=0.5, kinds={"rho": "nonneg"}),
    "contraction.lemma4_modulus_as_printed": E(lr=0.1, beta_smooth=1.0, rho=0.5, kinds={"rho": "nonneg"}),
    "contraction.kappa_prop1": E(L=1.0, sigma=1.0, M=1.0, n=10, i=3, kinds={"L": "nonneg", "M": "nonneg"}),
    "contraction.log_delta_prop1": E(epsilon=0.5, kappa=1.0),
    "contraction.log_delta_thm3": E(
        epsilon=0.5, v=1.0, **CONTRACTION, kinds={"L": "nonneg", "M": "nonneg", "v": "pos"}
    ),
    "contraction.log_delta_thm4": E(epsilon=0.5, sigma=1.0, **CONTRACTION, kinds={"L": "nonneg", "M": "nonneg"}),
    "contraction.log_delta_thm5": E(epsilon=0.5, sigma=1.0, **CONTRACTION, kinds={"L": "nonneg", "M": "nonneg"}),
    "contraction.log_projected_gaussian_contraction_exact": E(epsilon=0.5, diameter=1.0, scale=1.0),
    "contraction.pure_dp_threshold_thm3": E(v=1.0, **CONTRACTION, kinds={"L": "nonneg", "M": "nonneg", "v": "pos"}),
    "contraction.pure_dp_threshold_thm3_as_printed": E(
        L=1.0, v=1.0, M=1.0, diameter=2.0, lr=0.1, kinds={"L": "nonneg", "M": "nonneg", "v": "pos"}
    ),
    "generalization.kl_bound_dr16": E(eps=0.5),
    "generalization.kl_bound_drv10": E(eps=0.5),
    "generalization.kl_randomized_response": E(eps=0.5),
    "generalization.thm1_min_sample_size": E(eps=0.5, delta=1e-5, kinds={"delta": "prob", "eps": "pos"}),
    "generalization.thm1_deviation": E(eps=0.5),
    "generalization.thm1_deviation_exact": E(eps=0.5, delta=1e-5, kinds={"delta": "prob", "eps": "pos"}),
    "generalization.thm1_failure_probability": E(eps=0.5, delta=1e-5, kinds={"delta": "prob", "eps": "pos"}),
    "generalization.epsilon_min_for_sample_size": E(N=1000, delta=1e-5, kinds={"delta": "prob", "N": "pos"}),
    "generalization.thm1_bound": E(eps=0.5, delta=1e-5, N=1000, kinds={"delta": "prob", "N": "pos"}),
    "generalization.thm2_on_average": E(eps=0.5, delta=1e-5, k=1, kinds={"delta": "nonneg", "k": "pos"}),
    "generalization.thm3_deviation": E(eps=0.5, delta=1e-5, k=2, kinds={"delta": "nonneg", "k": "pos"}),
    "generalization.thm3_probability_bound": E(eps=0.1, delta=1e-5, k=2, kinds={"delta": "nonneg", "k": "pos"}),
    "generalization.lemma4_sample_size": E(eps=0.1, delta=1e-5, kinds={"delta": "prob", "eps": "pos"}),
    "generalization.lemma4_hoeffding_probability": E(eps=0.1, N=2878, k=11052, kinds={"eps": "pos", "N": "pos"}),
    "generalization.memorizer_probability": E(eps=0.1, alpha=0.3, kinds={"alpha": "nonneg"}),
    "generalization.nissim_stemmer_high_probability": E(eps=0.5, delta=1e-5, kinds={"delta": "nonneg", "eps": "pos"}),
    "generalization.nissim_stemmer_on_average": E(eps=0.5, delta=1e-5, k=1, kinds={"delta": "nonneg", "k": "pos"}),
    "generalization.dwork_2015_high_probability": E(eps=0.5, delta=1e-5, kinds={"delta": "nonneg", "eps": "pos"}),
    "generalization.oneto_high_probability": E(
        eps=0.5, N=1000, empirical_risk=0.1, kinds={"eps": "pos", "N": "pos", "empirical_risk": "nonneg"}
    ),
    "generalization.oneto_variance_high_probability": E(
        eps=0.5, N=1000, variance=0.1, kinds={"eps": "pos", "N": "pos", "variance": "nonneg"}
    ),
    "generalization.sgld_step_epsilon": E(L=1.0, sigma=1.0, tau=10, delta=1e-5, kinds={"delta": "prob"}),
    "generalization.fl_step_epsilon": E(sigma=1.0, tau=10, delta=1e-5, kinds={"delta": "prob"}),
    "generalization.amplify_by_subsampling": E(eps=0.5, q=0.1, kinds={"q": "prob1"}),
    "generalization.linear_amplification_threshold": E(q=0.1, kinds={"q": "prob1"}),
    "generalization.thm7_printed_delta_tilde": E(
        eps_prime=1.0, eps_tilde=0.5, q=0.1, T=10, kinds={"eps_tilde": "pos", "q": "pos", "T": "pos"}
    ),
    "generalization.iterative_privacy": E(
        eps_tilde=0.5,
        q=0.1,
        delta=1e-6,
        T=10,
        delta_tilde=1e-5,
        kinds={"eps_tilde": "nonneg", "q": "pos", "delta": "prob", "delta_tilde": "prob"},
    ),
    "generalization.sgld_privacy": E(N=1000, tau=10, T=10, sigma=1.0, kinds={"N": "pos", "T": "pos"}),
    "generalization.fl_privacy": E(N=1000, tau=10, T=10, sigma=1.0, kinds={"N": "pos", "T": "pos"}),
    "generalization.wang_sgld_threshold": E(
        eps=0.5, delta=1e-5, N=1000, tau=10, kinds={"eps": "pos", "delta": "prob", "N": "pos"}
    ),
    "generalization.composition_iv_epsilon": E(
        eps_steps=np.array([0.1, 0.2]), delta_prime=1e-5, kinds={"eps_steps": "nonneg", "delta_prime": "prob"}
    ),
    "generalization.sgld_linear_loss_delta": E(epsilon=0.5, N=1e4, tau=100, L=1.0, sigma=0.5, steps=2),
    "generalization.generalization_bounds": E(
        eps_prime=0.5, delta_prime=1e-5, N=1000, kinds={"eps_prime": "nonneg", "delta_prime": "prob", "N": "pos"}
    ),
    "purification.check_log_probability": E(
        name="delta", log_value=-3.0, kinds={"log_value": "logp"}, named={"log_value": "log_delta"}
    ),
    "purification.purification_shift": E(
        d=2,
        q=2.0,
        diameter=1.0,
        log_delta=-20.0,
        log_omega=-3.0,
        kinds={"q": "not_below_one"},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
    "purification.purification_laplace_scale": E(shift=0.1, epsilon_prime=0.5, kinds={"epsilon_prime": "pos"}),
    "purification.purified_epsilon": E(epsilon=0.5, shift=0.1, laplace_scale=0.2),
    "purification.utility_l1_bound_as_printed": E(
        d=2,
        diameter=1.0,
        epsilon_prime=0.5,
        log_delta=-20.0,
        log_omega=-3.0,
        kinds={"epsilon_prime": "pos"},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
    "purification.utility_lq_bound_corrected": E(
        d=2,
        q=2.0,
        diameter=1.0,
        epsilon_prime=0.5,
        log_delta=-20.0,
        log_omega=-3.0,
        kinds={"epsilon_prime": "pos", "q": "not_below_one"},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
    "purification.lq_ball_volume_corrected": E(d=2, q=2.0, kinds={"q": "not_below_one"}),
    "purification.lq_ball_volume_as_printed": E(d=2, q=2.0, kinds={"q": "not_below_one"}),
    "purification.lemma6_w_inf_bound": E(tv=0.1, p_min_volume=0.5, d=2, kinds={"tv": "prob01", "p_min_volume": "pos"}),
    "purification.example8_quantities": E(delta_tilde=1e-3, d=2, kinds={"delta_tilde": "prob"}),
    "purification.w_inf_1d": E(quantile_mu=lambda u: u, quantile_nu=lambda u: u + 0.1, n_levels=101),
    "purification.corollary4_parameters": E(n=1000, d=2, diameter=1.0, epsilon=0.5, kinds={"epsilon": "pos"}),
    "purification.zcdp_epsilon": E(rho=0.1, log_inv_delta=10.0, kinds={"rho": "nonneg"}),
    "purification.lemma25_schedule": E(
        n=1000, d=2, epsilon=0.5, log_inv_delta=10.0, diameter=1.0, lipschitz=1.0, kinds={"epsilon": "pos"}
    ),
    "purification.sigma_for_schedule": E(
        gamma=0.1, steps=10, lipschitz=1.0, epsilon=0.5, log_inv_delta=10.0, kinds={"epsilon": "pos", "steps": "pos"}
    ),
    "purification.lemma25_step_size": E(
        n=100, d=2, steps=10, gamma=0.1, sigma=3.0, lipschitz=1.0, diameter=2.0, kinds={"steps": "pos"}
    ),
    "purification.tight_rho": E(epsilon=0.5, log_inv_delta=10.0, kinds={"epsilon": "pos"}),
    "purification.lemma19_parameters": E(
        n=1000, d=2, epsilon=0.5, diameter=1.0, lipschitz=1.0, kinds={"epsilon": "pos"}
    ),
    "purification.lemma19_gradient_count_as_printed": E(
        n=1000, d=2, epsilon=0.5, lipschitz=1.0, kinds={"epsilon": "pos"}
    ),
    "purification.tradeoff_function": E(
        alpha=np.array([0.1, 0.5]), epsilon=0.5, delta=1e-3, kinds={"alpha": "prob01", "delta": "prob01"}
    ),
    "purification.tradeoff_crossing_alpha": E(epsilon=1.0, delta=1e-3, epsilon_prime=0.5, kinds={"delta": "prob"}),
    "purification.folklore_epsilon": E(epsilon=0.5, delta=1e-6, size=10, omega=0.1),
    "purification.theorem2_log_delta_threshold": E(d=2, epsilon=0.5, kinds={"epsilon": "pos"}),
    "purification.theorem2_success_bound": E(d=2),
    "purification.algorithm12_log_delta_as_printed": E(d=2, epsilon=0.5, kinds={"epsilon": "pos"}),
    "purification.table1_rates": E(
        n=1000,
        d=2,
        epsilon=0.5,
        log_inv_delta=10.0,
        lam=0.1,
        k=4,
        log_universe=5.0,
        local_sensitivity=1.0,
        kinds={
            "n": "pos",
            "d": "pos",
            "epsilon": "pos",
            "lam": "pos",
            "k": "pos",
            "log_universe": "pos",
            "local_sensitivity": "pos",
        },
    ),
    "purification.table2_rates": E(n=1000, d=2, epsilon=0.5, kinds={"n": "pos", "d": "pos", "epsilon": "pos"}),
    "purification.lemma26_rho_as_printed": E(gamma=0.1, steps=10.0, sigma=1.0, lipschitz=1.0, kinds={"steps": "pos"}),
    "purification.convex_sgd_bound": E(
        diameter=1.0,
        steps=10.0,
        gradient_second_moment=2.0,
        eta=0.1,
        kinds={"steps": "pos", "gradient_second_moment": "pos"},
    ),
    "purification.convex_sgd_bound_as_printed": E(
        diameter=1.0, steps=10.0, gradient_second_moment=2.0, kinds={"steps": "pos", "gradient_second_moment": "pos"}
    ),
    "purification.theorem9_log_delta_upper_as_printed": E(n=1000, d=2),
    "purification.theorem9_proof_shift": E(d=2, log_delta=-20.0, named={"log_delta": "delta"}),
    "purification.theorem9_shift_requirement": E(n=1000, d=2),
    "purification.algorithm2_shift_as_printed": E(d=2, log_delta=-20.0, named={"log_delta": "delta"}),
    "purification.algorithm2_shift_corrected": E(d=2, log_delta=-20.0, named={"log_delta": "delta"}),
    "purification.algorithm7_shift": E(n=1000, k=2, l1_radius=1.0, kinds={"l1_radius": "pos"}),
    "purification.algorithm11_shift": E(d=2, diameter=1.0, epsilon=0.5, kinds={"epsilon": "pos"}),
    "purification.algorithm13_shift": E(n=1000, d=2, radius=1.0),
    "purification.appendix_d_grid_side": E(
        d=2, diameter=1.0, log_delta=-30.0, log_omega=-3.0, named={"log_delta": "delta", "log_omega": "omega"}
    ),
    "purification.appendix_d_epsilon_bound": E(
        epsilon=0.5,
        log_delta=-30.0,
        log_cells=10.0,
        log_omega=-3.0,
        kinds={"log_cells": "nonneg"},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
    "purification.mixed_worst_pair_epsilon": E(
        epsilon=0.5,
        log_delta=-30.0,
        log_cells=10.0,
        log_omega=-3.0,
        kinds={"log_cells": "nonneg"},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
    "purification.lemma48_threshold": E(k=2, zeta=0.1, kinds={"zeta": "prob"}),
    "purification.laplace_l1_tail": E(k=2, threshold=3.0, kinds={"threshold": "nonneg"}),
    "purification.laplace_l2_mean": E(d=2),
    "purification.algorithm11_bound_log_failure": E(log_delta=-20.0, named={"log_delta": "delta"}),
    "purification.lemma14_min_tv": E(
        p=P3, q=Q3, epsilon=0.5, kinds={"p": "prob01", "q": "prob01"}, shapes={"q": [Q3[:2]]}
    ),
    "smooth_rdp.dp_sgd_sampling_noise_multiplier": E(
        eps=0.5, steps=10, sampling_rate=0.05, kinds={"eps": "pos", "sampling_rate": "prob"}
    ),
    "smooth_rdp.theorem13_alpha_max": E(eps=0.5, steps=10, n=100, kinds={"eps": "pos"}),
    "smooth_rdp.parameter_for_epsilon": E(
        rdp_of=lambda eps0: lambda alpha: 2.0 * alpha * eps0**2,
        epsilon=1.0,
        delta=1e-5,
        alpha_min=1.5,
        kinds={"rdp_of": None, "epsilon": "pos", "delta": "prob", "alpha_min": "order"},
    ),
    "smooth_rdp.gaussian_mechanism": E(eps=0.5, L=1.0, sensitivity=1.0, kinds={"eps": "pos"}),
    "smooth_rdp.laplace_mechanism": E(eps=0.5, L=1.0, sensitivity=1.0, kinds={"eps": "pos"}),
    "smooth_rdp.exponential_mechanism": E(eps=0.5, L=1.0, sensitivity=1.0, kinds={"eps": "pos"}),
    "smooth_rdp.dp_gd_mechanism": E(eps=0.5, L=1.0, mu=1.0, kinds={"eps": "pos"}),
    "smooth_rdp.dp_sgd_sampling_mechanism": E(eps=0.5, L=1.0, mu=1.0, gamma=1.0, kinds={"eps": "pos"}),
    "smooth_rdp.dp_sgd_iteration_mechanism": E(eps=0.5, n=100, kappa=10, kinds={"eps": "pos", "kappa": "size"}),
    "smooth_rdp.factor_pq2": E(alpha=np.array([2.0, 11.0]), kinds={"alpha": "order_inf"}),
    "smooth_rdp.rdp_to_dp_linear": E(c=0.1, delta=1e-5, kinds={"c": "pos", "delta": "prob"}),
    "smooth_rdp.linear_rdp_coefficient_for_epsilon": E(
        epsilon=1.0, delta=1e-5, kinds={"epsilon": "pos", "delta": "prob"}
    ),
    "smooth_rdp.rdp_to_dp": E(rdp=lambda a: 0.1 * a, delta=1e-5, kinds={"delta": "prob"}),
    "smooth_rdp.theorem2_rdp": E(
        mechanism=gaussian_mechanism(0.5),
        alpha=np.array([11.0]),
        tau=2.0,
        p=2.0,
        kinds={"alpha": "order_inf", "tau": "nonneg", "p": "order_inf"},
    ),
    "smooth_rdp.theorem2_rdp_pq2": E(
        mechanism=gaussian_mechanism(0.5),
        alpha=np.array([11.0]),
        tau=2.0,
        kinds={"alpha": "order_inf", "tau": "nonneg"},
    ),
    "smooth_rdp.theorem2_rdp_separate_pq": E(
        mechanism=gaussian_mechanism(0.5),
        alpha=np.array([11.0]),
        tau=2.0,
        kinds={"alpha": "order_inf", "tau": "nonneg"},
    ),
    "smooth_rdp.theorem2_dp_optimised": E(
        mechanism=gaussian_mechanism(0.5), tau=2.0, delta=1e-5, kinds={"tau": "nonneg", "delta": "prob"}
    ),
    "smooth_rdp.dedup_sensitivity": E(max_cluster_size=3),
    "smooth_rdp.quantization_sensitivity": E(eta=0.1, max_cluster_size=3),
    "smooth_rdp.mean_imputation_sensitivity": E(n=100, p=5, kinds={"n": "size", "p": "count"}),
    "smooth_rdp.median_imputation_sensitivity": E(
        x_max_upper_median=1.0,
        x_min_lower_median=0.5,
        kinds={"x_max_upper_median": "real", "x_min_lower_median": "real"},
    ),
    "smooth_rdp.trimmed_mean_imputation_sensitivity": E(
        x_upper=1.0,
        x_lower=0.5,
        n=100,
        m=5,
        p=5,
        kinds={"x_upper": "real", "x_lower": "real", "m": "count", "p": "count"},
    ),
    "smooth_rdp.linear_regression_imputation_sensitivity": E(lambda_max=2.0, lambda_min=0.5),
    "smooth_rdp.pca_covariance_perturbation_bound": E(n=200),
    "smooth_rdp.pca_rank_delta2": E(n=200, gap=0.5),
    "smooth_rdp.pca_dim_delta2": E(n=200, gap=0.5),
    "smooth_rdp.pca_tau": E(n=200, gap=0.5),
    "smooth_rdp.table2_cell": E(
        mechanism="gaussian",
        preprocessing="dedup",
        alpha=np.array([11.0]),
        eps=0.5,
        p=3,
        kinds={"alpha": "order", "eps": "pos", "p": "nonneg"},
    ),
    "smooth_rdp.group_privacy_gaussian_dp": E(m=3, eps=0.5, delta=1e-5, kinds={"eps": "pos", "delta": "prob"}),
    "smooth_rdp.group_privacy_gaussian_rdp": E(
        alpha=np.array([2.0]), m=3, eps=0.5, kinds={"alpha": "order_inf", "eps": "pos"}
    ),
    "smooth_rdp.group_privacy_pure_dp": E(m=3, eps=0.5),
    "smooth_rdp.group_privacy_approximate_dp": E(m=3, eps0=0.5, delta0=1e-6),
    "smooth_rdp.table2_gaussian_dp": E(
        tau=3.0, eps=0.5, delta=1e-5, kinds={"tau": "nonneg", "eps": "pos", "delta": "prob"}
    ),
    "smooth_rdp.theorem7_rho": E(eps=0.5, beta=0.1, kinds={"eps": "pos"}),
    "smooth_rdp.theorem7_epsilon": E(eps=0.5, beta=0.1, delta=1e-5, kinds={"eps": "pos", "delta": "prob"}),
    "smooth_rdp.theorem7_epsilon_corrected": E(
        eps=0.5, beta=0.1, delta=1e-5, n=1000, kinds={"eps": "pos", "delta": "prob"}
    ),
    "smooth_rdp.theorem7_delta_condition": E(eps=0.5, beta=0.1, delta=1e-5, kinds={"eps": "pos", "delta": "prob"}),
    "smooth_rdp.prop8_failure_probability": E(
        n=1000, eps=0.5, delta=1e-5, gap=0.5, beta=0.1, kinds={"eps": "pos", "delta": "prob"}
    ),
    "smooth_rdp.lemma2_subsampled_srdp": E(
        srdp=lambda a, t: 0.1 * a * t,
        alpha=2.0,
        tau=1.0,
        n=100,
        B=10,
        k=0.5,
        kinds={"alpha": "order_inf", "tau": "pos", "k": "pos"},
    ),
    "smooth_rdp.remark1_factor": E(n=100),
    "smooth_rdp.lemma3_fgd_rdp": E(
        alpha=2.0,
        tau=1.0,
        sigma=1.0,
        steps=50,
        first_differing=1,
        n=100,
        L=1.0,
        mu=2.0,
        kinds={
            "alpha": "order_inf",
            "tau": "nonneg",
            "sigma": "pos",
            "first_differing": "size",
            "L": "pos",
            "mu": "pos",
        },
    ),
    "smooth_rdp.theorem13_step_rdp": E(alpha=2.0, eps=0.1, steps=100, kinds={"alpha": "order_inf", "eps": "pos"}),
    "smooth_rdp.dp_sgd_sampling_rdp_dp_accounting": E(
        orders=np.array([2.0, 4.0]),
        eps=0.1,
        steps=100,
        n=100,
        c=2.0,
        kinds={"orders": "order_inf", "eps": "pos", "c": "pos"},
    ),
    "smooth_rdp.prop8_excess_risk_terms": E(
        n=1000,
        eps=1.0,
        delta=1e-5,
        k=1,
        tail_eigenvalue_sum=0.01,
        L=1.0,
        kinds={"eps": "pos", "delta": "prob", "tail_eigenvalue_sum": "nonneg", "L": "pos"},
    ),
    "smooth_rdp.laplace_test_release_probability": E(eps=1.0, delta=1e-5, kinds={"eps": "pos", "delta": "prob"}),
    "smooth_rdp.laplace_mechanism_divergence": E(
        alpha=2.0, eps=1.0, change=1.0, sensitivity=1.0, kinds={"alpha": "order_inf", "eps": "pos", "change": "nonneg"}
    ),
    "smooth_rdp.theorem7_step_a": E(eps=0.5, beta=0.3, delta=1e-5, kinds={"eps": "pos", "delta": "prob"}),
    "smooth_rdp.pca_mean_residual_norm": E(X=np.array([[0.9, 0.1], [-0.9, -0.1]]), k=1),
    "smooth_rdp.equal_residual_dataset": E(
        tail_eigenvalue_sum=0.01, lead=0.9, kinds={"tail_eigenvalue_sum": "nonneg", "lead": "pos"}
    ),
    "smooth_rdp.davis_kahan_bounds": E(
        sigma=np.diag([1.0, 0.5, 0.1]),
        sigma_hat=np.diag([0.9, 0.5, 0.2]),
        k=1,
        kinds={"sigma": "real", "sigma_hat": "real"},
        shapes={"sigma_hat": [np.eye(2)]},
    ),
    "smooth_rdp.gaussian_mixture_renyi": E(
        alpha=2.0,
        means_p=np.array([0.0, 0.0]),
        means_q=np.array([0.0, 1.0]),
        sigma=1.0,
        points=2001,
        kinds={"alpha": "order_inf", "means_p": "real", "means_q": "real", "sigma": "pos", "points": "size"},
        shapes={"means_q": [np.array([0.0, 1.0, 2.0])]},
    ),
    "smooth_rdp.preprocessing_sensitivity_bounds": E(
        step="pca_dim",
        n=100,
        eta=0.1,
        max_cluster_size=5,
        max_missing=3,
        min_gap_k=0.2,
        min_gap_1=0.05,
        kinds={"max_cluster_size": "count", "max_missing": "count", "min_gap_k": "not_inf", "min_gap_1": "not_inf"},
    ),
    "smooth_rdp.gaussian_sum_audit": E(
        alpha=2.0,
        eps=1.0,
        worst_shift=0.5,
        delta_inf_bound=2,
        delta_2_bound=0.5,
        kinds={
            "alpha": "order_inf",
            "eps": "pos",
            "worst_shift": "nonneg",
            "delta_inf_bound": "nonneg",
            "delta_2_bound": "not_inf",
        },
    ),
    "generalization.composition_certificates": E(
        eps=0.5,
        delta=1e-6,
        dt=1e-5,
        steps=np.array([1, 10]),
        kinds={"dt": "prob0"},
        named={"dt": "delta_tilde", "steps": "T"},
    ),
    "generalization.kl_bounds": E(eps=np.array([0.1, 1.0])),
    "generalization.high_probability_bounds": E(
        eps=np.array([0.1, 1.0]), delta=1e-5, kinds={"eps": "pos", "delta": "prob"}
    ),
    "generalization.epsilon_certificates": E(
        eps=0.5,
        steps=np.array([1, 10]),
        delta_tilde=1e-5,
        optimal_delta=1e-5,
        kinds={"delta_tilde": "prob", "optimal_delta": "prob"},
        named={"steps": "T"},
    ),
    "generalization.composition_certificate_rows": E(
        eps=0.5, delta=1e-6, t=10, delta_tilde=1e-5, kinds={"eps": "pos", "t": "size", "delta_tilde": "prob"}
    ),
    "generalization.delta_certificate_columns": E(
        eps=0.5,
        delta=1e-6,
        delta_tilde=1e-5,
        steps=np.array([1, 10]),
        kinds={"delta_tilde": "prob"},
        named={"steps": "T"},
    ),
    "generalization.fair_comparison_rows": E(
        eps=0.5,
        delta=1e-6,
        t=3,
        delta_target=1e-4,
        n_scan=50,
        kinds={"t": "size"},
    ),
    "generalization.sgld_privacy_and_generalization": E(
        N=1000.0,
        tau=10,
        steps=np.array([10, 100]),
        sigma=4.0,
        L=1.0,
        delta=1e-5,
        delta_tilde=1e-6,
        variant="valid",
        named={"steps": "T"},
    ),
    "purification.example8_quantile_1d": E(delta_tilde=0.3, kinds={"delta_tilde": "prob"}),
    "purification.example8_sample_points": E(
        oversized=[{"m": HUGE}], delta_tilde=0.3, m=10, rng=RNG, kinds={"delta_tilde": "prob", "m": "size"}
    ),
    "mean_estimation.theorem9_columns": E(n=100, d=2, epsilon=1.0, log_delta=-10.0, kinds={"epsilon": "pos"}),
    "mean_estimation.mean_estimation_log_delta": E(n=100, d=2),
    "mean_estimation.theorem9_log_delta_range": E(n=100, d=2),
    "mean_estimation.theorem9_lower_bound": E(
        n=100, d=2, epsilon=1.0, log_delta=np.array([-10.0, -20.0]), kinds={"epsilon": "pos", "log_delta": "logp"}
    ),
    "mean_estimation.sample_data_mean": E(
        oversized=[{"d": HUGE}], n=100, d=2, p_plus=0.7, rng=RNG, kinds={"p_plus": "prob01"}
    ),
    "mean_estimation.log10_purification_scale": E(
        d=2, diameter=1.0, log_delta=-20.0, log_omega=-5.0, epsilon_prime=1.0, kinds={"epsilon_prime": "pos"}
    ),
    "contraction.epsilon_thm4": E(
        delta=1e-5,
        L=1.0,
        sigma=1.0,
        M=1.0,
        diameter=2.0,
        lr=0.1,
        n=40,
        i=20,
        kinds={"delta": "prob", "L": "nonneg", "M": "nonneg"},
    ),
    "contraction.thm4_prop1_crossover_diameter": E(
        low=0.1,
        high=5.0,
        delta=1e-5,
        L=1.0,
        sigma=1.0,
        M=1.0,
        lr=0.1,
        n=40,
        i=20,
        kinds={"low": "pos", "high": "pos", "delta": "prob", "L": "nonneg", "M": "nonneg"},
    ),
    "contraction.certified_epsilons": E(
        noise="gaussian",
        users={"first": 1, "middle": 5, "last": 10},
        n=10,
        radius=2.0,
        lr=0.1,
        scale=1.0,
        delta=1e-5,
        L=1.0,
        beta_smooth=0.25,
        kinds={"scale": "nonneg", "delta": "prob"},
    ),
}

LQ = LqBall(center=(0.0, 0.0), diameter=2.0, q=2.0)
MECHANISMS = {
    "mean_release.mean_baseline_errors": E(
        oversized=[{"draws": HUGE}],
        method="gaussian",
        mean=np.array([0.1, -0.2]),
        n=20,
        epsilon=1.0,
        log_delta=-10.0,
        draws=3,
        rng=RNG,
        kinds={"mean": "real", "epsilon": "pos", "draws": "size"},
        shapes={"mean": [np.zeros((2, 2))]},
    ),
    "gaussian.histogram_noise_variances": E(
        epsilon=1.0, deltas=np.array([1e-3, 1e-6]), adjacency="replace_one", kinds={"epsilon": "pos", "deltas": "prob"}
    ),
    "local_sensitivity.random_graphs_edge_flip_check": E(n_graphs=2, n_vertices=4, rng=RNG, kinds={"n_graphs": "size"}),
    "local_sensitivity.k5_audit_parameters": E(epsilon_total=3.0, kinds={"epsilon_total": "pos"}),
    "stability.alg12_variant": E(method="alg12_corrected_uniform"),
    "stability.mode_selection_success_probability": E(
        method="exponential_mechanism",
        gap=5,
        n_bits=3,
        epsilon_total=1.0,
        reference_delta=1e-4,
        n_records=100,
        mode_share=0.3,
        kinds={
            "gap": "count",
            "epsilon_total": "pos",
            "reference_delta": "prob",
            "n_records": "size",
            "mode_share": "prob1",
        },
    ),
    "purification.cube_purification_parameters": E(
        d=2, epsilon=1.0, log_delta=-20.0, log_omega=-4.0, kinds={"epsilon": "pos"}
    ),
    "purification.theorem2_success_at_threshold": E(n_bits=3, epsilon=1.0, kinds={"epsilon": "pos"}),
    "adassp.sufficient_statistics": E(x=X_SMALL, y=Y_SIGNS, kinds={"y": "real"}, shapes={"y": [Y_SIGNS[:3]]}),
    "adassp.adassp_noise_multiplier": E(epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}),
    "adassp.adassp_log_delta_composed": E(epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}),
    "adassp.adassp_log_delta_per_release": E(epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}),
    "adassp.adassp": E(
        oversized=[{"size": HUGE}],
        stats=STATS,
        epsilon=0.5,
        log_delta=-10.0,
        bound_x=1.0,
        bound_y=1.0,
        zeta=0.05,
        size=2,
        rng=RNG,
        kinds={"epsilon": "pos"},
    ),
    "adassp.pure_adassp_parameters": E(
        n=100,
        d=2,
        epsilon=0.5,
        epsilon_prime=0.5,
        bound_x=1.0,
        bound_y=1.0,
        kinds={"epsilon": "pos", "epsilon_prime": "pos"},
    ),
    "adassp.pure_adassp": E(
        oversized=[{"size": HUGE}],
        stats=STATS,
        epsilon=0.5,
        epsilon_prime=0.5,
        bound_x=1.0,
        bound_y=1.0,
        zeta=0.05,
        size=2,
        rng=RNG,
        kinds={"epsilon": "pos", "epsilon_prime": "pos"},
    ),
    "adassp.ssp_l1_sensitivities": E(d=2, bound_x=1.0, bound_y=1.0),
    "adassp.laplace_ssp_ridge": E(d=2, epsilon=0.5, bound_x=1.0, zeta=0.05, kinds={"epsilon": "pos"}),
    "adassp.laplace_ssp": E(
        oversized=[{"size": HUGE}],
        stats=STATS,
        epsilon=0.5,
        bound_x=1.0,
        bound_y=1.0,
        zeta=0.05,
        size=2,
        rng=RNG,
        kinds={"epsilon": "pos"},
    ),
    "adassp.excess_mse": E(theta=np.array([[0.1, 0.2]]), stats=STATS, shapes={"theta": [np.zeros((1, 3))]}),
    "exponential.exponential_mechanism_log_probabilities": E(
        utility=np.array([1.0, 2.0]), epsilon=0.5, sensitivity=1.0, kinds={"epsilon": "pos"}
    ),
    "exponential.exponential_mechanism_logits": E(
        utility=np.array([1.0, 2.0]), epsilon=0.5, sensitivity=1.0, kinds={"epsilon": "pos"}
    ),
    "exponential.sample_exponential_mechanism_gumbel": E(
        utility=np.array([1.0, 2.0]), epsilon=0.5, sensitivity=1.0, rng=RNG, kinds={"epsilon": "pos"}
    ),
    "exponential.sample_exponential_mechanism": E(
        oversized=[{"size": HUGE}],
        utility=np.array([1.0, 2.0]),
        epsilon=0.5,
        sensitivity=1.0,
        size=3,
        rng=RNG,
        kinds={"epsilon": "pos"},
    ),
    "gaussian.agm_log_delta": E(sigma=1.0, epsilon=0.5),
    "gaussian.agm_sigma": E(epsilon=0.5, log_delta=-10.0),
    "gaussian.classical_gaussian_sigma": E(epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}),
    "knorm.sample_l2_knorm": E(
        oversized=[{"size": HUGE}], d=2, sensitivity=1.0, epsilon=0.5, size=3, rng=RNG, kinds={"epsilon": "pos"}
    ),
    "noise_norms.chi_mean": E(d=np.array([1, 4])),
    "noise_norms.laplace_l2_norm_mean": E(d=2, scale=0.5),
    "local_sensitivity.random_graph": E(
        oversized=[{"n_vertices": 10**7}], n_vertices=5, p=0.5, rng=RNG, kinds={"p": "prob01"}
    ),
    "local_sensitivity.common_neighbours": E(
        adjacency=ADJACENCY, kinds={"adjacency": "bits"}, shapes={"adjacency": [ADJACENCY[:3]]}
    ),
    "local_sensitivity.triangle_count": E(
        adjacency=ADJACENCY, kinds={"adjacency": "bits"}, shapes={"adjacency": [ADJACENCY[:3]]}
    ),
    "local_sensitivity.triangle_local_sensitivity": E(
        adjacency=ADJACENCY, kinds={"adjacency": "bits"}, shapes={"adjacency": [ADJACENCY[:3]]}
    ),
    "local_sensitivity.triangle_global_sensitivity": E(n_vertices=5),
    "local_sensitivity.edge_flip_changes": E(
        adjacency=ADJACENCY, kinds={"adjacency": "bits"}, shapes={"adjacency": [ADJACENCY[:3]]}
    ),
    "local_sensitivity.edge_flip_summary": E(graphs=[ADJACENCY]),
    "local_sensitivity.release_errors": E(
        estimates=np.array([1.0, np.nan, 3.0]), truth=2.0, kinds={"estimates": None, "truth": "nonneg"}
    ),
    "local_sensitivity.alg11_parameters": E(diameter=1.0, epsilon=0.5, d=1, kinds={"epsilon": "pos"}),
    "local_sensitivity.ptr_distance_lower_bound": E(
        local_sensitivity=2.0, beta=0.5, kinds={"local_sensitivity": "nonneg", "beta": "nonneg"}
    ),
    "local_sensitivity.propose_test_release": E(
        oversized=[{"size": HUGE}],
        value=3.0,
        distance=5.0,
        beta=1.0,
        epsilon=0.5,
        log_delta=-10.0,
        size=3,
        rng=RNG,
        kinds={"value": "real", "distance": "nonneg", "epsilon": "pos"},
    ),
    "local_sensitivity.pure_propose_test_release": E(
        oversized=[{"size": HUGE}],
        value=3.0,
        distance=5.0,
        beta=1.0,
        epsilon=0.5,
        epsilon_prime=0.5,
        log_delta=-10.0,
        log_omega=-3.0,
        lower=0.0,
        upper=10.0,
        size=3,
        rng=RNG,
        kinds={
            "value": "real",
            "distance": "nonneg",
            "epsilon": "pos",
            "epsilon_prime": "pos",
            "lower": "real",
            "upper": "real",
        },
    ),
    "local_sensitivity.bounded_local_sensitivity_release": E(
        oversized=[{"size": HUGE}],
        value=3.0,
        local_sensitivity=1.0,
        epsilon=0.5,
        log_delta=-10.0,
        lower=0.0,
        upper=10.0,
        size=3,
        rng=RNG,
        kinds={"value": "real", "local_sensitivity": "nonneg", "epsilon": "pos", "lower": "real", "upper": "real"},
    ),
    "local_sensitivity.triangle_alg11_release": E(
        oversized=[{"size": HUGE}],
        adjacency=ADJACENCY,
        params=alg11_parameters(4.0, 0.5),
        size=3,
        rng=RNG,
        kinds={"adjacency": None},
    ),
    "local_sensitivity.triangle_alg10_release": E(
        oversized=[{"size": HUGE}],
        adjacency=ADJACENCY,
        params=alg11_parameters(4.0, 0.5),
        beta=2.0,
        size=3,
        rng=RNG,
        kinds={"adjacency": None},
    ),
    "local_sensitivity.purified_local_sensitivity_release": E(
        oversized=[{"size": HUGE}],
        value=3.0,
        local_sensitivity=1.0,
        params=alg11_parameters(1.0, 0.5),
        lower=0.0,
        size=3,
        rng=RNG,
        kinds={"value": "real", "local_sensitivity": "nonneg", "lower": "real"},
    ),
    "local_sensitivity.global_sensitivity_laplace": E(
        oversized=[{"size": HUGE}],
        value=3.0,
        sensitivity=1.0,
        epsilon=0.5,
        size=3,
        rng=RNG,
        kinds={"value": "real", "epsilon": "pos"},
    ),
    "local_sensitivity.smooth_sensitivity_beta": E(epsilon=0.5, gamma=4.0, kinds={"epsilon": "pos"}),
    "local_sensitivity.triangle_smooth_sensitivity": E(
        local_sensitivity=2.0, n_vertices=5, beta=0.1, kinds={"local_sensitivity": "nonneg"}
    ),
    "local_sensitivity.quartic_log_density": E(z=np.array([0.0, 1.0]), kinds={"z": "not_nan"}),
    "local_sensitivity.sample_quartic": E(oversized=[{"size": HUGE}], size=3, rng=RNG),
    "local_sensitivity.smooth_sensitivity_mechanism": E(
        oversized=[{"size": HUGE}],
        value=3.0,
        smooth_sensitivity=1.0,
        epsilon=0.5,
        size=3,
        rng=RNG,
        kinds={"value": "real", "smooth_sensitivity": "pos", "epsilon": "pos"},
    ),
    "mwem.product_bernoulli_cell_probabilities": E(bias=np.array([0.2, 0.7]), kinds={"bias": "prob01"}),
    "mwem.empirical_histograms": E(
        records=np.array([[0, 3, 1], [2, 2, 0]]),
        n_cells=4,
        kinds={"records": "count"},
        shapes={"records": [np.ones(3)]},
    ),
    "mwem.record_bits_flipped": E(
        sampled=np.array([[0, 3], [2, 1]]),
        purified=np.array([[1, 3], [2, 2]]),
        kinds={"sampled": "count", "purified": "count"},
        shapes={"purified": [np.ones((2, 3), dtype=np.int64)]},
    ),
    "mwem.sample_histograms": E(n=10, bias=np.array([0.2, 0.7]), rng=RNG, kinds={"bias": "prob01"}),
    "mwem.half_subset_queries": E(d=2, k=3, rng=RNG),
    "mwem.conjunction_queries": E(d=3, k=3, rng=RNG, width=2),
    # query_answers and multiplicative_weights_update run once per MWEM round: mwem checks their inputs once.
    "mwem.query_answers": E(
        queries=QUERIES, weights=np.array([0.25, 0.25, 0.25, 0.25]), kinds={"queries": None, "weights": None}
    ),
    "mwem.linf_error": E(
        a=np.array([0.1, 0.2]),
        b=np.array([0.2, 0.2]),
        kinds={"a": "real", "b": "real"},
        shapes={"b": [np.array([0.1, 0.2, 0.3])]},
    ),
    "mwem.multiplicative_weights_update": E(
        log_p=np.log(np.full(4, 0.25)),
        query_rows=QUERIES[:1],
        measurement=np.array([0.5]),
        current_answer=np.array([0.5]),
        kinds={"log_p": None, "query_rows": None, "measurement": None, "current_answer": None},
    ),
    "mwem.mwem": E(
        counts=COUNTS,
        queries=QUERIES,
        n=8,
        rounds=2,
        epsilon0=0.5,
        rng=RNG,
        kinds={"counts": "nonneg", "queries": "prob01", "n": "pos", "epsilon0": "pos"},
        shapes={"queries": [QUERIES[:, :3]]},
    ),
    "mwem.mwem_rounds_fixed_point": E(
        n=1000, d=3, k=10, epsilon=0.5, log_inv_delta=10.0, kinds={"n": "pos", "epsilon": "pos"}
    ),
    "mwem.pure_mwem_rounds_fixed_point": E(n=1000, d=3, k=10, epsilon=0.5, kinds={"n": "pos", "epsilon": "pos"}),
    "mwem.lemma36_rho": E(epsilon=0.5, log_inv_delta=10.0, kinds={"epsilon": "pos", "log_inv_delta": "pos_inf"}),
    "mwem.mwem_zcdp": E(rounds=3, epsilon0=0.5, kinds={"epsilon0": "pos"}),
    "mwem.mwem_epsilon_approx": E(rounds=3, epsilon0=0.5, log_inv_delta=10.0, kinds={"epsilon0": "pos"}),
    "mwem.mwem_epsilon_pure_basic_composition": E(rounds=3, epsilon0=0.5, kinds={"epsilon0": "pos"}),
    "mwem.proportional_sampling": E(
        probabilities=np.array([0.25, 0.75]), m=5, rng=RNG, kinds={"probabilities": "prob01"}
    ),
    "mwem.purify_records": E(
        records=np.array([0, 3, 1]),
        d=2,
        epsilon=0.5,
        log_delta=-10.0,
        rng=RNG,
        kinds={"records": "count", "epsilon": "pos"},
        named={"log_delta": "delta"},
    ),
    "mwem.algorithm16_parameters": E(
        n=1000, d=3, k=10, epsilon=1.0, kinds={"n": "pos", "epsilon": "pos", "log_delta_margin": "pos"}
    ),
    "mwem.laplace_answers": E(
        counts=COUNTS,
        queries=QUERIES,
        n=8,
        epsilon=0.5,
        rng=RNG,
        kinds={"counts": "nonneg", "queries": "prob01", "n": "pos", "epsilon": "pos"},
        shapes={"queries": [QUERIES[:, :3]]},
    ),
    "mwem.laplace_histogram": E(counts=COUNTS, epsilon=0.5, rng=RNG, kinds={"counts": "nonneg", "epsilon": "pos"}),
    "propose_test_release.ptr_distance_statistic": E(
        X=np.random.default_rng(3).normal(size=(101, 3)), k=1, beta=0.1, shapes={"X": [np.zeros(101)]}
    ),
    "propose_test_release.ptr_threshold": E(epsilon=0.5, delta=1e-5, kinds={"epsilon": "pos", "delta": "prob"}),
    "propose_test_release.ptr_refusal_probability": E(
        statistic=3.0, epsilon=0.5, delta=1e-5, kinds={"statistic": "not_nan", "epsilon": "pos", "delta": "prob"}
    ),
    "propose_test_release.ptr_test": E(
        oversized=[{"runs": HUGE}],
        statistic=3.0,
        epsilon=0.5,
        delta=1e-5,
        rng=RNG,
        runs=3,
        kinds={"statistic": "not_nan", "epsilon": "pos", "delta": "prob"},
    ),
    "propose_test_release.ptr_dp_gd_noise": E(n=100, steps=10, epsilon=0.5, L=1.0, kinds={"epsilon": "pos"}),
    "propose_test_release.ptr_pca_dp_gd": E(
        oversized=[{"runs": HUGE}],
        X=np.random.default_rng(3).normal(size=(101, 3)) / 4,
        y=np.where(np.arange(101) % 2, 1.0, -1.0),
        k=1,
        beta=0.1,
        epsilon=0.5,
        delta=1e-5,
        steps=2,
        lr=0.1,
        radius=1.0,
        rng=RNG,
        generator=torch.Generator().manual_seed(0),
        runs=2,
        kinds={"epsilon": "pos", "delta": "prob", "y": "labels"},
        shapes={"y": [np.ones(100)]},
    ),
    "purification.LqBall": E(center=(0.0, 0.0), diameter=2.0, q=2.0, kinds={"q": None}),
    "purification.base_2_53_digits": E(log_p=-1.0, kinds={"log_p": "logp_inf1"}),
    "purification.bernoulli_from_log": E(
        oversized=[{"size": HUGE}], log_p=-1.0, size=3, rng=RNG, kinds={"log_p": "logp_inf1"}
    ),
    "purification.sample_uniform_lq_ball": E(
        oversized=[{"size": HUGE}], q=2.0, d=2, radius=1.0, size=3, rng=RNG, kinds={"q": None}
    ),
    "purification.sign_cube": E(d=3),
    "purification.projected_purified_gaussian": E(
        oversized=[{"draws": HUGE}],
        mean=np.array([0.1, -0.2]),
        sigma=0.3,
        epsilon=0.5,
        log_delta=-10.0,
        log_omega=-3.0,
        draws=4,
        rng=RNG,
        kinds={"mean": "real", "epsilon": "pos", "draws": "size"},
        shapes={"mean": [np.zeros((1, 2))]},
    ),
    "purification.purify": E(
        x_apx=np.array([[0.1, 0.2]]),
        domain=LQ,
        epsilon_prime=0.5,
        log_delta=-10.0,
        log_omega=-3.0,
        rng=RNG,
        kinds={"x_apx": "real", "epsilon_prime": "pos"},
        shapes={"x_apx": [np.array([[0.1, 0.2, 0.3]])]},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
    "purification.purify_bits_log_kernel": E(n_bits=2, laplace_scale=1.0),
    "purification.purify_bits_log_flip_probability": E(laplace_scale=1.0),
    "purification.purify_bits_log_transition": E(
        hamming=np.array([0, 2]), n_bits=2, laplace_scale=1.0, kinds={"hamming": "count"}
    ),
    "purification.discrete_purification_laplace_scale": E(
        n_bits=3, epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}, named={"log_delta": "delta"}
    ),
    "purification.purify_discrete_transition_probability": E(
        hamming=1,
        n_bits=3,
        epsilon=0.5,
        log_delta=-10.0,
        kinds={"hamming": "count", "epsilon": "pos"},
        named={"log_delta": "delta"},
    ),
    "purification.purified_bits_log_pmf": E(
        log_pmf=np.log(np.full(4, 0.25)),
        n_bits=2,
        laplace_scale=1.0,
        kinds={"log_pmf": None},
        shapes={"log_pmf": [np.log(np.full(3, 1 / 3))]},
    ),
    "purification.binmap": E(u=np.array([0, 3, 5]), n_bits=3, kinds={"u": "count"}),
    "purification.binmap_inverse": E(bits=np.array([[0, 1, 1]]), kinds={"bits": "bits"}),
    "purification.discrete_purification_shift": E(n_bits=3, log_delta=-10.0, named={"log_delta": "delta"}),
    "purification.purify_bits": E(
        bits=np.array([[0, 1, 1]]),
        epsilon=0.5,
        log_delta=-10.0,
        rng=RNG,
        kinds={"bits": "bits", "epsilon": "pos"},
        named={"log_delta": "delta"},
    ),
    "purification.purify_discrete": E(
        u_apx=np.array([0, 3, 5]),
        n_bits=3,
        epsilon=0.5,
        log_delta=-10.0,
        rng=RNG,
        kinds={"u_apx": "count", "epsilon": "pos"},
        named={"log_delta": "delta"},
    ),
    "stability.mode_histogram": E(
        n_bits=3,
        n_records=100,
        mode_share=0.3,
        gap=5,
        kinds={"n_records": "size", "mode_share": "prob1", "gap": "count"},
    ),
    "stability.mode_and_distance": E(counts=COUNTS, kinds={"counts": "count"}),
    "stability.code_bits": E(universe_size=4, bottom="uniform"),
    "stability.mode_release_log_delta": E(n_bits=3, epsilon=0.5, kinds={"epsilon": "pos"}),
    "stability.stability_threshold": E(epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}),
    "stability.pass_probability": E(
        distance=np.array([0.0, 3.0]), epsilon=0.5, log_delta=-10.0, kinds={"distance": "nonneg", "epsilon": "pos"}
    ),
    "stability.refuse_probability": E(
        distance=np.array([0.0, 3.0]), epsilon=0.5, log_delta=-10.0, kinds={"distance": "nonneg", "epsilon": "pos"}
    ),
    "stability.distance_to_instability": E(
        oversized=[{"size": HUGE}],
        mode=1,
        distance=3.0,
        epsilon=0.5,
        log_delta=-10.0,
        size=3,
        rng=RNG,
        kinds={"mode": "count", "distance": "nonneg", "epsilon": "pos"},
    ),
    "stability.encode_bottom": E(
        u_apx=np.array([0, 1, -1]), universe_size=4, bottom="uniform", rng=RNG, kinds={"u_apx": None}
    ),
    "stability.decode_bottom": E(codes=np.array([0, 1, 3]), universe_size=3, kinds={"codes": "count"}),
    "stability.pure_mode_release": E(
        counts=COUNTS, epsilon=0.5, size=3, rng=RNG, kinds={"counts": "count", "epsilon": "pos"}
    ),
    "stability.bit_flip_probability": E(
        n_bits=3, epsilon=0.5, log_delta=-10.0, kinds={"epsilon": "pos"}, named={"log_delta": "delta"}
    ),
    "stability.pure_mode_release_pmf": E(
        mode=1,
        distance=3.0,
        universe_size=4,
        epsilon=0.5,
        kinds={"mode": "count", "distance": "nonneg", "epsilon": "pos"},
    ),
    "stability.pure_mode_release_success_probability": E(
        mode=1,
        distance=3.0,
        universe_size=4,
        epsilon=0.5,
        kinds={"mode": "count", "distance": "nonneg", "epsilon": "pos"},
    ),
    "stability.distance_to_instability_pmf": E(
        mode=1,
        distance=3.0,
        universe_size=4,
        epsilon=0.5,
        log_delta=-10.0,
        kinds={"mode": "count", "distance": "nonneg", "epsilon": "pos"},
    ),
    "stability.uniform_bottom_pure_epsilon": E(epsilon=0.5, log_delta=-10.0, universe_size=4, kinds={"epsilon": "pos"}),
    "stability.uniform_bottom_log_delta": E(epsilon=0.5, universe_size=4, kinds={"epsilon": "pos"}),
    "stability.report_noisy_max": E(
        oversized=[{"size": HUGE}],
        counts=COUNTS,
        epsilon=0.5,
        size=3,
        rng=RNG,
        kinds={"counts": "real", "epsilon": "pos"},
    ),
    "stability.report_noisy_max_grouped": E(
        oversized=[{"size": HUGE}],
        values=np.array([5.0, 2.0]),
        multiplicities=np.array([1, 3]),
        epsilon=0.5,
        size=3,
        rng=RNG,
        kinds={"multiplicities": "size", "epsilon": "pos"},
        shapes={"multiplicities": [np.array([1, 3, 1])]},
    ),
    "stability.report_noisy_max_success_probability": E(
        values=np.array([5.0, 2.0]),
        multiplicities=np.array([1, 3]),
        epsilon=0.5,
        kinds={"multiplicities": "size", "epsilon": "pos"},
        shapes={"multiplicities": [np.array([1, 3, 1])]},
    ),
    "stability.exponential_mechanism_selection": E(
        oversized=[{"size": HUGE}],
        counts=COUNTS,
        epsilon=0.5,
        size=3,
        rng=RNG,
        kinds={"counts": "real", "epsilon": "pos"},
    ),
    "adassp.table1_linear_regression_rates": E(
        n=1000, d=5, epsilon=1.0, lambda_min=0.05, log_inv_delta=20.0, kinds={"epsilon": "pos"}
    ),
    "local_sensitivity.proposed_beta": E(n_vertices=1000, p=0.1, kinds={"p": "prob"}),
    "local_sensitivity.margin_beta": E(beta=28.0, epsilon=1.0, log_delta=-35.0, kinds={"epsilon": "pos"}),
    "gaussian.laplace_crossing_delta": E(
        epsilon=1.0,
        l1_sensitivity=1.0,
        l2_sensitivity=1.0,
        kinds={"epsilon": "pos", "l1_sensitivity": "pos", "l2_sensitivity": "pos"},
    ),
}

GD_CONFIG = NoisyGradientConfig(lr=0.1, noise="gaussian", noise_scale=0.5, projection=Ball(1.0), steps=3)
LEARNING = {
    "dp_pca.covariance_sensitivity": E(n=10),
    "dp_pca.dp_pca_noise_scale": E(n=10, epsilon=0.5, delta=1e-5, kinds={"epsilon": "pos", "delta": "prob"}),
    "dp_pca.dp_pca_epsilon": E(n=10, noise_scale=1.0, delta=1e-5, kinds={"delta": "prob"}),
    "dp_pca.dp_pca_subspaces": E(
        oversized=[{"runs": HUGE}],
        X=X_PCA,
        k=1,
        epsilon=0.5,
        delta=1e-5,
        rng=RNG,
        runs=2,
        kinds={"epsilon": "pos", "delta": "prob"},
        shapes={"X": [X_PCA[0]]},
    ),
    "pnsgd_utility.pnsgd_domain": E(noise="gaussian", radius=2.0),
    "pnsgd_utility.pnsgd_config": E(
        noise="gaussian", lr=0.1, scale=0.5, projection=Ball(1.0), kinds={"scale": "nonneg"}
    ),
    "pnsgd_utility.run_summary": E(
        W=np.random.default_rng(3).normal(size=(3, 2)),
        data={"X": X_SMALL, "y": Y_SIGNS, "X_test": X_SMALL, "y_test": Y_SIGNS},
        best_risk=0.1,
        kinds={"W": "real", "best_risk": "real"},
    ),
    "pnsgd_utility.pnsgd_utility_runs": E(
        oversized=[{"runs": HUGE}],
        noise="laplace",
        data={"X": X_SMALL[:, :1], "y": Y_SIGNS, "X_test": X_SMALL[:, :1], "y_test": Y_SIGNS},
        radius=1.0,
        lrs=[0.1],
        noise_scales=[0.5],
        runs=2,
        seed=0,
        kinds={"seed": "count"},
    ),
    "pnsgd_utility.reported_users": E(n=10),
    "pnsgd_utility.logistic_certified_epsilons": E(
        noise="gaussian",
        n=10,
        radius=2.0,
        lr=0.1,
        scale=1.0,
        delta=1e-5,
        feature_bound=1.0,
        kinds={"scale": "nonneg", "delta": "prob", "feature_bound": "pos"},
    ),
    "engine.NoisyGradientConfig": E(
        lr=0.1, noise="gaussian", noise_scale=0.5, steps=3, kinds={"noise_scale": "nonneg"}
    ),
    "engine.per_sample_gradients": E(
        loss=LIN,
        w=torch.zeros(1, 2, dtype=torch.float64),
        X=X_T,
        Y=Y_T,
        kinds={"w": "real", "X": "real", "Y": "real"},
        shapes={"Y": [Y_T[:3]]},
    ),
    "engine.uniform_subsets": E(
        oversized=[{"runs": HUGE}, {"n": HUGE, "size": 10**10}, {"n": HUGE, "size": HUGE // 2}],
        runs=2,
        n=5,
        size=2,
        generator=torch.Generator().manual_seed(0),
    ),
    "engine.noise_steps": E(
        oversized=[{"noise_shape": (HUGE, 1)}],
        kind="gaussian",
        noise_scale=0.5,
        noise_shape=(2, 1),
        steps=3,
        generator=torch.Generator().manual_seed(0),
        kinds={"noise_scale": "nonneg"},
    ),
    "engine.poisson_batches": E(
        oversized=[{"n": HUGE}],
        n=5,
        rate=0.4,
        steps=3,
        generator=torch.Generator().manual_seed(0),
        kinds={"rate": "prob1"},
    ),
    "engine.subset_and_noise_steps": E(
        oversized=[
            {"runs": HUGE},
            {"n": HUGE, "size": 10**10},
            {"n": HUGE, "size": HUGE // 2},
            {"noise_shape": (HUGE, 1)},
        ],
        runs=2,
        n=5,
        size=2,
        steps=3,
        generator=torch.Generator().manual_seed(0),
        noise_scale=0.5,
        noise_shape=(2, 1),
        kinds={"noise_scale": "nonneg"},
    ),
    # clip_by_norm, generalised_linear_gradients, linear_margins and squared_feature_norms run inside the engine's step loop: their tensors
    # are checked once per call of run_noisy_gradient / per_sample_gradients, not per step (not mutated here).
    "module_clipping.ModuleGradientClipper": E(
        model=torch.nn.Linear(2, 1),
        loss_fn=torch.nn.functional.mse_loss,
        clip=1.0,
        kinds={"model": None, "clip": "pos"},
    ),
    "engine.clip_by_norm": E(g=torch.ones(2, 3), max_norm=1.0, kinds={"g": None}),
    # X, Y and w0 are converted to the engine's dtype (its docstring): integer and float16 tensors are accepted.
    "engine.run_noisy_gradient": E(
        oversized=[{"runs": HUGE}],
        converts=("X", "Y", "w0"),
        config=GD_CONFIG,
        loss=LogisticLoss(),
        X=X_T,
        Y=Y_T,
        w0=torch.zeros(2, dtype=torch.float64),
        runs=2,
        generator=torch.Generator().manual_seed(0),
        progress=False,
        kinds={"X": "real", "Y": "labels", "w0": "real"},
        shapes={"Y": [Y_T[:3]], "w0": [torch.zeros((3, 2), dtype=torch.float64)]},
    ),
    "engine.dp_sgd_noise_scale": E(
        noise_multiplier=1.0, clip_norm=1.0, batch_size=10, kinds={"noise_multiplier": "nonneg"}
    ),
    "engine.sgld_noise_scale": E(lr=0.1, inverse_temperature=10.0),
    "dp_erm.algorithm3_dpsgd": E(
        oversized=[{"runs": HUGE}, {"steps": HUGE, "lam": 0.1}],
        loss=LogisticLoss(),
        X=X_T,
        Y=Y_T,
        lam=0.0,
        n=6,
        steps=2,
        sampling="without_replacement",
        gamma=0.5,
        noise_std=1.0,
        eta=0.1,
        clip=1.0,
        radius=1.0,
        runs=2,
        generator=torch.Generator().manual_seed(0),
        kinds={"X": "real", "lam": "nonneg", "gamma": "prob1", "noise_std": "nonneg", "clip": "pos", "runs": "size"},
    ),
    "dp_erm.lemma19_laplace_gd": E(
        oversized=[{"runs": HUGE}],
        loss=LogisticLoss(),
        X=X_T,
        Y=Y_T,
        n=6,
        d=2,
        epsilon=1.0,
        lipschitz=1.0,
        radius=1.0,
        runs=2,
        generator=torch.Generator().manual_seed(0),
        kinds={"X": "real", "epsilon": "pos", "runs": "size"},
    ),
    "dp_erm.grid_in_disc": E(spacing=0.5, radius=1.0, kinds={"spacing": "pos"}),
    "dp_erm.summed_logistic_loss_on_grid": E(
        grid=np.zeros((3, 2)),
        x=X_SMALL,
        y=Y_SIGNS,
        lam=0.1,
        chunk=2,
        kinds={"grid": None, "x": None, "lam": None, "chunk": "size"},
    ),
    "erm.logistic_risk": E(
        theta=np.zeros((3, 2)),
        X=X_SMALL,
        y=Y_SIGNS,
        lam=0.1,
        kinds={"y": "labels", "lam": "nonneg"},
        shapes={"theta": [np.zeros((3, 3))], "y": [Y_SIGNS[:3]]},
    ),
    "erm.logistic_risk_gradient": E(
        theta=np.zeros(2),
        X=X_SMALL,
        y=Y_SIGNS,
        lam=0.1,
        kinds={"y": "labels", "lam": "nonneg"},
        shapes={"theta": [np.zeros(3)], "y": [Y_SIGNS[:3]]},
    ),
    "erm.logistic_smoothness": E(X=X_SMALL, lam=0.1, kinds={"lam": "nonneg"}, shapes={"X": [np.zeros(3)]}),
    "erm.constrained_minimiser": E(
        X=X_SMALL,
        y=Y_SIGNS,
        radius=1.0,
        lam=0.1,
        steps=5,
        kinds={"y": "labels", "lam": "nonneg"},
        shapes={"y": [Y_SIGNS[:3]]},
    ),
    "losses.LinearLoss": E(offset=0.5, kinds={"offset": "real"}),
    "losses.TwoLayerLogisticLoss": E(inputs=2, hidden=3),
    "losses.RegularisedLogisticLoss": E(lam=0.1, kinds={"lam": "nonneg"}),
    "losses.generalised_linear_gradients": E(
        derivative=torch.ones(2, 6, dtype=torch.float64), X=X_T, kinds={"derivative": None, "X": None}
    ),
    "losses.linear_margins": E(w=torch.zeros(1, 2, dtype=torch.float64), X=X_T, kinds={"w": None, "X": None}),
    "losses.squared_feature_norms": E(X=X_T, kinds={"X": None}),
    "projections.Interval": E(a=-1.0, b=1.0, kinds={"a": "real", "b": "real"}),
    "projections.Ball": E(radius=1.0, center=(0.0, 0.0), kinds={"center": None}),
    "pca_logistic.calibrate_eps0": E(
        method="nonprivate_pca", epsilon=1.0, delta=1e-5, gap=0.5, kinds={"epsilon": "pos", "delta": "prob"}
    ),
    "pca_logistic.sgd_budget": E(
        method="nonprivate_pca", epsilon=1.0, delta=1e-5, gap=0.5, kinds={"epsilon": "pos", "delta": "prob"}
    ),
    "pca_logistic.dp_gd": E(
        oversized=[{"runs": HUGE}],
        X=X_SMALL,
        y=Y_SIGNS,
        eps0=1.0,
        steps=2,
        lr=0.1,
        radius=1.0,
        runs=2,
        generator=torch.Generator().manual_seed(0),
        kinds={"y": "labels", "eps0": "pos"},
    ),
    "pca_logistic.dp_sgd": E(
        oversized=[{"runs": HUGE}],
        X=X_SMALL,
        y=Y_SIGNS,
        noise_multiplier=1.0,
        steps=2,
        lr=0.1,
        radius=1.0,
        batch_size=3,
        runs=2,
        generator=torch.Generator().manual_seed(0),
        kinds={"y": "labels", "noise_multiplier": "pos"},
    ),
}

LAW_P = Law1D((0.0,), (0.3,), gauss_weight=0.5, gauss_mean=0.1, gauss_sigma=0.3, uniform_weight=0.2)
LAW_Q = Law1D((0.0,), (0.2,), gauss_weight=0.5, gauss_mean=0.2, gauss_sigma=0.3, uniform_weight=0.3)
INTERVAL = dict(lo=-1.0, hi=1.0)
INTERVAL_KINDS = {"lo": "real", "hi": "real"}

AUDIT = {
    "exponential_enumeration.exponential_mechanism_enumeration": E(
        alpha=2.0,
        eps=1.0,
        taus=np.array([0.5, 1.0]),
        n=1,
        levels=3,
        outputs=3,
        kinds={"alpha": "order_inf", "eps": "pos", "taus": "pos", "levels": "size", "outputs": "size"},
    ),
    "interval_laws.Law1D": E(
        atoms=(0.0,),
        weights=(1.0,),
        gauss_weight=0.5,
        gauss_mean=0.1,
        gauss_sigma=0.3,
        uniform_weight=0.2,
        **INTERVAL,
        kinds={"gauss_weight": "nonneg", "gauss_mean": "real", "gauss_sigma": "pos", "uniform_weight": "nonneg"}
        | INTERVAL_KINDS,
    ),
    "interval_laws.log_uniform_convolved": E(
        x=np.array([0.0, 1.5]), b=0.1, **INTERVAL, kinds={"x": "not_nan", "b": "pos"} | INTERVAL_KINDS
    ),
    "interval_laws.log_gaussian_convolved": E(
        x=np.array([0.0, 1.5]),
        mean=0.1,
        sigma=0.3,
        b=0.1,
        **INTERVAL,
        kinds={"x": "not_nan", "mean": "real", "b": "pos"} | INTERVAL_KINDS,
    ),
    "interval_laws.projected_gaussian_law": E(mean=0.1, sigma=0.3, **INTERVAL, kinds={"mean": "real"} | INTERVAL_KINDS),
    "interval_laws.epsilon_inf_1d": E(
        p=LAW_P, q=LAW_Q, treatment="full", omega=0.1, b=0.1, n_points=101, kinds={"b": "pos", "n_points": "size"}
    ),
    "interval_laws.epsilon_inf_2d_product": E(
        p=(LAW_P, LAW_P),
        q=(LAW_Q, LAW_Q),
        treatment="full",
        omega=0.1,
        b=0.1,
        n_points=21,
        kinds={"b": "pos", "n_points": "size"},
    ),
    "pure_epsilon.directional_log_ratio_sups": E(
        log_p=np.log(P3),
        log_q=np.log(Q3),
        kinds={"log_p": "log_density", "log_q": "log_density"},
        shapes={"log_q": [np.log(Q3[:2])]},
    ),
    "pure_epsilon.pure_epsilon_from_log_pmfs": E(
        log_p=np.log(P3),
        log_q=np.log(Q3),
        kinds={"log_p": "log_density", "log_q": "log_density"},
        shapes={"log_q": [np.log(Q3[:2])]},
    ),
    "grid.UniformGrid": E(a=-1.0, b=1.0, n_cells=8, kinds={"a": "real", "b": "real"}),
    "grid.bin_index": E(samples=np.array([0.0, 0.5]), grid=GRID, kinds={"samples": "not_nan"}),
    "grid.kernel_matrix": E(
        grid=GRID,
        means=np.array(GRID.points),
        scale=0.5,
        noise="gaussian",
        kinds={"means": "real"},
        shapes={"means": [np.zeros((2, 2))]},
    ),
    "mode_transitions.reduced_max_distance": E(
        epsilon=1.0, log_delta=-5.0, extra_distance=1, kinds={"epsilon": "pos", "extra_distance": "count"}
    ),
    "mode_transitions.alg12_audited_releases": E(
        epsilon=1.0,
        universe_size=4,
        delta_rule="corrected",
        bottom="uniform",
        geometries=("corrected",),
        extra_distance=0,
        kinds={"epsilon": "pos", "universe_size": "size", "extra_distance": "count"},
    ),
    "mode_transitions.uniform_calibrated_release": E(
        epsilon=1.0,
        universe_size=4,
        n_bits=2,
        extra_distance=0,
        kinds={"epsilon": "pos", "universe_size": "size", "extra_distance": "count"},
    ),
    "purification_pairs.mean_estimation_audit_1d": E(
        epsilon_total=1.0,
        n=20,
        mean=0.1,
        n_points=101,
        kinds={"epsilon_total": "pos", "mean": "real", "n_points": "size"},
    ),
    "contraction_checks.hockey_stick_lemma_checks": E(epsilon=0.5, shift=1.0, scale=1.0, kinds={"shift": "pos"}),
    "contraction_checks.projected_gaussian_contraction_check": E(epsilon=0.5, diameter=1.0, n_points=2),
    "contraction_checks.unconstrained_gaussian_kernel_check": E(epsilon=0.5, shift=60.0, kinds={"shift": "pos"}),
    "contraction_checks.gaussian_renyi_check": E(
        order=2.0, shift=1.0, scale=1.0, kinds={"order": "order", "shift": "pos"}
    ),
    "quadrature.gaussian_renyi_quadrature": E(order=2.0, shift=1.0, scale=1.0, kinds={"order": "order"}),
    "quadrature.hockey_stick_integral": E(
        p=lambda t: 0.5 * (abs(t) <= 1), q=lambda t: 0.5 * (abs(t - 0.5) <= 1), epsilon=0.5, support=(-2.0, 2.0)
    ),
    "quadrature.projected_gaussian_hockey_stick_quadrature": E(
        epsilon=0.5, y1=0.0, y2=1.0, diameter=1.0, scale=1.0, kinds={"y1": "real", "y2": "real"}
    ),
    "grid.linear_loss_psi": E(lr=0.1),
    "grid.strongly_convex_loss_psi": E(lr=0.1, curvature=0.5, kinds={"curvature": "pos"}),
    "grid.pnsgd_output_laws": E(
        grid=GRID,
        y0=0.0,
        data=np.array([0.1, 0.2]),
        data_prime=np.array([0.1, -0.2]),
        lr=0.1,
        scale=0.5,
        noise="gaussian",
        psi=linear_loss_psi(0.1),
        kinds={"y0": "real"},
        shapes={"data_prime": [np.array([0.1])]},
    ),
    "grid.point_mass": E(grid=GRID, y0=0.0, kinds={"y0": "real"}),
    "grid.privacy_loss_bound": E(
        p=np.full(4, 0.25), q=np.full(4, 0.25), kinds={"p": "nonneg", "q": "nonneg"}, shapes={"q": [np.full(3, 1 / 3)]}
    ),
    "grid.propagate": E(
        grid=GRID,
        initial=np.full(GRID.size, 1 / GRID.size),
        kernels=[np.eye(GRID.size)],
        kinds={"initial": "nonneg"},
        shapes={"initial": [np.full(4, 0.25)]},
    ),
    "instances.audit_instance": E(name="A", n=4, i=2, a=-1.0, b=1.0, L=1.0, kinds={"a": "real", "b": "real"}),
    "accountant_check.check_dpsgd_accountant": E(
        oversized=[
            {"samples": HUGE},
            {"steps": 10**8, "sampling_rate": None, "batch_size": 64, "n": 128, "samples": 2000},
        ],
        noise_multiplier=1.0,
        steps=2,
        sampling_rate=0.5,
        delta=1e-5,
        audit_delta=1e-3,
        accounted_noise_multiplier=1.0,
        samples=200,
        alpha=0.05,
        seed=0,
        kinds={
            "noise_multiplier": "pos",
            "accounted_noise_multiplier": "pos",
            "sampling_rate": "prob1",
            "delta": "prob",
            "audit_delta": "prob",
            "alpha": "prob",
            "samples": None,
            "seed": None,
        },
    ),
    "accountant_check.check_pnsgd_accountant": E(
        oversized=[{"samples": HUGE}, {"steps": HUGE, "position": 1}],
        noise_multiplier=1.0,
        lr=0.5,
        diameter=1.0,
        steps=3,
        position=2,
        delta=1e-5,
        audit_delta=1e-3,
        accounted_noise_multiplier=1.0,
        samples=200,
        alpha=0.05,
        seed=0,
        kinds={
            "noise_multiplier": "pos",
            "accounted_noise_multiplier": "pos",
            "position": "size",
            "delta": "prob",
            "audit_delta": "prob",
            "alpha": "prob",
            "samples": None,
            "seed": None,
        },
    ),
    "accountant_check.dpsgd_event": E(
        noise_multiplier=1.0, sampling_rate=0.5, steps=3, kinds={"noise_multiplier": "pos", "sampling_rate": "prob1"}
    ),
    "accountant_check.monte_carlo_delta_band": E(check=ACCOUNTANT_CHECK, epsilon=np.array([0.0, 1.0])),
    "accountant_check.plot_accountant_check": E(
        check=ACCOUNTANT_CHECK, epsilon_max=2.0, points=5, kinds={"points": "size"}
    ),
    "auditor.checked_audit_samples": E(samples=100, kinds={"samples": "size"}, oversized=[{"samples": HUGE}]),
    "auditor.audit_samplers": E(
        oversized=[{"samples": HUGE}],
        sample_p=lambda size, rng: rng.normal(0.0, 1.0, size),
        sample_q=lambda size, rng: rng.normal(1.0, 1.0, size),
        delta=1e-5,
        samples=200,
        alpha=0.05,
        rng=0,
        kinds={"delta": "prob0", "alpha": "prob", "samples": None},
    ),
    "montecarlo.clopper_pearson": E(
        k=np.array([3]), m=np.array([10]), alpha=0.05, kinds={"k": "count", "m": "size", "alpha": "prob"}
    ),
    "montecarlo.clopper_pearson_lower": E(
        k=np.array([3]), m=np.array([10]), alpha=0.05, kinds={"k": "count", "m": "size", "alpha": "prob"}
    ),
    "montecarlo.clopper_pearson_upper": E(
        k=np.array([3]), m=np.array([10]), alpha=0.05, kinds={"k": "count", "m": "size", "alpha": "prob"}
    ),
    "montecarlo.epsilon_lower_bound_from_counts": E(
        k_p=np.array([8]),
        m_p=np.array([10]),
        k_q=np.array([2]),
        m_q=np.array([10]),
        delta=1e-5,
        alpha=0.05,
        kinds={"k_p": "count", "m_p": "size", "k_q": "count", "m_q": "size", "alpha": "prob"},
    ),
    "montecarlo.event_from_laws": E(
        p=np.full(4, 0.25),
        q=np.full(4, 0.25),
        epsilon=np.array([0.5]),
        kinds={"p": "nonneg", "q": "nonneg"},
        shapes={"q": [np.full(3, 1 / 3)]},
    ),
    "threshold.threshold_event_counts": E(
        samples=np.array([0.1, 0.5, 0.9]),
        thresholds=np.array([0.2, 0.6]),
        atoms=np.array([0.5]),
        kinds={"samples": "not_nan", "thresholds": "not_nan", "atoms": "not_nan"},
        shapes={"samples": [np.zeros((2, 2))], "thresholds": [np.zeros((2, 2))]},
    ),
    "threshold.pure_epsilon_lower_bound": E(
        samples_p=np.array([0.1, 0.5, 0.9]),
        samples_q=np.array([0.2, 0.3, 0.4]),
        thresholds=np.array([0.2, 0.6]),
        alpha=0.05,
        kinds={"alpha": "prob", "samples_p": "not_nan", "samples_q": "not_nan", "thresholds": "not_nan"},
        shapes={"samples_p": [np.zeros((2, 2))], "samples_q": [np.zeros((3, 1))]},
    ),
    "montecarlo.hockey_stick_lower_bound": E(
        in_event_p=np.array([True, False, True]),
        in_event_q=np.array([False, False, True]),
        epsilon=np.array([0.5]),
        alpha=0.05,
        kinds={"alpha": "prob"},
    ),
    "montecarlo.hockey_stick_lower_bound_from_counts": E(
        k_p=np.array([8]),
        m_p=np.array([10]),
        k_q=np.array([2]),
        m_q=np.array([10]),
        epsilon=np.array([0.5]),
        alpha=0.05,
        kinds={"k_p": "count", "m_p": "size", "k_q": "count", "m_q": "size", "alpha": "prob"},
    ),
    "alg11_laplace_step.worst_pair_difference": E(d=3, local_sensitivity=2.5, kinds={"local_sensitivity": "pos"}),
    "alg11_laplace_step.alg11_noise_scale": E(
        beta_hat=2.5, epsilon=0.7, d=3, rule="corrected", kinds={"beta_hat": "pos", "epsilon": "pos"}
    ),
    "alg11_laplace_step.laplace_step_epsilon": E(
        difference=np.array([0.3, -1.2]), scale=1.0, kinds={"difference": "real"}
    ),
    "alg11_laplace_step.laplace_step_epsilon_grid": E(
        difference=np.array([0.3, -1.2]), scale=1.0, n_grid=11, kinds={"difference": "real", "n_grid": "size"}
    ),
    "alg11_laplace_step.beta_hat_mass_below_over_delta": E(
        beta=3.0,
        local_sensitivity=2.5,
        epsilon=0.7,
        log_delta=-20.0,
        kinds={"beta": "real", "local_sensitivity": "pos", "epsilon": "pos"},
    ),
    "alg11_laplace_step.laplace_step_hockey_stick": E(
        beta_hat=2.5,
        local_sensitivity=2.5,
        epsilon=0.7,
        d=2,
        rule="corrected",
        pessimistic=True,
        kinds={"beta_hat": "pos", "local_sensitivity": "pos", "epsilon": "pos"},
    ),
    "alg11_laplace_step.laplace_step_delta_bracket": E(
        local_sensitivity=2.5,
        epsilon=0.7,
        d=2,
        rule="corrected",
        log_delta=-20.0,
        n_beta=1,
        kinds={"local_sensitivity": "pos", "epsilon": "pos", "n_beta": "size"},
    ),
    "purification_pairs.canonical_pair": E(epsilon=0.5, delta=1e-6),
    "purification_pairs.example17_pair": E(delta=1e-6, location=0.3, kinds={"location": "real"}),
    "purification_pairs.projected_gaussian_pair": E(epsilon=1.0, log_delta=-10.0, sensitivity=0.02),
    "purification_pairs.purification_scale_1d": E(
        log_delta=-10.0, omega=0.01, epsilon_prime=1.0, diameter=2.0, kinds={"epsilon_prime": "pos"}
    ),
    "pnsgd_audit.simulated_pnsgd_bin_counts": E(
        oversized=[{"chunk": HUGE}],
        grid=GRID,
        y0=0.2,
        data=np.array([1.0, -1.0]),
        lr=0.5,
        noise="gaussian",
        scale=1.0,
        interval=(-1.0, 1.0),
        L=1.0,
        samples=10,
        chunk=4,
        generator=torch.Generator().manual_seed(0),
        kinds={"y0": "real", "samples": "size", "chunk": "size"},
    ),
    "pnsgd_audit.grid_event_lower_bound": E(
        p=P3,
        q=Q3,
        counts_p=np.array([5, 3, 2]),
        counts_q=np.array([2, 3, 5]),
        samples=10,
        epsilon=np.array([0.0, 0.5]),
        alpha=0.1,
        kinds={
            "p": "nonneg",
            "q": "nonneg",
            "counts_p": "count",
            "counts_q": "count",
            "samples": "size",
            "alpha": "prob",
        },
    ),
    "mode_transitions.all_histograms": E(universe_size=3, n_records=2, kinds={"n_records": "size"}),
    "mode_transitions.mode_and_distance_rows": E(
        histograms=np.array([[2, 1, 0], [0, 1, 2]]), kinds={"histograms": "count"}, shapes={"histograms": [COUNTS]}
    ),
    "mode_transitions.neighbour_transitions": E(universe_size=3, n_records=2, kinds={"n_records": "size"}),
    "mode_transitions.reduced_transitions": E(universe_size=3, max_distance=2, kinds={"max_distance": "count"}),
    "mwem_audit.pure_mwem_transcript_epsilon": E(
        counts_a=np.array([[2.0, 1.0, 1.0, 2.0]]),
        counts_b=np.array([[3.0, 1.0, 1.0, 2.0]]),
        queries=np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0]]),
        n=6,
        rounds=3,
        epsilon0=0.25,
        grid_points=5,
        halfwidth=4.0,
        kinds={
            "counts_a": "nonneg",
            "counts_b": "nonneg",
            "queries": "real",
            "rounds": "size",
            "epsilon0": "pos",
            "grid_points": "size",
        },
        shapes={"counts_a": [np.ones((1, 3))], "queries": [np.ones(4)]},
    ),
    "mwem_audit.algorithm16_sample_log_pmf": E(
        counts=np.array([[2.0, 1.0, 1.0, 2.0]]),
        queries=np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0]]),
        n=6,
        epsilon0=0.25,
        m_records=2,
        grid_points=5,
        kinds={"counts": "nonneg", "queries": "real", "epsilon0": "pos", "m_records": "size", "grid_points": "size"},
        shapes={"counts": [np.ones((1, 3))], "queries": [np.ones(4)]},
    ),
}

PREPROCESSING = {
    "clusters.good_clusters": E(X=X_SMALL, eta=0.1, shapes={"X": [X_SMALL[0]]}),
    "clusters.deduplicate": E(X=X_SMALL, eta=0.1, shapes={"X": [X_SMALL[0]]}),
    "clusters.quantize": E(X=X_SMALL, eta=0.1, shapes={"X": [X_SMALL[0]]}),
    "clusters.pairwise_distances": E(X=X_SMALL, shapes={"X": [X_SMALL[0]]}),
    "imputation.impute": E(X=X_MISSING, method="mean", kinds={"X": "not_inf"}),
    "imputation.mean_impute": E(X=X_MISSING, kinds={"X": "not_inf"}),
    "imputation.median_impute": E(X=X_MISSING, kinds={"X": "not_inf"}),
    "imputation.trimmed_mean_impute": E(X=X_MISSING, m=1, kinds={"X": "not_inf", "m": "count"}),
    "imputation.linear_regression_impute": E(X=X_MISSING, kinds={"X": "not_inf"}),
    "imputation.imputation_order_statistics": E(
        data=X_MISSING, imputable=[1], m=1, kinds={"data": "not_inf", "m": "size"}
    ),
    "imputation.missing_rows": E(X=X_MISSING, kinds={"X": "not_inf"}),
    "pca.covariance": E(X=X_PCA, shapes={"X": [X_PCA[0]]}),
    "pca.top_eigenvectors": E(X=X_PCA, k=1, shapes={"X": [X_PCA[0]]}),
    "pca.eigengap": E(eigenvalues=np.array([3.0, 2.0, 1.0]), k=1),
    "pca.pca_rank_reduce": E(X=X_PCA, k=1, shapes={"X": [X_PCA[0]]}),
    "pca.pca_dim_reduce": E(X=X_PCA, k=1, shapes={"X": [X_PCA[0]]}),
    "pca.check_rank": E(k=1, d=3),
    "sensitivity.empirical_sensitivity": E(
        step=lambda X: X,
        X=X_SMALL,
        i=0,
        z1=np.zeros(2),
        z2=np.ones(2),
        kinds={"i": "count", "X": "not_inf", "z1": "not_inf", "z2": "not_inf"},
        shapes={"z1": [np.zeros(3)]},
    ),
    "sensitivity.realised_sensitivity": E(
        first=PreprocessedDataset(X_SMALL, np.ones(6, bool)),
        second=PreprocessedDataset(X_SMALL, np.ones(6, bool)),
        i=0,
        kinds={"i": "count"},
    ),
    "sensitivity.replacement_measures": E(
        first=PreprocessedDataset(X_SMALL, np.ones(6, bool)),
        second=PreprocessedDataset(X_SMALL, np.ones(6, bool)),
        i=0,
        kinds={"i": "count"},
    ),
    "sensitivity.replace_row": E(
        X=X_SMALL, i=0, z=np.zeros(2), kinds={"i": "count", "X": "not_inf", "z": "not_inf"}, shapes={"z": [np.zeros(3)]}
    ),
    "replacements.neighbouring_pairs": E(
        structure="low_rank", X=X_PCA, eta=0.01, k=1, trials=3, rng=RNG, kinds={"eta": None, "trials": "size"}
    ),
    "replacements.bound_parameters": E(
        structure="low_rank", S1=X_PCA, S2=X_PCA[::-1], eta=0.01, k=1, kinds={"eta": None}
    ),
    "steps.preprocessing_step": E(step="pca_rank", eta=0.1, m=1, k=1, kinds={"m": "count"}),
    "replacements.cluster_replacements": E(
        X=X_PCA, eta=0.01, trials=3, rng=RNG, kinds={"eta": "pos", "trials": "size"}
    ),
    "replacements.imputation_replacements": E(X=X_MISSING, trials=3, rng=RNG, kinds={"X": "not_inf", "trials": "size"}),
    "replacements.pca_replacements": E(X=X_PCA, k=1, trials=3, rng=RNG, kinds={"trials": "size"}),
}

DATA = {
    "preprocessing_datasets.near_duplicate_clusters": E(
        oversized=[{"n": HUGE}], rng=RNG, n=10, d=2, cluster_sizes=[3, 2], eta=0.1
    ),
    "preprocessing_datasets.with_missing_values": E(
        rng=RNG, X=X_SMALL, missing_rate=0.3, imputable=[1], kinds={"missing_rate": "prob0"}
    ),
    "preprocessing_datasets.low_rank_dataset": E(
        oversized=[{"n": HUGE}, {"d": 10**7}],
        rng=RNG,
        n=20,
        d=4,
        k=2,
        tail_sd=0.1,
        kinds={"tail_sd": "nonneg", "scale": "prob1"},
    ),
    "preprocessing_datasets.check_missing_rate": E(rate=0.3, kinds={"rate": "prob0"}, named={"rate": "missing_rate"}),
    "synthetic.logistic_regression_dataset": E(
        oversized=[{"n": 10**9, "d": 10**4}], n=10, d=2, seed=0, kinds={"w_star_norm": "nonneg", "seed": "count"}
    ),
    "synthetic.ball_logistic_dataset": E(oversized=[{"n": HUGE}], n=10, d=2, seed=0, kinds={"seed": "count"}),
    "synthetic.linear_regression_dataset": E(
        oversized=[{"n": HUGE}, {"d": 10**7}],
        n=10,
        d=2,
        eig_min=0.1,
        eig_max=1.0,
        noise_sd=0.05,
        rng=RNG,
        kinds={"eig_min": "pos", "eig_max": "pos", "noise_sd": "nonneg"},
    ),
}


def _linear_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Linear(2, 1, dtype=torch.float64)


def _squared_error(prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return (prediction.squeeze(-1) - target) ** 2


DPSGD = {
    "model": _linear_model(),
    "loss_fn": _squared_error,
    "X": X_T,
    "Y": Y_T,
    "noise_multiplier": 1.0,
    "clip": 1.0,
    "batch_size": 3,
    "steps": 2,
    "lr": 0.1,
    "delta": 1e-5,
    "seed": 0,
}
DPSGD_KINDS = {"noise_multiplier": "pos", "clip": "pos", "delta": "prob", "Y": "real", "seed": "int"}
DPSGD_SHAPES = {"Y": [Y_T[:5], torch.cat([Y_T, Y_T[:1]])], "X": [X_T[0, 0]]}
PURIFY_KINDS = {"epsilon_prime": "pos", "delta": "prob", "omega": "prob", "center": "real", "output": "real"}

FRONT = {
    "train.train_dpsgd": E(
        **DPSGD,
        kinds=DPSGD_KINDS,
        shapes=DPSGD_SHAPES,
        converts=("Y",),
    ),
    "train.train_pure_dp": E(
        **DPSGD,
        radius=10.0,
        epsilon_prime=1.0,
        omega=0.01,
        kinds={**DPSGD_KINDS, "epsilon_prime": "pos", "omega": "prob"},
        shapes=DPSGD_SHAPES,
        converts=("Y",),
    ),
    "purify.project_onto_ball": E(x=np.array([2.0, 0.0]), domain=LqBall((0.0, 0.0), 2.0), shapes={"x": [np.zeros(3)]}),
    "purify.purify_continuous": E(
        output=np.array([0.5, 0.2]),
        epsilon=1.0,
        delta=1e-5,
        epsilon_prime=1.0,
        omega=0.01,
        center=np.zeros(2),
        diameter=4.0,
        q=2.0,
        rng=0,
        kinds={**PURIFY_KINDS, "q": "not_below_one"},
        shapes={"output": [np.zeros(3), np.zeros((2, 2, 2))], "center": [np.zeros((2, 2))]},
        oversized=[{"output": np.broadcast_to(0.0, (HUGE,)), "center": np.broadcast_to(0.0, (HUGE,))}],
    ),
    "purify.purify_integer": E(
        output=np.array([3, 5]),
        epsilon=1.0,
        delta=1e-5,
        n_bits=4,
        rng=0,
        kinds={"output": "int", "epsilon": "pos", "delta": "prob"},
        oversized=[{"output": np.broadcast_to(np.int64(1), (HUGE,))}],
    ),
    "account.pnsgd_curve": E(
        theorem=4,
        noise=1.0,
        lipschitz=1.0,
        contraction_gap=1.0,
        diameter=1.0,
        lr=0.5,
        steps=5,
        position=3,
        kinds={"theorem": None, "noise": "pos", "lipschitz": "nonneg", "contraction_gap": "nonneg", "position": "size"},
    ),
    "account.PNSGDCurve": E(
        theorem=4,
        noise=1.0,
        lipschitz=1.0,
        contraction_gap=1.0,
        diameter=1.0,
        lr=0.5,
        steps=5,
        position=3,
        kinds={"theorem": None, "noise": "pos", "lipschitz": "nonneg", "contraction_gap": "nonneg", "position": "size"},
    ),
    "calibrate.dpsgd_noise_multiplier": E(
        epsilon=1.0,
        delta=1e-5,
        sampling_rate=0.1,
        steps=10,
        kinds={"epsilon": "pos", "delta": "prob", "sampling_rate": "prob1"},
    ),
    "calibrate.gaussian_sigma": E(epsilon=1.0, delta=1e-5, sensitivity=1.0, kinds={"epsilon": "pos", "delta": "prob"}),
    "verify.compare_results": E(
        fresh=tempfile.mkdtemp(), committed=tempfile.mkdtemp(), rtol=1e-6, atol=1e-12, kinds={"rtol": "prob0"}
    ),
    "verify.evidence_numbers_moved": E(old="eps 1.0", new="eps 1.5", rtol=1e-6, kinds={"rtol": "prob0"}),
    "verify.fresh_run_command": E(folder=Path("run"), cores=2, kinds={"cores": "size"}),
    "calibrate.purification_budget": E(total_epsilon=1.0, n=100, d=2, diameter=1.0, kinds={"total_epsilon": "pos"}),
}

#: Public callables that take no numeric argument to check (result records built by checked functions, protocols,
#: functions of objects that were checked when built), with the reason.
NO_NUMERIC_ARGUMENTS = {
    "dplab.train.DPSGDReport": "result record returned by the checked train_dpsgd",
    "dplab.purify.PureRelease": "result record returned by the checked purify_continuous / purify_integer",
    "dplab.calibrate.PurificationBudget": "result record returned by the checked purification_budget",
    "dplab.learning.module_validation.batch_statistics_modules": "takes a module only",
    "dplab.learning.module_validation.validate_private_module": "takes a module only (tests/api/test_train.py)",
    "dplab.verify.Comparison": "result record returned by compare_results",
    "dplab.verify.Finding": "record built by compare_results",
    "dplab.verify.Tally": "record built by compare_results",
    "dplab.verify.column_rule": "takes a column name",
    "dplab.verify.main": "takes command-line strings (argparse checks them)",
    "dplab.accounting.conversions.ConversionResult": "result record returned by the checked conversions",
    "dplab.theory.smooth_rdp.Mechanism": "record built by the checked *_mechanism constructors",
    "dplab.theory.smooth_rdp.LinearInAlpha": "record built by the checked Mechanism.linear_in_alpha",
    "dplab.mechanisms.adassp.SufficientStatistics": "record built by the checked sufficient_statistics",
    "dplab.mechanisms.adassp.PureAdasspParameters": "record built by the checked pure_adassp_parameters",
    "dplab.mechanisms.adassp.ols": "a function of SufficientStatistics, checked when built",
    "dplab.mechanisms.local_sensitivity.Alg11Parameters": "record built by the checked alg11_parameters",
    "dplab.mechanisms.mwem.MwemRun": "result record returned by mwem",
    "dplab.mechanisms.mwem.Algorithm16Parameters": "record built by the checked algorithm16_parameters",
    "dplab.learning.erm.ConstrainedMinimum": "result record returned by the checked constrained_minimiser",
    "dplab.learning.losses.FactoredGradients": "result record returned by generalised_linear_gradients",
    "dplab.learning.losses.LogisticLoss": "no constructor arguments",
    "dplab.learning.layer_gradients.GhostClippingUnsupported": "an exception type",
    "dplab.learning.layer_gradients.Call": "record of one layer call, built from the tensors a forward hook saw",
    "dplab.learning.layer_gradients.ParameterGradients": "a Protocol (interface), not called",
    "dplab.learning.layer_gradients.layer_refusal": "takes a module only",
    "dplab.learning.module_clipping.ghost_unsupported": "takes a module only",
    "dplab.learning.projections.NoProjection": "no constructor arguments",
    "dplab.audit.auditor.AuditResult": "a result record built by audit_samplers",
    "dplab.audit.accountant_check.AccountantCheck": "a result record built by check_dpsgd_accountant",
    "dplab.learning.projections.Projection": "a Protocol (interface), not called",
    "dplab.audit.instances.AuditInstance": "record built by the checked audit_instance",
    "dplab.audit.montecarlo.HockeyStickLowerBound": "result record returned by the checked lower bounds",
    "dplab.audit.threshold.PureEpsilonLowerBound": "result record returned by pure_epsilon_lower_bound",
    "dplab.preprocessing.clusters.PreprocessedDataset": "record built by the checked deduplicate/quantize",
    "dplab.preprocessing.sensitivity.EmpiricalSensitivity": "result record returned by empirical_sensitivity",
    "dplab.preprocessing.sensitivity.as_preprocessed": "wraps the output of a pre-processing step, no numbers",
    "dplab.data.preprocessing_datasets.LowRankDataset": "record built by the checked low_rank_dataset",
    "dplab.theory.frank_wolfe.Algorithm7Parameters": "record built by the checked algorithm7_parameters",
    "dplab.mechanisms.frank_wolfe.least_squares_loss": "takes an iterable of (x, y) chunks, each checked",
    "dplab.mechanisms.frank_wolfe.PurifiedFrankWolfe": "result record returned by the checked purified_frank_wolfe",
    "dplab.audit.pnsgd_audit.AuditViolation": "an exception type",
    "dplab.audit.pnsgd_audit.first_of_largest": "takes a frame of audit rows and column names",
    "dplab.audit.pnsgd_audit.worst_instances": "takes a frame of audit rows",
    "dplab.audit.pnsgd_audit.bound_violations": "takes a frame of audit rows and column names",
    "dplab.preprocessing.replacements.Replacement": "record built by the checked replacement generators",
    "dplab.mechanisms.local_sensitivity.audit_graph_pair": "takes no arguments",
    "dplab.audit.mode_transitions.AuditedModeRelease": "record built by the checked alg12_audited_releases and "
    "uniform_calibrated_release",
    "dplab.audit.mode_transitions.max_pure_epsilon_over_transitions": "takes transitions and a pmf function; the "
    "pure epsilon of each pair is checked by pure_epsilon_from_log_pmfs",
}


# Purified DP Frank-Wolfe (dplab.theory.frank_wolfe, dplab.mechanisms.frank_wolfe)
FW_LOSS = QuadraticLoss(np.eye(3), np.array([0.2, -0.1, 0.0]), 0.05)
FW_PHI = np.random.default_rng(6).normal(size=(3, 3))
FW_POS = {"l1_radius": "pos", "smoothness": "pos"}
FRANK_WOLFE_THEORY = {
    "frank_wolfe.frank_wolfe_steps": E(
        n=100, epsilon=1.0, lipschitz=2.0, smoothness=1.0, l1_radius=1.0, kinds={"epsilon": "pos", **FW_POS}
    ),
    "frank_wolfe.sketch_dimension": E(n=100, d=50, steps=5),
    "frank_wolfe.algorithm6_laplace_scale": E(
        n=100,
        epsilon=1.0,
        steps=5,
        log_inv_delta=10.0,
        lipschitz=2.0,
        l1_radius=1.0,
        kinds={"epsilon": "pos", **FW_POS},
    ),
    "frank_wolfe.pure_frank_wolfe_laplace_scale": E(
        n=100, epsilon=1.0, steps=5, lipschitz=2.0, l1_radius=1.0, kinds={"epsilon": "pos", **FW_POS}
    ),
    "frank_wolfe.algorithm7_parameters": E(
        n=100, d=50, epsilon=1.0, lipschitz=2.0, smoothness=1.0, l1_radius=1.0, kinds={"epsilon": "pos", **FW_POS}
    ),
    "frank_wolfe.lemma46_recovery_bound": E(
        sparsity=4, tolerance=0.1, distortion=0.25, kinds={"sparsity": "size", "tolerance": "pos", "distortion": "prob"}
    ),
    "frank_wolfe.purification_term_as_printed": E(
        n=100, k=5, epsilon=1.0, lipschitz=2.0, l1_radius=1.0, kinds={"epsilon": "pos", **FW_POS}
    ),
    "frank_wolfe.purification_term_corrected": E(
        n=100, k=5, steps=3, epsilon=1.0, lipschitz=2.0, l1_radius=1.0, kinds={"epsilon": "pos", **FW_POS}
    ),
    "frank_wolfe.lemma28_bound": E(
        n=100,
        d=5,
        epsilon=1.0,
        steps=3,
        log_inv_delta=10.0,
        lipschitz=2.0,
        smoothness=1.0,
        l1_radius=1.0,
        kinds={"epsilon": "pos", **FW_POS},
    ),
    "frank_wolfe.theorem4_rate": E(
        n=100, epsilon=1.0, lipschitz=2.0, smoothness=1.0, l1_radius=1.0, kinds={"epsilon": "pos", **FW_POS}
    ),
    "frank_wolfe.lemma30_lower_bound": E(n=100, d=5, epsilon=1.0, kinds={"epsilon": "pos"}),
}
FRANK_WOLFE_MECHANISMS = {
    "frank_wolfe.QuadraticLoss": E(
        gram=np.eye(2),
        linear=np.array([0.1, 0.2]),
        constant=0.5,
        kinds={"gram": "real", "linear": "real", "constant": "real"},
        shapes={"gram": [np.eye(3)], "linear": [np.zeros((2, 2))]},
    ),
    "frank_wolfe.l1_vertex_scores": E(
        gradient=np.array([0.1, -0.2]), l1_radius=1.0, kinds={"gradient": "real", **FW_POS}
    ),
    "frank_wolfe.report_noisy_min": E(
        scores=np.array([0.1, 0.3]), noise_scale=0.5, rng=RNG, kinds={"scores": "real", "noise_scale": "nonneg"}
    ),
    "frank_wolfe.frank_wolfe_l1": E(
        loss=FW_LOSS, l1_radius=1.0, steps=3, noise_scale=0.1, rng=RNG, kinds={"noise_scale": "nonneg", **FW_POS}
    ),
    "frank_wolfe.frank_wolfe_gap": E(
        loss=FW_LOSS, theta=np.array([0.1, 0.0, 0.0]), l1_radius=1.0, kinds=FW_POS, shapes={"theta": [np.zeros(2)]}
    ),
    "frank_wolfe.project_l1_ball": E(v=np.array([0.9, -0.8]), l1_radius=1.0, kinds={"v": "real", **FW_POS}),
    "frank_wolfe.l1_ball_minimiser": E(
        loss=FW_LOSS,
        l1_radius=1.0,
        gap_tolerance=1e-8,
        max_steps=50,
        kinds={"gap_tolerance": "pos", "max_steps": "size", **FW_POS},
    ),
    "frank_wolfe.clip_l1": E(theta=np.array([0.9, -0.8]), l1_radius=1.0, kinds=FW_POS),
    "frank_wolfe.gaussian_sketch": E(oversized=[{"d": HUGE}], k=2, d=3, rng=RNG),
    "frank_wolfe.sparse_recovery_lp": E(
        b=np.array([0.1, 0.2, 0.0]),
        phi=FW_PHI,
        tolerance=0.01,
        kinds={"b": "real", "phi": "real", "tolerance": "nonneg"},
        shapes={"b": [np.zeros(2)], "phi": [np.zeros(3)]},
    ),
    "frank_wolfe.purified_frank_wolfe": E(
        theta_fw=np.array([0.5, 0.0, 0.0]),
        phi=FW_PHI,
        l1_radius=1.0,
        epsilon=1.0,
        log_delta=-30.0,
        log_omega=-3.0,
        tolerance=0.5,
        rng=RNG,
        kinds={"theta_fw": "real", "phi": "real", "epsilon": "pos", "tolerance": "nonneg", **FW_POS},
        shapes={"theta_fw": [np.zeros(2)]},
        named={"log_delta": "delta", "log_omega": "omega"},
    ),
}


def _qualified(package: str, table: dict[str, Example]) -> dict[str, Example]:
    return {f"dplab.{package}.{key}": example for key, example in table.items()}


EXAMPLES: dict[str, Example] = {
    **_qualified("accounting", ACCOUNTING),
    **_qualified("theory", THEORY),
    **_qualified("theory", FRANK_WOLFE_THEORY),
    **_qualified("mechanisms", MECHANISMS),
    **_qualified("mechanisms", FRANK_WOLFE_MECHANISMS),
    **_qualified("learning", LEARNING),
    **_qualified("audit", AUDIT),
    **_qualified("preprocessing", PREPROCESSING),
    **_qualified("data", DATA),
    **{f"dplab.{key}": example for key, example in FRONT.items()},
}


# --------------------------------------------------------------------------------------------------------------------
# Enumeration of the public functions.
# --------------------------------------------------------------------------------------------------------------------
def _public_modules() -> list[str]:
    """The modules of the packages (not private ones) and the front-door modules."""
    names = [f"dplab.{name}" for name in FRONT_DOOR]
    for package_name in PACKAGES:
        package = importlib.import_module(f"dplab.{package_name}")
        names += [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    return [name for name in names if not name.rsplit(".", 1)[1].startswith("_")]


def _public_callables() -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {}
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__.startswith("dplab."):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


PUBLIC = _public_callables()


def test_every_public_function_is_registered():
    registered = set(EXAMPLES) | set(NO_NUMERIC_ARGUMENTS)
    missing = sorted(set(PUBLIC) - registered)
    assert not missing, f"public functions without an entry in EXAMPLES or NO_NUMERIC_ARGUMENTS: {missing}"
    stale = sorted(registered - set(PUBLIC))
    assert not stale, f"entries for names that are not public functions: {stale}"
    assert not set(EXAMPLES) & set(NO_NUMERIC_ARGUMENTS)


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for key, example in EXAMPLES.items():
        for argument, value in example.kwargs.items():
            kind = _kind_of(example, argument, value)
            if kind is not None:
                cases.append((key, argument, kind))
    return cases


CASES = _cases()
SHAPE_CASES = [
    (key, argument, index)
    for key, example in EXAMPLES.items()
    for argument, bad in example.shapes.items()
    for index in range(len(bad))
]


def _fresh(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A deep copy (generators restart, arrays are not shared between calls)."""
    return {
        name: (
            np.random.default_rng(0)
            if isinstance(value, np.random.Generator)
            else torch.Generator().manual_seed(0)
            if isinstance(value, torch.Generator)
            else copy.deepcopy(value)
        )
        for name, value in kwargs.items()
    }


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_valid_example_is_accepted(key):
    _call(key, _fresh(EXAMPLES[key].kwargs))


def _call(key: str, kwargs: dict[str, Any]) -> Any:
    """Call the function; a generator is advanced once, so that its checks run."""
    result = PUBLIC[key](**kwargs)
    return next(result) if inspect.isgenerator(result) else result


_EDGES = [
    math.nan,
    math.inf,
    -math.inf,
    0.0,
    -0.0,
    -1.0,
    1.0,
    2.0,
    0.5,
    1.5,
    -0.5,
    2.5,
    -1e-300,
    1e-300,
    1e300,
    -1e300,
    3.0,
    0.25,
]


@functools.cache
def _bad_values(kind: Kind) -> st.SearchStrategy[float]:
    """The values outside ``kind``; built once per kind (a fresh filtered strategy per draw costs Hypothesis a
    validation and a parse of the filter's source every time, most of this file's run time)."""
    return st.one_of(st.sampled_from(_EDGES), st.floats(), st.integers(-(10**6), 10**6).map(float)).filter(
        lambda x: not kind.allowed(x)
    )


def _with_bad_entry(value: Any, bad: float) -> Any:
    """``value`` with its first entry (all of it for a scalar) replaced by ``bad``; integer arrays become float."""
    if isinstance(value, torch.Tensor):
        out = value.clone().to(torch.float64 if not value.is_floating_point() else value.dtype)
        out.view(-1)[0] = bad
        return out
    if isinstance(value, np.ndarray):
        out = value.astype(np.float64)
        out.flat[0] = bad
        return out
    return bad


def _names_argument(message: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(text)}(?![A-Za-z0-9_])", message) is not None


def _assert_refused(key: str, kwargs: dict[str, Any], argument: str, errors=(ValueError, TypeError)) -> None:
    example = EXAMPLES[key]
    with pytest.raises(errors) as info:
        _call(key, kwargs)
    text = example.named.get(argument, argument)
    assert _names_argument(str(info.value), text), f"{key}: the error for {argument} does not name it: {info.value}"


@pytest.mark.parametrize(
    ("key", "argument", "kind"), CASES, ids=[f"{k.removeprefix('dplab.')}-{a}" for k, a, _ in CASES]
)
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(data=st.data())
def test_bad_value_is_refused_naming_the_argument(key, argument, kind, data):
    example = EXAMPLES[key]
    bad = data.draw(_bad_values(KINDS[kind]), label=argument)
    kwargs = _fresh(example.kwargs)
    kwargs[argument] = _with_bad_entry(kwargs[argument], bad)
    _assert_refused(key, kwargs, argument)


_BAD_VALUE_SETTINGS = test_bad_value_is_refused_naming_the_argument._hypothesis_internal_use_settings


@pytest.fixture(autouse=True)
def _restore_hypothesis_settings():
    """Hypothesis's pytest plugin gives each parametrized case a child of the previous case's settings; the database
    (None under derandomize, so never cached) is looked up through every parent, and after ~1300 cases the lookup
    overflows the recursion limit. Restoring the settings after each case keeps the chain one level deep."""
    yield
    test_bad_value_is_refused_naming_the_argument._hypothesis_internal_use_settings = _BAD_VALUE_SETTINGS


@pytest.mark.parametrize(
    ("key", "argument", "index"), SHAPE_CASES, ids=[f"{k.removeprefix('dplab.')}-{a}-{i}" for k, a, i in SHAPE_CASES]
)
def test_wrong_shape_is_refused_naming_the_argument(key, argument, index):
    kwargs = _fresh(EXAMPLES[key].kwargs)
    kwargs[argument] = copy.deepcopy(EXAMPLES[key].shapes[argument][index])
    _assert_refused(key, kwargs, argument)


def test_counts():
    """The numbers quoted in the report: functions covered and cases generated."""
    assert len(PUBLIC) == len(EXAMPLES) + len(NO_NUMERIC_ARGUMENTS)
    print(
        f"\n{len(PUBLIC)} public callables: {len(EXAMPLES)} with examples, {len(NO_NUMERIC_ARGUMENTS)} without "
        f"numeric arguments; {len(CASES)} (function, argument) value cases "
        f"x 12 Hypothesis draws; {len(SHAPE_CASES)} wrong-shape cases; {len(BOOLEAN_CASES)} boolean, "
        f"{len(COMPLEX_CASES)} complex, {len(DTYPE_CASES)} tensor-dtype, {len(LENGTH_CASES)} length-mismatch and "
        f"{len(OVERSIZED_CASES)} oversized cases"
    )


# --------------------------------------------------------------------------------------------------------------------
# Classes of bad input that do not depend on the argument's kind: booleans, complex values, tensor dtypes, length
# mismatches and oversized allocations.
# --------------------------------------------------------------------------------------------------------------------
def _mutated_cases(include: Callable[[Example, str, Any, str], bool]) -> list[tuple[str, str]]:
    return [
        (key, argument)
        for key, example in EXAMPLES.items()
        for argument, value in example.kwargs.items()
        if (kind := _kind_of(example, argument, value)) is not None and include(example, argument, value, kind)
    ]


def _params(cases: list[tuple]) -> list[Any]:
    """pytest parameters with readable ids."""
    return [
        pytest.param(*case, id="-".join(str(part) for part in (case[0].removeprefix("dplab."), *case[1:])))
        for case in cases
    ]


def _is_array(value: Any) -> bool:
    return isinstance(value, (np.ndarray, torch.Tensor))


#: Every numeric argument gets a boolean (a scalar True; an array of booleans), except where booleans are the data
#: ("bits" and {0, 1} event memberships).
BOOLEAN_CASES = _mutated_cases(lambda example, argument, value, kind: kind != "bits")
COMPLEX_CASES = _mutated_cases(lambda example, argument, value, kind: True)
DTYPE_CASES = [
    (key, argument, dtype)
    for key, argument in _mutated_cases(
        lambda example, argument, value, kind: isinstance(value, torch.Tensor) and value.is_floating_point()
    )
    for dtype in ("int64", "float16", "complex128")
]


def _as_booleans(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return torch.ones_like(value, dtype=torch.bool)
    if isinstance(value, np.ndarray):
        return np.ones(value.shape, dtype=bool)
    return True


def _with_imaginary_part(value: Any) -> Any:
    """``value`` with its first entry given an imaginary part 1 (the real parts stay valid)."""
    if isinstance(value, torch.Tensor):
        out = value.to(torch.complex128).clone()
        out.view(-1)[0] += 1j
        return out
    if isinstance(value, np.ndarray):
        out = value.astype(np.complex128)
        out.flat[0] += 1j
        return out
    return complex(value, 1.0)


@pytest.mark.parametrize(("key", "argument"), _params(BOOLEAN_CASES))
def test_boolean_is_not_a_number(key, argument):
    """``True`` is refused (TypeError naming the argument), never read as 1; arrays of booleans likewise."""
    kwargs = _fresh(EXAMPLES[key].kwargs)
    kwargs[argument] = _as_booleans(kwargs[argument])
    errors = (TypeError, ValueError) if _is_array(kwargs[argument]) else TypeError
    _assert_refused(key, kwargs, argument, errors)


@pytest.mark.parametrize(("key", "argument"), _params(COMPLEX_CASES))
def test_complex_value_is_refused_not_truncated(key, argument):
    kwargs = _fresh(EXAMPLES[key].kwargs)
    kwargs[argument] = _with_imaginary_part(kwargs[argument])
    _assert_refused(key, kwargs, argument)


@pytest.mark.parametrize(("key", "argument", "dtype"), _params(DTYPE_CASES))
def test_tensor_of_another_dtype_is_refused_or_converted_as_documented(key, argument, dtype):
    """A torch tensor of integers, float16 or complex numbers is refused naming the argument, unless the example
    declares the explicit conversion its docstring states (complex is refused whatever is declared)."""
    example = EXAMPLES[key]
    kwargs = _fresh(example.kwargs)
    kwargs[argument] = kwargs[argument].to(getattr(torch, dtype))
    if argument in example.converts and dtype != "complex128":
        _call(key, kwargs)
    else:
        _assert_refused(key, kwargs, argument)


#: Pairs of arguments whose first axes must agree (examples, labels, neighbouring datasets, paired laws).
LENGTH_PAIRS = (("X", "Y"), ("X", "y"), ("x", "y"), ("data", "data_prime"), ("values", "multiplicities"))


def _length_mismatches(value: Any) -> list[Any]:
    """``value`` one row short and one row long (the last row repeated)."""
    if isinstance(value, torch.Tensor):
        return [value[:-1], torch.cat([value, value[-1:]])]
    return [value[:-1], np.concatenate([value, value[-1:]])]


LENGTH_CASES = [
    (key, first, second, index)
    for key, example in EXAMPLES.items()
    for first, second in LENGTH_PAIRS
    if _is_array(example.kwargs.get(first))
    and _is_array(example.kwargs.get(second))
    and len(example.kwargs[first]) == len(example.kwargs[second]) >= 2
    for index in range(2)
]


@pytest.mark.parametrize(("key", "first", "second", "index"), _params(LENGTH_CASES))
def test_length_mismatch_is_refused_naming_both(key, first, second, index):
    """Arguments of different lengths are refused, the error naming both (never truncated to the shorter)."""
    kwargs = _fresh(EXAMPLES[key].kwargs)
    kwargs[second] = _length_mismatches(kwargs[second])[index]
    _assert_refused(key, kwargs, second)
    with pytest.raises((ValueError, TypeError)) as info:
        _call(key, kwargs)
    assert _names_argument(str(info.value), first), f"{key}: the error does not name {first}: {info.value}"


OVERSIZED_CASES = [(key, index) for key, example in EXAMPLES.items() for index in range(len(example.oversized))]
#: Peak Python-tracked allocation allowed while refusing an oversized call: the check runs before allocating.
REFUSAL_PEAK_BYTES = 64 * 2**20


@pytest.mark.parametrize(("key", "index"), _params(OVERSIZED_CASES))
def test_oversized_allocation_is_refused_before_allocating(key, index):
    """Sizes whose allocation cannot fit in memory are refused (ValueError naming the size argument and the memory)
    with less than REFUSAL_PEAK_BYTES allocated (numpy allocations are traced by tracemalloc)."""
    example = EXAMPLES[key]
    overrides = example.oversized[index]
    kwargs = {**_fresh(example.kwargs), **overrides}
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            _call(key, kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    argument = next(iter(overrides))
    assert _names_argument(str(info.value), argument), f"{key}: the error does not name {argument}: {info.value}"
    assert "memory" in str(info.value), f"{key}: the error does not say what does not fit: {info.value}"
    assert peak < REFUSAL_PEAK_BYTES, f"{key}: {peak / 2**20:.0f} MiB allocated before the refusal"


#: Argument names that count draws, runs or samples: every function taking one allocates in proportion to it, so
#: its example must declare an oversized case (or appear below with the reason it does not allocate).
SAMPLE_COUNT_NAMES = ("size", "samples", "runs", "draws")
SIZES_NOT_ALLOCATED = {
    "dplab.audit.grid.bin_index": "samples is the array of outputs to bin, already allocated by the caller",
    "dplab.audit.threshold.threshold_event_counts": "samples is the array of outputs to count, already allocated",
    "dplab.audit.pnsgd_audit.grid_event_lower_bound": "samples is the count behind given bin counts, not drawn",
    "dplab.audit.pnsgd_audit.simulated_pnsgd_bin_counts": "draws samples in chunks; chunk is the checked size",
    "dplab.mechanisms.stability.pure_mode_release": "its draws are distance_to_instability's, checked there",
    "dplab.theory.purification.folklore_epsilon": "size is a parameter of a formula",
}


def test_every_sample_count_has_an_oversized_case():
    unchecked = sorted(
        key
        for key, example in EXAMPLES.items()
        if set(example.kwargs) & set(SAMPLE_COUNT_NAMES) and not example.oversized and key not in SIZES_NOT_ALLOCATED
    )
    assert not unchecked, f"functions drawing a number of samples without an oversized case: {unchecked}"
    stale = sorted(set(SIZES_NOT_ALLOCATED) - set(EXAMPLES))
    assert not stale, f"entries for names without an example: {stale}"
