//! `Serialize` and `Deserialize` (feature `serde`): the filter as the
//! bytes of its bloomlab file (`FORMAT.md`: configuration, counts and
//! every layer), read back through the same checked reader as a file
//! (`bloomlab_core::serde_file`); a [`Config`] as its fields.

use bloomlab_hash::{Family, Reduction};
use serde::Deserialize;

use crate::{Config, Layout, Pairing, Probe, ScalableBloomFilter, Sizing};

/// A [`Config`] as a file may give it: the chain's `n0` and `P`, and
/// whatever else differs from [`Config::new`]'s defaults.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFields {
    initial_capacity: u64,
    error: f64,
    first_error: Option<f64>,
    tightening: Option<f64>,
    growth: Option<u64>,
    scaling: Option<bool>,
    full_at_half_fill: Option<bool>,
    layout: Option<Layout>,
    sizing: Option<Sizing>,
    family: Option<Family>,
    seed: Option<u64>,
    pairing: Option<Pairing>,
    probe: Option<Probe>,
    reduction: Option<Reduction>,
}

impl TryFrom<ConfigFields> for Config {
    type Error = crate::Error;

    fn try_from(f: ConfigFields) -> crate::Result<Config> {
        let mut c = Config::new(f.initial_capacity, f.error);
        // The setters' order keeps `P0` as the builder methods make it:
        // `P` for a non-scaling filter, else `P(1 − r)`.
        if let Some(r) = f.tightening {
            c = c.tightening(r);
        }
        if f.scaling == Some(false) {
            c = c.non_scaling();
        }
        if let Some(p0) = f.first_error {
            c.first_error = p0;
        }
        c.growth = f.growth.unwrap_or(c.growth);
        c.full_at_half_fill = f.full_at_half_fill.unwrap_or(false);
        c.layout = f.layout.unwrap_or(c.layout);
        c.sizing = f.sizing.unwrap_or(c.sizing);
        c.family = f.family.unwrap_or(c.family);
        c.seed = f.seed.unwrap_or(c.seed);
        c.pairing = f.pairing.unwrap_or(c.pairing);
        c.probe = f.probe.unwrap_or(c.probe);
        c.reduction = f.reduction.unwrap_or(c.reduction);
        c.validate()?;
        Ok(c)
    }
}

bloomlab_core::serde_via_file!(ScalableBloomFilter, "a scalable Bloom filter");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn a_grown_filter_round_trips_through_json() {
        let mut f =
            ScalableBloomFilter::with_config(Config::new(100, 0.01)).unwrap();
        for i in 0..1000u32 {
            assert!(f.add(&i.to_le_bytes()).is_ok());
        }
        assert!(f.layers().len() > 1);
        let json = serde_json::to_string(&f).unwrap_or_default();
        let back: ScalableBloomFilter =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.to_bytes().unwrap(), f.to_bytes().unwrap());
        assert_eq!(back.len(), f.len());
        assert!((0..1000u32).all(|i| back.contains(&i.to_le_bytes())));
    }

    #[test]
    fn a_corrupt_filter_is_an_error() {
        let f = ScalableBloomFilter::with_config(Config::new(100, 0.01));
        let mut bytes = f.and_then(|f| f.to_bytes()).unwrap_or_default();
        assert!(!bytes.is_empty());
        bytes[20] ^= 1;
        let json = serde_json::to_string(&bytes).unwrap_or_default();
        let err = serde_json::from_str::<ScalableBloomFilter>(&json).err();
        assert!(err.is_some_and(|e| e.to_string().contains("checksum")));
    }

    #[test]
    fn a_config_reads_from_toml_with_new_s_defaults_and_round_trips() {
        let c: Config =
            toml::from_str("initial_capacity = 1000\nerror = 0.01\n").unwrap();
        assert_eq!(c, Config::new(1000, 0.01));
        let c: Config = toml::from_str(
            "initial_capacity = 1000\nerror = 0.01\ngrowth = 2\n\
             tightening = 0.85\nlayout = \"partitioned\"\n\
             sizing = \"half-fill\"\npairing = \"chained\"\n\
             family = \"murmur64a\"\nprobe = \"double\"\n",
        )
        .unwrap();
        let want = Config::new(1000, 0.01)
            .growth(2)
            .tightening(0.85)
            .layout(Layout::Partitioned)
            .hash(Family::Murmur64A, 0)
            .probes(Pairing::Chained, Probe::Double, Reduction::MultiplyShift);
        assert_eq!(c, want);
        // A non-scaling filter's one layer keeps `P`, in either order.
        let c: Config = toml::from_str(
            "initial_capacity = 10\nerror = 0.1\nscaling = false\n\
             tightening = 0.5\nlayout = \"standard\"\n\
             sizing = \"redisbloom\"\n",
        )
        .unwrap();
        assert_eq!(c.first_error, 0.1);
        for c in [want, c, Config::new(5, 0.2).full_at_half_fill(true)] {
            let text = toml::to_string(&c).unwrap();
            assert_eq!(toml::from_str::<Config>(&text).unwrap(), c, "{text}");
        }
    }

    #[test]
    fn a_config_that_cannot_build_a_filter_is_refused_when_read() {
        let msg = |text: &str| {
            toml::from_str::<Config>(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let e = msg("error = 0.01");
        assert!(e.contains("missing field `initial_capacity`"), "{e}");
        let e = msg("initial_capacity = 10\nerror = 1.5");
        assert!(e.contains("must be in (0, 1)"), "{e}");
        let e =
            msg("initial_capacity = 10\nerror = 0.1\nsizing = \"pybloom\"");
        assert!(e.contains("blocked layers are sized by half fill"), "{e}");
        let e = msg("initial_capacity = 10\nerror = 0.1\nlayout = \"flat\"");
        assert!(e.contains("unknown variant `flat`"), "{e}");
        let e = msg("initial_capacity = 10\nerror = 0.1\ngrow = 2");
        assert!(e.contains("unknown field `grow`"), "{e}");
    }
}
