//! Writing results to stdout: JSON lines or aligned text tables.

use std::io::Write;

use anyhow::Result;

/// Prints one JSON object on its own line.
pub(crate) fn json_line(value: &serde_json::Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Prints one line on stdout. Unlike `println!`, which panics when stdout
/// is closed (`bloomlab inspect F | head -1`), this returns the error, which
/// `main` treats as the end of the output.
pub(crate) fn line(args: std::fmt::Arguments<'_>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)?;
    writeln!(out)?;
    Ok(())
}

/// Prints rows as a table whose columns are padded to the widest cell.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> Result<()> {
    let mut widths: Vec<usize> =
        header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = std::io::stdout().lock();
    let line = |out: &mut dyn Write, cells: &[String]| -> Result<()> {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                let pad = w - cell.chars().count();
                s.push_str(cell);
                s.extend(std::iter::repeat_n(' ', pad + 2));
            }
        }
        writeln!(out, "{}", s.trim_end())?;
        Ok(())
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    line(&mut out, &header)?;
    for row in rows {
        line(&mut out, row)?;
    }
    Ok(())
}

/// `n` and a noun, plural unless `n` is 1: "1 trial", "3 trials".
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// How messages name an items file: its path, or "standard input" for
/// `-` (see [`read_lines`]).
pub(crate) fn input_name(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

/// The lines of an items file (standard input if `path` is `-`), as
/// bytes: split on `\n`, one trailing `\r` removed (files written on
/// Windows), no extra empty item after a final newline. Empty lines in
/// between are items (the empty string).
pub(crate) fn read_lines(path: &std::path::Path) -> Result<Vec<Vec<u8>>> {
    use anyhow::Context;
    use std::io::Read;
    let data = if path.as_os_str() == "-" {
        let mut data = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut data)
            .context("reading standard input")?;
        data
    } else {
        std::fs::read(path)
            .with_context(|| format!("reading {}", path.display()))?
    };
    let mut lines: Vec<Vec<u8>> = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    if data.ends_with(b"\n") || data.is_empty() {
        lines.pop();
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    #[test]
    fn count_is_singular_only_for_one() {
        assert_eq!(super::count(0, "trial"), "0 trials");
        assert_eq!(super::count(1, "trial"), "1 trial");
        assert_eq!(super::count(13, "grid point"), "13 grid points");
    }
}
