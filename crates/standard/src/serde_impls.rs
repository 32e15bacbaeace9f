//! `Serialize` and `Deserialize` (feature `serde`): each filter as the
//! bytes of its bloomlab file (`FORMAT.md`), read back through the same
//! checked reader as a file (`bloomlab_core::serde_file`); a [`Config`]
//! as its settings and a [`BlockScheme`] as its name.

use bloomlab_core::serde_file;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{
    AtomicBloomFilter, BlockScheme, BlockedBloomFilter, BloomFilter,
    StandardFilter, read_any,
};

bloomlab_hash::serde_by_name!(
    BlockScheme,
    BlockScheme::name,
    |name: &str| BlockScheme::from_name(name).ok_or_else(|| {
        format!(
            "unknown block scheme `{name}`; known: {}, parquet-split-block",
            crate::BLOCK_SCHEME
        )
    }),
    "a block scheme's name, such as \"parquet-split-block\""
);

/// [`crate::Config::seed`] as a 64-bit integer: seeds lie in
/// `[-2^63, 2^64)` ([`bloomlab_hash::Family::check_seed`]), and formats
/// such as TOML have no 128-bit integers. The range is checked when the
/// filter is built, as for a seed set in code.
pub(crate) mod seed {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub(crate) fn serialize<S: Serializer>(
        seed: &i128,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match (i64::try_from(*seed), u64::try_from(*seed)) {
            (Ok(v), _) => s.serialize_i64(v),
            (_, Ok(v)) => s.serialize_u64(v),
            _ => Err(serde::ser::Error::custom(format!(
                "seed {seed} is outside [-2^63, 2^64)"
            ))),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<i128, D::Error> {
        let v = i128::deserialize(d)?;
        if (-(1i128 << 63)..1i128 << 64).contains(&v) {
            Ok(v)
        } else {
            Err(D::Error::custom(format!("seed {v} is outside [-2^63, 2^64)")))
        }
    }
}

bloomlab_core::serde_via_file!(BloomFilter, "a classic Bloom filter");
bloomlab_core::serde_via_file!(BlockedBloomFilter, "a blocked Bloom filter");

// A snapshot of the bits, as `AtomicBloomFilter::to_bytes` takes it:
// inserts racing with the serialization may or may not be in it.
bloomlab_core::serde_via_file!(AtomicBloomFilter, "a classic Bloom filter");

/// Either layout in bloomlab's format; deserializes Guava's bytes too.
impl Serialize for StandardFilter {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StandardFilter::Classic(f) => f.serialize(s),
            StandardFilter::Blocked(f) => f.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for StandardFilter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_file::deserialize(d, "a standard or blocked Bloom filter", |b| {
            read_any(b).map(|loaded| loaded.filter)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Builder, guava};
    use bloomlab_hash::Strategy;

    /// A value's JSON and the value read back from it.
    fn round_trip<T>(value: &T) -> T
    where
        T: Serialize + for<'de> Deserialize<'de>,
    {
        let json = serde_json::to_vec(value).unwrap_or_default();
        serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_layout_round_trips_through_json() {
        let mut classic = BloomFilter::new(500, 0.01).unwrap();
        let mut blocked = BlockedBloomFilter::new(500, 0.01).unwrap();
        let mut split = Builder::bits(4096, 8)
            .block_scheme(crate::BlockScheme::ParquetSplit)
            .build_blocked()
            .unwrap();
        for i in 0..200u64 {
            classic.insert(&i);
            blocked.insert(&i);
            split.insert(&i);
        }
        assert_eq!(round_trip(&classic), classic);
        assert_eq!(round_trip(&blocked), blocked);
        assert_eq!(round_trip(&split), split);
        let atomic = AtomicBloomFilter::from(classic.clone());
        assert_eq!(round_trip(&atomic).into_bloom_filter(), classic);
        let any = StandardFilter::from(blocked.clone());
        assert_eq!(round_trip(&any), any);
    }

    #[test]
    fn the_serialized_bytes_are_the_file() {
        let mut f = BloomFilter::new(100, 0.01).unwrap();
        f.insert("a");
        let json = serde_json::to_value(&f).unwrap_or_default();
        let bytes: Vec<u8> = serde_json::from_value(json).unwrap_or_default();
        assert_eq!(bytes, f.to_bytes().unwrap());
    }

    #[test]
    fn a_byte_string_deserializes_as_binary_formats_give_it() {
        use serde::de::value::{BytesDeserializer, Error};
        let mut f = BlockedBloomFilter::new(100, 0.01).unwrap();
        f.insert("a");
        let bytes = f.to_bytes().unwrap();
        let d = BytesDeserializer::<Error>::new(&bytes);
        assert_eq!(BlockedBloomFilter::deserialize(d).ok(), Some(f));
        let d = BytesDeserializer::<Error>::new(&bytes[..bytes.len() - 1]);
        assert!(BlockedBloomFilter::deserialize(d).is_err());
    }

    #[test]
    fn guava_bytes_deserialize_as_a_classic_filter() {
        let mut g = guava::create(100, 0.03, Strategy::GuavaMitz64).unwrap();
        g.insert("x");
        let json = serde_json::to_string(&guava::to_guava_bytes(&g).unwrap())
            .unwrap_or_default();
        let back: BloomFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(back, g);
        let any: StandardFilter = serde_json::from_str(&json).unwrap();
        assert_eq!(any, StandardFilter::Classic(g));
    }

    #[test]
    fn a_corrupt_or_misplaced_filter_is_an_error_not_a_panic() {
        let f = BloomFilter::new(100, 0.01).unwrap();
        let mut bytes = f.to_bytes().unwrap();
        // The layout that is not the reader's.
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<BlockedBloomFilter>(&json).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("holds a classic filter"), "{msg}");
        // A flipped payload bit fails the checksum.
        let at = bytes.len() - 12;
        bytes[at] ^= 1;
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<BloomFilter>(&json).err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.starts_with("checksum mismatch"), "{msg}");
        // Truncated, and not bytes at all.
        bytes.truncate(20);
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        assert!(serde_json::from_str::<BloomFilter>(&json).is_err());
        assert!(serde_json::from_str::<BloomFilter>("{\"m\": 3}").is_err());
    }

    #[test]
    fn a_config_reads_from_toml_by_name_with_defaults_for_the_rest() {
        use crate::Config;
        use bloomlab_hash::{Family, Reduction};

        let c: Config = toml::from_str(
            "family = \"Murmur3-x64-128\"\nstrategy = \"guava-mitz64\"\n\
             reduction = \"modulo\"",
        )
        .unwrap();
        assert_eq!(c, Config::guava(Strategy::GuavaMitz64));
        let c: Config = toml::from_str("seed = -1").unwrap();
        assert_eq!(c, Config::default().with_seed(-1));
        let c: Config = toml::from_str("").unwrap();
        assert_eq!(c, Config::default());
        // Every seed a family takes survives TOML, whose integers are
        // 64-bit, and JSON.
        for seed in [-(1i128 << 63), -1, 0, 1 << 63, (1i128 << 64) - 1] {
            let c = Config::default()
                .with_family(Family::Xxh64)
                .with_reduction(Reduction::Modulo)
                .with_seed(seed);
            let text = toml::to_string(&c).unwrap();
            assert_eq!(toml::from_str::<Config>(&text).unwrap(), c, "{text}");
            assert_eq!(round_trip(&c), c);
        }
    }

    #[test]
    fn a_bad_config_says_which_field_and_what_it_takes() {
        use crate::Config;

        let msg = |text: &str| {
            toml::from_str::<Config>(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let e = msg("family = \"xxh4\"");
        assert!(e.contains("family") && e.contains("xxh3-128"), "{e}");
        let e = msg("strategy = 3");
        assert!(e.contains("an index strategy's name"), "{e}");
        let e = msg("hash = \"xxh3-64\"");
        assert!(e.contains("unknown field `hash`"), "{e}");
        let seed = serde_json::from_str::<Config>(
            r#"{"seed": 18446744073709551616}"#,
        );
        let e = seed.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("outside [-2^63, 2^64)"), "{e}");
    }

    #[test]
    fn a_block_scheme_is_its_name() {
        for s in BlockScheme::ALL {
            assert_eq!(round_trip(&s), s);
        }
        let json = serde_json::to_string(&BlockScheme::ParquetSplit)
            .unwrap_or_default();
        assert_eq!(json, "\"parquet-split-block\"");
        let e = serde_json::from_str::<BlockScheme>("\"split\"")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("unknown block scheme `split`"), "{e}");
    }
}
