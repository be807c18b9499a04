//! The match runner: UCI engines as subprocesses, clocks, openings, game records, PGN and results files.

mod adjudication;
mod engine_config;
mod game;
mod openings;
mod pgn;
mod play;
mod provenance;
mod record;
mod results_log;
mod schedule;
mod time_control;
mod uci_process;
mod variant;

pub use adjudication::{DrawAdjudication, ResignAdjudication};
pub use engine_config::{EngineConfig, EngineConfigError, KAIROS_COMMAND};
pub use game::{play_game, EngineSlot, GameJob, GameSettings};
pub use openings::{epd_position, load_openings, InvalidOpening, Opening, OpeningError, OpeningOrder};
pub use pgn::{clock_text, game_to_pgn, PgnError, PgnLog};
pub use play::{play_games, Flow};
pub use provenance::{machine_description, EngineProvenance};
pub use record::{binaries_by_engine, rfc3339_text, GameRecord, GameResult, MoveRecord, Termination};
pub use results_log::{read_results, read_results_file, ResultsError, ResultsFile, ResultsHeader, ResultsLog};
pub use schedule::{MatchPlan, PlanError, Tournament};
pub use time_control::{GoLimits, SideClock, TimeControl, TimeControlError};
pub use uci_process::{EngineFailure, Score, SearchDeadline, SearchReport, UciProcess};
pub use variant::{UnknownVariant, Variant};
