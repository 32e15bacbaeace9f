//! Counter widths and the word-level (SWAR) helpers over packed counters.

use crate::{Error, Result};

/// Bits per counter. Counters are packed into `u64` words with no
/// padding: a word holds 32, 16 or 8 counters, counter `i` is bits
/// `[(i mod c)·w, (i mod c)·w + w)` of word `i div c` (`c = 64/w`).
///
/// ```
/// use bloomlab_counting::CounterWidth;
///
/// let w = CounterWidth::default();
/// assert_eq!((w.bits(), w.max(), w.per_word()), (4, 15, 16));
/// assert_eq!(CounterWidth::from_bits(2)?.max(), 3);
/// assert!(CounterWidth::from_bits(3).is_err());
/// # Ok::<(), bloomlab_counting::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CounterWidth {
    /// 2-bit counters (0..=3), 32 per word: for studying overflow.
    Two,
    /// 4-bit counters (0..=15), 16 per word: Fan et al.'s choice.
    #[default]
    Four,
    /// 8-bit counters (0..=255), 8 per word: multisets with repeats.
    Eight,
}

impl CounterWidth {
    /// Every width, narrowest first.
    pub const ALL: [CounterWidth; 3] =
        [CounterWidth::Two, CounterWidth::Four, CounterWidth::Eight];

    /// The width in bits: 2, 4 or 8.
    pub const fn bits(self) -> u32 {
        1 << self.log2()
    }

    /// `log2` of the width (1, 2 or 3).
    pub(crate) const fn log2(self) -> u32 {
        match self {
            CounterWidth::Two => 1,
            CounterWidth::Four => 2,
            CounterWidth::Eight => 3,
        }
    }

    /// The largest value, `2^bits − 1`: a counter there is saturated.
    pub const fn max(self) -> u64 {
        (1 << self.bits()) - 1
    }

    /// Counters per `u64` word: 32, 16 or 8.
    pub const fn per_word(self) -> u32 {
        64 >> self.log2()
    }

    /// The width of `bits` bits (2, 4 or 8).
    pub fn from_bits(bits: u32) -> Result<CounterWidth> {
        match bits {
            2 => Ok(CounterWidth::Two),
            4 => Ok(CounterWidth::Four),
            8 => Ok(CounterWidth::Eight),
            _ => {
                Err(Error::invalid("counter bits", bits, "must be 2, 4 or 8"))
            }
        }
    }

    /// The low bit of every lane.
    const fn lane_lows(self) -> u64 {
        u64::MAX / self.max()
    }

    /// Words for `m` counters, `ceil(m·bits/64)`; `None` on overflow.
    pub(crate) fn words_for(self, m: u64) -> Option<u64> {
        let per = u64::from(self.per_word());
        Some(m.checked_add(per - 1)? / per)
    }

    /// The low bit of each lane of `x` whose counter is non-zero.
    #[inline]
    pub(crate) fn nonzero_lanes(self, x: u64) -> u64 {
        let mut t = x;
        let mut s = 1;
        while s < self.bits() {
            t |= t >> s;
            s <<= 1;
        }
        t & self.lane_lows()
    }

    /// The low bit of each lane of `x` whose counter is saturated.
    #[inline]
    pub(crate) fn saturated_lanes(self, x: u64) -> u64 {
        let mut t = x;
        let mut s = 1;
        while s < self.bits() {
            t &= t >> s;
            s <<= 1;
        }
        t & self.lane_lows()
    }
}

impl std::fmt::Display for CounterWidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes() {
        let w = CounterWidth::Four;
        assert_eq!(w.lane_lows(), 0x1111_1111_1111_1111);
        assert_eq!(w.nonzero_lanes(0x0000_0000_0000_f020), 0x1010);
        assert_eq!(w.saturated_lanes(0x0000_0000_0000_f0e0), 0x1000);
        let w = CounterWidth::Two;
        assert_eq!(w.lane_lows(), 0x5555_5555_5555_5555);
        assert_eq!(w.nonzero_lanes(0b11_00_10_01), 0b01_00_01_01);
        assert_eq!(w.saturated_lanes(0b11_00_10_01), 0b01_00_00_00);
        let w = CounterWidth::Eight;
        assert_eq!(w.saturated_lanes(0xff_fe_00), 0x01_00_00);
        assert_eq!(w.nonzero_lanes(0x80_00_01), 0x01_00_01);
        assert_eq!(w.words_for(17), Some(3));
        assert_eq!(CounterWidth::Four.words_for(16), Some(1));
        assert_eq!(CounterWidth::Two.words_for(u64::MAX), None);
    }
}
