//! Golden files for the audit's output (tests/golden/<dir>): compare, or rewrite under
//! `INCIDEX_BLESS=1`; and the output made stable first, with what changes with the library (the
//! tool's version, the cases' titles) taken out. Shared by the node audit's and the preflight's
//! CLI tests.

use std::path::Path;

/// Compare `actual` with the golden file `name` under `dir`, or rewrite it under
/// `INCIDEX_BLESS=1`.
pub fn golden(dir: &str, name: &str, actual: &str) {
    let path = Path::new(dir).join(name);
    if std::env::var_os("INCIDEX_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(want == actual, "{name} differs from its golden file; INCIDEX_BLESS=1 rewrites it.\n{actual}");
}

/// The JSON with the tool's version and the cases' titles taken out (both change with the
/// library; that titles are there is tested on its own).
pub fn stable_json(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    v["tool"] = "incidex VERSION".into();
    for f in v["findings"].as_array_mut().unwrap() {
        for c in f["cases"].as_array_mut().unwrap() {
            c["title"] = "TITLE".into();
        }
    }
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

/// The text with the cases' titles taken out (`cases: ID — TITLE (+N more ...)`).
pub fn stable_text(text: &str) -> String {
    text.lines()
        .map(|l| match (l.trim_start().starts_with("cases: "), l.find(" — ")) {
            (true, Some(at)) => {
                let rest = &l[at..];
                let more = rest.rfind(" (+").map_or("", |m| &rest[m..]);
                format!("{} — TITLE{more}", &l[..at])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
