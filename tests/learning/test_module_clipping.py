"""dplab.learning.module_clipping and dplab.learning.layer_gradients: the ghost (book-keeping) and vmap clipped sums
against the obvious reference — for each example separately ``loss(model(x_i), y_i).backward()``, clip, sum (as
Opacus's tests/grad_samples/common.py checks its per-sample gradients against micro-batches) — in float64 to 1e-12,
on Linear models of several shapes and on models mixing Embedding (repeated ids, padding_idx, sparse), LayerNorm,
Conv1d/Conv2d (stride, padding modes, "same", dilation, groups), GroupNorm, frozen parts, layers called twice, outputs
modified in place; plus the fallback for what the ghost path refuses (tied weights across modules, parameters used
outside their layer, batch normalisation, unsupported types) and argument checks."""

import pytest
import torch
from torch import nn

from dplab.learning.layer_gradients import (
    EmbeddingGradients,
    FormedGradients,
    ProductGradients,
    layer_refusal,
    product_gradients,
)
from dplab.learning.module_clipping import (
    GhostClippingUnsupported,
    ModuleGradientClipper,
    ghost_clipped_sum,
    ghost_unsupported,
    vmap_clipped_sum,
)

DTYPE = torch.float64
TOLERANCE = {"rtol": 1e-12, "atol": 1e-12}


pytestmark = pytest.mark.usefixtures("single_thread")


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


def cross_entropy_losses(prediction, target):
    return nn.functional.cross_entropy(prediction, target, reduction="none")


def squared_error_losses(prediction, target):
    return (prediction - target).square().flatten(1).sum(1)


class MeanOverPositions(nn.Module):
    def forward(self, x):
        return x.mean(1)


class Tokens(nn.Module):
    """Embedding with padding → LayerNorm → Linear at every position → tanh → mean over positions → Linear."""

    def __init__(self, padding_idx=0):
        super().__init__()
        self.embed = nn.Embedding(7, 5, padding_idx=padding_idx)
        self.norm = nn.LayerNorm(5)
        self.mix = nn.Linear(5, 4)
        self.head = nn.Linear(4, 3)

    def forward(self, ids):  # (B, T)
        return self.head(torch.tanh(self.mix(self.norm(self.embed(ids)))).mean(1))


class Shared(nn.Module):
    """Every layer type called twice per forward pass (its per-example gradient is the sum of both calls')."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 4, padding_idx=2)
        self.norm = nn.LayerNorm(4)
        self.conv = nn.Conv1d(4, 4, 3, padding=1)
        self.group = nn.GroupNorm(2, 4)
        self.head = nn.Linear(4, 3)

    def forward(self, ids):  # (B, T)
        h = self.norm(self.embed(ids)) + self.norm(torch.sin(self.embed(ids.flip(1))))
        h = self.group(self.conv(torch.tanh(self.group(self.conv(h.transpose(1, 2))))))  # a strided input first
        h = h.mean(2)
        return self.head(h) + self.head(torch.sin(h))


def per_example_gradients(model, loss_fn, x, y, batched_loss=False):
    """For each example separately: ``loss(model(x_i), y_i).backward()``, then each trainable parameter's ``.grad``
    (dense; zero where it got none). ``batched_loss``: ``loss_fn`` takes a batch (of one) and returns its losses."""
    parameters = {name: p for name, p in model.named_parameters() if p.requires_grad}
    gradients = []
    for example, target in zip(x, y):
        model.zero_grad(set_to_none=True)
        prediction = model(example[None])
        loss = loss_fn(prediction, target[None])[0] if batched_loss else loss_fn(prediction[0], target)
        loss.backward()
        gradients.append(
            {
                name: torch.zeros_like(p) if p.grad is None else p.grad.to_dense().clone()
                for name, p in parameters.items()
            }
        )
    model.zero_grad(set_to_none=True)
    return gradients


def example_norms(gradients):
    return torch.stack([torch.sqrt(sum(g.square().sum() for g in example.values())) for example in gradients])


def clipped_sum(gradients, clip):
    """Σ_i g_i·min(1, C/‖g_i‖)."""
    factors = (clip / example_norms(gradients)).clamp(max=1.0)
    return {name: sum(f * example[name] for f, example in zip(factors, gradients)) for name in gradients[0]}


def reference_clipped_sum(model, loss_fn, x, y, clip, batched_loss=False):
    """Σ_i clip_C(∇ℓ_i) by the per-example loop."""
    return clipped_sum(per_example_gradients(model, loss_fn, x, y, batched_loss), clip)


def assert_same_sums(got, expected):
    assert got.keys() == expected.keys()
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], **TOLERANCE)


def case(name):
    """(model, loss, x, y) of a named Linear test case, float64; ``loss`` gives the loss of one example."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        x = torch.randn(20, 6, generator=generator, dtype=DTYPE)
        return model.to(DTYPE), cross_entropy, x, torch.randint(0, 3, (20,), generator=generator)
    if name == "sequence":  # T = 7 positions, T·(p + d) > p·d in both layers: per-example weight gradients formed
        x = torch.randn(12, 7, 3, generator=generator, dtype=DTYPE)
        return Scaled().to(DTYPE), squared_error, x, torch.randn(12, 4, generator=generator, dtype=DTYPE)
    if name == "long_features":  # T = 2, T·(p + d) = 28 <= p·d = 40: the Gram-matrix branch for T > 1
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


def _drawn(model):
    """``model`` in float64 with every parameter drawn from N(0, 0.5²) (no unit LayerNorm scale, no zero bias)."""
    model = model.to(DTYPE)
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=generator, dtype=DTYPE))
    return model


def _ids(shape, vocabulary, generator):
    """Token ids with repeats (more positions than ids) and id 0 at the first position of every other example."""
    ids = torch.randint(0, vocabulary, shape, generator=generator)
    ids.view(shape[0], -1)[::2, 0] = 0
    return ids


def _cnn():
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False),  # L = 25 positions: gradients formed
        nn.GroupNorm(2, 4),
        nn.ReLU(),
        nn.Conv2d(4, 6, (2, 3), padding="same", dilation=(2, 1), groups=2, padding_mode="reflect"),
        nn.GroupNorm(3, 6),
        nn.Tanh(),
        nn.Conv2d(6, 8, 2, stride=2),  # L = 4, 4·(8 + 24) <= 8·24: Gram matrices
        nn.Flatten(),
        nn.Linear(32, 3),
    )


def _conv1d():
    return nn.Sequential(
        nn.Conv1d(3, 4, 3, padding=2, dilation=2, padding_mode="circular"),
        nn.ReLU(),
        nn.Conv1d(4, 4, 4, padding="same", padding_mode="replicate"),  # even kernel: one more on the right
        nn.Conv1d(4, 4, 4, padding="same", bias=False),
        nn.Conv1d(4, 6, 2, stride=3, groups=2),
        nn.GroupNorm(3, 6),
        nn.Flatten(),
        nn.Linear(24, 3),
    )


def layer_case(name):
    """(model, batched loss, x, y) of a named case mixing the layer types, float64."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    labels = torch.randint(0, 3, (12,), generator=generator)
    if name == "tokens":  # Embedding (padding_idx 0, repeated ids), LayerNorm and Linear on (B, T, ...)
        return _drawn(Tokens()), cross_entropy_losses, _ids((12, 9), 7, generator), labels
    if name == "tokens_padding_last":  # padding_idx = -1 is id 6
        return _drawn(Tokens(padding_idx=-1)), cross_entropy_losses, 6 - _ids((12, 9), 7, generator), labels
    if name == "token_grid":  # ids (B, 3, 5); LayerNorm over the last two axes (5, 4)
        model = nn.Sequential(nn.Embedding(6, 4), nn.LayerNorm((5, 4)), nn.Flatten(), nn.Linear(60, 3))
        return _drawn(model), cross_entropy_losses, _ids((12, 3, 5), 6, generator), labels
    if name == "one_sparse_token":  # one id per example, sparse gradients, no bias
        model = nn.Sequential(nn.Embedding(5, 3, sparse=True), nn.Linear(3, 3, bias=False))
        return _drawn(model), cross_entropy_losses, torch.randint(0, 5, (12,), generator=generator), labels
    if name == "cnn":
        return _drawn(_cnn()), cross_entropy_losses, torch.randn(12, 2, 9, 9, generator=generator, dtype=DTYPE), labels
    if name == "conv1d":
        return _drawn(_conv1d()), cross_entropy_losses, torch.randn(12, 3, 11, generator=generator, dtype=DTYPE), labels
    if name == "frozen_parts":  # a frozen layer, a frozen LayerNorm scale, a frozen bias
        model = _drawn(Tokens())
        model.norm.weight.requires_grad_(False)
        model.mix.requires_grad_(False)
        model.head.bias.requires_grad_(False)
        return model, cross_entropy_losses, _ids((12, 9), 7, generator), labels
    if name == "frozen_convolution":
        model = _drawn(_cnn())
        model[0].requires_grad_(False)
        model[1].weight.requires_grad_(False)
        model[3].bias.requires_grad_(False)
        return model, cross_entropy_losses, torch.randn(12, 2, 9, 9, generator=generator, dtype=DTYPE), labels
    if name == "shared":
        return _drawn(Shared()), cross_entropy_losses, _ids((12, 7), 6, generator), labels
    if name == "in_place":  # ReLU(inplace=True) overwrites the outputs of a Linear and of a Conv1d layer
        model = nn.Sequential(
            nn.Conv1d(2, 3, 3),
            nn.ReLU(inplace=True),
            nn.Flatten(),
            nn.Linear(12, 5),
            nn.ReLU(inplace=True),
            nn.Linear(5, 3),
        )
        return _drawn(model), cross_entropy_losses, torch.randn(12, 2, 6, generator=generator, dtype=DTYPE), labels
    raise ValueError(name)


LAYER_CASES = [
    "tokens",
    "tokens_padding_last",
    "token_grid",
    "one_sparse_token",
    "cnn",
    "conv1d",
    "frozen_parts",
    "frozen_convolution",
    "shared",
    "in_place",
]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("clip", [1e-3, 0.3, 1e6])  # every example clipped, some, none
def test_ghost_clipped_sum_matches_the_per_example_loop(name, clip):
    model, loss_fn, x, y = case(name)
    assert_same_sums(ghost_clipped_sum(model, loss_fn, x, y, clip), reference_clipped_sum(model, loss_fn, x, y, clip))


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")  # PyTorch's, about its speed
@pytest.mark.parametrize("name", LAYER_CASES)
def test_every_layer_type_matches_the_per_example_loop(name):
    """Every example clipped, about half (C = the median norm), none; the ghost path in use throughout."""
    model, loss_fn, x, y = layer_case(name)
    assert not ghost_unsupported(model)
    gradients = per_example_gradients(model, loss_fn, x, y, batched_loss=True)
    norms = example_norms(gradients)
    assert torch.all(norms > 0)
    for clip in (1e-3 * float(norms.min()), float(norms.median()), 1e3 * float(norms.max())):
        clipper = ModuleGradientClipper(model, loss_fn, clip, method="ghost", batched_loss=True)
        assert_same_sums(clipper(x, y), clipped_sum(gradients, clip))
        assert clipper.method == "ghost" and clipper.copy_outputs == (name == "in_place")


def test_repeated_ids_add_their_rows_before_the_norm():
    """‖Σ_t e_{k_t} g_tᵀ‖²: two positions with the same id add up (norm² 4 + 2·1·… here), unlike the sum of the
    rows' norms; a padding position (zeroed by the caller) adds nothing."""
    ids = torch.tensor([[3, 3, 1], [0, 1, 2]])
    G = torch.tensor([[[1.0, 0.0], [1.0, 2.0], [0.0, 1.0]], [[1.0, 1.0], [2.0, 0.0], [0.0, 3.0]]], dtype=DTYPE)
    gradients = EmbeddingGradients(ids, G, num_embeddings=4)
    formed = torch.zeros(2, 4, 2, dtype=DTYPE).index_put_((torch.arange(2)[:, None], ids), G, accumulate=True)
    torch.testing.assert_close(gradients.squared_norms(), torch.tensor([4.0 + 4.0 + 1.0, 2.0 + 4.0 + 9.0], dtype=DTYPE))
    torch.testing.assert_close(gradients.squared_norms(), formed.square().sum((1, 2)))
    c = torch.tensor([0.5, 2.0], dtype=DTYPE)
    torch.testing.assert_close(gradients.clipped_sum(c), torch.einsum("b,bvd->vd", c, formed))


@pytest.mark.parametrize(
    ("T", "p", "d", "kind"),
    [
        (1, 3, 5, ProductGradients),
        (1, 3, 1, FormedGradients),  # 1·(3 + 1) > 3·1
        (2, 4, 10, ProductGradients),
        (25, 4, 18, FormedGradients),
    ],
)
def test_product_gradients_keep_the_factors_only_where_the_gram_matrices_are_cheaper(T, p, d, kind):
    """Both forms give the norms and sums of the formed per-example gradients Σ_t g_t a_tᵀ (two groups)."""
    generator = torch.Generator().manual_seed(3)
    A = torch.randn(5, 2, d, T, generator=generator, dtype=DTYPE)
    G = torch.randn(5, 2, p, T, generator=generator, dtype=DTYPE)
    gradients = product_gradients(A, G, torch.Size([2 * p, d]))
    assert type(gradients) is kind
    formed = torch.einsum("bgpt,bgdt->bgpd", G, A).reshape(5, 2 * p, d)
    torch.testing.assert_close(gradients.squared_norms(), formed.square().sum((1, 2)), **TOLERANCE)
    c = torch.rand(5, generator=generator, dtype=DTYPE)
    torch.testing.assert_close(gradients.clipped_sum(c), torch.einsum("b,bpd->pd", c, formed), **TOLERANCE)


@pytest.mark.parametrize("name", CASES)
def test_vmap_clipped_sum_matches_the_per_example_loop(name):
    model, loss_fn, x, y = case(name)
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    expected = reference_clipped_sum(model, loss_fn, x, y, 0.3)
    assert_same_sums(vmap_clipped_sum(model, loss_fn, x, y, 0.3, names), expected)


@pytest.mark.parametrize("method", ["ghost", "vmap"])
def test_batched_loss_gives_the_same_sum_as_the_per_example_loss(method):
    model, _, x, y = case("mlp")
    batched = ModuleGradientClipper(model, nn.CrossEntropyLoss(reduction="none"), 0.3, method=method, batched_loss=True)
    assert_same_sums(batched(x, y), reference_clipped_sum(model, cross_entropy, x, y, 0.3))


def test_batched_loss_returning_a_mean_is_refused():
    model, _, x, y = case("mlp")
    clipper = ModuleGradientClipper(model, nn.CrossEntropyLoss(), 0.3, batched_loss=True)
    with pytest.raises(ValueError, match=r"loss_fn returned shape \(\) with batched_loss=True"):
        clipper(x, y)


@pytest.mark.parametrize(
    ("module", "reason"),
    [
        (nn.Conv3d(1, 1, 1), "Conv3d is not one of"),
        (nn.LSTM(2, 2), "LSTM is not one of"),
        (nn.Embedding(4, 2, scale_grad_by_freq=True), "scale_grad_by_freq or max_norm"),
        (nn.Embedding(4, 2, max_norm=1.0), "scale_grad_by_freq or max_norm"),
    ],
)
def test_unsupported_layers_take_the_vmap_path(module, reason):
    assert reason in layer_refusal(module)
    model = nn.Sequential(module)
    assert ghost_unsupported(model) == [f"0 ({type(module).__name__})"]
    assert ModuleGradientClipper(model, squared_error, 1.0).method == "vmap"


def test_a_parameter_registered_beside_weight_and_bias_is_unsupported():
    layer = nn.Linear(2, 2)
    layer.register_parameter("scale", nn.Parameter(torch.ones(2)))
    assert layer_refusal(layer) == "trainable parameters ['scale'] registered beside the layer's weight and bias"
    layer.scale.requires_grad_(False)
    assert layer_refusal(layer) is None


def test_auto_falls_back_to_vmap_on_an_unsupported_layer_with_the_same_sum():
    conv = nn.Sequential(nn.Conv3d(1, 2, 2), nn.Flatten(), nn.Linear(4, 3)).to(DTYPE)
    clipper = ModuleGradientClipper(conv, cross_entropy, 0.3)
    assert clipper.method == "vmap"
    x = torch.randn(5, 1, 2, 2, 3, dtype=DTYPE)
    y = torch.randint(0, 3, (5,))
    assert_same_sums(clipper(x, y), reference_clipped_sum(conv, cross_entropy, x, y, 0.3))


def test_batch_norm_is_unsupported_even_without_parameters():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, affine=False), nn.Linear(4, 1))
    assert ghost_unsupported(model) == ["1 (BatchNorm1d)"]


def test_explicit_ghost_on_an_unsupported_model_names_the_layer():
    model = nn.Sequential(nn.Embedding(5, 3, max_norm=1.0), nn.Linear(3, 1))
    with pytest.raises(ValueError, match=r"gradient_method='ghost'.*0 \(Embedding\)"):
        ModuleGradientClipper(model, squared_error, 1.0, method="ghost")


def test_embedding_weight_tied_to_the_output_layer_takes_the_vmap_path():
    """Tied across modules (an embedding and the output layer of a language model) is refused: the cross term of the
    two uses' per-example gradients is not factored. The vmap path gives the per-example loop's sum."""

    class TiedLanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(6, 4)
            self.out = nn.Linear(4, 6, bias=False)
            self.out.weight = self.embed.weight

        def forward(self, ids):
            return self.out(self.embed(ids).mean(1))

    model = _drawn(TiedLanguageModel())
    assert ghost_unsupported(model) == ["embed (Embedding)", "out (Linear)"]
    x, y = _ids((8, 5), 6, torch.Generator().manual_seed(4)), torch.randint(0, 6, (8,))
    clipper = ModuleGradientClipper(model, cross_entropy, 0.5)
    assert clipper.method == "vmap"
    assert_same_sums(clipper(x, y), reference_clipped_sum(model, cross_entropy, x, y, 0.5))


def test_weights_tied_across_two_layers_take_the_vmap_path():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4)).to(DTYPE)
    model[2].weight = model[0].weight
    assert ghost_unsupported(model) == ["0 (Linear)", "2 (Linear)"]
    x, y = torch.randn(6, 4, dtype=DTYPE), torch.randn(6, 4, dtype=DTYPE)
    clipper = ModuleGradientClipper(model, squared_error, 0.5)
    assert clipper.method == "vmap"
    expected = reference_clipped_sum(model, squared_error, x, y, 0.5)
    assert expected.keys() == {"0.weight", "0.bias", "2.bias"}
    assert_same_sums(clipper(x, y), expected)


def test_a_parameter_used_outside_its_layer_falls_back_to_vmap_and_is_refused_under_ghost():
    class Direct(nn.Module):
        """``layer`` is called once, and its weight is also used directly (its gradient has a second term)."""

        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(3, 3)

        def forward(self, x):
            return self.layer(x) + x @ self.layer.weight

    torch.manual_seed(0)
    model = Direct().to(DTYPE)
    x, y = torch.randn(6, 3, dtype=DTYPE), torch.randn(6, 3, dtype=DTYPE)
    with pytest.raises(
        GhostClippingUnsupported, match=r"'layer.weight' enters the graph 2 times but its layer's output does 1 times"
    ):
        ModuleGradientClipper(model, squared_error, 0.5, method="ghost")(x, y)
    clipper = ModuleGradientClipper(model, squared_error, 0.5)
    assert_same_sums(clipper(x, y), reference_clipped_sum(model, squared_error, x, y, 0.5))
    assert clipper.method == "vmap"


def test_a_layer_never_called_or_whose_output_is_discarded_gets_a_zero_sum():
    class Unused(nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = nn.Linear(3, 2), nn.Conv1d(1, 1, 1)
            self.discarded = nn.Linear(3, 3)

        def forward(self, x):
            self.discarded(x)
            self.used(2 * x)  # discarded too: its gradient is zero
            return self.used(self.discarded(x))

    torch.manual_seed(0)
    model = Unused().to(DTYPE)
    x, y = torch.randn(6, 3, dtype=DTYPE), torch.randn(6, 2, dtype=DTYPE)
    got = ghost_clipped_sum(model, squared_error, x, y, 0.5)
    assert_same_sums(got, reference_clipped_sum(model, squared_error, x, y, 0.5))
    assert torch.count_nonzero(got["unused.weight"]) == 0 and torch.count_nonzero(got["discarded.weight"]) > 0


@pytest.mark.parametrize(
    ("layer", "fold"),
    [
        (nn.Linear(4, 2), lambda x: x.reshape(-1, 4)),  # each example's 8 features as 2 rows of 4
        (nn.Conv1d(2, 2, 1), lambda x: x.reshape(-1, 2, 2)),
        (nn.LayerNorm(4), lambda x: x.reshape(-1, 4)),
        (nn.Embedding(5, 4), lambda x: (x.abs() * 10).long().reshape(-1)),
    ],
)
def test_input_without_the_batch_axis_first_is_refused(layer, fold):
    class Folded(nn.Module):
        """The layer sees 2B rows, not (B, ...)."""

        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, x):
            return self.layer(fold(x)).reshape(len(x), -1).sum(1, keepdim=True)

    with pytest.raises(GhostClippingUnsupported, match=r"the ghost path needs the batch \(size 3\) as the first"):
        ghost_clipped_sum(Folded(), squared_error, torch.randn(3, 8) / 10, torch.randn(3, 1), 1.0)


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
    with pytest.raises(GhostClippingUnsupported, match="without a tensor as its first positional argument"):
        ghost_clipped_sum(model, squared_error, x, y, 0.4)
    clipper = ModuleGradientClipper(model, squared_error, 0.4)
    got = clipper(x, y)
    assert clipper.method == "vmap"
    assert_same_sums(got, reference_clipped_sum(model, squared_error, x, y, 0.4))
