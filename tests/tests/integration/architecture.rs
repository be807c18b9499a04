//! The arrows of docs/architecture.md, checked on the sources: each crate depends only on the crates below it,
//! and inside each library crate the modules of every folder import each other one way (no cycle among
//! `crate::…` or `super::…` imports outside the tests).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use kairos_tests::workspace_root;

/// Each crate and the workspace crates it must not depend on (the ones above it, and its sibling).
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("timemgr", &["nn", "engine", "tools", "kairos"]),
    ("nn", &["timemgr", "engine", "tools", "kairos"]),
    ("engine", &["tools", "kairos"]),
    ("tools", &["kairos"]),
];

#[test]
fn every_crate_depends_only_on_the_crates_below_it() {
    for (krate, forbidden) in FORBIDDEN {
        let manifest = fs::read_to_string(workspace_root().join(krate).join("Cargo.toml")).unwrap();
        let dependencies = dependency_names(&manifest, "[dependencies]");
        for name in *forbidden {
            assert!(!dependencies.contains(*name), "{krate} depends on {name}, which is above it or beside it");
        }
    }
}

#[test]
fn the_modules_of_every_folder_import_each_other_one_way() {
    let mut cycles = Vec::new();
    for (krate, _) in FORBIDDEN {
        let src = workspace_root().join(krate).join("src");
        for folder in folders(&src) {
            let graph = import_graph(&src, &folder);
            cycles.extend(find_cycles(&graph).into_iter().map(|cycle| format!("{krate}: {}", cycle.join(" → "))));
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_only_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            graph.entry(from.to_string()).or_default().insert(to.to_string());
            graph.entry(to.to_string()).or_default();
        }
        graph
    };
    assert!(find_cycles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    assert_eq!(find_cycles(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])), vec![vec!["a", "b", "c", "a"]]);
}

/// The names under `section` of a Cargo manifest, up to the next section.
fn dependency_names(manifest: &str, section: &str) -> BTreeSet<String> {
    manifest
        .lines()
        .skip_while(|line| line.trim() != section)
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('['))
        .filter_map(|line| line.split(['=', '.']).next().map(str::trim).filter(|name| !name.is_empty()))
        .filter(|name| !name.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Every folder of a crate's sources, relative to `src` (the crate root is the empty path).
fn folders(src: &Path) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::new()];
    let mut index = 0;
    while index < found.len() {
        let dir = src.join(&found[index]);
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            if entry.path().is_dir() {
                found.push(found[index].join(entry.file_name()));
            }
        }
        index += 1;
    }
    found
}

/// The imports among the modules of `folder`: a module (a file, or a folder with everything in it) imports a
/// sibling it names as `super::name`, `super::{…, name, …}` or `crate::<folder>::name` (at the crate root:
/// `crate::name`).
fn import_graph(src: &Path, folder: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let dir = src.join(folder);
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().trim_end_matches(".rs").to_owned();
        if path.is_dir() {
            modules.insert(name, rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") && !["mod", "lib", "main"].contains(&&*name) {
            modules.insert(name, vec![path]);
        }
    }
    let at_root = folder.as_os_str().is_empty();
    let prefix = if at_root {
        "crate::".to_owned()
    } else {
        format!("crate::{}::", folder.to_string_lossy().replace('/', "::"))
    };
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(name, files)| {
            let mut imports = BTreeSet::new();
            for file in files {
                // Inside a sub-folder, `super::` names that folder's own siblings, not these.
                let own_level = file.parent() == Some(dir.as_path()) || file.ends_with(Path::new(name).join("mod.rs"));
                for target in referenced_names(&non_test_code(file), &prefix, !at_root && own_level) {
                    if target != *name && names.contains(&target) {
                        imports.insert(target);
                    }
                }
            }
            (name.clone(), imports)
        })
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// A source file without its test module and without comment lines; nothing of a test-only module (`#![cfg(test)]`).
fn non_test_code(file: &Path) -> String {
    let text = fs::read_to_string(file).unwrap();
    if text.lines().any(|line| line.trim() == "#![cfg(test)]") {
        return String::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The names that follow `prefix`, and (with `through_super`) those that follow `super::` alone or in a
/// `super::{…}` group.
fn referenced_names(code: &str, prefix: &str, through_super: bool) -> BTreeSet<String> {
    let identifier =
        |text: &str| text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut names: BTreeSet<String> = code.split(prefix).skip(1).map(identifier).collect();
    if through_super {
        for after in code.split("super::").skip(1) {
            match after.strip_prefix('{') {
                Some(group) => {
                    let group = group.split('}').next().unwrap_or("");
                    names.extend(group.split(',').map(|item| identifier(item.trim())));
                }
                None => {
                    names.insert(identifier(after));
                }
            }
        }
    }
    names
}

/// Every cycle of `graph`, each once, starting at its smallest name.
fn find_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn walk(graph: &BTreeMap<String, BTreeSet<String>>, path: &mut Vec<String>, cycles: &mut BTreeSet<Vec<String>>) {
        let last = path.last().unwrap().clone();
        for next in &graph[&last] {
            if let Some(start) = path.iter().position(|name| name == next) {
                let mut cycle = path[start..].to_vec();
                let smallest = (0..cycle.len()).min_by_key(|&i| &cycle[i]).unwrap();
                cycle.rotate_left(smallest);
                cycle.push(cycle[0].clone());
                cycles.insert(cycle);
            } else {
                path.push(next.clone());
                walk(graph, path, cycles);
                path.pop();
            }
        }
    }
    let mut cycles = BTreeSet::new();
    for start in graph.keys() {
        walk(graph, &mut vec![start.clone()], &mut cycles);
    }
    cycles.into_iter().collect()
}
