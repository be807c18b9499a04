//! A key's validated value and how it is printed back in the option grammar.

use std::fmt;

/// A key's validated value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A float key.
    Float(f64),
    /// An integer key.
    Int(i64),
    /// A boolean key.
    Bool(bool),
    /// A choice key.
    Choice(&'static str),
    /// A text key.
    Text(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Float(x) => {
                let text = format!("{x}");
                if text.contains(['.', 'e', 'E', 'i', 'N']) {
                    f.write_str(&text)
                } else {
                    write!(f, "{text}.0")
                }
            }
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Choice(c) => f.write_str(c),
            ParamValue::Text(text) => write_text(f, text),
        }
    }
}

/// Text as the option grammar reads it back: bare when the lexer takes it as one identifier (a word or a
/// path), else quoted with whichever quote it does not contain.
fn write_text(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    let mut chars = text.chars();
    let bare = chars.next().is_some_and(|c| c.is_alphabetic() || c == '/')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && text != "true"
        && text != "false";
    match (bare, text.contains('\'')) {
        (true, _) => f.write_str(text),
        (false, false) => write!(f, "'{text}'"),
        (false, true) => write!(f, "\"{text}\""),
    }
}
