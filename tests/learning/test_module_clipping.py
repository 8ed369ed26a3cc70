"""dplab.learning.module_clipping: the ghost (book-keeping) and vmap clipped sums against the obvious reference — a loop
over examples, each gradient by autograd, clipped, summed (as Opacus's tests/grad_samples/common.py checks its
per-sample gradients) — on Linear models of several shapes, plus the fallback for unsupported modules and argument
checks."""

import pytest
import torch
from torch import nn

from dplab.learning.module_clipping import (
    GhostClippingUnsupported,
    ModuleGradientClipper,
    ghost_clipped_sum,
    ghost_unsupported,
    vmap_clipped_sum,
)

DTYPE = torch.float64


def cross_entropy(prediction, target):
    return nn.functional.cross_entropy(prediction, target)


def squared_error(prediction, target):
    return (prediction - target).square().sum()


class Scaled(nn.Module):
    """A custom module: Linear, ReLU, a Linear applied to every position of a sequence, mean over positions."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(3, 5)
        self.head = nn.Linear(5, 4, bias=False)

    def forward(self, x):  # x: (B, T, 3)
        return self.head(torch.relu(self.embed(x))).mean(1)


class Tied(nn.Module):
    """One Linear layer applied twice (shared weights)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)

    def forward(self, x):
        return self.layer(torch.tanh(self.layer(x)))


def reference_clipped_sum(model, loss_fn, x, y, clip):
    """Σ_i clip_C(∇ℓ_i): one autograd call per example, then clip and sum."""
    parameters = {name: p for name, p in model.named_parameters() if p.requires_grad}
    total = {name: torch.zeros_like(p) for name, p in parameters.items()}
    for example, target in zip(x, y):
        grads = torch.autograd.grad(loss_fn(model(example[None])[0], target), list(parameters.values()))
        norm = torch.sqrt(sum(g.square().sum() for g in grads))
        for name, g in zip(parameters, grads):
            total[name] += g * min(1.0, clip / float(norm))
    return total


def case(name):
    """(model, loss, x, y) of a named test case, float64."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        x = torch.randn(20, 6, generator=generator, dtype=DTYPE)
        return model.to(DTYPE), cross_entropy, x, torch.randint(0, 3, (20,), generator=generator)
    if name == "sequence":  # T = 7 positions, T² > p·d in both layers: per-example weight gradients formed
        x = torch.randn(12, 7, 3, generator=generator, dtype=DTYPE)
        return Scaled().to(DTYPE), squared_error, x, torch.randn(12, 4, generator=generator, dtype=DTYPE)
    if name == "long_features":  # T = 2, p·d = 40 > T²: the ghost-norm branch for T > 1
        model = nn.Sequential(nn.Linear(10, 4), nn.ReLU(), nn.Flatten(), nn.Linear(8, 1))
        x = torch.randn(9, 2, 10, generator=generator, dtype=DTYPE)
        return model.to(DTYPE), squared_error, x, torch.randn(9, 1, generator=generator, dtype=DTYPE)
    if name == "frozen_first_layer":
        model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1)).to(DTYPE)
        model[0].weight.requires_grad_(False)
        x = torch.randn(15, 6, generator=generator, dtype=DTYPE)
        return model, squared_error, x, torch.randn(15, 1, generator=generator, dtype=DTYPE)
    raise ValueError(name)


CASES = ["mlp", "sequence", "long_features", "frozen_first_layer"]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("clip", [1e-3, 0.3, 1e6])  # every example clipped, some, none
def test_ghost_clipped_sum_matches_the_per_example_loop(name, clip):
    model, loss_fn, x, y = case(name)
    expected = reference_clipped_sum(model, loss_fn, x, y, clip)
    got = ghost_clipped_sum(model, loss_fn, x, y, clip)
    assert got.keys() == expected.keys()
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_vmap_clipped_sum_matches_the_per_example_loop(name):
    model, loss_fn, x, y = case(name)
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    expected = reference_clipped_sum(model, loss_fn, x, y, 0.3)
    got = vmap_clipped_sum(model, loss_fn, x, y, 0.3, names)
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method", ["ghost", "vmap"])
def test_batched_loss_gives_the_same_sum_as_the_per_example_loss(method):
    model, _, x, y = case("mlp")
    batched = ModuleGradientClipper(model, nn.CrossEntropyLoss(reduction="none"), 0.3, method=method, batched_loss=True)
    expected = reference_clipped_sum(model, cross_entropy, x, y, 0.3)
    got = batched(x, y)
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=1e-10, atol=1e-12)


def test_batched_loss_returning_a_mean_is_refused():
    model, _, x, y = case("mlp")
    clipper = ModuleGradientClipper(model, nn.CrossEntropyLoss(), 0.3, batched_loss=True)
    with pytest.raises(ValueError, match=r"loss_fn returned shape \(\) with batched_loss=True"):
        clipper(x, y)


def test_auto_uses_ghost_on_linear_models_and_vmap_on_other_layers():
    model, loss_fn, x, y = case("mlp")
    assert ModuleGradientClipper(model, loss_fn, 1.0).method == "ghost"
    conv = nn.Sequential(nn.Conv1d(1, 2, 3), nn.Flatten(), nn.Linear(8, 3)).to(DTYPE)
    assert ghost_unsupported(conv) == ["0 (Conv1d)"]
    clipper = ModuleGradientClipper(conv, cross_entropy, 0.3)
    assert clipper.method == "vmap"
    x = torch.randn(5, 1, 6, dtype=DTYPE)
    y = torch.randint(0, 3, (5,))
    expected = reference_clipped_sum(conv, cross_entropy, x, y, 0.3)
    for key, value in clipper(x, y).items():
        torch.testing.assert_close(value, expected[key], rtol=1e-10, atol=1e-12)


def test_batch_norm_is_unsupported_even_without_parameters():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, affine=False), nn.Linear(4, 1))
    assert ghost_unsupported(model) == ["1 (BatchNorm1d)"]


def test_explicit_ghost_on_an_unsupported_model_names_the_layer():
    model = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 1))
    with pytest.raises(ValueError, match=r"gradient_method='ghost'.*0 \(Embedding\)"):
        ModuleGradientClipper(model, squared_error, 1.0, method="ghost")


def test_shared_layer_falls_back_to_vmap_under_auto_and_is_refused_under_ghost():
    torch.manual_seed(0)
    model = Tied().to(DTYPE)
    x = torch.randn(6, 4, dtype=DTYPE)
    y = torch.randn(6, 4, dtype=DTYPE)
    with pytest.raises(GhostClippingUnsupported, match="more than once"):
        ModuleGradientClipper(model, squared_error, 0.5, method="ghost")(x, y)
    clipper = ModuleGradientClipper(model, squared_error, 0.5)
    got = clipper(x, y)
    assert clipper.method == "vmap"
    expected = reference_clipped_sum(model, squared_error, x, y, 0.5)
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=1e-10, atol=1e-12)


def test_input_without_the_batch_axis_first_is_refused():
    class Folded(nn.Module):
        """Each example's 8 features as 2 rows of 4: the Linear layer sees 2B rows, not (B, ..., d)."""

        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(4, 2)

        def forward(self, x):
            return self.layer(x.reshape(-1, 4)).reshape(len(x), -1)

    with pytest.raises(GhostClippingUnsupported, match="needs \\(batch=3"):
        ghost_clipped_sum(Folded(), squared_error, torch.randn(3, 8), torch.randn(3, 4), 1.0)


def test_empty_batch_gives_zero_sums_and_bad_method_is_refused():
    model, loss_fn, x, y = case("mlp")
    sums = ModuleGradientClipper(model, loss_fn, 1.0)(x[:0], y[:0])
    assert all(torch.count_nonzero(value) == 0 for value in sums.values()) and len(sums) == 4
    with pytest.raises(ValueError, match="gradient_method='fast' is invalid"):
        ModuleGradientClipper(model, loss_fn, 1.0, method="fast")
    model.requires_grad_(False)
    assert ModuleGradientClipper(model, loss_fn, 1.0)(x, y) == {}


def test_layer_called_with_a_keyword_input_falls_back_to_vmap():
    class Keyword(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(3, 2)

        def forward(self, x):
            return self.layer(input=x)

    torch.manual_seed(0)
    model = Keyword().to(DTYPE)
    x, y = torch.randn(5, 3, dtype=DTYPE), torch.randn(5, 2, dtype=DTYPE)
    clipper = ModuleGradientClipper(model, squared_error, 0.4)
    got = clipper(x, y)
    assert clipper.method == "vmap"
    expected = reference_clipped_sum(model, squared_error, x, y, 0.4)
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=1e-10, atol=1e-12)


def test_weights_tied_across_two_layers_take_the_vmap_path():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4)).to(DTYPE)
    model[2].weight = model[0].weight
    assert ghost_unsupported(model) == ["0 (Linear)", "2 (Linear)"]
    x, y = torch.randn(6, 4, dtype=DTYPE), torch.randn(6, 4, dtype=DTYPE)
    clipper = ModuleGradientClipper(model, squared_error, 0.5)
    assert clipper.method == "vmap"
    expected = reference_clipped_sum(model, squared_error, x, y, 0.5)
    got = clipper(x, y)
    assert got.keys() == expected.keys() == {"0.weight", "0.bias", "2.bias"}
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], rtol=1e-10, atol=1e-12)
