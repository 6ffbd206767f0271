//! Embeds the bundled library (data/cases/*.toml, data/taxonomy.toml) and the bundled themes
//! (themes/*.toml) into the binary, fingerprints the library so `--version` can name it, and
//! bakes the library: parses every case file and builds the search index, the catalog, the
//! cases' heads and bodies and the learned facet model, which `src/store/embedded` opens from memory at start-up.
//!
//! The baking is done by the library's own code (`src/store/embedded/bake.rs` and the parsing and
//! indexing modules it calls), compiled into this script through `#[path]` modules below, so
//! there is one parser and one index writer. A case file with an error fails the build, naming
//! `path:line:column`.

// The modules below are the library's; the script uses a part of each.
#![allow(dead_code)]

#[path = "src/corpus"]
#[allow(unused_imports)]
mod corpus {
    pub mod basis;
    pub mod body;
    /// The build script's stand-in for the files the program has compiled in: the taxonomy
    /// only (the case texts are read by the script itself).
    pub mod bundled {
        pub static CASES: &[(&str, &str)] = &[];
        pub static TAXONOMY: &str = include_str!("data/taxonomy.toml");
        pub const TAXONOMY_PATH: &str = "data/taxonomy.toml";
        pub static FINGERPRINT: &str = "";
        pub static FACET_MODEL: &[u8] = &[];
    }
    pub mod cases;
    pub mod content;
    pub mod date;
    pub mod filter;
    pub mod headings;
    pub mod infer;
    pub mod learned;
    pub mod listing;
    pub mod load;
    pub mod markdown;
    pub mod mention;
    pub mod model;
    pub mod parse;
    pub mod parts;
    pub mod team;
    pub use load::Library;
    pub use model::{Case, CaseBody};
}
#[path = "src/search"]
mod search {
    pub mod analysis;
    pub mod caseset;
    pub mod catalog;
    pub mod index;
    pub mod typo;
}
#[path = "src/store"]
#[allow(unused_imports)]
mod store {
    pub mod cache {
        pub mod codec;
    }
    pub mod embedded {
        pub mod bake;
    }
}
#[path = "src/support"]
mod support {
    pub mod diag;
    pub mod error;
    pub mod progress;
    pub mod toml_fields;
}
#[path = "src/taxonomy/mod.rs"]
mod taxonomy;
#[path = "src/text"]
mod text {
    pub mod hygiene;
    pub mod resolve;
    pub mod words;
    pub use hygiene::*;
}

use std::{
    env, fs,
    path::{Path, PathBuf},
};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=data");
    println!("cargo:rerun-if-changed=data/cases");
    println!("cargo:rerun-if-changed=themes");

    let cases = toml_files(&root.join("data/cases"));
    let themes = toml_files(&root.join("themes"));
    let taxonomy = root.join("data/taxonomy.toml");

    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    let mut code = String::from("/// The bundled case files: (path as shown to users, contents).\n");
    code.push_str("pub static CASES: &[(&str, &str)] = &[\n");
    for path in &cases {
        let name = format!("data/cases/{}", path.file_name().and_then(|n| n.to_str()).unwrap_or_default());
        feed(name.as_bytes());
        feed(&fs::read(path).unwrap_or_default());
        code.push_str(&format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    code.push_str("];\n\n/// The bundled taxonomy.\n");
    feed(&fs::read(&taxonomy).unwrap_or_default());
    code.push_str(&format!(
        "pub static TAXONOMY: &str = include_str!({:?});\n\n",
        taxonomy.display().to_string()
    ));
    code.push_str("/// The bundled themes: (name, contents).\npub static THEMES: &[(&str, &str)] = &[\n");
    for path in &themes {
        let name = path.file_stem().and_then(|n| n.to_str()).unwrap_or_default();
        code.push_str(&format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    code.push_str("];\n\n/// A fingerprint of the bundled library's files.\n");
    code.push_str(&format!("pub static FINGERPRINT: &str = \"{:08x}\";\n", hash >> 32));
    bake(&cases, &out);
    let model = out.join("baked").join(store::embedded::bake::FACET_MODEL_FILE);
    code.push_str("\n/// The facet model learned from the bundled library (`corpus::learned`).\n");
    code.push_str(&format!(
        "pub static FACET_MODEL: &[u8] = include_bytes!({:?});\n",
        model.display().to_string()
    ));
    fs::write(out.join("bundled.rs"), code).expect("OUT_DIR is writable");
}

/// Parse the case files and write the baked library into `out/baked/`, and `out/baked.rs`, which
/// includes its files; on an error in a case file, print every one and fail the build.
fn bake(cases: &[PathBuf], out: &Path) {
    let mut texts: Vec<(String, &'static str)> = Vec::with_capacity(cases.len());
    for path in cases {
        let name = format!("data/cases/{}", path.file_name().and_then(|n| n.to_str()).unwrap_or_default());
        match fs::read_to_string(path) {
            // Leaked: the script ends right after, and the parser wants `'static` texts.
            Ok(text) => texts.push((name, Box::leak(text.into_boxed_str()))),
            Err(e) => fail(&format!("{name}:1:1: error: cannot read: {e}")),
        }
    }
    let texts: Vec<(&str, &'static str)> = texts.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let dir = out.join("baked");
    let index_files = match store::embedded::bake::bake(&texts, &dir) {
        Ok(files) => files,
        Err(e) => fail(&e.to_string()),
    };
    let file = |name: &str| dir.join(name).display().to_string();
    let mut code = String::from("/// The cases' heads, their catalog and the diagnostics.\n");
    code.push_str(&format!(
        "pub static LIBRARY: &[u8] = include_bytes!({:?});\n",
        file(store::embedded::bake::LIBRARY_FILE)
    ));
    code.push_str("/// The cases' bodies.\n");
    code.push_str(&format!(
        "pub static BODIES: &[u8] = include_bytes!({:?});\n",
        file(store::embedded::bake::BODIES_FILE)
    ));
    code.push_str("/// The search index's files: (name, contents).\n");
    code.push_str("pub static INDEX_FILES: &[(&str, &[u8])] = &[\n");
    for name in &index_files {
        let path = dir.join(store::embedded::bake::INDEX_DIR).join(name).display().to_string();
        code.push_str(&format!("    ({name:?}, include_bytes!({path:?})),\n"));
    }
    code.push_str("];\n");
    fs::write(out.join("baked.rs"), code).expect("OUT_DIR is writable");
}

/// Stop the build with `message` (one `path:line:column: ...` line per problem).
fn fail(message: &str) -> ! {
    eprintln!("error: the bundled library cannot be built:");
    for line in message.lines() {
        eprintln!("{line}");
    }
    std::process::exit(1);
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    files
}
