"""The contraction study: Asoodeh, Diaz, Calmon, *Privacy Amplification of Iterative Algorithms via Contraction
Coefficients* (ISIT 2020), reproduced and audited."""
