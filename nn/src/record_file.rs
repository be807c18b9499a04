//! The file of a recorded search's evaluations, lc0's `recordreplay` backend in Kairos's form: every position a
//! backend computed, keyed by its history, with its W−L, D, M and priors, after a header naming the backend's
//! attributes, so that a replay batches the search as the recording did. Little-endian throughout:
//!
//! ```text
//! header: b"KAIROSRC", u32 version (3), u8 has_wdl, u8 has_moves_left, u32 recommended batch size,
//!         u32 maximum batch size, u32 suggested threads, u32 concurrent batches, u32 recommended prefetch,
//!         u8 runs_on_cpu
//! record: u64 key, f32 wl, f32 d, f32 m, u32 moves, f32 prior × moves
//! ```
//!
//! Records are appended batch by batch, so several runs may add to one file; a key's first record is the one
//! replayed, as in lc0. Version 1 headers, from before backends recommended a prefetch, end after the concurrent
//! batches and read as lc0's prefetch of 32, which every backend then had; version 1 and 2 headers, from before
//! the search ordered its batches as lc0's task workers do, end before `runs_on_cpu` and read as on the CPU, the
//! order without tasks that every search then had.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use shakmaty::Position;

use crate::backend::{BackendAttributes, EvalRequest, Evaluation};
use crate::cache::cache_key;

const MAGIC: &[u8; 8] = b"KAIROSRC";
const VERSION: u32 = 3;
/// The prefetch every backend had when version 1 was written (lc0's `MaxPrefetch`).
const VERSION_1_PREFETCH: u32 = 32;
/// How many positions of a request's history its key covers: what the networks' inputs see (8 positions).
const KEYED_HISTORY: usize = 8;

/// Why a record file cannot be used; names the file, the problem and the way out.
#[derive(Debug, thiserror::Error)]
pub enum RecordFileError {
    /// The file cannot be opened, read or written.
    #[error("record file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: io::Error,
    },
    /// The file is not a record file or ends inside a record.
    #[error("{path} is not a usable record file: {reason}; record one with RecordFile=PATH on a network backend")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Records would be appended to a file recorded from a backend with other attributes.
    #[error(
        "{path} holds a recording of a backend with other attributes ({recorded}) than this one ({current}); \
         record into a new file"
    )]
    OtherAttributes {
        /// The file.
        path: PathBuf,
        /// The file's header.
        recorded: String,
        /// The backend's.
        current: String,
    },
}

/// What a replay reports of the recorded backend, so that the search sizes its batches and threads as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedAttributes {
    /// The network had a WDL value head.
    pub has_wdl: bool,
    /// The network had a moves-left head.
    pub has_moves_left: bool,
    /// Its recommended minibatch size.
    pub recommended_batch_size: u32,
    /// The largest batch it accepted.
    pub maximum_batch_size: u32,
    /// The search threads it suggested.
    pub suggested_threads: u32,
    /// The batches it computed at once (a round robin's backends).
    pub concurrent_batches: u32,
    /// The prefetch it recommended.
    pub recommended_prefetch: u32,
    /// It ran on the CPU (so the search had no picking tasks unless `TaskWorkers` set some).
    pub runs_on_cpu: bool,
}

impl RecordedAttributes {
    /// The attributes a backend reports, as a header records them.
    pub fn of(attributes: &BackendAttributes) -> Self {
        let saturated = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            has_wdl: attributes.has_wdl,
            has_moves_left: attributes.has_moves_left,
            recommended_batch_size: saturated(attributes.recommended_batch_size),
            maximum_batch_size: saturated(attributes.maximum_batch_size),
            suggested_threads: saturated(attributes.suggested_threads),
            concurrent_batches: saturated(attributes.concurrent_batches),
            recommended_prefetch: saturated(attributes.recommended_prefetch),
            runs_on_cpu: attributes.runs_on_cpu,
        }
    }

    /// The backend attributes a replay reports.
    pub fn to_backend(self) -> BackendAttributes {
        BackendAttributes {
            has_wdl: self.has_wdl,
            has_moves_left: self.has_moves_left,
            recommended_batch_size: self.recommended_batch_size as usize,
            maximum_batch_size: self.maximum_batch_size as usize,
            recommended_prefetch: self.recommended_prefetch as usize,
            suggested_threads: self.suggested_threads as usize,
            runs_on_cpu: self.runs_on_cpu,
            concurrent_batches: self.concurrent_batches as usize,
        }
    }

    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&[u8::from(self.has_wdl), u8::from(self.has_moves_left)])?;
        let counts = [
            self.recommended_batch_size, self.maximum_batch_size, self.suggested_threads, self.concurrent_batches,
            self.recommended_prefetch,
        ];
        for n in counts {
            out.write_all(&n.to_le_bytes())?;
        }
        out.write_all(&[u8::from(self.runs_on_cpu)])
    }

    fn read(input: &mut Reader<'_>) -> Result<Self, String> {
        if input.bytes(MAGIC.len())? != MAGIC {
            return Err("it does not start with KAIROSRC".into());
        }
        let version = input.u32()?;
        if !(1..=VERSION).contains(&version) {
            return Err(format!("its version is {version}, this build reads 1 to {VERSION}"));
        }
        let flags = input.bytes(2)?;
        Ok(Self {
            has_wdl: flags[0] != 0,
            has_moves_left: flags[1] != 0,
            recommended_batch_size: input.u32()?,
            maximum_batch_size: input.u32()?,
            suggested_threads: input.u32()?,
            concurrent_batches: input.u32()?,
            recommended_prefetch: if version == 1 { VERSION_1_PREFETCH } else { input.u32()? },
            runs_on_cpu: version < 3 || input.bytes(1)?[0] != 0,
        })
    }
}

/// The key of a request in a record file: its last positions' cache keys (pieces, side to move, castling, en
/// passant and repetitions), as far back as a network's input looks, and the fifty-move counter, so that a
/// transposition whose input planes differ is a record of its own, as lc0's hash of the input planes makes it.
pub fn record_key(request: &EvalRequest<'_>) -> Option<u64> {
    let history = request.history;
    if history.is_empty() {
        return None;
    }
    let seen = &history[history.len().saturating_sub(KEYED_HISTORY)..];
    let key = seen.iter().try_fold(0x6a09_e667_f3bc_c908u64, |key, entry| {
        let position_key = cache_key(&EvalRequest { history: std::slice::from_ref(entry), moves: &[] })?;
        Some(key.rotate_left(23) ^ position_key)
    })?;
    Some(key.rotate_left(23) ^ u64::from(history[history.len() - 1].position.halfmoves()))
}

/// Appends one record.
pub fn write_record(out: &mut impl Write, key: u64, evaluation: &Evaluation) -> io::Result<()> {
    let moves = u32::try_from(evaluation.policy.len()).map_err(|_| io::Error::other("more than 2^32 priors"))?;
    out.write_all(&key.to_le_bytes())?;
    for value in [evaluation.wl, evaluation.d, evaluation.m] {
        out.write_all(&value.to_le_bytes())?;
    }
    out.write_all(&moves.to_le_bytes())?;
    for prior in &evaluation.policy {
        out.write_all(&prior.to_le_bytes())?;
    }
    Ok(())
}

/// Opens `path` to append records of a backend with `attributes`: a new or empty file gets the header, an existing
/// one must hold a recording of the same attributes.
pub fn open_for_append(path: &Path, attributes: RecordedAttributes) -> Result<std::fs::File, RecordFileError> {
    let io_error = |source| RecordFileError::Io { path: path.to_owned(), source };
    let mut file = std::fs::OpenOptions::new().read(true).append(true).create(true).open(path).map_err(io_error)?;
    let mut header = Vec::new();
    (&mut file).take(64).read_to_end(&mut header).map_err(io_error)?;
    if header.is_empty() {
        let mut bytes = Vec::new();
        attributes.write(&mut bytes).map_err(io_error)?;
        file.write_all(&bytes).map_err(io_error)?;
        return Ok(file);
    }
    let recorded = RecordedAttributes::read(&mut Reader { bytes: &header, at: 0 })
        .map_err(|reason| RecordFileError::Invalid { path: path.to_owned(), reason })?;
    if recorded != attributes {
        return Err(RecordFileError::OtherAttributes {
            path: path.to_owned(),
            recorded: format!("{recorded:?}"),
            current: format!("{attributes:?}"),
        });
    }
    Ok(file)
}

/// A record file's header and its evaluations by key (a key's first record).
pub fn read_records(path: &Path) -> Result<(RecordedAttributes, HashMap<u64, Evaluation>), RecordFileError> {
    let bytes = std::fs::read(path).map_err(|source| RecordFileError::Io { path: path.to_owned(), source })?;
    parse_records(&bytes).map_err(|reason| RecordFileError::Invalid { path: path.to_owned(), reason })
}

/// [`read_records`] of the file's bytes: the header and the evaluations by key, or what is wrong with them.
pub fn parse_records(bytes: &[u8]) -> Result<(RecordedAttributes, HashMap<u64, Evaluation>), String> {
    let mut input = Reader { bytes, at: 0 };
    let attributes = RecordedAttributes::read(&mut input)?;
    let mut records = HashMap::new();
    while input.at < bytes.len() {
        let start = input.at;
        let record = (|| {
            let key = input.u64()?;
            let [wl, d, m] = [input.f32()?, input.f32()?, input.f32()?];
            let moves = input.u32()? as usize;
            let policy = (0..moves).map(|_| input.f32()).collect::<Result<Vec<_>, _>>()?;
            Ok::<_, String>((key, Evaluation { wl, d, m, policy }))
        })();
        let (key, evaluation) = record.map_err(|reason| format!("the record at byte {start}: {reason}"))?;
        records.entry(key).or_insert(evaluation);
    }
    Ok((attributes, records))
}

/// Reads little-endian values from a byte slice; running out is an error naming the offset.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len());
        let end = end.ok_or_else(|| format!("the file ends at byte {} inside it", self.bytes.len()))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().expect("four bytes")))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().expect("eight bytes")))
    }

    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.bytes(4)?.try_into().expect("four bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::HistoryEntry;
    use shakmaty::Chess;

    const ATTRIBUTES: RecordedAttributes = RecordedAttributes {
        has_wdl: true,
        has_moves_left: false,
        recommended_batch_size: 256,
        maximum_batch_size: 1024,
        suggested_threads: 2,
        concurrent_batches: 2,
        recommended_prefetch: 3,
        runs_on_cpu: false,
    };

    /// The bytes of the format's description, written out by hand.
    #[test]
    fn a_header_and_a_record_are_the_documented_bytes() {
        let mut bytes = Vec::new();
        ATTRIBUTES.write(&mut bytes).unwrap();
        let evaluation = Evaluation { wl: 0.5, d: 0.25, m: 12.0, policy: vec![1.0, 0.0] };
        write_record(&mut bytes, 0x0102_0304_0506_0708, &evaluation).unwrap();
        let mut expected = b"KAIROSRC".to_vec();
        expected.extend([3, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 4, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0]);
        expected.extend([8, 7, 6, 5, 4, 3, 2, 1]);
        expected.extend([0, 0, 0, 0x3f, 0, 0, 0x80, 0x3e, 0, 0, 0x40, 0x41, 2, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0]);
        assert_eq!(bytes, expected);
        let (attributes, records) = parse_records(&bytes).unwrap();
        assert_eq!(attributes, ATTRIBUTES);
        assert_eq!(records.get(&0x0102_0304_0506_0708), Some(&evaluation));
    }

    /// A version 1 file (before 33a1977, bytes by hand) replays with lc0's prefetch, which its search had.
    #[test]
    fn a_version_1_header_reads_with_lc0s_prefetch_and_a_later_version_is_refused() {
        let mut bytes = b"KAIROSRC".to_vec();
        bytes.extend([1, 0, 0, 0, 1, 1, 32, 0, 0, 0, 0, 4, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
        bytes.extend([9, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend([0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0x40, 0x41, 1, 0, 0, 0, 0, 0, 0x80, 0x3f]);
        let (attributes, records) = parse_records(&bytes).unwrap();
        let expected = RecordedAttributes {
            has_wdl: true,
            has_moves_left: true,
            recommended_batch_size: 32,
            maximum_batch_size: 1024,
            suggested_threads: 1,
            concurrent_batches: 1,
            recommended_prefetch: 32,
            runs_on_cpu: true,
        };
        assert_eq!(attributes, expected);
        assert_eq!(records[&9], Evaluation { wl: 0.0, d: 1.0, m: 12.0, policy: vec![1.0] });
        bytes[8] = 4;
        assert_eq!(parse_records(&bytes).unwrap_err(), "its version is 4, this build reads 1 to 3");
    }

    /// A version 2 file (before f181b4d, bytes by hand) replays as on the CPU: its search had no picking tasks.
    #[test]
    fn a_version_2_header_reads_as_on_the_cpu() {
        let mut bytes = b"KAIROSRC".to_vec();
        bytes.extend([2, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 4, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 32, 0, 0, 0]);
        bytes.extend([9, 0, 0, 0, 0, 0, 0, 0]);
        bytes.extend([0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0x40, 0x41, 1, 0, 0, 0, 0, 0, 0x80, 0x3f]);
        let (attributes, records) = parse_records(&bytes).unwrap();
        let expected = RecordedAttributes {
            has_wdl: true,
            has_moves_left: false,
            recommended_batch_size: 256,
            maximum_batch_size: 1024,
            suggested_threads: 2,
            concurrent_batches: 1,
            recommended_prefetch: 32,
            runs_on_cpu: true,
        };
        assert_eq!(attributes, expected);
        assert_eq!(records[&9], Evaluation { wl: 0.0, d: 1.0, m: 12.0, policy: vec![1.0] });
    }

    #[test]
    fn a_keys_first_record_is_the_one_kept_and_a_cut_record_names_its_offset() {
        let mut bytes = Vec::new();
        ATTRIBUTES.write(&mut bytes).unwrap();
        let first = Evaluation { wl: 0.1, d: 0.2, m: 0.0, policy: vec![0.5, 0.5] };
        write_record(&mut bytes, 7, &first).unwrap();
        write_record(&mut bytes, 7, &Evaluation { wl: -0.9, ..first.clone() }).unwrap();
        assert_eq!(parse_records(&bytes).unwrap().1[&7], first);
        let length = bytes.len();
        let error = parse_records(&bytes[..length - 1]).unwrap_err();
        assert_eq!(
            error,
            format!("the record at byte {}: the file ends at byte {} inside it", length - 32, length - 1)
        );
        assert_eq!(parse_records(b"KAIROSXX").unwrap_err(), "it does not start with KAIROSRC");
    }

    /// The same position after another move order is another record; the same history is the same one.
    #[test]
    fn a_key_covers_the_history_a_network_sees() {
        let play = |moves: &[&str]| {
            let mut position = Chess::default();
            let mut history = vec![HistoryEntry { position: position.clone(), repetitions: 0 }];
            for uci in moves {
                let m = uci.parse::<shakmaty::uci::UciMove>().unwrap().to_move(&position).unwrap();
                position.play_unchecked(m);
                history.push(HistoryEntry { position: position.clone(), repetitions: 0 });
            }
            record_key(&EvalRequest { history: &history, moves: &[] }).unwrap()
        };
        let knights_first = play(&["g1f3", "g8f6", "b1c3", "b8c6"]);
        assert_eq!(knights_first, play(&["g1f3", "g8f6", "b1c3", "b8c6"]));
        assert_ne!(knights_first, play(&["b1c3", "b8c6", "g1f3", "g8f6"]));
        // The same board with the fifty-move counter at 0 and at 5: the networks' rule-50 plane differs.
        let key_of_fen = |fen: &str| {
            let position = crate::fen::chess_from_fen(fen.parse().unwrap()).unwrap();
            record_key(&EvalRequest { history: &[HistoryEntry { position, repetitions: 0 }], moves: &[] }).unwrap()
        };
        let rook_ending = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - {} 11";
        assert_ne!(key_of_fen(&rook_ending.replace("{}", "0")), key_of_fen(&rook_ending.replace("{}", "5")));
        assert_eq!(record_key(&EvalRequest { history: &[], moves: &[] }), None);
    }

    #[test]
    fn appending_keeps_one_header_and_refuses_other_attributes() {
        let path = std::env::temp_dir().join(format!("kairos-record-file-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let evaluation = Evaluation { wl: 0.0, d: 1.0, m: 3.0, policy: vec![1.0] };
        for key in [1, 2] {
            let mut file = open_for_append(&path, ATTRIBUTES).unwrap();
            write_record(&mut file, key, &evaluation).unwrap();
        }
        let (attributes, records) = read_records(&path).unwrap();
        assert_eq!((attributes, records.len()), (ATTRIBUTES, 2));
        let other = RecordedAttributes { has_moves_left: true, ..ATTRIBUTES };
        let error = open_for_append(&path, other).unwrap_err().to_string();
        assert!(error.contains("other attributes") && error.contains("record into a new file"), "{error}");
        std::fs::remove_file(&path).unwrap();
    }
}
