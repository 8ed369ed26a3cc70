"""Synthetic logistic-regression data (train and test), deterministic from the configuration's seed."""

from dplab.workflow.jobserver import delegate

delegate()  # forked from the run's job server when it has one: the imports below are then already paid

import numpy as np

from dplab.data.synthetic import logistic_regression_dataset
from dplab.report.io import atomic_path
from dplab.seeding import derive_seed
from dplab.workflow.helpers import mock_snakemake, record_outputs, setup_script

if "snakemake" not in globals():  # run directly, e.g. python workflow/scripts/logistic_dataset.py, from the repository
    snakemake = mock_snakemake("logistic_dataset", configfiles=("config.quick.yaml",), noise="gaussian")
log = setup_script(snakemake)
params = snakemake.params
data = params.data
seed = derive_seed(params.seed, snakemake.rule, snakemake.wildcards.noise)
X, y, w_star = logistic_regression_dataset(
    data["n"] + params.test_size, data["d"], seed=seed, feature_distribution=data["feature_distribution"]
)
n = data["n"]
log.info("seed %d, n_train %d, n_test %d, d %d", seed, n, params.test_size, data["d"])
with atomic_path(snakemake.output[0]) as temporary:
    with open(temporary, "wb") as handle:
        np.savez(handle, X_train=X[:n], y_train=y[:n], X_test=X[n:], y_test=y[n:], w_star=w_star)
record_outputs(snakemake)
