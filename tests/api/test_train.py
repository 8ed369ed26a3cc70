"""dplab.train.train_dpsgd: one step against a hand-written per-example loop (autograd per example, clip, sum, same
noise draws), the accountant against dp_accounting, learning on separable data, and argument checks."""

import dp_accounting
import pytest
import torch
from dp_accounting import rdp

from dplab.train import train_dpsgd


def mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))


def loss_fn(prediction, target):
    return torch.nn.functional.binary_cross_entropy_with_logits(prediction.squeeze(-1), target)


def batch_loss(predictions, targets):
    return torch.nn.functional.binary_cross_entropy_with_logits(predictions.squeeze(-1), targets, reduction="none")


def data(n=64):
    generator = torch.Generator().manual_seed(1)
    X = torch.randn(n, 3, generator=generator)
    return X, (X[:, 0] > 0).float()


def test_one_full_batch_step_matches_a_per_example_loop():
    X, Y = data(16)
    model, reference = mlp(), mlp()
    train_dpsgd(
        model,
        loss_fn,
        X,
        Y,
        noise_multiplier=0.7,
        clip=0.1,
        batch_size=16,
        steps=1,
        lr=0.5,
        delta=1e-5,
        sampling="shuffle",
        seed=3,
    )
    clipped = [torch.zeros_like(p) for p in reference.parameters()]
    for x, y in zip(X, Y):
        grads = torch.autograd.grad(loss_fn(reference(x[None])[0], y), list(reference.parameters()))
        norm = torch.sqrt(sum(g.pow(2).sum() for g in grads))
        for total, g in zip(clipped, grads):
            total += g * min(1.0, 0.1 / float(norm))
    noise_generator = torch.Generator().manual_seed(4)
    with torch.no_grad():
        for p, total in zip(reference.parameters(), clipped):
            p -= 0.5 / 16 * (total + 0.7 * 0.1 * torch.randn(p.shape, generator=noise_generator))
    for trained, expected in zip(model.parameters(), reference.parameters()):
        assert torch.allclose(trained, expected, atol=1e-6)


def test_report_epsilon_is_dp_accountings_and_flags_shuffling():
    X, Y = data()
    report = train_dpsgd(
        mlp(),
        loss_fn,
        X,
        Y,
        noise_multiplier=1.0,
        clip=1.0,
        batch_size=8,
        steps=20,
        lr=0.1,
        delta=1e-5,
        sampling="shuffle",
    )
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(8 / 64, dp_accounting.GaussianDpEvent(1.0)), 20
    )
    assert report.epsilon == pytest.approx(rdp.RdpAccountant().compose(event).get_epsilon(1e-5), rel=0.05)
    assert not report.sampler_matches_accountant


def test_poisson_dpsgd_learns_a_separable_problem():
    X, Y = data(512)
    model = mlp()
    with torch.no_grad():
        before = float(loss_fn(model(X), Y))
    report = train_dpsgd(
        model, loss_fn, X, Y, noise_multiplier=1.0, clip=1.0, batch_size=64, steps=100, lr=1.0, delta=1e-5
    )
    with torch.no_grad():
        assert float(loss_fn(model(X), Y)) < 0.6 * before and report.sampler_matches_accountant


@pytest.mark.parametrize(
    "kwargs, name",
    [({"sampling": "uniform"}, "sampling"), ({"clip": 0.0}, "clip"), ({"batch_size": 1000}, "batch_size")],
)
def test_bad_input_names_the_argument(kwargs, name):
    X, Y = data()
    arguments = {"noise_multiplier": 1.0, "clip": 1.0, "batch_size": 8, "steps": 1, "lr": 0.1, "delta": 1e-5, **kwargs}
    with pytest.raises(ValueError, match=name):
        train_dpsgd(mlp(), loss_fn, X, Y, **arguments)


def test_pure_dp_variant_certifies_dpsgd_epsilon_plus_epsilon_prime_and_loads_the_release():
    from dplab.train import dpsgd_epsilon, train_pure_dp

    X, Y = data()
    model = mlp()
    release = train_pure_dp(
        model,
        loss_fn,
        X,
        Y,
        radius=10.0,
        epsilon_prime=1.0,
        omega=1e-3,
        noise_multiplier=1.0,
        clip=1.0,
        batch_size=8,
        steps=20,
        lr=0.1,
        delta=1e-5,
    )
    assert release.delta == 0.0
    assert release.epsilon == pytest.approx(dpsgd_epsilon(1.0, 8 / 64, 20, 1e-5) + 1.0)
    loaded = torch.nn.utils.parameters_to_vector(model.parameters()).detach().double().numpy()
    assert loaded == pytest.approx(release.value, rel=1e-6)


@pytest.mark.parametrize("batched_loss", [False, True])
def test_ghost_and_vmap_paths_train_to_the_same_weights_with_the_same_noise(batched_loss):
    X, Y = data(200)
    trained = {}
    for method in ("ghost", "vmap"):
        model = mlp()
        report = train_dpsgd(
            model,
            batch_loss if batched_loss else loss_fn,
            X,
            Y,
            noise_multiplier=0.8,
            clip=0.05,
            batch_size=32,
            steps=15,
            lr=0.5,
            delta=1e-5,
            seed=7,
            gradient_method=method,
            batched_loss=batched_loss,
        )
        assert report.gradient_method == method
        trained[method] = torch.nn.utils.parameters_to_vector(model.parameters()).detach()
    torch.testing.assert_close(trained["ghost"], trained["vmap"], rtol=1e-5, atol=1e-6)


def test_auto_picks_ghost_for_supported_layers_and_vmap_otherwise():
    X, Y = data(64)
    arguments = {"noise_multiplier": 1.0, "clip": 1.0, "batch_size": 8, "steps": 2, "lr": 0.1, "delta": 1e-5}
    assert train_dpsgd(mlp(), loss_fn, X, Y, **arguments).gradient_method == "ghost"
    torch.manual_seed(0)
    normalised = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4), torch.nn.Linear(4, 1))
    assert train_dpsgd(normalised, loss_fn, X, Y, **arguments).gradient_method == "ghost"
    prelu = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.PReLU(), torch.nn.Linear(4, 1))  # a trainable slope
    assert train_dpsgd(prelu, loss_fn, X, Y, **arguments).gradient_method == "vmap"


def test_train_pure_dp_warns_exactly_when_purification_moves_parameters_beyond_the_radius():
    import warnings

    from dplab.train import _warn_if_mostly_noise

    with pytest.warns(UserWarning, match="mostly noise .* d = 41 over epsilon_prime = 1"):
        _warn_if_mostly_noise(2.01, 2.0, 41, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_if_mostly_noise(2.0, 2.0, 41, 1.0)
