//! `key=value` word lists for `--sprt`, `--draw` and `--resign`.

use std::collections::HashMap;
use std::str::FromStr;

use anyhow::{anyhow, bail, Context};

/// Parses `key=value` words, accepting only `allowed` keys.
pub fn key_values(flag: &str, words: &[String], allowed: &[&str]) -> anyhow::Result<HashMap<String, String>> {
    let mut map = HashMap::new();
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| anyhow!("{flag}: '{word}' is not key=value (keys: {})", allowed.join(", ")))?;
        if !allowed.contains(&key) {
            bail!("{flag}: unknown key '{key}' (keys: {})", allowed.join(", "));
        }
        map.insert(key.to_owned(), value.to_owned());
    }
    Ok(map)
}

/// Reads `key` as a number, or `default` when absent.
pub fn number<T: FromStr>(flag: &str, map: &HashMap<String, String>, key: &str, default: Option<T>) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match map.get(key) {
        Some(text) => text.parse().with_context(|| format!("{flag}: {key}={text} is not a valid number")),
        None => default.ok_or_else(|| anyhow!("{flag}: {key}= is required")),
    }
}
