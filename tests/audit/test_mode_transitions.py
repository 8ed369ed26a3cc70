"""Neighbouring-histogram transitions of the mode release (Algorithm 12 of Lin, Wang, Ma, Wang) and the exact
pure epsilon over them: the vectorised enumeration against a loop over Python lists, the reduced superset, ties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dplab.audit.mode_transitions import (
    all_histograms,
    max_pure_epsilon_over_transitions,
    mode_and_distance_rows,
    neighbour_transitions,
    reduced_transitions,
)


def _mode_and_distance(hist: list[int]) -> tuple[int, int]:
    """f(D) (first index of the largest count) and ceil((occ1 - occ2) / 2), written out with Python lists."""
    mode = hist.index(max(hist))
    second = max(c for i, c in enumerate(hist) if i != mode)
    return mode, -(-(hist[mode] - second) // 2)


def _transitions_by_loops(size: int, n_records: int) -> set[tuple[int, int, int, int]]:
    """Every histogram as a tuple of counts summing to n_records, every move of one record from i to j != i."""
    found = set()
    for hist in itertools.product(range(n_records + 1), repeat=size):
        if sum(hist) != n_records:
            continue
        for i, j in itertools.permutations(range(size), 2):
            if hist[i] > 0:
                moved = list(hist)
                moved[i] -= 1
                moved[j] += 1
                found.add((*_mode_and_distance(list(hist)), *_mode_and_distance(moved)))
    return found


@pytest.mark.parametrize("size, n_records", [(2, 5), (3, 4), (4, 3)])
def test_neighbour_transitions_match_loops(size, n_records):
    assert neighbour_transitions(size, n_records) == _transitions_by_loops(size, n_records)


def test_all_histograms_and_their_modes():
    hist = all_histograms(3, 4)
    assert hist.shape == (15, 3) and (hist.sum(axis=1) == 4).all() and len({tuple(h) for h in hist}) == 15
    expected = [_mode_and_distance(list(h)) for h in hist.tolist()]
    assert mode_and_distance_rows(hist).tolist() == [list(e) for e in expected]


@pytest.mark.parametrize("n_bits, n_records", [(1, 8), (2, 7), (3, 5)])
def test_reduced_transitions_contain_all_replace_one_transitions(n_bits, n_records):
    exhaustive = neighbour_transitions(2**n_bits, n_records)
    assert exhaustive <= reduced_transitions(2**n_bits, n_records)
    # mode changes only between distances <= 1, and both kinds occur
    assert all(k <= 1 and k2 <= 1 for a, k, b, k2 in exhaustive if a != b)
    assert any(a != b for a, _, b, _ in exhaustive)


def test_worst_transition_is_the_first_of_rounding_ties():
    """Two transitions whose ε differ only in the last bits name the first in sorted order, whichever is larger."""
    base = np.array([0.5, 0.25, 0.25])
    laws = {(0, 0): base, (1, 0): base, (0, 1): np.array([0.25, 0.5, 0.25])}
    laws[(1, 1)] = laws[(0, 1)] * (1 + 1e-15)  # the later transition's ε is larger by rounding only
    value, worst = max_pure_epsilon_over_transitions({(1, 0, 1, 1), (0, 0, 0, 1)}, lambda m, k: laws[(m, k)])
    assert worst == (0, 0, 0, 1) and value == pytest.approx(np.log(2.0))
    zero, none = max_pure_epsilon_over_transitions({(0, 0, 1, 0)}, lambda m, k: laws[(m, k)])
    assert zero == 0.0 and none == ()


def test_worst_transition_ties_near_zero_epsilon_are_absolute():
    """At ε ≈ 1e-10 a rounding difference of 1e-15 is 1e-5 relative: still a tie (first in sorted order); a
    difference of 1e-11 is not (the larger names the transition)."""
    base = np.array([0.5, 0.5])
    laws = {(0, 0): base, (1, 0): base, (2, 0): base}
    laws[(0, 1)] = np.array([0.5 * np.exp(1e-10), 1 - 0.5 * np.exp(1e-10)])
    laws[(1, 1)] = np.array([0.5 * np.exp(1e-10 + 1e-15), 1 - 0.5 * np.exp(1e-10 + 1e-15)])
    laws[(2, 1)] = np.array([0.5 * np.exp(1e-10 + 1e-11), 1 - 0.5 * np.exp(1e-10 + 1e-11)])
    value, worst = max_pure_epsilon_over_transitions({(1, 0, 1, 1), (0, 0, 0, 1)}, lambda m, k: laws[(m, k)])
    assert worst == (0, 0, 0, 1) and value == pytest.approx(1e-10, rel=1e-4)
    value, worst = max_pure_epsilon_over_transitions({(2, 0, 2, 1), (0, 0, 0, 1)}, lambda m, k: laws[(m, k)])
    assert worst == (2, 0, 2, 1) and value == pytest.approx(1.1e-10, rel=1e-4)


def test_reduced_max_distance_written_out():
    from dplab.audit.mode_transitions import reduced_max_distance

    assert reduced_max_distance(0.5, -7.3, 2) == math.ceil(7.3 / 0.5) + 1 + 2
    assert reduced_max_distance(1.0, -3.0, 0) == 3 + 1


@pytest.mark.parametrize("bottom", ["uniform", "reserved"])
def test_alg12_audited_releases_are_laws_within_theorem6(bottom):
    from dplab.audit.mode_transitions import (
        alg12_audited_releases,
        max_pure_epsilon_over_transitions,
        neighbour_transitions,
    )

    eps, size = 1.0, 4
    releases = alg12_audited_releases(eps, size, "corrected", bottom, ("corrected", "as_printed"), 1)
    assert [r.treatment for r in releases] == ["alg12_geometry_corrected", "alg12_geometry_as_printed", "unpurified"]
    exhaustive = neighbour_transitions(size, 3)
    for release in releases:
        assert sum(release.pmf(0, 2)) == pytest.approx(1.0, abs=1e-12)
        assert exhaustive <= release.reduced
        value, _ = max_pure_epsilon_over_transitions(release.reduced, release.pmf)
        if release.treatment.startswith("alg12"):
            assert release.bound == 2 * eps and value <= 2 * eps + 1e-9  # Theorem 6
        elif bottom == "reserved":
            assert release.bound == math.inf and value == math.inf  # the bare ⊥ is not pure
        else:
            assert value <= release.bound + 1e-9


def test_uniform_calibrated_release_is_epsilon_dp():
    from dplab.audit.mode_transitions import max_pure_epsilon_over_transitions, uniform_calibrated_release

    release = uniform_calibrated_release(0.7, 8, 3, 0)
    assert (release.treatment, release.delta_rule, release.bound, release.code_bits) == (
        "unpurified",
        "uniform_calibrated",
        0.7,
        3,
    )
    assert math.isnan(release.max_distance)
    value, _ = max_pure_epsilon_over_transitions(release.reduced, release.pmf)
    assert value == pytest.approx(0.7, abs=1e-9)
