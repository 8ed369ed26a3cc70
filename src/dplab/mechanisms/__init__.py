"""Privacy mechanisms, one module per concept: the analytic Gaussian mechanism (``gaussian``), purification of
approximate DP (``purification``, Lin, Wang, Ma, Wang, Algorithms 1 and 2), the exponential mechanism on a finite
grid (``exponential``) and the ℓ2 K-norm (output-perturbation) mechanism (``knorm``)."""
