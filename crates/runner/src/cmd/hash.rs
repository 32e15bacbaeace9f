//! `bloomlab hash`: hash inputs with a registered family, printing the
//! value as the family's reference implementation prints it.

use anyhow::{Context, Result, bail};
use bloomlab_hash::{Family, Hasher};
use serde_json::json;

use crate::output;

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("inputs").required(true).multiple(true)
        .args(["text", "hex", "u64"])
))]
pub(crate) struct Args {
    /// Hash family by name (see `bloomlab list`).
    #[arg(long)]
    family: String,
    /// Seed: any integer that fits the family's seed (32 or 64 bits,
    /// signed or unsigned); families without a seed accept only 0.
    #[arg(long, default_value = "0", allow_negative_numbers = true)]
    seed: i128,
    /// A UTF-8 string (Java-string families hash its UTF-16 units).
    #[arg(long, value_name = "STRING", action = clap::ArgAction::Append)]
    text: Vec<String>,
    /// Raw bytes, in hex. Java-string families (java-hashcode, hutool-*)
    /// hash valid UTF-8 as its UTF-16 units, and other bytes one unit
    /// per byte (Java's ISO_8859_1 view, so that distinct bytes stay
    /// distinct), not as Java's UTF-8 decoder would, which replaces bad
    /// bytes by U+FFFD.
    #[arg(long, value_name = "HEX", action = clap::ArgAction::Append)]
    hex: Vec<String>,
    /// An integer as Guava's longFunnel writes it: 8 bytes little-endian
    /// (negative values as Java longs).
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        action = clap::ArgAction::Append
    )]
    u64: Vec<String>,
    /// One JSON object per input: family, seed (as given), seed_bits (as
    /// the family takes it), input, value, hex.
    #[arg(long)]
    json: bool,
}

/// One input as given on the command line, and its bytes.
struct Input {
    shown: String,
    bytes: Vec<u8>,
}

pub(crate) fn run(
    args: Args,
    matches: Option<&clap::ArgMatches>,
) -> Result<()> {
    let family = Family::from_name(&args.family)?;
    let hasher = Hasher::new(family, args.seed)?;
    let inputs = ordered_inputs(&args, matches)?;
    let mut rows = Vec::new();
    for input in inputs {
        let d = hasher.hash(&input.bytes);
        let value = family.value_string(d);
        let hex = family.hex_string(d);
        if args.json {
            output::json_line(&json!({
                "family": family.name(),
                // As given (Guava's seed -1, not its 32-bit pattern), and
                // as the family takes it.
                "seed": args.seed,
                "seed_bits": hasher.seed(),
                "input": input.shown,
                "value": value,
                "hex": hex,
            }))?;
        } else {
            rows.push(vec![
                family.name().to_string(),
                input.shown,
                value,
                hex,
            ]);
        }
    }
    if !args.json {
        output::table(&["FAMILY", "INPUT", "VALUE", "HEX"], &rows)?;
    }
    Ok(())
}

/// The inputs in the order they were given (clap groups them by flag).
fn ordered_inputs(
    args: &Args,
    matches: Option<&clap::ArgMatches>,
) -> Result<Vec<Input>> {
    let mut tagged: Vec<(usize, Input)> = Vec::new();
    let indices = |id: &str| -> Vec<usize> {
        matches
            .and_then(|m| m.indices_of(id))
            .map(|i| i.collect())
            .unwrap_or_default()
    };
    let mut push = |id: &str,
                    values: &[String],
                    f: &dyn Fn(&str) -> Result<Input>|
     -> Result<()> {
        let idx = indices(id);
        for (n, v) in values.iter().enumerate() {
            let at = idx.get(n).copied().unwrap_or(usize::MAX);
            tagged.push((at, f(v)?));
        }
        Ok(())
    };
    push("text", &args.text, &|s| {
        Ok(Input { shown: s.to_string(), bytes: s.as_bytes().to_vec() })
    })?;
    push("hex", &args.hex, &|s| {
        Ok(Input { shown: s.to_string(), bytes: parse_hex(s)? })
    })?;
    push("u64", &args.u64, &|s| {
        Ok(Input { shown: s.to_string(), bytes: parse_long(s)?.to_vec() })
    })?;
    tagged.sort_by_key(|(at, _)| *at);
    Ok(tagged.into_iter().map(|(_, i)| i).collect())
}

fn parse_hex(s: &str) -> Result<Vec<u8>> {
    let t = s.trim();
    let t = t.strip_prefix("0x").unwrap_or(t);
    if !t.len().is_multiple_of(2) {
        bail!("--hex {s:?}: odd number of hex digits");
    }
    (0..t.len())
        .step_by(2)
        .map(|i| {
            t.get(i..i + 2)
                // from_str_radix also takes a sign: "+f" is not a byte.
                .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .with_context(|| format!("--hex {s:?}: not a hex byte at {i}"))
        })
        .collect()
}

/// An integer in [-2^63, 2^64) as 8 little-endian bytes.
fn parse_long(s: &str) -> Result<[u8; 8]> {
    let v: i128 = s
        .trim()
        .parse()
        .with_context(|| format!("--u64 {s:?}: not an integer"))?;
    if !(i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(&v) {
        bail!("--u64 {s}: outside the 64-bit range");
    }
    Ok((v as u64).to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_long_parsing() {
        assert_eq!(parse_hex("00ff").unwrap(), [0, 255]);
        assert_eq!(parse_hex("0xAb").unwrap(), [0xab]);
        assert!(parse_hex("abc").is_err());
        assert!(parse_hex("zz").is_err());
        assert!(parse_hex("+1+2").is_err());
        assert!(parse_hex("-1").is_err());
        assert_eq!(parse_long("-1").unwrap(), [0xff; 8]);
        assert_eq!(parse_long("1").unwrap(), [1, 0, 0, 0, 0, 0, 0, 0]);
        assert!(parse_long("18446744073709551616").is_err());
        assert!(parse_long("x").is_err());
    }
}
