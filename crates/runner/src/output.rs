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
