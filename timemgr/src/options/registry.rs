//! The one declarative registry of managers, estimators and their keys: parsing, validation, help, the
//! tuner and canonical printing all read these tables, so nothing is listed twice.

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

/// A preset value: the key and its number (bools as 0/1).
pub type PresetValue = (&'static str, f64);

/// A named set of defaults (e.g. `smooth(preset=lc0)`), for the manager and for its default estimator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// The value of the `preset` key.
    pub name: &'static str,
    /// What it reproduces.
    pub help: &'static str,
    /// Manager keys whose defaults it changes.
    pub values: &'static [PresetValue],
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

/// The chessprogramming-wiki adjustments every manager takes (all off: lc0 has none of them).
pub const ADJUSTMENT_PARAMS: &[ParamSpec] = &[
    boolean("instant-single-move", false, "move at once when there is exactly one legal move"),
    boolean(
        "out-of-book-factor",
        false,
        "Cray Blitz: multiply the budget by 2 - min(n,10)/10 for the n-th own move after the book",
    ),
];

const LEGACY: ComponentSpec = ComponentSpec {
    name: "legacy",
    kind: ComponentKind::Manager,
    help: "lc0's default: an equal slice of the remaining game time (moves left from mle-legacy), a bonus on \
           the first move, and the time saved by early stops spent on the next move.",
    params: &[
        float("slowmover", 1.0, 0.0, 100.0, 0.05, "multiplier of each move's slice (UCI Slowmover)"),
        float("midpoint-move", 51.5, 1.0, 1000.0, 1.0, "mle-legacy midpoint in full moves, unless an estimator is given"),
        float("steepness", 7.0, 0.1, 100.0, 0.1, "mle-legacy steepness, unless an estimator is given"),
        float("immediate-use", 1.0, 0.0, 1.0, 0.05, "fraction of the time saved so far that the next move spends"),
        float("first-move-bonus", 1.8, 0.0, 100.0, 0.1, "extra slices for the first move of the game"),
        float("book-ply-bonus", 0.25, 0.0, 100.0, 0.05, "extra slices per book ply (up to 12) on the first move"),
    ],
    presets: &[],
    default_estimator: Some("mle-legacy"),
};

const ALPHAZERO: ComponentSpec = ComponentSpec {
    name: "alphazero",
    kind: ComponentKind::Manager,
    help: "A fixed percentage of the remaining time (clock minus overhead) per move; the increment is ignored.",
    params: &[float("alphazero-time-pct", 12.0, 0.0, 100.0, 0.5, "percentage of the remaining time per move")],
    presets: &[],
    default_estimator: None,
};

const SIMPLE: ComponentSpec = ComponentSpec {
    name: "simple",
    kind: ComponentKind::Manager,
    help: "lc0's simple manager (#1764/#1876): a percentage growing with the ply plus the increment ratio, \
           plus last move's savings.",
    params: &[
        float("base-pct", 1.4, 0.001, 100.0, 0.1, "percentage of the available time at ply 0"),
        float("ply-pct", 0.049, 0.0, 1.0, 0.005, "percentage added per ply"),
        float("time-factor", 1.5, 0.0, 100.0, 0.1, "weight of the increment/clock ratio"),
        float("opening-bonus-pct", 0.0, 0.0, 1000.0, 5.0, "percentage bonus on the first budgeted move"),
    ],
    presets: &[],
    default_estimator: None,
};

const SMOOTH: ComponentSpec = ComponentSpec {
    name: "smooth",
    kind: ComponentKind::Manager,
    help: "PR 1195's smooth manager: aims for the same total tree size every move from learned NPS, tree \
           reuse and time use; lc0's later additions (piggybank, linear NPS decay, trend watcher, need-more-time, \
           forced piggybank) are keys, off unless set or preset=lc0.",
    params: &[
        ParamSpec {
            name: "preset",
            kind: ParamKind::Choice { default: "pr1195", choices: &["pr1195", "pr1195-merged", "lc0"] },
            help: "default set: pr1195 (pre-merge table), pr1195-merged, lc0 (v0.28+ defaults, lc0-compat on)",
        },
        float("init-tree-reuse", 0.5, 0.0, 0.99, 0.02, "initial estimate of the fraction of the tree reused"),
        float("max-tree-reuse", 0.7, 0.0, 0.99, 0.02, "cap on the tree-reuse estimate"),
        float("tree-reuse-update-rate", 4.0, 0.01, 1000.0, 0.25, "half-life of tree reuse, in average moves"),
        float("init-nps", 20000.0, 1.0, 1e9, 1000.0, "initial NPS estimate"),
        float("nps-update-rate", 5.0, 0.01, 1000.0, 0.5, "half-life of the NPS estimate in seconds (when nps-update-period is 0)"),
        float("nps-update-period", 0.0, 0.0, 1000.0, 1.0, "seconds over which NPS falls linearly to the move's NPS; 0 = exponential decay"),
        float("init-timeuse", 0.7, 0.01, 10.0, 0.02, "initial estimate of time used / time allocated"),
        float("min-timeuse", 0.3, 0.01, 10.0, 0.02, "lower clamp of the time-use estimate"),
        float("timeuse-update-rate", 10.0, 0.01, 1000.0, 0.25, "half-life of time use, in average moves"),
        float("max-move-budget", 0.3, 0.001, 1.0, 0.02, "cap of one move's allocation as a fraction of the clock"),
        float("init-piggybank", 0.0, 0.0, 1.0, 0.01, "fraction of the first clock reading put in the piggybank"),
        float("per-move-piggybank", 0.0, 0.0, 1.0, 0.01, "fraction of each move's expected time paid into the piggybank"),
        float("max-piggybank-use", 0.94, 0.0, 1.0, 0.02, "fraction of the piggybank one move may spend"),
        float("max-piggybank-moves", 36.5, 0.0, 1000.0, 1.0, "piggybank cap, in average move times"),
        int("trend-nps-update-period-ms", 0, 0, 600_000, 250, "visits-trend watcher period; 0 = watcher off"),
        float("bestmove-optimism", 0.2, 0.0, 100.0, 0.05, "assumed future visit rate of the best move vs. now"),
        float("overtaker-optimism", 4.0, 0.0, 100.0, 0.25, "assumed future visit rate of the other moves vs. now"),
        int("force-piggybank-ms", -1, -1, 600_000, 100, "piggybank use is forced while time since first batch <= this; -1 = off"),
        boolean("need-more-time", false, "spend the piggybank when the search asks for more time"),
        boolean("lc0-compat", false, "reproduce lc0's faults: negative piggybank/allowance, trend rate between polls"),
        float("theta", 1.0, 0.0, 1.0, 0.05, "lc0 #1529: keep theta*N_total + (1-theta)*N_best constant; 1 = lc0"),
    ],
    presets: &[
        Preset {
            name: "pr1195",
            help: "PR 1195's pre-merge defaults (commit 068f452d); later additions off",
            values: &[],
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
            estimator_values: &[],
        },
        Preset {
            name: "lc0",
            help: "lc0 v0.28+ (#1622, #1762) defaults with lc0-compat on",
            values: &[
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
            estimator_values: &[("midpoint", 45.2), ("steepness", 5.93)],
        },
    ],
    default_estimator: Some("mle-legacy"),
};

const GEOMETRIC: ComponentSpec = ComponentSpec {
    name: "geometric",
    kind: ComponentKind::Manager,
    help: "Each move takes 1/alpha of the remaining clock (plus the increment). alpha is given, or solved at \
           the first move from the clock t0 and N moves: t0*(1-1/alpha)^N equals the reserve (reserve-ms, else \
           reserve-fraction*t0, else alpha*min-move-ms, the clock at which a 1/alpha slice is the minimum move time).",
    params: &[
        float("alpha", 0.0, 0.0, 10000.0, 0.5, "fixed divisor (> 1); 0 = solve it"),
        int("moves", 40, 1, 1000, 5, "N: moves the solved alpha must last"),
        float("reserve-ms", 0.0, 0.0, 1e9, 1000.0, "clock left after N moves, in ms (0 = not used)"),
        float("reserve-fraction", 0.0, 0.0, 0.99, 0.01, "clock left after N moves, as a fraction of t0 (0 = not used)"),
        float("min-move-ms", 100.0, 0.001, 1e9, 50.0, "minimum move time s; also sets the reserve when no other is given"),
    ],
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

const MLE_LEGACY: ComponentSpec = ComponentSpec {
    name: "mle-legacy",
    kind: ComponentKind::Estimator,
    help: "lc0's estimator: median residual life of a log-logistic game length, \
           midpoint*(1+2*(m/midpoint)^steepness)^(1/steepness) - m with m = ply/2; returns full moves (f32).",
    params: &[
        float("midpoint", 51.5, 1.0, 1000.0, 1.0, "median game length in full moves"),
        float("steepness", 7.0, 0.1, 100.0, 0.1, "log-logistic shape"),
    ],
    presets: &[],
    default_estimator: None,
};

const AHLE: ComponentSpec = ComponentSpec {
    name: "ahle",
    kind: ComponentKind::Estimator,
    help: "Ahle's fit: REM(k) = 59.3 + (72830 - 2330k)/(k^2 + 10k + 2644) plies left after k plies; returns \
           REM/2 full moves.",
    params: &[],
    presets: &[],
    default_estimator: None,
};

const LOGNORMAL: ComponentSpec = ComponentSpec {
    name: "lognormal",
    kind: ComponentKind::Estimator,
    help: "Game length X in plies ~ lognormal(mu, sigma); E[X | X > k] - k in closed form through the normal \
           CDF; returns half of it, in full moves.",
    params: &[
        float("mu", 4.2485, 0.0, 10.0, 0.05, "mean of ln(game length in plies)"),
        float("sigma", 0.5627, 0.01, 5.0, 0.02, "standard deviation of ln(game length in plies)"),
    ],
    presets: &[],
    default_estimator: None,
};

const PIECES: ComponentSpec = ComponentSpec {
    name: "pieces",
    kind: ComponentKind::Estimator,
    help: "A table by pieces on the board (kings included): linear from bare-moves at 2 pieces to \
           full-board-moves at 32; returns full moves.",
    params: &[
        float("full-board-moves", 45.2, 1.0, 1000.0, 1.0, "full moves left with all 32 pieces"),
        float("bare-moves", 10.0, 1.0, 1000.0, 1.0, "full moves left with the two kings alone"),
    ],
    presets: &[],
    default_estimator: None,
};

const MLH: ComponentSpec = ComponentSpec {
    name: "mlh",
    kind: ComponentKind::Estimator,
    help: "The network's moves-left head (plies, halved to full moves, times scale); without that head it \
           falls back to the manager's default estimator and says so in the trace.",
    params: &[float("scale", 1.0, 0.01, 100.0, 0.05, "multiplier of the head's estimate")],
    presets: &[],
    default_estimator: None,
};

const FIXED: ComponentSpec = ComponentSpec {
    name: "fixed",
    kind: ComponentKind::Estimator,
    help: "Always the same number of full moves left.",
    params: &[float("moves", 40.0, 1.0, 10000.0, 1.0, "full moves left")],
    presets: &[],
    default_estimator: None,
};

const MANAGERS: &[ComponentSpec] = &[LEGACY, ALPHAZERO, SIMPLE, SMOOTH, GEOMETRIC, EXPECTED_LENGTH];
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
