//! Syzygy endgame tablebases as lc0 909a4082 uses them (docs/syzygy.md): loaded from `SyzygyPath`, they
//! narrow the root's moves by DTZ (else WDL) and end the search at positions right after a capture or pawn
//! move. The probing itself is shakmaty-syzygy's.

mod root;

pub use root::{RankedMove, RootMoveRanks, RootProbe};

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use shakmaty::{Chess, Position};
use shakmaty_syzygy::{Syzygy, Tablebase, Wdl};

/// Why a directory or a table of `SyzygyPath` was not used; the engine goes on with the tables it could load.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// A directory of the path does not exist or cannot be listed.
    #[error("Syzygy directory '{}' cannot be read ({source}); fix SyzygyPath (directories separated by '{SEPARATOR}')", .path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A table file cannot be opened or read.
    #[error("Syzygy table '{}' cannot be read ({source}); it is left out", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A table file has the wrong size or header for a Syzygy table: truncated, or not a table at all.
    #[error("Syzygy table '{}' is corrupt ({reason}); it is left out: download or generate it again", .path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// No directory of the path held a table.
    #[error("no Syzygy tables (*.rtbw, *.rtbz) found in '{path}'; the engine plays without tablebases")]
    NoTables {
        /// The whole `SyzygyPath`.
        path: String,
    },
}

/// Separates the directories of `SyzygyPath`, as lc0 on the same system (`;` on Windows, `:` elsewhere).
pub const SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The loaded tables of one `SyzygyPath`.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    wdl_files: usize,
    dtz_files: usize,
}

/// What loading a `SyzygyPath` gave: the tables (None without any) and a problem report per bad entry.
pub struct Loaded {
    /// The tables found, if any.
    pub tablebases: Option<Tablebases>,
    /// Every directory or file that was left out, and why (a path without tables gives `NoTables`).
    pub problems: Vec<TablebaseError>,
}

impl Tablebases {
    /// Loads every table in the `SEPARATOR`-separated directories of `path`, checking each file's size and
    /// header now (shakmaty-syzygy opens them on first use) so that a bad file is named at `isready`.
    pub fn load(path: &str) -> Loaded {
        let mut tables = Tablebase::new();
        let (mut wdl_files, mut dtz_files) = (0, 0);
        let mut problems = Vec::new();
        for directory in path.split(SEPARATOR).map(str::trim).filter(|d| !d.is_empty()) {
            let entries = match std::fs::read_dir(directory) {
                Ok(entries) => entries,
                Err(source) => {
                    problems.push(TablebaseError::Directory { path: directory.into(), source });
                    continue;
                }
            };
            let mut files: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|e| e.path())).collect();
            files.sort();
            for file in files {
                let Some(kind) = TableKind::of(&file) else { continue };
                match check_table_file(&file, kind).and_then(|()| add_table(&mut tables, &file)) {
                    Ok(()) if kind == TableKind::Wdl => wdl_files += 1,
                    Ok(()) => dtz_files += 1,
                    Err(problem) => problems.push(problem),
                }
            }
        }
        if wdl_files == 0 {
            problems.push(TablebaseError::NoTables { path: path.to_string() });
            return Loaded { tablebases: None, problems };
        }
        Loaded { tablebases: Some(Self { tables, wdl_files, dtz_files }), problems }
    }

    /// The most pieces (kings included) of any loaded table: lc0's `max_cardinality`.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// `info string` text as lc0 prints it at load: the files found and the largest piece count.
    pub fn summary(&self) -> String {
        format!(
            "Found {} WDL and {} DTZ tablebase files, up to {} pieces.",
            self.wdl_files,
            self.dtz_files,
            self.max_pieces()
        )
    }

    /// Whether lc0 would probe `position` at all: no castling rights and no more pieces than the tables hold.
    pub fn covers(&self, position: &Chess) -> bool {
        position.castles().is_empty() && position.board().occupied().count() <= self.max_pieces()
    }

    /// The WDL of `position` for the side to move, assuming the fifty-move counter was just reset (the WDL
    /// tables alone); None when a table is missing or unreadable (lc0's FAIL), so the caller searches on.
    pub fn probe_wdl_after_zeroing(&self, position: &Chess) -> Option<Wdl> {
        self.tables.probe_wdl_after_zeroing(position).ok()
    }

    /// The DTZ of `position` for the side to move as lc0's `probe_dtz` gives it (sign: the winner; may be
    /// one ply long, see shakmaty-syzygy's `MaybeRounded`); None without the DTZ table.
    pub fn probe_dtz(&self, position: &Chess) -> Option<i32> {
        self.tables.probe_dtz(position).ok().map(|dtz| dtz.ignore_rounding().0)
    }
}

/// Which metric a table file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TableKind {
    Wdl,
    Dtz,
}

impl TableKind {
    /// The kind by file extension (None: not a standard-chess Syzygy file, skipped silently as lc0 does).
    fn of(file: &Path) -> Option<Self> {
        let extension = file.extension()?.to_str()?;
        if extension == <Chess as Syzygy>::TBW.ext {
            Some(Self::Wdl)
        } else if extension == <Chess as Syzygy>::TBZ.ext {
            Some(Self::Dtz)
        } else {
            None
        }
    }

    fn magic(self) -> [u8; 4] {
        match self {
            Self::Wdl => <Chess as Syzygy>::TBW.magic,
            Self::Dtz => <Chess as Syzygy>::TBZ.magic,
        }
    }
}

/// Refuses a file whose size (always 16 mod 64 for a Syzygy table) or magic header is wrong.
fn check_table_file(file: &Path, kind: TableKind) -> Result<(), TablebaseError> {
    let unreadable = |source| TablebaseError::Unreadable { path: file.to_path_buf(), source };
    let corrupt = |reason: String| TablebaseError::Corrupt { path: file.to_path_buf(), reason };
    let mut handle = File::open(file).map_err(unreadable)?;
    let size = handle.metadata().map_err(unreadable)?.len();
    if size % 64 != 16 {
        return Err(corrupt(format!("{size} bytes, not a Syzygy table's size (16 more than a multiple of 64)")));
    }
    let mut magic = [0u8; 4];
    handle.read_exact(&mut magic).map_err(unreadable)?;
    if magic != kind.magic() {
        return Err(corrupt(format!("header {magic:02x?}, expected {:02x?}", kind.magic())));
    }
    Ok(())
}

fn add_table(tables: &mut Tablebase<Chess>, file: &Path) -> Result<(), TablebaseError> {
    tables.add_file(file).map_err(|source| match source.kind() {
        std::io::ErrorKind::InvalidInput => TablebaseError::Corrupt {
            path: file.to_path_buf(),
            reason: "the name is not a material signature such as KQvK".to_string(),
        },
        _ => TablebaseError::Unreadable { path: file.to_path_buf(), source },
    })
}
