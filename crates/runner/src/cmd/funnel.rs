//! Items as text lines, turned into key bytes by a Guava funnel.

use anyhow::{Context, Result};
use bloomlab_standard::guava::GuavaFunnel;

/// The bytes `funnel` feeds the hash for one items-file line: the line's
/// bytes for `utf8` (whatever they are), a decimal for `long` and `int`,
/// hex for `bytes`.
pub(crate) fn key_bytes(funnel: GuavaFunnel, line: &[u8]) -> Result<Vec<u8>> {
    if funnel == GuavaFunnel::Utf8 {
        return Ok(line.to_vec());
    }
    let text = std::str::from_utf8(line).with_context(|| {
        format!("item {line:?} is not text (funnel {})", funnel.name())
    })?;
    Ok(funnel.item_bytes(text.trim())?)
}

/// Parses `--funnel NAME`.
pub(crate) fn parse(name: &str) -> Result<GuavaFunnel> {
    Ok(GuavaFunnel::from_name(name)?)
}
