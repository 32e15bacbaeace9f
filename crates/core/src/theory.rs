//! False-positive-rate theory (placeholder, being written).
