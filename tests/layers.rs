//! The house keeps its layers: no module imports one of a higher layer, the two fronts (the
//! commands and the terminal UI) never import each other, and no two files import each other,
//! directly or round a longer circle. `ARCHITECTURE.md` gives the layers; this test holds the
//! code to them.
//!
//! It reads every `src/**/*.rs` file as text: each `crate::…` path (a `use` tree or a path in
//! code) and each `super::…` path names a module, which is mapped to the file that defines it.
//! Comments are skipped. A file's `#[cfg(test)] mod tests` is held to the layers too (a model's
//! unit test may not borrow an engine's helpers), but its imports make no circle: a test module
//! is a leaf. The checker is itself tested on planted violations.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// The layers, lowest first, by the top-level module a file belongs to. A file may use its own
/// top-level module and any of a lower rank; modules of one rank are siblings and do not use
/// each other (except as [`SIBLINGS_ALLOWED`] says).
const LAYERS: &[(&str, u8)] = &[
    ("text", 0),
    ("support", 1),
    ("taxonomy", 2),
    ("corpus", 3),
    ("search", 4),
    ("graph", 4),
    ("logs", 4),
    ("checklist", 4),
    ("doctor", 4),
    ("settings", 4),
    ("store", 5),
    ("cli", 6),
    ("commands", 7),
    ("tui", 7),
    ("lib", 8),
    ("main", 8),
];

/// Sibling imports that are part of the design: (from, to, why).
const SIBLINGS_ALLOWED: &[(&str, &str, &str)] = &[];

/// A file of the crate: its path and its module path (`corpus::filter`; `lib` for `src/lib.rs`).
#[derive(Debug, Clone)]
struct SourceFile {
    path: String,
    module: Vec<String>,
    text: String,
}

fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs").to_string();
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return vec![stem];
    }
    if stem != "mod" {
        parts.push(stem);
    }
    parts
}

fn read_tree(root: &Path) -> Vec<SourceFile> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> =
            fs::read_dir(dir).unwrap().filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(root, &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            SourceFile {
                path: format!("src/{}", rel.display()),
                module: module_of(&rel),
                text: fs::read_to_string(&p).unwrap(),
            }
        })
        .collect()
}

/// A file's code and its unit-test module's, apart.
fn split_tests(text: &str) -> (&str, &str) {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => text.split_at(at),
        None => (text, ""),
    }
}

/// Code without comments.
fn code_of(body: &str) -> String {
    let mut code = String::with_capacity(body.len());
    for line in body.lines() {
        // A `//` not inside a URL (`https://`) starts a comment; doc comments are comments.
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for i in 0..bytes.len().saturating_sub(1) {
            if bytes[i] == b'/' && bytes[i + 1] == b'/' && (i == 0 || bytes[i - 1] != b':') {
                cut = i;
                break;
            }
        }
        code.push_str(&line[..cut]);
        code.push('\n');
    }
    code
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every module path a `use` tree or path starting at `s` names, each as its segments
/// (`a::{b, c::d}` names `a::b` and `a::c::d`; `a::{self}` names `a`).
fn expand(s: &str) -> Vec<Vec<String>> {
    fn tree(s: &[char], i: &mut usize, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        let skip_ws = |i: &mut usize| {
            while *i < s.len() && s[*i].is_whitespace() {
                *i += 1;
            }
        };
        let depth = prefix.len();
        loop {
            skip_ws(i);
            if *i < s.len() && s[*i] == '{' {
                *i += 1;
                loop {
                    skip_ws(i);
                    if *i >= s.len() {
                        break;
                    }
                    if s[*i] == '}' {
                        *i += 1;
                        break;
                    }
                    let mut inner = prefix.clone();
                    tree(s, i, &mut inner, out);
                    skip_ws(i);
                    if *i < s.len() && s[*i] == ',' {
                        *i += 1;
                    }
                }
                break;
            }
            let start = *i;
            while *i < s.len() && is_ident(s[*i]) {
                *i += 1;
            }
            if start == *i {
                // `*` or the end of the path.
                if *i < s.len() && s[*i] == '*' {
                    *i += 1;
                }
                out.push(prefix.clone());
                break;
            }
            let word: String = s[start..*i].iter().collect();
            if word != "self" {
                prefix.push(word);
            }
            if *i + 1 < s.len() && s[*i] == ':' && s[*i + 1] == ':' {
                *i += 2;
                continue;
            }
            out.push(prefix.clone());
            // `a::b as c`: the alias names nothing more.
            skip_ws(i);
            if s[*i..].starts_with(&['a', 's']) && s.get(*i + 2).is_some_and(|c| c.is_whitespace()) {
                *i += 2;
                skip_ws(i);
                while *i < s.len() && is_ident(s[*i]) {
                    *i += 1;
                }
            }
            break;
        }
        prefix.truncate(depth);
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    tree(&chars, &mut 0, &mut Vec::new(), &mut out);
    out
}

/// The module paths a file names: `crate::…` absolutely, `super::…` from its own module; each
/// with whether its unit tests name it.
fn named_paths(file: &SourceFile) -> Vec<(Vec<String>, bool)> {
    let (body, tests) = split_tests(&file.text);
    let mut out: Vec<(Vec<String>, bool)> =
        paths_in(&code_of(body), parent_of(file)).into_iter().map(|p| (p, false)).collect();
    // In the test module, `super` is the file's own module.
    out.extend(paths_in(&code_of(tests), file.module.clone()).into_iter().map(|p| (p, true)));
    out
}

/// The module paths `code` names, `super::` taken from `parent`.
fn paths_in(code: &str, parent: Vec<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (anchor, base) in [("crate::", Vec::new()), ("super::", parent)] {
        let mut from = 0;
        while let Some(at) = code[from..].find(anchor) {
            let start = from + at;
            from = start + anchor.len();
            if code[..start].chars().next_back().is_some_and(|c| is_ident(c) || c == ':') {
                continue; // `foo::crate::` or `self::super::`: not an anchor of its own
            }
            let mut rest = &code[from..];
            let mut base = base.clone();
            // `super::super::x`
            while anchor == "super::" && rest.starts_with("super::") {
                base.pop();
                rest = &rest["super::".len()..];
            }
            for tail in expand(rest) {
                let mut path = base.clone();
                path.extend(tail);
                out.push(path);
            }
        }
    }
    out
}

/// The module that `super` names in `file`.
fn parent_of(file: &SourceFile) -> Vec<String> {
    let mut m = file.module.clone();
    if m == ["lib"] || m == ["main"] {
        return Vec::new();
    }
    m.pop();
    m
}

fn top_of(module: &[String]) -> &str {
    module.first().map_or("lib", String::as_str)
}

fn rank(top: &str) -> Option<u8> {
    LAYERS.iter().find(|(name, _)| *name == top).map(|(_, r)| *r)
}

/// What is wrong with the tree: imports up a layer or across siblings, and circles of files.
fn violations(files: &[SourceFile]) -> Vec<String> {
    let by_module: BTreeMap<Vec<String>, usize> =
        files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
    let mut problems = Vec::new();
    let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, file) in files.iter().enumerate() {
        let from_top = top_of(&file.module).to_string();
        for (path, in_tests) in named_paths(file) {
            // The file that defines the longest prefix of the path.
            let Some(target) = (1..=path.len()).rev().find_map(|n| by_module.get(&path[..n]).copied()) else {
                continue; // a re-export at the crate root (`crate::Error`) or a macro
            };
            if target != i && !in_tests {
                edges.entry(i).or_default().insert(target);
            }
            let to_top = top_of(&files[target].module);
            if to_top == from_top || to_top == "lib" {
                continue;
            }
            let (Some(from_rank), Some(to_rank)) = (rank(&from_top), rank(to_top)) else {
                problems.push(format!("{}: `{}` is in no layer", file.path, path.join("::")));
                continue;
            };
            let allowed = SIBLINGS_ALLOWED.iter().any(|(a, b, _)| *a == from_top && *b == to_top);
            if to_rank > from_rank {
                problems.push(format!(
                    "{}: imports up a layer: `{}` ({to_top} is above {from_top})",
                    file.path,
                    path.join("::")
                ));
            } else if to_rank == from_rank && !allowed {
                problems.push(format!(
                    "{}: imports a sibling: `{}` ({from_top} and {to_top} are of one layer)",
                    file.path,
                    path.join("::")
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    for circle in circles(files.len(), &edges) {
        let names: Vec<&str> = circle.iter().map(|&i| files[i].path.as_str()).collect();
        problems.push(format!("a circle of files: {}", names.join(" -> ")));
    }
    problems
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles(n: usize, edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeSet<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s.edges.get(&v).map(|t| t.iter().copied().collect()).unwrap_or_default();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort_unstable();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}

#[test]
fn no_import_runs_up_a_layer_and_no_files_import_each_other() {
    let files = read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(files.len() > 50, "read {} files", files.len());
    for file in &files {
        let top = top_of(&file.module);
        assert!(rank(top).is_some(), "{}: its folder `{top}` is in no layer of LAYERS", file.path);
    }
    let problems = violations(&files);
    assert!(problems.is_empty(), "the layers are broken:\n{}", problems.join("\n"));
}

fn planted(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(path, text)| SourceFile {
            path: path.to_string(),
            module: module_of(Path::new(path.trim_start_matches("src/"))),
            text: text.to_string(),
        })
        .collect()
}

#[test]
fn a_planted_import_up_a_layer_is_caught() {
    let files = planted(&[
        ("src/corpus/model.rs", "use crate::{text::clean, tui::app::App};\n"),
        ("src/tui/app.rs", "pub struct App;\n"),
        ("src/text/mod.rs", "pub fn clean() {}\n"),
    ]);
    let problems = violations(&files);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("src/corpus/model.rs: imports up a layer: `tui::app::App`"), "{problems:?}");
}

#[test]
fn a_planted_import_between_the_fronts_is_caught_even_in_a_path_in_code() {
    let files = planted(&[
        ("src/tui/mod.rs", "fn f() { crate::commands::run(); }\n"),
        ("src/commands/mod.rs", "pub fn run() {}\n"),
    ]);
    let problems = violations(&files);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("imports a sibling: `commands::run`"), "{problems:?}");
}

#[test]
fn a_planted_circle_of_files_is_caught_and_comments_and_tests_are_not_imports() {
    let files = planted(&[
        ("src/tui/a.rs", "use super::b::B;\npub struct A;\n"),
        ("src/tui/b.rs", "use crate::tui::{a::A, c};\npub struct B;\n"),
        ("src/tui/c.rs", "// see crate::tui::a\n#[cfg(test)]\nmod tests {\n    use crate::tui::a::A;\n}\n"),
        ("src/tui/mod.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
    ]);
    let problems = violations(&files);
    assert_eq!(problems, vec!["a circle of files: src/tui/a.rs -> src/tui/b.rs".to_string()]);
}

#[test]
fn use_trees_expand_to_every_path_they_name() {
    let got = expand("{a::{self, B}, c::d::*, e as f};");
    let want: Vec<Vec<String>> = [&["a"][..], &["a", "B"], &["c", "d"], &["e"]]
        .iter()
        .map(|p| p.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_unit_test_that_borrows_a_higher_layers_helper_is_caught_but_makes_no_circle() {
    let files = planted(&[
        (
            "src/corpus/cases.rs",
            "pub struct Cases;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { crate::graph::tests::case(); }\n}\n",
        ),
        ("src/graph/mod.rs", "use crate::corpus::cases::Cases;\n"),
    ]);
    let problems = violations(&files);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("src/corpus/cases.rs: imports up a layer: `graph::tests::case`"),
        "{problems:?}"
    );
}
