//! The rules a match is played under: standard chess, or Chess960 (Fischer random, DFRC included), where the
//! engines get `UCI_Chess960`, castling travels as king takes rook and the PGN says `[Variant "Chess960"]`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::CastlingMode;

/// The variant of every game of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard chess.
    #[default]
    Standard,
    /// Chess960: any start position of that family (and DFRC's mixed ones), castling with the rook's file.
    Chess960,
}

/// A `--variant` that names no variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}'; use standard or chess960 (also called fischerandom or frc)")]
pub struct UnknownVariant(String);

impl Variant {
    /// How castling rights are read from FENs and castling moves written on the wire.
    pub fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        }
    }

    /// The UCI option an engine must be given for this variant, if any.
    pub fn uci_option(self) -> Option<(&'static str, &'static str)> {
        match self {
            Variant::Standard => None,
            Variant::Chess960 => Some(("UCI_Chess960", "true")),
        }
    }

    /// The PGN `Variant` tag's value (None for standard chess, which has no tag).
    pub fn pgn_tag(self) -> Option<&'static str> {
        match self {
            Variant::Standard => None,
            Variant::Chess960 => Some("Chess960"),
        }
    }

    /// Whether this is standard chess (results files leave the field out then).
    pub fn is_standard(&self) -> bool {
        *self == Variant::Standard
    }
}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "standard" => Ok(Variant::Standard),
            "chess960" | "fischerandom" | "frc" | "dfrc" => Ok(Variant::Chess960),
            _ => Err(UnknownVariant(text.to_string())),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_as_fastchess_and_cutechess_write_them() {
        for name in ["chess960", "Chess960", "fischerandom", "frc", "dfrc"] {
            assert_eq!(name.parse::<Variant>(), Ok(Variant::Chess960), "{name}");
        }
        assert_eq!("standard".parse::<Variant>(), Ok(Variant::Standard));
        assert!("crazyhouse".parse::<Variant>().unwrap_err().to_string().contains("standard or chess960"));
    }
}
