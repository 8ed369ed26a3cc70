"""Deduplication and quantization on hand-made datasets (Sec. 4.1, App. C.1)."""

import numpy as np
import pytest

from dplab.preprocessing import deduplicate, good_clusters, quantize

ETA = 0.1
# Two tight clusters on a line, one isolated point, one 'bad' point at distance 0.2 ∈ (η, 3η] of a cluster.
HAND = np.array([[0.0, 0.0], [0.05, 0.0], [0.0, 0.05], [0.6, 0.0], [0.62, 0.0], [-0.7, 0.0], [0.0, 0.75], [0.0, 0.95]])


def test_good_clusters_hand_made():
    centre = good_clusters(HAND, ETA)
    # {0,1,2} is a good cluster around 0 (size 3, largest first); {3,4} good around 3 (index tie-break);
    # 5 is an isolated singleton; 6 and 7 are 0.2 apart, inside (η, 3η]: neither is a good centre.
    assert centre.tolist() == [0, 0, 0, 3, 3, 5, -1, -1]


def test_deduplicate_keeps_centres_removes_members():
    out = deduplicate(HAND, ETA)
    assert out.kept.tolist() == [True, False, False, True, False, True, True, True]
    assert np.all(out.values[~out.kept] == 0) and np.array_equal(out.values[out.kept], HAND[out.kept])


def test_quantize_maps_members_to_centre_within_eta():
    out = quantize(HAND, ETA)
    assert np.array_equal(out.values[:3], np.repeat(HAND[[0]], 3, 0))
    assert np.array_equal(out.values[3:5], np.repeat(HAND[[3]], 2, 0))
    assert np.array_equal(out.values[5:], HAND[5:])
    assert np.linalg.norm(out.values - HAND, axis=1).max() <= ETA


def test_chain_and_ties():
    # 1 is the only good centre of the chain (0 and 2 see a point in (η, 3η]); it takes all three.
    assert good_clusters(np.array([[0.0, 0.0], [0.09, 0.0], [0.18, 0.0]]), ETA).tolist() == [1, 1, 1]
    # Overlapping good clusters are identical (B(c1,η) = B(c2,η)); the tie goes to the smaller index.
    assert good_clusters(np.array([[0.0, 0.0], [0.05, 0.0], [0.5, 0.0]]), ETA).tolist() == [0, 0, 2]
    # Everything within 3η but not within η: no good cluster at all.
    assert good_clusters(np.array([[0.0, 0.0], [0.15, 0.0], [0.3, 0.0]]), ETA).tolist() == [-1, -1, -1]


@pytest.mark.parametrize("eta", [0.0, -1.0, float("nan")])
def test_bad_eta_raises(eta):
    with pytest.raises(ValueError, match="eta="):
        quantize(HAND, eta)
