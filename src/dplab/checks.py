"""Argument checks shared by the library: a bad value raises ``ValueError`` naming the argument, the value and what
is allowed (``"epsilon=-1.0 is invalid; allowed: a finite number > 0"``), before any work starts.

Every check works on scalars and arrays alike (an array is valid when every entry is); the scalar forms return a
Python ``float``/``int``, the ``as_*_array`` forms a float64 array. A value that is not a real number at all (a string,
``None``, a boolean, a complex number, or an array of booleans or complex numbers) raises ``TypeError`` naming the
argument: ``True`` is not silently 1, and the imaginary part of a complex value is never dropped. The checks never
change a valid value: they return it converted exactly as the callers converted it before (``float(value)``,
``np.asarray(value, float64)``).

Sizes: :func:`fits_in_memory` refuses a call whose estimated allocation (bytes, computed by the caller from its size
arguments before allocating) exceeds :func:`memory_limit_bytes`, this machine's physical memory (the ceiling the
workflow's memory check uses for jobs, :func:`dplab.workflow.resources.max_mem_mb`). Torch: :func:`floating_tensor` (dtype and
finite entries of a model input) and :func:`available_device`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dplab.machine import physical_memory_mb

__all__ = [
    "as_finite_array",
    "as_float_array",
    "as_integer_array",
    "as_missing_aware_array",
    "as_non_negative_array",
    "as_positive_array",
    "as_real_array",
    "as_real_tensor",
    "available_device",
    "choice",
    "finite",
    "finite_tensor",
    "fits_in_memory",
    "floating_tensor",
    "in_range",
    "labels_in",
    "log_probability",
    "matching_length",
    "memory_limit_bytes",
    "non_negative_finite",
    "not_boolean",
    "positive_finite",
    "probability",
    "real_number",
    "renyi_orders",
    "require",
    "require_ndim",
    "size_that_fits",
    "whole_number",
]

_MAX_SHOWN = 5


def _describe(value: Any, ok: np.ndarray) -> str:
    """The offending entries of ``value`` (all of it when scalar), formatted for an error message."""
    array = np.asarray(value)
    if array.ndim == 0:
        return repr(array.item())
    bad = array[~np.broadcast_to(ok, array.shape)]
    shown = ", ".join(repr(x.item()) for x in bad[:_MAX_SHOWN])
    more = f", ... ({bad.size} entries)" if bad.size > _MAX_SHOWN else ""
    return f"[{shown}{more}]"


def require(ok: ArrayLike, name: str, value: Any, allowed: str) -> None:
    """Raise ``ValueError("<name>=<bad entries> is invalid; allowed: <allowed>")`` unless every entry of ``ok``
    is true."""
    ok = np.asarray(ok, dtype=bool)
    if not ok.all():
        raise ValueError(f"{name}={_describe(value, ok)} is invalid; allowed: {allowed}")


def _numeric(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``TypeError`` naming ``name`` if it is not real-numeric (a string, None, a
    boolean, a complex number, or an array of booleans or complex numbers)."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name}={value!r} is invalid; allowed: a number")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} is invalid; allowed: a number (a boolean is not a number)")
    try:
        array = np.asarray(value)
        kind = array.dtype.kind
        if kind not in "bc":
            return np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name}={_shown(value)} is invalid; allowed: a number or an array of numbers") from error
    if kind == "b":
        raise TypeError(f"{name} has boolean entries; allowed: numbers (convert explicitly if 0/1 is meant)")
    raise TypeError(f"{name}={_shown(value)} is invalid; allowed: real numbers (an imaginary part is never dropped)")


def _shown(value: Any) -> str:
    """``repr(value)``, cut after 80 characters (a refused array may be large)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else f"{text[:77]}..."


def _scalar(array: np.ndarray, name: str, value: Any) -> float:
    if array.ndim != 0:
        raise ValueError(f"{name} has shape {array.shape}; allowed: a single number")
    return float(value) if isinstance(value, (int, float)) else float(array)


def as_real_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array of real numbers, NaN and ±inf included (the caller decides which are allowed);
    ``TypeError`` naming ``name`` for booleans, complex numbers, strings or None."""
    return _numeric(value, name)


def renyi_orders(name: str, value: ArrayLike) -> np.ndarray:
    """``value`` as a float array after checking every entry is a Rényi order α > 1 (∞ allowed)."""
    order = as_real_array(value, name)
    require(order > 1, name, value, "a Rényi order > 1 (inf allowed)")
    return order


def as_float_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` if any entry is NaN (infinities pass)."""
    array = _numeric(value, name)
    require(~np.isnan(array), name, array, "a number (not NaN)")
    return array


def as_finite_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` unless every entry is finite (no NaN, no inf)."""
    array = _numeric(value, name)
    require(np.isfinite(array), name, array, "finite numbers (no NaN or infinity)")
    return array


def as_missing_aware_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` if any entry is ±inf (NaN passes: in a dataset
    with missing values it marks a missing entry)."""
    array = _numeric(value, name)
    require(~np.isinf(array), name, array, "finite numbers or NaN (a missing value)")
    return array


def as_positive_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` unless every entry is finite and > 0."""
    array = _numeric(value, name)
    require(np.isfinite(array) & (array > 0), name, array, f"0 < {name} < inf")
    return array


def as_non_negative_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a float64 array; ``ValueError`` naming ``name`` unless every entry is finite and >= 0."""
    array = _numeric(value, name)
    require(np.isfinite(array) & (array >= 0), name, array, f"0 <= {name} < inf")
    return array


_INT64 = np.iinfo(np.int64)


def as_integer_array(value: ArrayLike, name: str, minimum: float = -math.inf) -> np.ndarray:
    """``value`` as an int64 array; ``ValueError`` naming ``name`` unless every entry is a whole number >= minimum.
    Integer input is converted directly (no float64 round trip, so integers above 2^53 keep every digit)."""
    allowed = "a finite whole number" + ("" if minimum == -math.inf else f" >= {minimum:g}") + " within int64"
    raw = np.asarray(value) if isinstance(value, np.ndarray) or np.isscalar(value) else None
    if raw is not None and raw.dtype.kind in "iu":
        require((raw >= minimum) & (raw <= _INT64.max), name, raw, allowed)
        return raw.astype(np.int64)
    array = _numeric(value, name)
    # int64 holds [-2^63, 2^63): a float outside would wrap in the cast instead of being refused
    in_range = (array >= -(2.0**63)) & (array < 2.0**63)
    require(np.isfinite(array) & (array == np.round(array)) & (array >= minimum) & in_range, name, value, allowed)
    return array.astype(np.int64)


def real_number(name: str, value: float) -> float:
    """``value`` as a Python float after checking it is one real number (NaN and ±inf pass: the caller decides which
    values are allowed); ``TypeError`` naming ``name`` for a boolean, a complex number, a string or None."""
    return _scalar(_numeric(value, name), name, value)


def not_boolean(name: str, value: Any) -> Any:
    """``value`` unchanged after checking it is not a boolean (``TypeError`` naming ``name``): for checks written as
    ``isinstance(value, int)``, which ``True`` passes."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={value!r} is invalid; allowed: a number (a boolean is not a number)")
    return value


def finite(name: str, value: float) -> float:
    """``value`` as a float after checking it is finite (any sign)."""
    return _scalar(as_finite_array(value, name), name, value)


def positive_finite(name: str, value: float) -> float:
    """``value`` as a float after checking 0 < value < ∞."""
    array = _numeric(value, name)
    require(np.isfinite(array) & (array > 0), name, value, "a finite number > 0")
    return _scalar(array, name, value)


def non_negative_finite(name: str, value: float) -> float:
    """``value`` as a float after checking 0 <= value < ∞."""
    array = _numeric(value, name)
    require(np.isfinite(array) & (array >= 0), name, value, "a finite number >= 0")
    return _scalar(array, name, value)


def in_range(
    name: str, value: float, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    """``value`` as a float after checking low <= value <= high (``<`` on an open side); NaN is always refused and
    an infinite end is allowed only when that bound is infinite and closed."""
    array = _numeric(value, name)
    above = operator.gt if low_open else operator.ge
    below = operator.lt if high_open else operator.le
    left, right = ("(" if low_open else "["), (")" if high_open else "]")
    require(above(array, low) & below(array, high), name, value, f"a number in {left}{low:g}, {high:g}{right}")
    return _scalar(array, name, value)


def probability(name: str, value: float, *, allow_zero: bool = False, allow_one: bool = False) -> float:
    """``value`` as a float after checking it is a probability: 0 < value < 1, each end allowed on request."""
    return in_range(name, value, 0.0, 1.0, low_open=not allow_zero, high_open=not allow_one)


def log_probability(name: str, value: float, *, allow_zero: bool = False, allow_one: bool = False) -> float:
    """``value`` as a float after checking it is the log of a probability: -∞ < value < 0, with value = -∞ (the
    probability 0) and value = 0 (the probability 1) allowed on request."""
    return in_range(name, value, -math.inf, 0.0, low_open=not allow_zero, high_open=not allow_one)


def whole_number(name: str, value: int, minimum: int = 1, maximum: float = math.inf) -> int:
    """``value`` as an int after checking it is a whole number with minimum <= value <= maximum (bool refused)."""
    if isinstance(value, bool):
        raise TypeError(f"{name}={value!r} is invalid; allowed: a whole number (a boolean is not a number)")
    upper = "" if maximum == math.inf else f" and <= {maximum:g}"
    allowed = f"a whole number >= {minimum}{upper}"
    if isinstance(value, (int, np.integer)):  # exact: no float64 round trip, so a 64-bit seed keeps every digit
        require(minimum <= value <= maximum, name, value, allowed)
        return int(value)
    array = _numeric(value, name)
    require(
        np.isfinite(array) & (array == np.round(array)) & (array >= minimum) & (array <= maximum), name, value, allowed
    )
    return int(_scalar(array, name, value))


def choice(name: str, value: object, allowed: Collection[object]) -> object:
    """``value`` unchanged after checking it is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is invalid; allowed: one of {', '.join(map(repr, allowed))}")
    return value


def labels_in(name: str, labels: ArrayLike, allowed: Sequence[float] = (-1.0, 1.0)) -> np.ndarray:
    """``labels`` as a float64 array after checking every entry is one of ``allowed`` (default the signs ±1: a
    {0, 1} coding is refused where the formula assumes y ∈ {-1, +1})."""
    array = _numeric(labels, name)
    require(
        np.isin(array, np.asarray(allowed, dtype=np.float64)),
        name,
        array,
        f"labels in {{{', '.join(f'{a:g}' for a in allowed)}}}",
    )
    return array


def require_ndim(name: str, array: np.ndarray, ndim: int) -> np.ndarray:
    """``array`` unchanged after checking it has ``ndim`` dimensions."""
    if np.ndim(array) != ndim:
        raise ValueError(f"{name} has shape {np.shape(array)}; allowed: an array with {ndim} dimension(s)")
    return array


def matching_length(name: str, array: Any, other_name: str, other: Any) -> None:
    """Check ``len(array) == len(other)`` (first axes agree), naming both arguments and their shapes."""
    shape, other_shape = tuple(np.shape(array)), tuple(np.shape(other))  # a torch.Size shown as a tuple
    if shape[:1] != other_shape[:1]:
        raise ValueError(
            f"{name} has shape {shape} and {other_name} has shape {other_shape}; "
            f"allowed: the same length along the first axis"
        )


def finite_tensor(name: str, tensor: Any) -> Any:
    """``tensor`` (torch) unchanged after checking every entry is finite.

    A finite sum proves every entry finite (a NaN or an infinity makes the sum NaN or infinite), and summing is about
    20x faster than ``isfinite(...).all()`` on a large tensor (8192 x 1000 float64, one thread: 3.6 against 70 ms);
    only a sum that overflows from finite entries, or a tensor that holds a non-finite entry, takes the entrywise
    check."""
    import torch  # here, so that the numpy-only modules do not import torch

    values = torch.as_tensor(tensor)
    if not (values.is_floating_point() or values.is_complex()):
        return tensor  # integers and booleans are finite
    if bool(torch.isfinite(values.sum())):
        return tensor
    ok = torch.isfinite(values)
    if not bool(ok.all()):
        raise ValueError(f"{name} has non-finite entries {values[~ok][:_MAX_SHOWN].tolist()}; allowed: finite numbers")
    return tensor


_GIB = 2**30


def memory_limit_bytes() -> int:
    """The most bytes one call may allocate: this machine's physical memory (:func:`physical_memory_mb`,
    the ceiling of the workflow's memory check for jobs). Physical, not currently free, memory: a call that fits the
    machine is never refused because of what other processes hold at the moment."""
    return physical_memory_mb() * 2**20


def fits_in_memory(sizes: Mapping[str, Any], n_bytes: float, what: str) -> None:
    """Refuse (``ValueError``) a call whose estimated allocation ``n_bytes`` exceeds :func:`memory_limit_bytes`,
    naming the size arguments ``sizes`` (name -> value), ``what`` is allocated, the estimate and the limit. Call it
    with the estimate computed from the size arguments, before allocating."""
    limit = memory_limit_bytes()
    if n_bytes > limit:
        shown = ", ".join(f"{name}={_shown(value)}" for name, value in sizes.items())
        raise ValueError(
            f"{shown} is invalid: {what} needs an estimated {n_bytes / _GIB:.4g} GiB ({n_bytes:.4g} bytes); "
            f"allowed: sizes whose allocation fits this machine's memory, {limit / _GIB:.4g} GiB"
        )


def size_that_fits(name: str, value: int, bytes_each: float, what: str, minimum: int = 1) -> int:
    """``value`` as an int after checking it is a whole number >= ``minimum`` (:func:`whole_number`) and that
    ``value`` x ``bytes_each`` bytes (the caller's arrays per unit of the size, temporaries included) fit in memory
    (:func:`fits_in_memory`, naming ``what``)."""
    value = whole_number(name, value, minimum=minimum)
    fits_in_memory({name: value}, value * bytes_each, what)
    return value


_FLOATING = ("torch.float32", "torch.float64")


def floating_tensor(name: str, tensor: Any, dtype: Any = None) -> Any:
    """``tensor`` unchanged after checking it is a torch tensor of a real floating dtype (float32 or float64, and
    ``dtype`` when given, e.g. the model's parameter dtype) with finite entries. Integer, boolean, complex and
    half-precision tensors are refused, never converted silently: convert with ``tensor.to(dtype)`` first."""
    import torch

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{name} is a {type(tensor).__name__}; allowed: a torch.Tensor")
    allowed = str(dtype) if dtype is not None else " or ".join(_FLOATING)
    if str(tensor.dtype) not in _FLOATING or (dtype is not None and tensor.dtype != dtype):
        raise TypeError(
            f"{name} has dtype {tensor.dtype}; allowed: {allowed} (real floating point; convert with "
            f"{name}.to({allowed.split(' or ')[-1]}) yourself: integer, boolean, complex and half precision are "
            "not converted silently)"
        )
    return finite_tensor(name, tensor)


def as_real_tensor(value: Any, name: str, dtype: Any) -> Any:
    """``value`` (a torch tensor, a numpy array or a nested sequence of real numbers) as a torch tensor of ``dtype``,
    converted by ``torch.as_tensor`` (no copy when it already is one; integer and lower-precision entries converted
    as torch converts them). Booleans and complex numbers are refused (``TypeError`` naming ``name``), never
    converted: ``True`` is not 1 and an imaginary part is never dropped. Entries are not checked (NaN passes)."""
    import torch

    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bool or value.is_complex():
            raise TypeError(
                f"{name} has dtype {value.dtype}; allowed: real numbers (booleans and complex numbers are not "
                "converted: True is not 1 and an imaginary part is never dropped)"
            )
    else:
        _numeric(value, name)
    return torch.as_tensor(value, dtype=dtype)


def available_device(name: str, device: Any) -> Any:
    """``device`` as a ``torch.device`` after checking this machine has it (``"cuda"``/``"cuda:k"`` need CUDA with
    more than k devices, ``"mps"`` Apple's backend); ``ValueError`` naming ``name`` and the devices available."""
    import torch

    try:
        parsed = torch.device(device)
    except (TypeError, RuntimeError) as error:
        raise ValueError(f"{name}={device!r} is invalid; allowed: a torch device such as 'cpu' or 'cuda'") from error
    available = ["cpu"]
    available += [f"cuda:{index}" for index in range(torch.cuda.device_count())] if torch.cuda.is_available() else []
    available += ["mps"] if torch.backends.mps.is_available() else []
    index = 0 if parsed.index is None else parsed.index
    known = (
        parsed.type == "cpu" or f"{parsed.type}:{index}" in available or (parsed.type == "mps" and "mps" in available)
    )
    if not known:
        raise ValueError(f"{name}={device!r} is invalid; allowed: a device of this machine, one of {available}")
    return parsed
