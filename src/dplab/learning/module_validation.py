"""Which ``torch.nn.Module`` DP-SGD can privatise, checked once before training.

DP-SGD (Abadi et al. 2016, Algorithm 1) bounds each record's influence by clipping its own gradient, so it needs
(a) per-example gradients, which exist only when the output for one example does not depend on the other examples
of the batch, and (b) at least one trainable parameter. A module with batch statistics breaks (a): BatchNorm (1d,
2d, 3d, lazy variants) and SyncBatchNorm normalise each example by the batch's mean and variance, and an InstanceNorm
with ``track_running_stats=True`` updates running statistics from the data; those statistics are buffers released
with the model that no clipping or noise touches. Opacus's ``ModuleValidator`` refuses the same modules; the
per-example replacements are GroupNorm (``torch.nn.GroupNorm``), LayerNorm, or InstanceNorm with
``track_running_stats=False``.
"""

from __future__ import annotations

from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm
from torch.nn.modules.instancenorm import _InstanceNorm

__all__ = ["batch_statistics_modules", "validate_private_module"]

_REPLACEMENTS = "torch.nn.GroupNorm, torch.nn.LayerNorm or InstanceNorm with track_running_stats=False"


def batch_statistics_modules(model: nn.Module) -> list[str]:
    """``"<name> (<type>)"`` of each submodule of ``model`` whose output or buffers depend on the whole batch:
    BatchNorm*/SyncBatchNorm (any mode: their running statistics are data-dependent buffers), and InstanceNorm*
    with ``track_running_stats=True``."""
    return [
        f"{name or '<model>'} ({type(module).__name__})"
        for name, module in model.named_modules()
        if isinstance(module, _BatchNorm) or (isinstance(module, _InstanceNorm) and module.track_running_stats)
    ]


def validate_private_module(model: nn.Module) -> nn.Module:
    """``model`` unchanged after checking DP-SGD can privatise it: a ``torch.nn.Module`` with at least one parameter
    with ``requires_grad=True`` and no module of :func:`batch_statistics_modules` (``TypeError`` or ``ValueError``
    naming ``model``, what is wrong and what to use instead)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model is a {type(model).__name__}; allowed: a torch.nn.Module")
    if not any(parameter.requires_grad for parameter in model.parameters()):
        raise ValueError(
            "model has no trainable parameter (every parameter has requires_grad=False, or there are none); "
            "allowed: a model with at least one parameter to train"
        )
    offending = batch_statistics_modules(model)
    if offending:
        raise ValueError(
            f"model has modules with batch statistics: {', '.join(offending)}; per-example gradients are undefined "
            f"and their running statistics are released without noise. Allowed: per-example modules; use "
            f"{_REPLACEMENTS} instead (as Opacus's ModuleValidator.fix does)"
        )
    return model
