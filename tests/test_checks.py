"""dplab.checks: bad values are named with what is allowed; valid values come back unchanged."""

import math

import numpy as np
import pytest
import torch

from dplab import checks


@pytest.mark.parametrize("value", [0.0, -1.0, math.inf, -math.inf, math.nan])
def test_positive_finite_rejects(value):
    with pytest.raises(ValueError, match=r"sigma=.* is invalid; allowed: a finite number > 0"):
        checks.positive_finite("sigma", value)


def test_positive_finite_returns_a_float():
    assert checks.positive_finite("sigma", 2) == 2.0 and isinstance(checks.positive_finite("sigma", 2), float)
    assert checks.positive_finite("sigma", np.float64(0.1)) == 0.1


@pytest.mark.parametrize("value", ["1", None, [1.0, 2.0]])
def test_scalar_checks_refuse_other_types_naming_the_argument(value):
    with pytest.raises((TypeError, ValueError), match="sigma"):
        checks.positive_finite("sigma", value)


def test_finite_allows_any_sign_but_not_nan_or_inf():
    assert checks.finite("x", -3) == -3.0
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="x=.* is invalid; allowed: finite"):
            checks.finite("x", bad)


def test_non_negative_finite_allows_zero():
    assert checks.non_negative_finite("m", 0) == 0.0
    with pytest.raises(ValueError, match=r"m=-1e-12 is invalid; allowed: a finite number >= 0"):
        checks.non_negative_finite("m", -1e-12)


@pytest.mark.parametrize(
    ("kwargs", "good", "bad"),
    [
        ({}, [1e-300, 0.5, 1 - 1e-16], [0.0, 1.0, -0.1, 1.5, math.nan, math.inf]),
        ({"allow_zero": True}, [0.0, 0.5], [1.0, -1e-300, math.nan]),
        ({"allow_one": True}, [1.0, 0.5], [0.0, 1.0 + 1e-15, math.nan]),
    ],
)
def test_probability_ends(kwargs, good, bad):
    for value in good:
        assert checks.probability("delta", value, **kwargs) == value
    for value in bad:
        with pytest.raises(ValueError, match=r"delta=.* is invalid; allowed: a number in [\[(]0, 1[\])]"):
            checks.probability("delta", value, **kwargs)


def test_log_probability_allows_minus_inf_only_on_request():
    assert checks.log_probability("log_delta", -700.0) == -700.0
    assert checks.log_probability("log_delta", -math.inf, allow_zero=True) == -math.inf
    assert checks.log_probability("log_delta", 0.0, allow_one=True) == 0.0
    for bad in (0.0, 0.1, -math.inf, math.inf, math.nan):
        with pytest.raises(ValueError, match=r"log_delta=.* is invalid; allowed: a number in \(-inf, 0\)"):
            checks.log_probability("log_delta", bad)


def test_in_range_closed_and_open_ends():
    assert checks.in_range("q", 1.0, 1.0, math.inf) == 1.0
    assert checks.in_range("q", math.inf, 1.0, math.inf) == math.inf
    with pytest.raises(ValueError, match=r"q=1.0 is invalid; allowed: a number in \(1, inf\]"):
        checks.in_range("q", 1.0, 1.0, math.inf, low_open=True)


def test_whole_number():
    assert checks.whole_number("n", 3) == 3 and isinstance(checks.whole_number("n", 3.0), int)
    assert checks.whole_number("n", np.int64(7)) == 7
    for bad in (0, -1, 2.5, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"n=.* is invalid; allowed: a whole number >= 1"):
            checks.whole_number("n", bad)
    with pytest.raises(ValueError, match=r"k=11 is invalid; allowed: a whole number >= 0 and <= 10"):
        checks.whole_number("k", 11, minimum=0, maximum=10)
    with pytest.raises(TypeError, match="n=True"):
        checks.whole_number("n", True)


def test_choice_lists_what_is_allowed():
    assert checks.choice("noise", "laplace", ("gaussian", "laplace")) == "laplace"
    with pytest.raises(ValueError, match=r"noise='x' is invalid; allowed: one of 'gaussian', 'laplace'"):
        checks.choice("noise", "x", ("gaussian", "laplace"))


def test_labels_in_refuses_zero_one_coding():
    np.testing.assert_array_equal(checks.labels_in("y", [1, -1, 1]), [1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match=r"y=\[0.0, 0.0\] is invalid; allowed: labels in \{-1, 1\}"):
        checks.labels_in("y", [1, 0, 0])


def test_array_checks_show_the_offending_entries():
    with pytest.raises(ValueError, match=r"sigma=\[-1.0, nan\] is invalid; allowed: 0 < sigma < inf"):
        checks.as_positive_array([1.0, -1.0, 2.0, math.nan], "sigma")
    with pytest.raises(ValueError, match=r"X=\[inf\] is invalid; allowed: finite numbers"):
        checks.as_finite_array([[1.0, math.inf]], "X")
    with pytest.raises(ValueError, match=r"x=\[nan\] is invalid"):
        checks.as_float_array([math.inf, math.nan], "x")
    with pytest.raises(ValueError, match=r"T=\[0.0\] is invalid; allowed: a finite whole number >= 1 within int64"):
        checks.as_integer_array([1.0, 0.0], "T", minimum=1)
    assert checks.as_float_array([math.inf], "x")[0] == math.inf


def test_integer_arrays_outside_int64_are_refused_not_wrapped():
    """int64 holds [-2^63, 2^63 - 1]: a float or unsigned value beyond it would wrap in the cast to int64."""
    for outside in (-(2.0**63) * (1 + 2**-52), 2.0**63, np.uint64(2**63), [np.uint64(2**64 - 1)]):
        with pytest.raises(ValueError, match=r"allowed: a finite whole number within int64"):
            checks.as_integer_array(outside, "seed")
    assert checks.as_integer_array(-(2.0**63), "seed")[()] == -(2**63)
    assert checks.as_integer_array(np.uint64(2**63 - 1), "seed")[()] == 2**63 - 1
    assert checks.as_integer_array(2**63 - 1, "seed")[()] == 2**63 - 1


def test_whole_numbers_keep_every_digit_of_a_64_bit_integer():
    """Integers skip the float64 round trip: 2^63 + 1 and 2^63 are equal as floats, not as seeds."""
    assert checks.whole_number("seed", 2**63 + 1, minimum=0) == 2**63 + 1
    assert checks.whole_number("seed", np.uint64(2**64 - 1), minimum=0) == 2**64 - 1
    with pytest.raises(ValueError, match=r"seed=-1 is invalid; allowed: a whole number >= 0"):
        checks.whole_number("seed", np.int64(-1), minimum=0)


def test_valid_arrays_come_back_unchanged():
    value = [0.1, 0.2, 3.0]
    np.testing.assert_array_equal(checks.as_positive_array(value, "x"), np.asarray(value, dtype=np.float64))
    assert checks.as_positive_array(value, "x").dtype == np.float64


def test_shape_checks_name_both_arguments():
    checks.matching_length("X", np.zeros((3, 2)), "y", np.zeros(3))
    with pytest.raises(ValueError, match=r"X has shape \(3, 2\) and y has shape \(4,\)"):
        checks.matching_length("X", np.zeros((3, 2)), "y", np.zeros(4))
    with pytest.raises(ValueError, match=r"X has shape \(3,\); allowed: an array with 2 dimension"):
        checks.require_ndim("X", np.zeros(3), 2)


def test_finite_tensor():
    tensor = torch.tensor([1.0, 2.0])
    assert checks.finite_tensor("w0", tensor) is tensor
    with pytest.raises(ValueError, match=r"w0 has non-finite entries \[nan\]"):
        checks.finite_tensor("w0", torch.tensor([1.0, math.nan]))


@pytest.mark.parametrize(
    ("values", "dtype", "finite"),
    [
        ([1e308, 1e308], torch.float64, True),  # the sum overflows: the entrywise check decides
        ([6e4, 6e4], torch.float16, True),
        ([math.inf, -math.inf], torch.float64, False),  # the sum is NaN
        ([1.0, math.inf], torch.float32, False),
        ([1 + 2j, complex(math.nan, 0)], torch.complex128, False),
        ([], torch.float64, True),
        ([2**62, 2**62], torch.int64, True),  # integers are finite (their sum wraps around)
    ],
)
def test_finite_tensor_agrees_with_the_entrywise_check(values, dtype, finite):
    tensor = torch.tensor(values, dtype=dtype)
    assert bool(torch.isfinite(tensor).all()) is finite
    if finite:
        assert checks.finite_tensor("w0", tensor) is tensor
    else:
        with pytest.raises(ValueError, match="w0 has non-finite entries"):
            checks.finite_tensor("w0", tensor)


def test_missing_aware_array_allows_nan_but_not_inf():
    assert np.isnan(checks.as_missing_aware_array([1.0, math.nan], "X")[1])
    with pytest.raises(ValueError, match=r"X=\[-inf\] is invalid; allowed: finite numbers or NaN"):
        checks.as_missing_aware_array([1.0, -math.inf], "X")


@pytest.mark.parametrize("value", [True, False, np.True_, [True, False], np.array([True]), torch.tensor([False])])
def test_booleans_are_not_numbers(value):
    with pytest.raises(TypeError, match="sigma"):
        checks.as_positive_array(value, "sigma")
    if np.ndim(value) == 0:
        for check in (checks.positive_finite, checks.real_number, checks.whole_number, checks.not_boolean):
            with pytest.raises(TypeError, match=r"sigma=(np\.)?(True|False)_? is invalid; allowed: a .*number"):
                check("sigma", value)


@pytest.mark.parametrize("value", [1 + 0j, 0.5 + 1j, np.complex128(2.0), [1.0, 2 + 1j], np.array([1.0 + 0j])])
def test_complex_values_are_refused_never_truncated(value):
    """Even a zero imaginary part is refused: the dtype says the caller computed something else than a real."""
    with pytest.raises(TypeError, match=r"x=.* is invalid; allowed: real numbers \(an imaginary part is never dropped"):
        checks.as_real_array(value, "x")


def test_real_number_passes_nan_and_infinities_to_the_caller():
    assert math.isnan(checks.real_number("x", math.nan)) and checks.real_number("x", -math.inf) == -math.inf
    assert checks.real_number("x", np.int64(3)) == 3.0 and isinstance(checks.real_number("x", 3), float)
    assert checks.not_boolean("k", 3) == 3


def test_the_memory_limit_is_the_physical_memory(monkeypatch):
    from dplab.machine import physical_memory_mb

    assert checks.memory_limit_bytes() == physical_memory_mb() * 2**20
    monkeypatch.setattr(checks, "memory_limit_bytes", lambda: 2**30)
    checks.fits_in_memory({"n": 10}, 2**30, "exactly the limit")
    with pytest.raises(ValueError, match=r"n=10, d=3 is invalid: two arrays needs an estimated 1 GiB \(1.074e\+09 "):
        checks.fits_in_memory({"n": 10, "d": 3}, 2**30 + 1, "two arrays")
    with pytest.raises(ValueError, match=r"allowed: sizes whose allocation fits this machine's memory, 1 GiB"):
        checks.size_that_fits("size", 2**28, 8, "float64 draws")
    assert checks.size_that_fits("size", 2**27, 8, "float64 draws") == 2**27
    with pytest.raises(ValueError, match=r"size=2.5 is invalid; allowed: a whole number >= 1"):
        checks.size_that_fits("size", 2.5, 8, "float64 draws")


def test_floating_tensor_refuses_other_dtypes_and_non_finite_entries():
    tensor = torch.zeros(2, dtype=torch.float64)
    assert checks.floating_tensor("X", tensor) is tensor
    assert checks.floating_tensor("X", tensor, torch.float64) is tensor
    for dtype in (torch.int64, torch.float16, torch.bfloat16, torch.complex64, torch.bool):
        with pytest.raises(TypeError, match=rf"X has dtype {dtype}; allowed: torch.float32 or torch.float64"):
            checks.floating_tensor("X", tensor.to(dtype))
    with pytest.raises(TypeError, match=r"X has dtype torch.float64; allowed: torch.float32 \(.*X.to\(torch.float32\)"):
        checks.floating_tensor("X", tensor, torch.float32)
    with pytest.raises(TypeError, match=r"X is a ndarray; allowed: a torch.Tensor"):
        checks.floating_tensor("X", np.zeros(2))
    with pytest.raises(ValueError, match=r"X has non-finite entries \[inf\]"):
        checks.floating_tensor("X", torch.tensor([0.0, math.inf]))


def test_available_device():
    assert checks.available_device("device", "cpu") == torch.device("cpu")
    missing = f"cuda:{torch.cuda.device_count()}"
    with pytest.raises(ValueError, match=rf"device='{missing}' is invalid; allowed: a device of this machine, one of"):
        checks.available_device("device", missing)
    with pytest.raises(ValueError, match=r"device='gpu' is invalid; allowed: a torch device such as 'cpu' or 'cuda'"):
        checks.available_device("device", "gpu")
