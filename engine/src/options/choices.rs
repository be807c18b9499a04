//! The values of the choice options (`type combo`): each an enum whose variants are written as fixed words on the
//! UCI wire, parsed once when the option is set, so that the code that reads them matches variants instead of
//! comparing strings.

use nn::encoder::HistoryFill;
use nn::{BackendKind, Precision};

use crate::search::{ContemptMode, GatherBound, ScoreType};

use super::OptionKind;

/// A choice option's value type: its variants and the word UCI writes for each.
pub trait Choice: Copy + PartialEq + 'static {
    /// Each variant's word, in the order of [`Choice::ALL`].
    const NAMES: &'static [&'static str];
    /// Every variant, in the order of [`Choice::NAMES`].
    const ALL: &'static [Self];

    /// The word UCI writes for this value.
    fn name(self) -> &'static str {
        let index = Self::ALL.iter().position(|value| *value == self);
        Self::NAMES[index.expect("Choice::ALL lists every variant")]
    }

    /// The value whose word is `word`, matched case-insensitively as UCI option values are.
    fn from_word(word: &str) -> Option<Self> {
        let index = Self::NAMES.iter().position(|name| name.eq_ignore_ascii_case(word.trim()))?;
        Self::ALL.get(index).copied()
    }
}

/// The option kind of a choice type: `type combo` with its words, so that the table and the type cannot disagree.
pub const fn combo<T: Choice>() -> OptionKind {
    OptionKind::Combo(T::NAMES)
}

/// lc0's `FpuStrategy`: how the value of a node's unvisited moves is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpuStrategy {
    /// The parent's Q minus `FpuValue` times the square root of the visited policy.
    Reduction,
    /// `FpuValue` itself.
    Absolute,
}

impl Choice for FpuStrategy {
    const NAMES: &'static [&'static str] = &["reduction", "absolute"];
    const ALL: &'static [Self] = &[Self::Reduction, Self::Absolute];
}

/// lc0's `FpuStrategyAtRoot`: the root's own FPU strategy, or the other nodes'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootFpuStrategy {
    /// The parent's Q minus `FpuValueAtRoot` times the square root of the visited policy.
    Reduction,
    /// `FpuValueAtRoot` itself.
    Absolute,
    /// `FpuStrategy` and `FpuValue`, as every other node.
    Same,
}

impl Choice for RootFpuStrategy {
    const NAMES: &'static [&'static str] = &["reduction", "absolute", "same"];
    const ALL: &'static [Self] = &[Self::Reduction, Self::Absolute, Self::Same];
}

/// The choice enums declared beside their use, each with its own `NAMES` and `ALL` in the same order.
macro_rules! choice_from_own_lists {
    ($($choice:ty),* $(,)?) => {
        $(
            impl Choice for $choice {
                const NAMES: &'static [&'static str] = <$choice>::NAMES;
                const ALL: &'static [Self] = &<$choice>::ALL;
            }
        )*
    };
}

choice_from_own_lists!(BackendKind, Precision, HistoryFill, ScoreType, GatherBound, ContemptMode);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value's word reads back as that value, in any case, and the words are the ones lc0 sends.
    fn round_trips<T: Choice + std::fmt::Debug>(lc0_words: &[&str]) {
        assert_eq!(T::NAMES, lc0_words);
        assert_eq!(T::NAMES.len(), T::ALL.len());
        for &value in T::ALL {
            assert_eq!(T::from_word(value.name()), Some(value));
            assert_eq!(T::from_word(&format!(" {} ", value.name().to_ascii_uppercase())), Some(value));
        }
        assert_eq!(T::from_word("none of them"), None);
    }

    #[test]
    fn every_choice_reads_back_its_own_words_which_are_lc0s() {
        // lc0 909a4082's choice lists (src/search/classic/params.cc, src/neural/shared_params.cc); Kairos's own
        // choices (backends, precisions, the gather bound) as its options table documents them.
        round_trips::<FpuStrategy>(&["reduction", "absolute"]);
        round_trips::<RootFpuStrategy>(&["reduction", "absolute", "same"]);
        round_trips::<HistoryFill>(&["no", "fen_only", "always"]);
        round_trips::<ContemptMode>(&["play", "white_side_analysis", "black_side_analysis", "disable"]);
        round_trips::<ScoreType>(&[
            "centipawn", "centipawn_with_drawscore", "centipawn_2019", "centipawn_2018", "win_percentage", "Q", "W-L",
            "WDL_mu",
        ]);
        round_trips::<BackendKind>(&["torch", "onnx", "uniform", "random", "replay"]);
        round_trips::<Precision>(&["auto", "fp32", "bf16", "fp16"]);
        round_trips::<GatherBound>(&["off", "small-moves", "time-trouble", "all"]);
    }
}
