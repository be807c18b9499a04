//! Typed errors for option strings: each names the problem and the way out.

use std::fmt;

/// Why an option string was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionError {
    /// The text does not follow the grammar.
    #[error("unable to parse config at offset {offset}: {input} ({reason})")]
    Parse {
        /// Byte offset of the offending character.
        offset: usize,
        /// The whole input.
        input: String,
        /// What was expected there.
        reason: String,
    },
    /// Not exactly one manager named at the top level.
    #[error("exactly one time manager should be specified, {count} specified instead; valid managers: {valid}")]
    ManagerCount {
        /// How many were given.
        count: usize,
        /// The valid manager names.
        valid: Names,
    },
    /// A manager or estimator name that does not exist.
    #[error("unknown {what} '{name}'{suggestion}; valid {what}s: {valid}")]
    UnknownComponent {
        /// "time manager", "moves-left estimator", "choice", or "name" (either of the first two).
        what: &'static str,
        /// The name given.
        name: String,
        /// The closest valid name, formatted.
        suggestion: Suggestion,
        /// The valid names.
        valid: Names,
    },
    /// A key that the component does not have.
    #[error("unknown key '{key}' in {component}{suggestion}; valid keys: {valid}")]
    UnknownKey {
        /// The component (manager or estimator) being configured.
        component: String,
        /// The key given.
        key: String,
        /// The closest valid key, formatted.
        suggestion: Suggestion,
        /// The valid keys.
        valid: Names,
    },
    /// A value of the wrong type.
    #[error("{component}.{key} expects {expected}, got {found}")]
    WrongType {
        /// The component being configured.
        component: String,
        /// The key.
        key: String,
        /// What the key takes (with a hint how to write it).
        expected: String,
        /// What was written.
        found: String,
    },
    /// A value outside the key's range.
    #[error("{component}.{key} = {value} is out of range; allowed {range}")]
    OutOfRange {
        /// The component being configured.
        component: String,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// The allowed range, formatted.
        range: String,
    },
    /// Values that are valid one by one but not together.
    #[error("{component}: {reason}")]
    Inconsistent {
        /// The component being configured.
        component: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A key option of a manager or estimator that the selected `TimeManager` does not use.
    #[error(
        "{option} is key {key} of {owner}, but TimeManager is {selected}; select it first (setoption name \
             TimeManager value {select}, or --time-manager={select} before the flag), then set {option}"
    )]
    ForeignKey {
        /// The option's UCI name.
        option: String,
        /// The key inside the option string.
        key: String,
        /// "time manager NAME" or "moves-left estimator NAME".
        owner: String,
        /// The selected option string.
        selected: String,
        /// A `TimeManager` value that selects the owner.
        select: String,
    },
    /// A CTM model file that cannot be used.
    #[error(transparent)]
    Model(#[from] crate::ctm::ModelError),
}

/// A list of valid names, printed comma-separated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Names(pub Vec<String>);

impl fmt::Display for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join(", "))
    }
}

/// The closest valid name to a misspelt one, printed as "; did you mean 'x'?" (or nothing).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Suggestion(pub Option<String>);

impl fmt::Display for Suggestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(name) => write!(f, "; did you mean '{name}'?"),
            None => Ok(()),
        }
    }
}

impl Suggestion {
    /// The candidate with the smallest edit distance to `given`, ignoring case (ties: first in order); none if
    /// there are no candidates or the nearest is more than a third of `given`'s length away (at least one edit,
    /// as rustc's suggestions allow), since a name that far off is not a misspelling of it.
    pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Self {
        let allowed = given.chars().count().max(3) / 3;
        let given = given.to_lowercase();
        let distance = |candidate: &str| edit_distance(&given, &candidate.to_lowercase());
        let nearest = candidates.into_iter().map(|c| (distance(c), c)).min_by_key(|&(d, _)| d);
        Self(nearest.filter(|&(d, _)| d <= allowed).map(|(_, c)| c.to_owned()))
    }
}

/// Edit distance over characters: insertions, deletions, substitutions and swaps of two adjacent characters
/// each count one (optimal string alignment), so "bnech" is one edit from "bench".
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows i-2, i-1 and i of the distance table between a's first i characters and b's prefixes.
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let substitution = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            row[j] = substitution.min(previous[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, row);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("max-move-budget", "max-move-budget"), 0);
        assert_eq!(edit_distance("max-move-budgte", "max-move-budget"), 1);
        assert_eq!(edit_distance("bnech", "bench"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3);
    }

    #[test]
    fn suggestion_picks_the_nearest_name() {
        let s = Suggestion::closest("init-timuse", ["init-tree-reuse", "init-timeuse", "min-timeuse"]);
        assert_eq!(s.0.as_deref(), Some("init-timeuse"));
    }

    #[test]
    fn suggestion_needs_a_near_name() {
        // "nosuch" is five edits from "legacy" and "smooth", six from "simple": no misspelling of any.
        assert_eq!(Suggestion::closest("nosuch", ["legacy", "simple", "smooth"]).0, None);
        // Three letters allow one edit; fifteen allow five.
        assert_eq!(Suggestion::closest("lc1", ["lc0"]).0.as_deref(), Some("lc0"));
        assert_eq!(Suggestion::closest("lx1", ["lc0"]).0, None);
        assert_eq!(Suggestion::closest("THREAD", ["Threads", "Thread"]).0.as_deref(), Some("Thread"), "case ignored");
        assert_eq!(Suggestion::closest("mxx-mxve-bxdgxx", ["max-move-budget"]).0.as_deref(), Some("max-move-budget"));
        assert_eq!(Suggestion::closest("mxx-mxvx-bxdgxx", ["max-move-budget"]).0, None);
    }
}
