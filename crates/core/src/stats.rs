//! Binomial confidence intervals (placeholder, being written).
