//! What `espalier eval` writes: the `--out` file of JSON records and the summary
//! line printed last.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The file `--out` names, created, or none.
pub(crate) fn open_out(path: Option<&Path>) -> Result<Option<BufWriter<File>>, String> {
    path.map(|p| File::create(p).map(BufWriter::new).map_err(|e| format!("{}: {e}", p.display())))
        .transpose()
}

/// One JSON line per record, flushed at once (a long run's records survive a crash).
pub(crate) fn write_record(
    out: &mut Option<BufWriter<File>>,
    record: &impl serde::Serialize,
) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(out) = out.as_mut() {
        writeln!(out, "{}", serde_json::to_string(record)?)?;
        out.flush()?;
    }
    Ok(())
}

/// The summary line printed last: the last mode's fields, every mode's summary
/// (`by_mode`) and the throughput ratio of each mode against `none` where it ran.
pub(crate) fn last_line(summaries: Vec<serde_json::Value>) -> serde_json::Value {
    let mut last = summaries.last().cloned().unwrap_or_else(|| serde_json::json!({}));
    let none_tps = summaries
        .iter()
        .find(|s| s["mode"] == "none")
        .and_then(|s| s["decode_tps"].as_f64())
        .filter(|&t| t > 0.0);
    if let Some(base) = none_tps {
        last["decode_tps_vs_none"] = summaries
            .iter()
            .map(|s| {
                let tps = s["decode_tps"].as_f64().unwrap_or(0.0);
                (s["mode"].as_str().unwrap_or("?").to_string(), serde_json::json!(tps / base))
            })
            .collect();
    }
    last["by_mode"] = serde_json::Value::Array(summaries);
    last
}
