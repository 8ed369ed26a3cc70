"""dplab performance benchmarks (issue 8). Run from the repository root with the project installed::

    python -m benchmarks            # full run (about 10 minutes on 2 cores)
    python -m benchmarks --quick    # fewer repeats and sizes (about a minute)

Results go to ``results/performance/``: ``performance.csv`` (tidy, one row per measurement), ``summary.md`` and
``figures/performance.png`` / ``.pdf``. Every comparison is measured side by side in one process (the
implementations of a case are timed in turn, repeat after repeat, so machine load hits them alike), with
``torch.set_num_threads(2)``, one warm-up measurement excluded, and reported as the median and inter-quartile range
over repeats and as a ratio to a named reference implementation.

What "one DP-SGD step" means, identically for dplab and Opacus (float32, CPU): draw a Poisson batch (each of the n
samples joins with probability q = B/n), compute the per-sample gradients of the logistic loss, clip each to norm C,
sum, add N(0, σ²C²) noise per coordinate, divide by the expected batch size B, and update the weights by SGD. A
measurement times ``steps`` consecutive steps and divides by ``steps``. For dplab it is one call of
``run_noisy_gradient`` (``sampling="poisson"``, ``runs=1``); for Opacus it is ``steps`` iterations of the loop a user
writes after ``PrivacyEngine.make_private(..., poisson_sampling=True)`` (next batch from the DP data loader, forward,
``backward``, ``optimizer.step``, ``zero_grad``); ``opacus_tensor_batches`` is the same private module and optimizer
fed with Poisson batches drawn by a tensor mask (no DataLoader), which isolates Opacus's gradient machinery.

Note: Opacus 1.6 installs a top-level package also called ``benchmarks`` into site-packages; run this one from the
repository root (``python -m`` puts the working directory first on ``sys.path``).
"""
