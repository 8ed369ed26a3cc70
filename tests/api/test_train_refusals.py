"""dplab.train refuses, before any work, what it cannot certify (issue 26): a delta outside (0, 1), a model it cannot
privatise (frozen, batch statistics), an unavailable device, non-finite or wrongly typed data, booleans as numbers,
and a run whose parameters end non-finite; no report is returned for any of them. The report states the accountant's
assumptions next to epsilon."""

import math

import pytest
import torch

from dplab import checks
from dplab.learning.module_validation import batch_statistics_modules, validate_private_module
from dplab.train import DPSGDReport, train_dpsgd, train_pure_dp

ARGUMENTS = {"noise_multiplier": 1.0, "clip": 1.0, "batch_size": 4, "steps": 3, "lr": 0.1, "delta": 1e-5}


def loss_fn(prediction, target):
    return torch.nn.functional.binary_cross_entropy_with_logits(prediction.squeeze(-1), target)


def data(n=16, dtype=torch.float32):
    generator = torch.Generator().manual_seed(1)
    X = torch.randn(n, 3, generator=generator, dtype=dtype)
    return X, (X[:, 0] > 0).to(dtype)


def linear():
    torch.manual_seed(0)
    return torch.nn.Linear(3, 1)


def assert_refused_untouched(model, error, match, **overrides):
    """The call raises ``error`` matching ``match`` and leaves every parameter as it was (no step was taken)."""
    X, Y = overrides.pop("X", None), overrides.pop("Y", None)
    default_X, default_Y = data()
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    with pytest.raises(error, match=match):
        train_dpsgd(
            model,
            loss_fn,
            default_X if X is None else X,
            default_Y if Y is None else Y,
            **{**ARGUMENTS, **overrides},
        )
    for name, p in model.named_parameters():
        assert torch.equal(p, before[name]), f"{name} changed before the refusal"


@pytest.mark.parametrize("delta", [0.0, 1.0, 2.0, math.nan, -1.0, math.inf])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    """delta = 1.0, 2.0 and NaN used to return a report with epsilon 0.0: a false guarantee."""
    assert_refused_untouched(linear(), ValueError, r"delta=.* is invalid; allowed: a number in \(0, 1\)", delta=delta)


@pytest.mark.parametrize(
    "argument", ["delta", "noise_multiplier", "clip", "lr", "batch_size", "steps", "seed", "batched_loss"]
)
def test_a_boolean_is_not_a_number(argument):
    match = "batched_loss" if argument == "batched_loss" else rf"{argument}=True is invalid"
    value = 1 if argument == "batched_loss" else True
    assert_refused_untouched(linear(), TypeError, match, **{argument: value})


@pytest.mark.parametrize(("argument", "value"), [("lr", math.nan), ("lr", math.inf), ("lr", 0.0), ("clip", math.nan)])
def test_a_non_finite_or_zero_step_parameter_is_refused(argument, value):
    assert_refused_untouched(linear(), ValueError, rf"{argument}={value} is invalid", **{argument: value})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_data_is_refused(bad):
    X, Y = data()
    X[2, 1] = bad
    assert_refused_untouched(linear(), ValueError, r"X has non-finite entries", X=X)
    X, Y = data()
    Y[0] = bad
    assert_refused_untouched(linear(), ValueError, r"Y has non-finite entries", Y=Y)


@pytest.mark.parametrize("dtype", [torch.int64, torch.float16, torch.complex64, torch.float64, torch.bool])
def test_x_of_another_dtype_than_the_model_is_refused_not_converted(dtype):
    X, _ = data()
    assert_refused_untouched(linear(), TypeError, rf"X has dtype {dtype}; allowed: torch.float32", X=X.to(dtype))


def test_complex_or_boolean_targets_are_refused():
    _, Y = data()
    assert_refused_untouched(linear(), TypeError, r"Y has dtype torch.complex64", Y=Y.to(torch.complex64))
    assert_refused_untouched(linear(), TypeError, r"Y has dtype torch.bool", Y=Y.bool())


@pytest.mark.parametrize("rows", [15, 17])
def test_x_and_y_of_different_lengths_are_refused_naming_both_shapes(rows):
    """Y longer than X used to be truncated silently; shorter ended in an IndexError."""
    X, Y = data(17)
    assert_refused_untouched(
        linear(), ValueError, rf"X has shape .*16, 3.* and Y has shape .*{rows}", X=X[:16], Y=Y[:rows]
    )


def test_a_model_with_every_parameter_frozen_is_refused():
    model = linear()
    model.requires_grad_(False)
    assert_refused_untouched(model, ValueError, r"model has no trainable parameter")


@pytest.mark.parametrize(
    "norm",
    [
        torch.nn.BatchNorm1d(4),
        torch.nn.BatchNorm1d(4, track_running_stats=False),
        torch.nn.SyncBatchNorm(4),
        torch.nn.InstanceNorm1d(4, track_running_stats=True),
    ],
)
def test_a_model_with_batch_statistics_is_refused_up_front_with_the_replacement(norm):
    """BatchNorm used to end in torch.func's "in-place operation" RuntimeError; refused as Opacus's validator does."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), norm, torch.nn.Linear(4, 1))
    assert_refused_untouched(model, ValueError, r"model has modules with batch statistics: 1 .*GroupNorm")


def test_per_example_normalisation_is_accepted():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GroupNorm(2, 4), torch.nn.LayerNorm(4))
    model.append(torch.nn.Linear(4, 1))
    assert batch_statistics_modules(model) == []
    assert validate_private_module(model) is model
    X, Y = data()
    assert train_dpsgd(model, loss_fn, X, Y, **ARGUMENTS).steps == 3


def test_a_frozen_batch_norm_is_still_refused():
    """Its running statistics are buffers computed from the data and released with the model."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 1))
    model[1].requires_grad_(False)
    assert batch_statistics_modules(model) == ["1 (BatchNorm1d)"]


def test_an_unavailable_device_is_refused_naming_what_is_available():
    """device="cuda" on a machine without CUDA used to end in an AssertionError."""
    missing = f"cuda:{torch.cuda.device_count()}"
    assert_refused_untouched(linear(), ValueError, rf"device='{missing}' is invalid; allowed: .*'cpu'", device=missing)
    assert_refused_untouched(linear(), ValueError, r"device='tpu9' is invalid", device="tpu9")


def test_a_run_whose_gradient_is_not_finite_returns_no_report():
    """A loss with a NaN gradient at every step makes the parameters NaN; the run raises instead of reporting."""

    def nan_gradient_loss(prediction, target):
        return loss_fn(prediction, target) + torch.sqrt(-(prediction.squeeze() ** 2) - 1.0)

    X, Y = data()
    for method in ("ghost", "vmap"):
        with pytest.raises(FloatingPointError, match=r"training diverged: .*no privacy report is returned"):
            train_dpsgd(linear(), nan_gradient_loss, X, Y, **ARGUMENTS, gradient_method=method)


def test_per_example_gradients_that_cannot_fit_are_refused(monkeypatch):
    monkeypatch.setattr(checks, "memory_limit_bytes", lambda: 100)  # 3 copies x 4 examples x 16 bytes do not fit
    assert_refused_untouched(
        linear(), ValueError, r"batch_size=4 is invalid: .*per-example gradients", gradient_method="vmap"
    )


def test_train_pure_dp_checks_the_purification_arguments_before_training():
    for bad in ({"omega": 1.0}, {"epsilon_prime": 0.0}, {"radius": math.nan}, {"omega": True}):
        model = linear()
        before = [p.detach().clone() for p in model.parameters()]
        X, Y = data()
        with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
            train_pure_dp(model, loss_fn, X, Y, radius=5.0, epsilon_prime=1.0, omega=0.01, **{**ARGUMENTS, **bad})
        assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))


def test_the_report_states_the_accountants_assumptions_next_to_epsilon():
    X, Y = data()
    report = train_dpsgd(linear(), loss_fn, X, Y, **ARGUMENTS, sampling="shuffle")
    assert (report.accountant, report.adjacency, report.accounted_sampling) == ("rdp", "add_or_remove_one", "poisson")
    text = str(report)
    assert text == report.summary()
    for part in (f"epsilon={report.epsilon:.6g}", "delta=1e-05", "add or remove one", "RDP", "3 poisson-subsampled"):
        assert part in text
    assert "WARNING: the accountant assumes poisson sampling, not shuffle" in text
    poisson = train_dpsgd(linear(), loss_fn, X, Y, **ARGUMENTS)
    assert poisson.sampler_matches_accountant and "WARNING" not in str(poisson)


def test_the_report_keeps_its_positional_fields():
    report = DPSGDReport(1.0, 1e-5, 1.0, 0.1, 10, "poisson")
    assert (report.epsilon, report.delta, report.gradient_method, report.accountant) == (1.0, 1e-5, "vmap", "rdp")
