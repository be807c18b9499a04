//! lc0's configuration file, as `kairos.config`: flags one a line, read before the command line, so that a GUI
//! that cannot pass flags still starts the engine with the user's network, backend and time manager
//! (docs/lc0/search.md §4.12; lc0's `ConfigFile`).

use std::path::{Path, PathBuf};

/// The file looked for when `--config` is not given (lc0's is `lc0.config`).
pub const DEFAULT_NAME: &str = "kairos.config";

/// The flag that names the file (`--config=PATH`; `--config=` reads none).
pub const FLAG: &str = "config";

/// Why the configuration file could not be used; names the file and the way out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigFileError {
    /// The file named by `--config` could not be read.
    #[error(
        "cannot read the configuration file '{path}': {reason}; name an existing file with --config=PATH, or \
             pass --config= to read none"
    )]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// A line is not a long flag.
    #[error(
        "{path} line {line}: '{text}' is not a flag; write one --flag=value (or flag=value) a line, # for \
             comments"
    )]
    NotAFlag {
        /// The file.
        path: PathBuf,
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// `--config` was last on the command line, without its path.
    #[error("flag '--config' needs a value: write --config=PATH, or --config= to read no configuration file")]
    MissingPath,
}

/// The flags of a configuration file, and the command line without `--config`.
#[derive(Debug, Default, PartialEq)]
pub struct ConfigFlags {
    /// The file that was read, if any.
    pub path: Option<PathBuf>,
    /// Its flags, each as `--flag=value` or `--flag`, in order.
    pub flags: Vec<String>,
    /// The command line's other arguments.
    pub rest: Vec<String>,
}

/// Takes `--config=PATH` (or `--config PATH`) out of `args` and reads that file; without it, the first
/// `kairos.config` of `default_dirs`, if any (lc0 looks beside the binary, then in the user's and the system's
/// configuration directories, [`default_dirs`]). A missing default file is no error; a missing named one is.
pub fn read(args: &[String], default_dirs: &[PathBuf]) -> Result<ConfigFlags, ConfigFileError> {
    let mut named: Option<String> = None;
    let mut rest = Vec::new();
    let mut arguments = args.iter();
    while let Some(argument) = arguments.next() {
        match argument.strip_prefix("--").and_then(|body| body.strip_prefix(FLAG)) {
            Some(value) if value.starts_with('=') => named = Some(value[1..].to_string()),
            Some("") => named = Some(arguments.next().ok_or(ConfigFileError::MissingPath)?.clone()),
            _ => rest.push(argument.clone()),
        }
    }
    let path = match named {
        Some(path) if path.is_empty() => None,
        Some(path) => Some(PathBuf::from(path)),
        None => default_dirs.iter().map(|dir| dir.join(DEFAULT_NAME)).find(|path| path.is_file()),
    };
    let Some(path) = path else {
        return Ok(ConfigFlags { path: None, flags: Vec::new(), rest });
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|error| ConfigFileError::Unreadable { path: path.clone(), reason: error.to_string() })?;
    let flags = flags_of(&path, &text)?;
    Ok(ConfigFlags { path: Some(path), flags, rest })
}

/// The flags of a file's text, as lc0 reads them: each line trimmed, blank lines and `#` comments skipped, `--`
/// added where a line leaves it out, and a line that starts with a single `-` refused.
fn flags_of(path: &Path, text: &str) -> Result<Vec<String>, ConfigFileError> {
    let mut flags = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("--") {
            flags.push(line.to_string());
        } else if line.starts_with('-') {
            return Err(ConfigFileError::NotAFlag {
                path: path.to_path_buf(),
                line: index + 1,
                text: line.to_string(),
            });
        } else {
            flags.push(format!("--{line}"));
        }
    }
    Ok(flags)
}

/// Where a `kairos.config` is looked for without `--config`, in lc0's order: the binary's directory, the user's
/// configuration directory (`$XDG_CONFIG_HOME` where it is a directory, else `~/.config`) and the system's
/// (`$XDG_CONFIG_DIRS`, else `/etc/xdg`), the last two in a `kairos` folder.
pub fn default_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(binary_dir) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf)) {
        dirs.push(binary_dir);
    }
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let user = non_empty("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .or_else(|| non_empty("HOME").map(|home| PathBuf::from(home).join(".config")));
    dirs.extend(user.map(|dir| dir.join("kairos")));
    let system = non_empty("XDG_CONFIG_DIRS").unwrap_or_else(|| "/etc/xdg".into());
    dirs.extend(std::env::split_paths(&system).filter(|dir| dir.is_absolute()).map(|dir| dir.join("kairos")));
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| arg.to_string()).collect()
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kairos-config-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_file_reads_as_lc0_reads_one_flags_comments_and_blank_lines() {
        let dir = temp_dir("read");
        let path = dir.join("mine.config");
        std::fs::write(&path, "# my engine\n  --weights=/nets/t1.pb.gz  \n\nthreads=2\n--ponder\n").unwrap();
        let named = format!("--config={}", path.display());
        let read = read(&args(&["--multipv=3", &named, "--show-wdl"]), &[]).unwrap();
        assert_eq!(read.path, Some(path.clone()));
        assert_eq!(read.flags, ["--weights=/nets/t1.pb.gz", "--threads=2", "--ponder"]);
        assert_eq!(read.rest, ["--multipv=3", "--show-wdl"]);
        let spaced = super::read(&args(&["--config", path.to_str().unwrap()]), &[]).unwrap();
        assert_eq!((spaced.flags.len(), spaced.rest.len()), (3, 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_is_the_first_kairos_config_found_and_config_empty_reads_none() {
        let (first, second, empty) = (temp_dir("first"), temp_dir("second"), temp_dir("empty"));
        std::fs::write(first.join(DEFAULT_NAME), "--multipv=2\n").unwrap();
        std::fs::write(second.join(DEFAULT_NAME), "--multipv=5\n").unwrap();
        let dirs = [empty.clone(), first.clone(), second.clone()];
        let found = read(&args(&["--threads=1"]), &dirs).unwrap();
        assert_eq!(found.path, Some(first.join(DEFAULT_NAME)));
        assert_eq!(found.flags, ["--multipv=2"]);
        let none = read(&args(&["--config=", "--threads=1"]), &dirs).unwrap();
        assert_eq!(none, ConfigFlags { path: None, flags: vec![], rest: args(&["--threads=1"]) });
        assert_eq!(read(&args(&[]), std::slice::from_ref(&empty)).unwrap(), ConfigFlags::default());
        for dir in [first, second, empty] {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }

    #[test]
    fn a_missing_named_file_and_a_short_flag_are_named_with_the_way_out() {
        let error = read(&args(&["--config=/nonexistent/kairos.config"]), &[]).unwrap_err();
        assert!(error.to_string().starts_with("cannot read the configuration file '/nonexistent/kairos.config': "));
        assert!(error.to_string().ends_with("or pass --config= to read none"), "{error}");
        assert_eq!(read(&args(&["--config"]), &[]), Err(ConfigFileError::MissingPath));
        let dir = temp_dir("short");
        std::fs::write(dir.join(DEFAULT_NAME), "--threads=1\n-t 2\n").unwrap();
        let error = read(&args(&[]), std::slice::from_ref(&dir)).unwrap_err();
        assert!(matches!(&error, ConfigFileError::NotAFlag { line: 2, text, .. } if text == "-t 2"), "{error:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_directories_follow_lc0s_order_beside_the_binary_first() {
        let dirs = default_dirs();
        let binary_dir = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
        assert_eq!(dirs.first(), Some(&binary_dir));
        assert!(dirs[1..].iter().all(|dir| dir.ends_with("kairos")), "{dirs:?}");
    }
}
