//! lc0's option-dictionary grammar (docs/lc0/smooth.md §1.12.2): a lexer and a recursive-descent parser.

use super::error::OptionError;

/// A value as written: the lexer's type decides (an INT has no `.`, `e` or `E`).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `true` or `false`.
    Bool(bool),
    /// A number without `.`, `e`, `E`.
    Int(i64),
    /// A number with `.`, `e` or `E`.
    Float(f64),
    /// A quoted string or a bare identifier other than `true`/`false`.
    Str(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "boolean {b}"),
            Value::Int(i) => write!(f, "integer {i}"),
            Value::Float(x) => write!(f, "float {x:?}"),
            Value::Str(s) => write!(f, "string '{s}'"),
        }
    }
}

/// One dictionary: key/value pairs and named sub-dictionaries, both in the order written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dict {
    /// `key=value` items.
    pub values: Vec<(String, Value)>,
    /// `name(…)` items; anonymous ones are named `[0]`, `[1]`, ….
    pub subdicts: Vec<(String, Dict)>,
}

impl Dict {
    /// The value written for `key`, if any.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Comma,
    Open,
    Close,
    Equals,
    Number(String),
    Quoted(String),
    Ident(String),
}

/// Parses an option string into its top-level dictionary.
pub fn parse_dict(input: &str) -> Result<Dict, OptionError> {
    let tokens = lex(input)?;
    let mut parser = Parser { input, tokens, pos: 0 };
    let dict = parser.list(true)?;
    match parser.tokens.get(parser.pos) {
        None => Ok(dict),
        Some((offset, _)) => Err(parser.error_at(*offset, "expected ',' or end of input")),
    }
}

fn lex(input: &str) -> Result<Vec<(usize, Token)>, OptionError> {
    let error =
        |offset: usize, reason: &str| OptionError::Parse { offset, input: input.to_owned(), reason: reason.to_owned() };
    let chars: Vec<(usize, char)> = input.char_indices().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let take_while = |start: usize, ok: &dyn Fn(char) -> bool| {
        let mut end = start;
        while end < chars.len() && ok(chars[end].1) {
            end += 1;
        }
        end
    };
    let text = |from: usize, to: usize| -> String { chars[from..to].iter().map(|&(_, c)| c).collect() };
    while i < chars.len() {
        let (offset, c) = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            ',' | '(' | ')' | '=' => {
                tokens.push((
                    offset,
                    match c {
                        ',' => Token::Comma,
                        '(' => Token::Open,
                        ')' => Token::Close,
                        _ => Token::Equals,
                    },
                ));
                i += 1;
            }
            '0'..='9' | '-' | '.' => {
                let end = take_while(i, &|c| matches!(c, '+' | '-' | '0'..='9' | '.' | 'e' | 'E' | 'x' | 'X'));
                tokens.push((offset, Token::Number(text(i, end))));
                i = end;
            }
            '\'' | '"' => {
                let end = take_while(i + 1, &|d| d != c);
                if end >= chars.len() {
                    return Err(error(offset, "unterminated quoted string"));
                }
                tokens.push((offset, Token::Quoted(text(i + 1, end))));
                i = end + 1;
            }
            c if c.is_alphabetic() || c == '/' => {
                let end = take_while(i, &|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
                tokens.push((offset, Token::Ident(text(i, end))));
                i = end;
            }
            _ => return Err(error(offset, &format!("unexpected character '{c}'"))),
        }
    }
    Ok(tokens)
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<(usize, Token)>,
    pos: usize,
}

impl Parser<'_> {
    fn error_at(&self, offset: usize, reason: &str) -> OptionError {
        OptionError::Parse { offset, input: self.input.to_owned(), reason: reason.to_owned() }
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.input.len(), |(offset, _)| *offset)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(_, t)| t)
    }

    /// `list := item (',' item)*`; an empty list is allowed at the top level and inside parentheses.
    fn list(&mut self, top_level: bool) -> Result<Dict, OptionError> {
        let mut dict = Dict::default();
        let at_end = |p: &Self| if top_level { p.peek().is_none() } else { p.peek() == Some(&Token::Close) };
        if at_end(self) {
            return Ok(dict);
        }
        loop {
            self.item(&mut dict)?;
            if self.peek() == Some(&Token::Comma) {
                self.pos += 1;
            } else {
                return Ok(dict);
            }
        }
    }

    fn item(&mut self, dict: &mut Dict) -> Result<(), OptionError> {
        let offset = self.offset();
        let key = match self.peek().cloned() {
            Some(Token::Ident(name) | Token::Quoted(name)) => {
                self.pos += 1;
                name
            }
            Some(Token::Open) => {
                let name = (0..).map(|i| format!("[{i}]")).find(|n| !dict.subdicts.iter().any(|(k, _)| k == n));
                let name = name.unwrap_or_default();
                let sub = self.parenthesised()?;
                dict.subdicts.push((name, sub));
                return Ok(());
            }
            _ => return Err(self.error_at(offset, "expected a key or '('")),
        };
        match self.peek() {
            Some(Token::Equals) => {
                self.pos += 1;
                let value = self.value()?;
                if dict.value(&key).is_some() {
                    return Err(self.error_at(offset, &format!("key '{key}' given twice")));
                }
                dict.values.push((key, value));
            }
            next => {
                let sub = if next == Some(&Token::Open) { self.parenthesised()? } else { Dict::default() };
                if dict.subdicts.iter().any(|(k, _)| *k == key) {
                    return Err(self.error_at(offset, &format!("subdictionary already exists: {key}")));
                }
                dict.subdicts.push((key, sub));
            }
        }
        Ok(())
    }

    fn parenthesised(&mut self) -> Result<Dict, OptionError> {
        self.pos += 1;
        let dict = self.list(false)?;
        if self.peek() != Some(&Token::Close) {
            return Err(self.error_at(self.offset(), "expected ',' or ')'"));
        }
        self.pos += 1;
        Ok(dict)
    }

    fn value(&mut self) -> Result<Value, OptionError> {
        let offset = self.offset();
        let value = match self.peek().cloned() {
            Some(Token::Number(text)) if text.contains(['x', 'X']) => {
                // lc0 reads the longest decimal prefix (0x10 as 0, 0x1e as the hex float 30): refused, not guessed.
                return Err(self.error_at(offset, &format!("'{text}' is not a decimal number; write it in decimal")));
            }
            Some(Token::Number(text)) => parse_number(&text).ok_or_else(|| {
                self.error_at(
                    offset,
                    &format!("'{text}' is not a number; quote text that starts with a digit, '-' or '.', e.g. model='../ctm.safetensors'"),
                )
            })?,
            Some(Token::Quoted(text)) => Value::Str(text),
            Some(Token::Ident(text)) => match text.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::Str(text),
            },
            _ => return Err(self.error_at(offset, "expected a value")),
        };
        self.pos += 1;
        Ok(value)
    }
}

/// A decimal number: a float if it holds `.`, `e` or `E` (as lc0's lexer decides), else an integer.
fn parse_number(text: &str) -> Option<Value> {
    if text.contains(['.', 'e', 'E']) {
        return text.parse::<f64>().ok().filter(|x| x.is_finite()).map(Value::Float);
    }
    text.parse::<i64>().ok().map(Value::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lc0_example() {
        let d = parse_dict("smooth(init-tree-reuse=0.6,max-move-budget=0.5,mle-legacy(midpoint=50.0,steepness=6.5))")
            .unwrap();
        let (name, smooth) = &d.subdicts[0];
        assert_eq!(name, "smooth");
        assert_eq!(smooth.value("init-tree-reuse"), Some(&Value::Float(0.6)));
        assert_eq!(smooth.subdicts[0].0, "mle-legacy");
        assert_eq!(smooth.subdicts[0].1.value("steepness"), Some(&Value::Float(6.5)));
    }

    #[test]
    fn a_bare_relative_path_is_refused_with_the_quoting_that_fixes_it() {
        let error = parse_dict("ctm(model=../ctm.safetensors)").unwrap_err().to_string();
        assert!(error.contains("'..' is not a number") && error.contains("model='../ctm.safetensors'"), "{error}");
        let d = parse_dict("ctm(model='../ctm.safetensors')").unwrap();
        assert_eq!(d.subdicts[0].1.value("model"), Some(&Value::Str("../ctm.safetensors".to_owned())));
    }

    #[test]
    fn types_follow_the_lexer() {
        let d = parse_dict("a=1, b=1.0, c=1e3, d=true, e=false, f=word, g='quoted text', h=\"x,y\", i=-7").unwrap();
        assert_eq!(d.value("a"), Some(&Value::Int(1)));
        assert_eq!(d.value("b"), Some(&Value::Float(1.0)));
        assert_eq!(d.value("c"), Some(&Value::Float(1000.0)));
        assert_eq!(d.value("d"), Some(&Value::Bool(true)));
        assert_eq!(d.value("e"), Some(&Value::Bool(false)));
        assert_eq!(d.value("f"), Some(&Value::Str("word".into())));
        assert_eq!(d.value("g"), Some(&Value::Str("quoted text".into())));
        assert_eq!(d.value("h"), Some(&Value::Str("x,y".into())));
        assert_eq!(d.value("i"), Some(&Value::Int(-7)));
    }

    #[test]
    fn a_hex_number_is_refused_rather_than_read_as_lc0_reads_it() {
        // lc0's stoi/stof read 0x10 as 0 and 0x1e as 30 (docs/lc0/smooth.md §1.12.2).
        for text in ["a=0x10", "a=0X1e", "a=-0x2"] {
            let error = parse_dict(text).unwrap_err().to_string();
            assert!(error.contains("is not a decimal number"), "{text}: {error}");
        }
    }

    #[test]
    fn anonymous_and_empty_subdicts() {
        let d = parse_dict("(a=1),(b=2),legacy,smooth()").unwrap();
        let names: Vec<&str> = d.subdicts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["[0]", "[1]", "legacy", "smooth"]);
        assert!(d.subdicts[2].1.values.is_empty());
    }

    #[test]
    fn errors_name_the_offset() {
        let err = parse_dict("smooth(a=1").unwrap_err();
        assert!(matches!(err, OptionError::Parse { offset: 10, .. }), "{err}");
        assert!(matches!(parse_dict("a=").unwrap_err(), OptionError::Parse { offset: 2, .. }));
        assert!(matches!(parse_dict("a=1 b=2").unwrap_err(), OptionError::Parse { offset: 4, .. }));
        assert!(matches!(parse_dict("x(),x()").unwrap_err(), OptionError::Parse { offset: 4, .. }));
        assert!(matches!(parse_dict("a='open").unwrap_err(), OptionError::Parse { offset: 2, .. }));
        assert!(matches!(parse_dict("a=1.2.3").unwrap_err(), OptionError::Parse { .. }));
        assert!(matches!(parse_dict("#").unwrap_err(), OptionError::Parse { offset: 0, .. }));
    }
}
