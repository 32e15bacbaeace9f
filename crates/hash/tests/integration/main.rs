//! Integration tests of bloomlab-hash: one binary, one module per topic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// hutool HashUtil functions against hutool 5.8.34's own outputs.
mod hutool;
// murmur3 against Guava 31.1, MurmurHash64A against RedisBloom.
mod murmur;
// Index strategies: Guava's bit indices, RedisBloom's probe indexes,
// range and distribution properties of every strategy.
mod strategy;
