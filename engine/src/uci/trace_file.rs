//! Appends the time manager's per-move traces to `TmTraceFile`, one JSON object per line.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use timemgr::MoveTrace;

/// Why a trace could not be written; names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum TraceFileError {
    /// The file could not be opened or written.
    #[error("cannot append to TmTraceFile {path}: {source}; set TmTraceFile to a writable path or to empty")]
    Io {
        /// The configured path.
        path: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A trace could not be turned into JSON.
    #[error("cannot serialise the time-manager trace: {0}")]
    Json(#[from] serde_json::Error),
}

/// Appends each trace as one JSON line to `path` and flushes; nothing is written for an empty path.
pub fn append_traces(path: &str, traces: &[MoveTrace]) -> Result<(), TraceFileError> {
    if path.is_empty() || traces.is_empty() {
        return Ok(());
    }
    let mut text = String::new();
    for trace in traces {
        text.push_str(&serde_json::to_string(trace)?);
        text.push('\n');
    }
    let io_error = |source| TraceFileError::Io { path: path.to_string(), source };
    let mut file = OpenOptions::new().create(true).append(true).open(Path::new(path)).map_err(io_error)?;
    file.write_all(text.as_bytes()).map_err(io_error)?;
    file.flush().map_err(io_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_one_parseable_line_per_trace() {
        let dir = std::env::temp_dir().join(format!("kairos-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("trace.jsonl");
        let _ = std::fs::remove_file(&path);
        let path_text = path.to_string_lossy().to_string();
        let trace =
            |ply| MoveTrace { manager: "legacy".into(), game_ply: ply, deadline_ms: 100, ..MoveTrace::default() };
        append_traces(&path_text, &[trace(0)]).unwrap();
        append_traces(&path_text, &[trace(2), trace(4)]).unwrap();
        let lines: Vec<MoveTrace> =
            std::fs::read_to_string(&path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(lines.iter().map(|t| t.game_ply).collect::<Vec<_>>(), vec![0, 2, 4]);
        assert!(matches!(append_traces("/nonexistent-dir/x.jsonl", &[trace(0)]), Err(TraceFileError::Io { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
