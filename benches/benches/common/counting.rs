//! What the counting benches share: one interface over the counting
//! filters they time, bloomlab's and fastbloom-rs's, and fastbloom-rs's
//! filter as both benches build it. Included by `counting.rs` and
//! `counting_floor.rs` (`#[path]`), as bench targets share no crate.

use bloomlab_counting::CountingBloomFilter;
use fastbloom_rs::{Deletable, FilterBuilder, Membership};

/// A counting filter under test, behind one interface for the loops.
pub(crate) trait Counting {
    fn insert(&mut self, key: u64);
    fn remove(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
}

impl Counting for CountingBloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        CountingBloomFilter::insert(self, &key);
    }
    #[inline]
    fn remove(&mut self, key: u64) {
        // Only inserted keys are removed here: the error cannot occur.
        let _ = CountingBloomFilter::remove(self, &key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        CountingBloomFilter::contains(self, &key)
    }
}

/// `fastbloom-rs` takes bytes; u64 keys as 8 bytes little-endian, as
/// bloomlab funnels them.
impl Counting for fastbloom_rs::CountingBloomFilter {
    #[inline]
    fn insert(&mut self, key: u64) {
        self.add(&key.to_le_bytes());
    }
    #[inline]
    fn remove(&mut self, key: u64) {
        Deletable::remove(self, &key.to_le_bytes());
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        Membership::contains(self, &key.to_le_bytes())
    }
}

/// fastbloom-rs's 4-bit counting filter for `n` keys at rate `p`, with
/// repeat inserts enabled (its default), so that it counts
/// multiplicities as bloomlab does.
pub(crate) fn fastbloom_rs(
    n: usize,
    p: f64,
) -> fastbloom_rs::CountingBloomFilter {
    let mut b = FilterBuilder::new(n as u64, p);
    b.enable_repeat_insert(true);
    b.build_counting_bloom_filter()
}
