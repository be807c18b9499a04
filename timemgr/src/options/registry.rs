//! The one declarative registry of managers, estimators and their keys: parsing, validation, help, the
//! tuner and canonical printing all read these tables, so nothing is listed twice. Each table is declared
//! together with the typed struct the code reads it as ([`ComponentKeys`]).

use super::error::OptionError;
use super::value::ParamValue;

/// What a key holds, with its default, range and (for numbers) the tuner's step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A float; an integer literal is accepted too (lc0 would reject it).
    Float {
        /// Default before any preset.
        default: f64,
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
        /// A sensible tuning step.
        step: f64,
    },
    /// An integer; a float literal is rejected as in lc0.
    Int {
        /// Default before any preset.
        default: i64,
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
        /// A sensible tuning step.
        step: i64,
    },
    /// `true` or `false`.
    Bool {
        /// Default before any preset.
        default: bool,
    },
    /// One of a fixed set of names (written bare or quoted).
    Choice {
        /// Default choice.
        default: &'static str,
        /// The allowed names.
        choices: &'static [&'static str],
    },
    /// Free text such as a file path (written bare when it is a word or a path, else quoted).
    Text {
        /// Default text.
        default: &'static str,
    },
}

/// One key of a manager or estimator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The key as written in option strings.
    pub name: &'static str,
    /// Type, default, range and step.
    pub kind: ParamKind,
    /// One line for `tm-help`.
    pub help: &'static str,
}

/// A component's keys as one typed struct: field `i` is key `i` of the registry table [`ComponentKeys::KEYS`],
/// so the code reads every key by position and type, never by its name.
pub trait ComponentKeys: Sized {
    /// The registry table of the keys, in field order.
    const KEYS: &'static [ParamSpec];
    /// Reads every key, in order, from values validated against [`Self::KEYS`]; a key whose value is not of
    /// its field's type is a bug in the registry, reported as [`OptionError::Inconsistent`].
    fn from_values(component: &str, values: &[ParamValue]) -> Result<Self, OptionError>;
    /// Every key at its declared default.
    fn defaults() -> Self {
        let values: Vec<ParamValue> = Self::KEYS.iter().map(ParamSpec::default_value).collect();
        Self::from_values("defaults", &values).expect("the registry test reads every table's defaults")
    }
}

/// A Rust type that a key's validated value is read as.
pub trait KeyValue: Sized {
    /// The value as this type, if the key is of a compatible kind.
    fn from_param(value: ParamValue) -> Option<Self>;
}

impl KeyValue for f64 {
    fn from_param(value: ParamValue) -> Option<Self> {
        match value {
            ParamValue::Float(x) => Some(x),
            ParamValue::Int(i) => Some(i as f64),
            _ => None,
        }
    }
}

impl KeyValue for f32 {
    fn from_param(value: ParamValue) -> Option<Self> {
        f64::from_param(value).map(|x| x as f32)
    }
}

impl KeyValue for i64 {
    fn from_param(value: ParamValue) -> Option<Self> {
        match value {
            ParamValue::Int(i) => Some(i),
            _ => None,
        }
    }
}

impl KeyValue for bool {
    fn from_param(value: ParamValue) -> Option<Self> {
        match value {
            ParamValue::Bool(b) => Some(b),
            _ => None,
        }
    }
}

impl KeyValue for &'static str {
    fn from_param(value: ParamValue) -> Option<Self> {
        match value {
            ParamValue::Choice(c) => Some(c),
            _ => None,
        }
    }
}

impl KeyValue for String {
    fn from_param(value: ParamValue) -> Option<Self> {
        match value {
            ParamValue::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// What ends a smooth move: time (lc0's behaviour) or the node target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmoothLimit {
    /// The node target is turned into a deadline through the NPS estimate.
    Time,
    /// The node target is the stop.
    Nodes,
}

impl KeyValue for SmoothLimit {
    fn from_param(value: ParamValue) -> Option<Self> {
        match value {
            ParamValue::Choice("time") => Some(Self::Time),
            ParamValue::Choice("nodes") => Some(Self::Nodes),
            _ => None,
        }
    }
}

/// Reads key `key` of `component` as `T`, or says which key the registry and the code disagree on.
pub fn read_key<T: KeyValue>(component: &str, key: &str, value: Option<ParamValue>) -> Result<T, OptionError> {
    value.clone().and_then(T::from_param).ok_or_else(|| OptionError::Inconsistent {
        component: component.to_owned(),
        reason: format!(
            "key {key} is read as {} but holds {value:?}; this is a bug in the registry",
            std::any::type_name::<T>()
        ),
    })
}

/// Declares a component's keys once: each field with its type, its registry entry (key, default, range,
/// tuning step) and its help, which is also the field's doc. Generates the struct and its [`ComponentKeys`].
macro_rules! declare_keys {
    ($(#[$meta:meta])* pub struct $name:ident {
        $( $field:ident : $ty:ty = $ctor:ident($key:literal $(, $arg:expr)*; $help:literal), )*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( #[doc = $help] pub $field: $ty, )*
        }

        impl ComponentKeys for $name {
            const KEYS: &'static [ParamSpec] = &[ $( $ctor($key $(, $arg)*, $help), )* ];

            #[allow(unused_mut, unused_variables)]
            fn from_values(component: &str, values: &[ParamValue]) -> Result<Self, OptionError> {
                let mut values = values.iter().cloned();
                Ok(Self { $( $field: read_key(component, $key, values.next())?, )* })
            }
        }
    };
}

impl ParamSpec {
    /// The key's default before any preset.
    pub fn default_value(&self) -> ParamValue {
        match self.kind {
            ParamKind::Float { default, .. } => ParamValue::Float(default),
            ParamKind::Int { default, .. } => ParamValue::Int(default),
            ParamKind::Bool { default } => ParamValue::Bool(default),
            ParamKind::Choice { default, .. } => ParamValue::Choice(default),
            ParamKind::Text { default } => ParamValue::Text(default.to_owned()),
        }
    }
}

/// A preset value: the key and its number (bools as 0/1).
pub type PresetValue = (&'static str, f64);

/// A preset choice: the key and the name of the choice.
pub type PresetChoice = (&'static str, &'static str);

/// A named set of defaults (e.g. `smooth(preset=lc0)`), for the manager and for its default estimator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// The value of the `preset` key.
    pub name: &'static str,
    /// What it reproduces.
    pub help: &'static str,
    /// Manager keys whose defaults it changes.
    pub values: &'static [PresetValue],
    /// Manager choice keys whose defaults it changes.
    pub choices: &'static [PresetChoice],
    /// Default-estimator keys whose defaults it changes.
    pub estimator_values: &'static [PresetValue],
}

/// Whether a component is a time manager or a moves-left estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentKind {
    /// Selected at the top level of the option string.
    Manager,
    /// Selected by a sub-dictionary inside a manager.
    Estimator,
}

/// A manager or an estimator: its name, keys, presets and, for managers, the estimator it uses by default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComponentSpec {
    /// The name in option strings.
    pub name: &'static str,
    /// Manager or estimator.
    pub kind: ComponentKind,
    /// A paragraph for `tm-help`.
    pub help: &'static str,
    /// Its own keys (managers also take [`ADJUSTMENT_PARAMS`]).
    pub params: &'static [ParamSpec],
    /// Named default sets; the first is the default.
    pub presets: &'static [Preset],
    /// The moves-left estimator a manager uses when none is given; `None` if it uses none.
    pub default_estimator: Option<&'static str>,
}

impl ComponentSpec {
    /// Every key the component takes: its own, then (for managers) the common adjustments.
    pub fn all_params(&self) -> impl Iterator<Item = &'static ParamSpec> {
        let common: &'static [ParamSpec] = match self.kind {
            ComponentKind::Manager => ADJUSTMENT_PARAMS,
            ComponentKind::Estimator => &[],
        };
        self.params.iter().chain(common.iter())
    }

    /// The key called `name`.
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.all_params().find(|p| p.name == name)
    }

    /// The preset called `name`.
    pub fn preset(&self, name: &str) -> Option<&'static Preset> {
        self.presets.iter().find(|p| p.name == name)
    }
}

const fn float(name: &'static str, default: f64, min: f64, max: f64, step: f64, help: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Float { default, min, max, step }, help }
}

const fn int(name: &'static str, default: i64, min: i64, max: i64, step: i64, help: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Int { default, min, max, step }, help }
}

const fn boolean(name: &'static str, default: bool, help: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Bool { default }, help }
}

const fn text(name: &'static str, default: &'static str, help: &'static str) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Text { default }, help }
}

const fn choice(
    name: &'static str,
    default: &'static str,
    choices: &'static [&'static str],
    help: &'static str,
) -> ParamSpec {
    ParamSpec { name, kind: ParamKind::Choice { default, choices }, help }
}

declare_keys! {
    /// The chessprogramming-wiki adjustments every manager offers, all off by default (lc0 has none of them).
    #[derive(Copy)]
    pub struct Adjustments {
        instant_single_move: bool = boolean("instant-single-move", false;
            "move at once when there is exactly one legal move"),
        out_of_book_factor: bool = boolean("out-of-book-factor", false;
            "Cray Blitz: multiply the budget by 2 - min(n,10)/10 for the n-th own move after the book"),
    }
}

/// The adjustments' keys, which every manager takes after its own.
pub const ADJUSTMENT_PARAMS: &[ParamSpec] = Adjustments::KEYS;

declare_keys! {
    /// The keys of `legacy(...)`.
    pub struct LegacyParams {
        preset: &'static str = choice("preset", "lc0", &["lc0", "kairos"];
            "default set: lc0 (lc0's legacy), kairos (its saved time spread over the moves after the fifth and a \
             slowmover of 1.5 advanced from it: trees as even as smooth(preset=kairos)'s; the default's manager of \
             large trees, see regime)"),
        slowmover: f32 = float("slowmover", 1.0, 0.0, 100.0, 0.05;
            "multiplier of each move's slice after the first spread-after own moves (UCI Slowmover)"),
        midpoint_move: f32 = float("midpoint-move", 51.5, 1.0, 1000.0, 1.0;
            "mle-legacy midpoint in full moves, unless an estimator is given"),
        steepness: f32 = float("steepness", 7.0, 0.1, 100.0, 0.1;
            "mle-legacy steepness, unless an estimator is given"),
        immediate_use: f32 = float("immediate-use", 1.0, 0.0, 1.0, 0.05;
            "fraction of the time saved so far that the next move spends"),
        spread_after: i64 = int("spread-after", 0, 0, 1000, 1;
            "own moves, from the first, budgeted as lc0's plain legacy (all the time saved so far spent, no \
             slowmover) before immediate-use and slowmover apply"),
        reserve_in_slices: bool = boolean("reserve-in-slices", false;
            "the time saved and not yet spent stays in the remaining time that the slices share, so a reserve spread \
             by immediate-use is spent sooner (lc0: false, it is taken out)"),
        first_move_bonus: f32 = float("first-move-bonus", 1.8, 0.0, 100.0, 0.1;
            "extra slices for the first move of the game"),
        book_ply_bonus: f32 = float("book-ply-bonus", 0.25, 0.0, 100.0, 0.05;
            "extra slices per book ply (up to 12) on the first move"),
        unstable_extension: f32 = float("unstable-extension", 0.0, 0.0, 10.0, 0.1;
            "UNST (Huang, Coulom & Lin 2010): while the most-visited root move is not the best by Q, the move \
             may search past its deadline by up to this many times its time, and smart pruning counts that time \
             too; 0 = lc0 (off)"),
    }
}

const LEGACY: ComponentSpec = ComponentSpec {
    name: "legacy",
    kind: ComponentKind::Manager,
    help: "lc0's default: an equal slice of the remaining game time (moves left from mle-legacy), a bonus on \
           the first move, and the time saved by early stops spent on the next move.",
    params: LegacyParams::KEYS,
    presets: &[
        Preset { name: "lc0", help: "lc0's legacy", values: &[], choices: &[], estimator_values: &[] },
        Preset {
            name: "kairos",
            help: "the time saved by early stops spent 15 % a move after the fifth own move, and a slowmover of 1.5 \
                   advanced from that reserve: tree-size CV within 10 % of smooth(preset=kairos)'s where the default \
                   plays legacy on #34's grid, and not 10 Elo weaker than legacy at 60+0.6 (non-regression SPRT \
                   passed after 4,380 games, -1.8 Elo; EXPERIMENTS.md)",
            values: &[("immediate-use", 0.15), ("spread-after", 5.0), ("slowmover", 1.5)],
            choices: &[],
            estimator_values: &[],
        },
    ],
    default_estimator: Some("mle-legacy"),
};

declare_keys! {
    /// The keys of `alphazero(...)`.
    pub struct AlphaZeroParams {
        time_pct: f32 = float("alphazero-time-pct", 12.0, 0.0, 100.0, 0.5; "percentage of the remaining time per move"),
    }
}

const ALPHAZERO: ComponentSpec = ComponentSpec {
    name: "alphazero",
    kind: ComponentKind::Manager,
    help: "A fixed percentage of the remaining time (clock minus overhead) per move; the increment is ignored.",
    params: AlphaZeroParams::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `simple(...)`.
    pub struct SimpleParams {
        base_pct: f32 = float("base-pct", 1.4, 0.001, 100.0, 0.1; "percentage of the available time at ply 0"),
        ply_pct: f32 = float("ply-pct", 0.049, 0.0, 1.0, 0.005; "percentage added per ply"),
        time_factor: f32 = float("time-factor", 1.5, 0.0, 100.0, 0.1; "weight of the increment/clock ratio"),
        opening_bonus_pct: f32 = float("opening-bonus-pct", 0.0, 0.0, 1000.0, 5.0;
            "percentage bonus on the first budgeted move"),
    }
}

const SIMPLE: ComponentSpec = ComponentSpec {
    name: "simple",
    kind: ComponentKind::Manager,
    help: "lc0's simple manager (#1764/#1876): a percentage growing with the ply plus the increment ratio, \
           plus last move's savings.",
    params: SimpleParams::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `smooth(...)`.
    pub struct SmoothParams {
        preset: &'static str = choice("preset", "pr1195", &["pr1195", "pr1195-merged", "lc0", "kairos", "even"];
            "default set: pr1195 (pre-merge table), pr1195-merged, lc0 (v0.28+ defaults, lc0-compat on), kairos \
             (the node limit that passed the SPRT against legacy at 10+0.1; the default's manager of small trees, \
             see regime), even (the node limit with even tree sizes that still spends the clock)"),
        init_tree_reuse: f32 = float("init-tree-reuse", 0.5, 0.0, 0.99, 0.02;
            "initial estimate of the fraction of the tree reused"),
        max_tree_reuse: f32 = float("max-tree-reuse", 0.7, 0.0, 0.99, 0.02; "cap on the tree-reuse estimate"),
        tree_reuse_update_rate: f32 = float("tree-reuse-update-rate", 4.0, 0.01, 1000.0, 0.25;
            "half-life of tree reuse, in average moves"),
        init_nps: f32 = float("init-nps", 0.0, 0.0, 1e9, 1000.0;
            "initial NPS estimate; 0 = the engine's own measure (its last search, a calibration when the network \
             loaded, or VirtualNps on the virtual clock), 20000 (PR 1195's) when it has none"),
        nps_update_rate: f32 = float("nps-update-rate", 5.0, 0.01, 1000.0, 0.5;
            "half-life of the NPS estimate in seconds (when nps-update-period is 0)"),
        nps_update_period: f32 = float("nps-update-period", 0.0, 0.0, 1000.0, 1.0;
            "seconds over which NPS falls linearly to the move's NPS; 0 = exponential decay"),
        init_timeuse: f32 = float("init-timeuse", 0.7, 0.01, 10.0, 0.02;
            "initial estimate of time used / time allocated (limit=nodes: only with learn-node-use)"),
        min_timeuse: f32 = float("min-timeuse", 0.3, 0.01, 10.0, 0.02;
            "lower clamp of the time-use estimate (limit=nodes: only with learn-node-use)"),
        timeuse_update_rate: f32 = float("timeuse-update-rate", 10.0, 0.01, 1000.0, 0.25;
            "half-life of time use, in average moves (limit=nodes: only with learn-node-use)"),
        max_move_budget: f32 = float("max-move-budget", 0.3, 0.001, 1.0, 0.02;
            "cap of one move's allocation as a fraction of the clock"),
        init_piggybank: f32 = float("init-piggybank", 0.0, 0.0, 1.0, 0.01;
            "fraction of the first clock reading put in the piggybank"),
        per_move_piggybank: f32 = float("per-move-piggybank", 0.0, 0.0, 1.0, 0.01;
            "fraction of each move's expected time paid into the piggybank"),
        max_piggybank_use: f32 = float("max-piggybank-use", 0.94, 0.0, 1.0, 0.02;
            "fraction of the piggybank one move may spend"),
        max_piggybank_moves: f32 = float("max-piggybank-moves", 36.5, 0.0, 1000.0, 1.0;
            "piggybank cap, in average move times"),
        trend_period_ms: i64 = int("trend-nps-update-period-ms", 0, 0, 600_000, 250;
            "visits-trend watcher period; 0 = watcher off"),
        bestmove_optimism: f32 = float("bestmove-optimism", 0.2, 0.0, 100.0, 0.05;
            "assumed future visit rate of the best move vs. now"),
        overtaker_optimism: f32 = float("overtaker-optimism", 4.0, 0.0, 100.0, 0.25;
            "assumed future visit rate of the other moves vs. now"),
        force_piggybank_ms: i64 = int("force-piggybank-ms", -1, -1, 600_000, 100;
            "piggybank use is forced while time since first batch <= this; -1 = off"),
        need_more_time: bool = boolean("need-more-time", false;
            "spend the piggybank when the search asks for more time"),
        lc0_compat: bool = boolean("lc0-compat", false;
            "reproduce lc0's faults: negative piggybank/allowance, trend rate between polls"),
        theta: f32 = float("theta", 1.0, 0.0, 1.0, 0.05;
            "lc0 #1529: keep theta*N_total + (1-theta)*N_best constant; 1 = lc0"),
        reuse_credit: f32 = float("reuse-credit", 1.0, 0.0, 1.0, 0.1;
            "share of the reused tree that counts towards a move's tree-size target, the rest counted at the \
             learned tree reuse: 1 = lc0 (a move that inherits more searches fewer new nodes), 0 = every move \
             searches the average new nodes whatever it inherits, as legacy spends an even share of the clock"),
        limit: SmoothLimit = choice("limit", "time", &["time", "nodes"];
            "what stops a move: time (lc0: the node target turned into a deadline) or nodes (the tree-size target \
             itself, reused visits included, with smart pruning on the node budget and time as the safety net; \
             the piggybank is not used)"),
        first_move_bonus: f32 = float("first-move-bonus", 0.0, 0.0, 100.0, 0.25;
            "the game's first budgeted move's tree-size target (reused visits included) is 1 + this times the \
             normal one, as legacy's first-move bonus gives its first move extra slices; 0 = lc0"),
        first_move_bonus_decay: f32 = float("first-move-bonus-decay", 0.0, 0.0, 0.99, 0.05;
            "each later move's bonus is this times the one before (the opening's moves after the first get a \
             larger tree too, so the big first tree does not starve the second move); 0 = the first move only"),
        learn_node_use: bool = boolean("learn-node-use", false;
            "limit=nodes: the time-use keys learn the share of the node target that moves reach (smart pruning \
             ends some short) and later targets are stretched by it; false = node use stays 1, every target is \
             the budget itself and what a pruned move saves stays on the clock (more even trees)"),
        nodes_time_cap: f32 = float("nodes-time-cap", 2.0, 1.0, 100.0, 0.25;
            "limit=nodes: soft time cap, as a multiple of the expected time to reach the target (NPS collapse)"),
        immediate_use: f32 = float("immediate-use", 0.0, 0.0, 1.0, 0.05;
            "limit=nodes: share of the nodes a smart-pruned move left unsearched that the next move adds to its \
             target, taken from the clock all the moves left share, as legacy's immediate-use spends saved time on \
             the next move; 0 = lc0 (what a pruned move saves stays on the clock for all the moves left)"),
        prune_floor: f32 = float("prune-floor", 0.0, 0.0, 1.0, 0.05;
            "limit=nodes: share of the move's new-node target to reach before smart pruning may stop it (even \
             tree sizes); 0 = as soon as no move can overtake the best; a proven result stops at once"),
        search_forced: bool = boolean("search-forced", false;
            "limit=nodes: search a forced move (one legal move, or one move that does not lose) to its node target \
             like any other instead of playing it at once, so that the tree kept for the next move is as big as \
             any other (even tree sizes); a proven win still stops at once"),
    }
}

/// The node limit's learned estimators (node use learned too) and their starting points, shared by the `kairos`
/// and `even` presets.
const NODE_LIMIT_ESTIMATORS: [PresetValue; 5] = [
    ("nps-update-period", 20.0),
    ("learn-node-use", 1.0),
    ("init-timeuse", 0.9),
    ("init-tree-reuse", 0.35),
    ("tree-reuse-update-rate", 20.0),
];

/// `smooth(preset=kairos)`'s keys: the node limit's estimators and smart pruning from 0.9 of the target.
const KAIROS_PRESET: [PresetValue; 6] = with_presets(NODE_LIMIT_ESTIMATORS, [("prune-floor", 0.9)]);

/// `smooth(preset=even)`'s keys: every move, forced ones too, to its whole target, and half the clock as the cap.
const EVEN_PRESET: [PresetValue; 8] =
    with_presets(NODE_LIMIT_ESTIMATORS, [("prune-floor", 1.0), ("search-forced", 1.0), ("max-move-budget", 0.5)]);

/// `base` followed by `extra`, at compile time (`L` must be their total length), so that presets share keys
/// without writing a default twice.
const fn with_presets<const B: usize, const E: usize, const L: usize>(
    base: [PresetValue; B],
    extra: [PresetValue; E],
) -> [PresetValue; L] {
    assert!(B + E == L, "L must be the two lengths together");
    let mut out = [("", 0.0); L];
    let mut i = 0;
    while i < B {
        out[i] = base[i];
        i += 1;
    }
    while i < L {
        out[i] = extra[i - B];
        i += 1;
    }
    out
}

const SMOOTH: ComponentSpec = ComponentSpec {
    name: "smooth",
    kind: ComponentKind::Manager,
    help: "PR 1195's smooth manager: aims for the same total tree size every move from learned NPS, tree \
           reuse and time use; lc0's later additions (piggybank, linear NPS decay, trend watcher, need-more-time, \
           forced piggybank) are keys, off unless set or preset=lc0.",
    params: SmoothParams::KEYS,
    presets: &[
        Preset {
            name: "pr1195",
            help: "PR 1195's pre-merge defaults (commit 068f452d), except that the NPS estimate starts from the \
                   engine's own measure (init-nps=0) instead of 20000; later additions off",
            values: &[],
            choices: &[],
            estimator_values: &[],
        },
        Preset {
            name: "pr1195-merged",
            help: "PR 1195 as merged (e0b6ef38)",
            values: &[
                ("max-tree-reuse", 0.8),
                ("tree-reuse-update-rate", 3.0),
                ("init-timeuse", 0.5),
                ("min-timeuse", 0.2),
                ("timeuse-update-rate", 3.0),
            ],
            choices: &[],
            estimator_values: &[],
        },
        Preset {
            name: "lc0",
            help: "lc0 v0.28+ (#1622, #1762) defaults with lc0-compat on",
            values: &[
                ("init-nps", 20000.0),
                ("init-tree-reuse", 0.52),
                ("max-tree-reuse", 0.73),
                ("tree-reuse-update-rate", 3.39),
                ("nps-update-period", 20.0),
                ("init-timeuse", 0.7),
                ("min-timeuse", 0.34),
                ("timeuse-update-rate", 5.51),
                ("max-move-budget", 0.42),
                ("init-piggybank", 0.09),
                ("per-move-piggybank", 0.12),
                ("max-piggybank-use", 0.94),
                ("max-piggybank-moves", 36.5),
                ("trend-nps-update-period-ms", 3000.0),
                ("bestmove-optimism", 0.2),
                ("overtaker-optimism", 4.0),
                ("force-piggybank-ms", 1000.0),
                ("need-more-time", 1.0),
                ("lc0-compat", 1.0),
            ],
            choices: &[],
            estimator_values: &[("midpoint", 45.2), ("steepness", 5.93)],
        },
        Preset {
            name: "kairos",
            help: "pr1195 with the tree-size target as the stop: +28.1 ± 15.2 Elo against legacy at 10+0.1, SPRT \
                   passed after 1,081 games (EXPERIMENTS.md); lc0's moves-left curve; lc0's linear NPS update, so \
                   that the first move's measured NPS replaces init-nps on any hardware",
            values: &KAIROS_PRESET,
            choices: &[("limit", "nodes")],
            estimator_values: &[],
        },
        Preset {
            name: "even",
            help: "kairos with every move searched to its node target (prune-floor 1, forced moves searched), a \
                   flat moves-left curve to move 68 and half the clock as the hard cap: CV of the tree size 0.153 \
                   over own moves 10-60 and 4.6 % of the clock left in long games at 10+0.1, but weaker than legacy \
                   there (EXPERIMENTS.md)",
            values: &EVEN_PRESET,
            choices: &[("limit", "nodes")],
            estimator_values: &[("midpoint", 68.0), ("steepness", 20.0)],
        },
    ],
    default_estimator: Some("mle-legacy"),
};

declare_keys! {
    /// The keys of `geometric(...)`, from which the manager's rule for alpha follows.
    pub struct GeometricKeys {
        alpha: f64 = float("alpha", 0.0, 0.0, 10000.0, 0.5; "fixed divisor (> 1); 0 = solve it"),
        moves: i64 = int("moves", 40, 1, 1000, 5; "N: moves the solved alpha must last"),
        reserve_ms: f64 = float("reserve-ms", 0.0, 0.0, 1e9, 1000.0; "clock left after N moves, in ms (0 = not used)"),
        reserve_fraction: f64 = float("reserve-fraction", 0.0, 0.0, 0.99, 0.01;
            "clock left after N moves, as a fraction of t0 (0 = not used)"),
        min_move_ms: f64 = float("min-move-ms", 100.0, 0.001, 1e9, 50.0;
            "minimum move time s; also sets the reserve when no other is given"),
    }
}

const GEOMETRIC: ComponentSpec = ComponentSpec {
    name: "geometric",
    kind: ComponentKind::Manager,
    help: "Each move takes 1/alpha of the remaining clock (plus the increment). alpha is given, or solved at \
           the first move from the clock t0 and N moves: t0*(1-1/alpha)^N equals the reserve (reserve-ms, else \
           reserve-fraction*t0, else alpha*min-move-ms, the clock at which a 1/alpha slice is the minimum move time).",
    params: GeometricKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

const EXPECTED_LENGTH: ComponentSpec = ComponentSpec {
    name: "expected-length",
    kind: ComponentKind::Manager,
    help: "Spends (t - i)/r + i per move, where r is the estimated number of own moves left (REM/2 for \
           ply-based estimators), t the clock minus overhead and i the increment.",
    params: &[],
    presets: &[],
    default_estimator: Some("ahle"),
};

declare_keys! {
    /// The keys of `ctm(...)`.
    pub struct CtmKeys {
        model: String = text("model", "";
            "model file written by kairos tm-train (quote a path that starts with a digit, '-' or '.', or \
             holds characters other than letters, digits, - _ . /: model='../ctm.safetensors'); \
             empty = none: the fallback budgets every move"),
        start_move: i64 = int("start-move", 1, 1, 10_000, 1; "first move (full-move number) the model budgets"),
        end_move: i64 = int("end-move", 10_000, 1, 10_000, 5; "last move (full-move number) the model budgets"),
        max_share: f64 = float("max-share", 0.2, 0.001, 1.0, 0.01;
            "cap of one move's time, increment included, as a share of the clock minus the move overhead"),
        base_share: f64 = float("base-share", 0.03, 0.001, 1.0, 0.005;
            "instability models (kairos tm-label) only: the share of the clock for a position of average \
             instability; a position predicted y gets base-share*y/mean, capped at max-share"),
        fallback: String = text("fallback", "legacy";
            "time manager for the moves outside the window and those the model cannot budget (quote one with \
             keys: fallback='smooth(preset=lc0)'); not ctm"),
    }
}

const CTM: ComponentSpec = ComponentSpec {
    name: "ctm",
    kind: ComponentKind::Manager,
    help: "Rheude's CTM-Net (issue #11): thinks for rho*(T-O) + i, capped at max-share*(T-O), where rho is the \
           model's predicted share of the remaining time for the side to move's position, T the clock, O the move \
           overhead and i the increment; with movestogo m, at least (T-O)/m. The model budgets the moves from \
           start-move to end-move; the fallback manager budgets the others and every move the model cannot \
           (no model given, no position, a prediction that is not a number). A model trained on search labels \
           (kairos tm-label) predicts the decision instability y instead; rho is then base-share*y/mean, \
           clamped to [0, max-share], mean being the training mean of y.",
    params: CtmKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `regime(...)`.
    pub struct RegimeKeys {
        switch_nodes: f64 = float("switch-nodes", 1000.0, 1.0, 1e9, 100.0;
            "a game whose moves get at least this many nodes (the engine's speed times an even share of the \
             clock a move, at the game's first move with a clock) is managed by large-trees, a smaller one by \
             small-trees"),
        small_trees: String = text("small-trees", "smooth(preset=kairos)";
            "time manager of the games below switch-nodes (quote one with keys); not regime"),
        large_trees: String = text("large-trees", "legacy(preset=kairos)";
            "time manager of the games at or above switch-nodes (quote one with keys); not regime"),
    }
}

const REGIME: ComponentSpec = ComponentSpec {
    name: "regime",
    kind: ComponentKind::Manager,
    help: "Kairos's default: for each game, the manager measured strongest for the size of its moves. \
           smooth(preset=kairos) passed its SPRT against legacy with about 450 nodes a move (10+0.1 at 1,400 \
           nps) and beat it on the wall clock with 600-900, but legacy was the stronger with about 2,700 (60+0.6 \
           at 1,400 nps: H0 accepted, -31 Elo), as lc0 found when it went back to legacy; so large trees go to \
           legacy(preset=kairos), as even as the node limit and within a few Elo of legacy there (-1.8 +/- 6.2 at \
           60+0.6 over 4,380 games; its SPRT undecided); EXPERIMENTS.md. \
           The choice is made at the game's first move with a clock and kept for the game.",
    params: RegimeKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `mle-legacy(...)`.
    pub struct MleLegacyKeys {
        midpoint: f32 = float("midpoint", 51.5, 1.0, 1000.0, 1.0; "median game length in full moves"),
        steepness: f32 = float("steepness", 7.0, 0.1, 100.0, 0.1; "log-logistic shape"),
        follow_games: f32 = float("follow-games", 0.0, 0.0, 10000.0, 1.0;
            "follow the games played: midpoint counts as this many games beside the lengths of the games this \
             engine finished, their geometric mean the median (0: fixed midpoint)"),
    }
}

const MLE_LEGACY: ComponentSpec = ComponentSpec {
    name: "mle-legacy",
    kind: ComponentKind::Estimator,
    help: "lc0's estimator: median residual life of a log-logistic game length, \
           midpoint*(1+2*(m/midpoint)^steepness)^(1/steepness) - m with m = ply/2; returns full moves (f32).",
    params: MleLegacyKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// `ahle` has no keys.
    pub struct AhleKeys {}
}

const AHLE: ComponentSpec = ComponentSpec {
    name: "ahle",
    kind: ComponentKind::Estimator,
    help: "Ahle's fit: REM(k) = 59.3 + (72830 - 2330k)/(k^2 + 10k + 2644) plies left after k plies; returns \
           REM/2 full moves.",
    params: AhleKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `lognormal(...)`.
    pub struct LognormalKeys {
        mu: f64 = float("mu", 4.2485, 0.0, 10.0, 0.05; "mean of ln(game length in plies)"),
        sigma: f64 = float("sigma", 0.5627, 0.01, 5.0, 0.02; "standard deviation of ln(game length in plies)"),
    }
}

const LOGNORMAL: ComponentSpec = ComponentSpec {
    name: "lognormal",
    kind: ComponentKind::Estimator,
    help: "Game length X in plies ~ lognormal(mu, sigma); E[X | X > k] - k in closed form through the normal \
           CDF; returns half of it, in full moves.",
    params: LognormalKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `pieces(...)`.
    pub struct PiecesKeys {
        full_board_moves: f64 = float("full-board-moves", 45.2, 1.0, 1000.0, 1.0; "full moves left with all 32 pieces"),
        bare_moves: f64 = float("bare-moves", 10.0, 1.0, 1000.0, 1.0; "full moves left with the two kings alone"),
    }
}

const PIECES: ComponentSpec = ComponentSpec {
    name: "pieces",
    kind: ComponentKind::Estimator,
    help: "A table by pieces on the board (kings included): linear from bare-moves at 2 pieces to \
           full-board-moves at 32; returns full moves.",
    params: PiecesKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `mlh(...)`.
    pub struct MlhKeys {
        scale: f64 = float("scale", 1.0, 0.01, 100.0, 0.05; "multiplier of the head's estimate"),
    }
}

const MLH: ComponentSpec = ComponentSpec {
    name: "mlh",
    kind: ComponentKind::Estimator,
    help: "The network's moves-left head (plies, halved to full moves, times scale); without that head it \
           falls back to the manager's default estimator and says so in the trace.",
    params: MlhKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

declare_keys! {
    /// The keys of `fixed(...)`.
    pub struct FixedKeys {
        moves: f64 = float("moves", 40.0, 1.0, 10000.0, 1.0; "full moves left"),
    }
}

const FIXED: ComponentSpec = ComponentSpec {
    name: "fixed",
    kind: ComponentKind::Estimator,
    help: "Always the same number of full moves left.",
    params: FixedKeys::KEYS,
    presets: &[],
    default_estimator: None,
};

const MANAGERS: &[ComponentSpec] = &[REGIME, LEGACY, ALPHAZERO, SIMPLE, SMOOTH, GEOMETRIC, EXPECTED_LENGTH, CTM];
const ESTIMATORS: &[ComponentSpec] = &[MLE_LEGACY, AHLE, LOGNORMAL, PIECES, MLH, FIXED];

/// Every time manager, in help order.
pub fn managers() -> &'static [ComponentSpec] {
    MANAGERS
}

/// Every moves-left estimator, in help order.
pub fn estimators() -> &'static [ComponentSpec] {
    ESTIMATORS
}

/// The manager or estimator called `name`.
pub fn component(name: &str) -> Option<&'static ComponentSpec> {
    MANAGERS.iter().chain(ESTIMATORS).find(|c| c.name == name)
}

/// The keys a tuner may vary: every float and integer key of the component, with range and step.
pub fn numeric_params(spec: &ComponentSpec) -> Vec<&'static ParamSpec> {
    spec.all_params().filter(|p| matches!(p.kind, ParamKind::Float { .. } | ParamKind::Int { .. })).collect()
}
