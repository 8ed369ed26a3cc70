"""dplab.check_dpsgd_accountant: the engine's sum statistic has its closed-form law, the upper bounds dominate the
exact Gaussian curve, and the verdict flips: consistent (exact accountant), violated (σ over-claimed 3x), loose
(σ under-claimed), with the sampler mismatch flagged for shuffled batches."""

import math

import numpy as np
import pytest
from scipy.stats import binom, kstest, norm

import dplab
from dplab.audit.accountant_check import LOOSE_FACTOR, _sum_statistic_sampler


def sum_statistic_cdf(x, sigma, steps, inclusion_counts, weights):
    """CDF of Σ b_t + N(0, T σ²) when Σ b_t takes ``inclusion_counts`` with probabilities ``weights``."""
    scale = sigma * math.sqrt(steps)
    return sum(w * norm.cdf((np.asarray(x) - k) / scale) for k, w in zip(inclusion_counts, weights))


@pytest.mark.parametrize(
    "sampling, batch_size, n, steps, counts, weights",
    [
        ("poisson", 1, 4, 6, range(7), binom.pmf(range(7), 6, 0.25)),  # Σ b_t ~ Binomial(T, q)
        ("shuffled", 1, 4, 8, [2], [1.0]),  # two epochs: the record is in exactly one batch of each
        ("shuffled", 2, 5, 2, [0, 1], [0.2, 0.8]),  # one epoch of 2 batches, 1 of 5 records dropped
    ],
)
def test_engine_sum_statistic_has_its_closed_form_law(sampling, batch_size, n, steps, counts, weights):
    sample = _sum_statistic_sampler(0.7, batch_size, n, steps, sampling, one=True)
    values = sample(20_000, np.random.default_rng(1))
    assert kstest(values, lambda x: sum_statistic_cdf(x, 0.7, steps, counts, weights)).pvalue > 1e-3


def test_neighbour_without_the_record_is_pure_noise():
    values = _sum_statistic_sampler(0.7, 1, 4, 6, "poisson", one=False)(20_000, np.random.default_rng(2))
    assert kstest(values, norm(0.0, 0.7 * math.sqrt(6)).cdf).pvalue > 1e-3


def gaussian_delta(epsilon, sigma):
    """Exact δ(ε) of the Gaussian mechanism N(0, σ²) vs N(1, σ²) (Balle and Wang 2018, Theorem 8)."""
    return norm.cdf(0.5 / sigma - epsilon * sigma) - np.exp(epsilon) * norm.cdf(-0.5 / sigma - epsilon * sigma)


def test_exact_accountant_is_consistent_and_its_bounds_dominate_the_exact_curve():
    check = dplab.check_dpsgd_accountant(noise_multiplier=1.0, steps=1, sampling_rate=1.0, samples=40_000, seed=3)
    assert check.verdict == "consistent" and not check.sampler_mismatch
    assert "not applicable" in check.contraction
    epsilon = np.array([0.5, 2.0, 4.0])
    exact, upper = gaussian_delta(epsilon, 1.0), check.delta_upper(epsilon)
    assert np.all(exact <= upper["pld"]) and np.all(upper["pld"] <= exact * 1.05)  # PLD: pessimistic, nearly exact
    assert np.all(exact <= upper["rdp"])
    upper_at_audit = min(check.audit_epsilon_upper.values())
    assert 0 < check.audit.epsilon_lower_bound <= upper_at_audit <= 1.6 * check.audit.epsilon_lower_bound


def test_accountant_told_three_times_the_noise_is_violated():
    check = dplab.check_dpsgd_accountant(
        noise_multiplier=1.0, steps=4, batch_size=1, n=2, accounted_noise_multiplier=3.0, samples=40_000, seed=4
    )
    assert check.verdict == "violated"
    assert check.audit.epsilon_lower_bound > max(check.audit_epsilon_upper.values())
    assert check.evidence.startswith("violated")


def test_accountant_told_a_third_of_the_noise_is_loose():
    check = dplab.check_dpsgd_accountant(
        noise_multiplier=3.0, steps=4, batch_size=1, n=2, accounted_noise_multiplier=1.0, samples=40_000, seed=5
    )
    assert check.verdict == "loose"
    assert min(check.audit_epsilon_upper.values()) > LOOSE_FACTOR * check.audit.epsilon_lower_bound


def test_shuffled_batches_are_flagged_as_a_sampler_mismatch():
    check = dplab.check_dpsgd_accountant(
        noise_multiplier=1.0, steps=4, batch_size=1, n=4, sampling="shuffle", samples=20_000, seed=6
    )
    assert check.sampling == "shuffled" and check.sampler_mismatch
    assert "SAMPLER MISMATCH" in check.evidence and "'shuffled'" in check.evidence


def test_batch_and_dataset_sizes_enter_only_through_their_reduced_ratio():
    reduced = dplab.check_dpsgd_accountant(noise_multiplier=1.0, steps=3, batch_size=1, n=2, samples=2_000, seed=7)
    scaled = dplab.check_dpsgd_accountant(noise_multiplier=1.0, steps=3, batch_size=3, n=6, samples=2_000, seed=7)
    assert scaled.sampling_rate == reduced.sampling_rate == 0.5
    assert scaled.audit == reduced.audit


@pytest.mark.parametrize(
    "arguments, key",
    [
        ({"sampling": "random"}, "sampling"),
        ({"sampling": "shuffled", "sampling_rate": 0.5}, "sampling_rate"),
        ({"sampling_rate": 0.5, "batch_size": 1, "n": 2}, "sampling_rate"),
        ({"batch_size": 5, "n": 4}, "batch_size"),
        ({"sampling_rate": 1 / math.pi}, "sampling_rate"),
        ({"sampling_rate": 0.5, "noise_multiplier": 0.0}, "noise_multiplier"),
        ({"sampling_rate": 0.001, "samples": 10**6}, "samples"),
    ],
)
def test_bad_input_names_the_argument(arguments, key):
    base = {"noise_multiplier": 1.0, "steps": 2}
    if "sampling_rate" not in arguments and "batch_size" not in arguments:
        base["sampling_rate"] = 0.5
    with pytest.raises(ValueError, match=key):
        dplab.check_dpsgd_accountant(**{**base, **arguments})


def test_figure_draws_both_accountants_and_the_monte_carlo_bound(tmp_path):
    from dplab.report.style import save_figure

    check = dplab.check_dpsgd_accountant(noise_multiplier=1.0, steps=2, sampling_rate=0.5, samples=4_000, seed=8)
    figure = dplab.plot_accountant_check(check)
    labels = [line.get_label() for line in figure.axes[0].get_lines()]
    assert any("RDP" in label for label in labels) and any("PLD" in label for label in labels)
    assert "Monte-Carlo lower bound" in labels
    save_figure(figure, tmp_path / "check")
    assert (tmp_path / "check.png").stat().st_size > 0


def test_projected_single_pass_checks_the_contraction_bound():
    """One step on a wide domain: Theorem 4 (i = n) is the Gaussian mechanism's exact curve, as is the PLD; the
    audit (no clamping in practice) is consistent with both."""
    check = dplab.check_pnsgd_accountant(noise_multiplier=1.0, lr=0.5, diameter=20.0, steps=1, samples=40_000, seed=9)
    assert check.contraction.startswith("applicable") and not check.sampler_mismatch
    assert check.epsilon_upper["contraction"] == pytest.approx(check.epsilon_upper["pld"], rel=0.01)
    assert check.verdict == "consistent"
    earlier = dplab.check_pnsgd_accountant(
        noise_multiplier=1.0, lr=0.5, diameter=1.0, steps=10, position=8, samples=2_000, seed=9
    )
    assert earlier.epsilon_upper["contraction"] < 0.6 * earlier.epsilon_upper["pld"]  # amplification by iteration
    assert set(earlier.delta_upper([1.0])) == {"rdp", "pld", "contraction"}


def test_contraction_bound_told_three_times_the_noise_is_violated():
    check = dplab.check_pnsgd_accountant(
        noise_multiplier=1.0,
        lr=0.5,
        diameter=1.0,
        steps=10,
        position=8,
        accounted_noise_multiplier=3.0,
        samples=40_000,
        seed=10,
    )
    assert check.verdict == "violated"
    assert check.audit.epsilon_lower_bound > check.audit_epsilon_upper["contraction"]
