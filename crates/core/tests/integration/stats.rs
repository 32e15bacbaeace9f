// Confidence intervals against published values.
