//! Embeds the bundled library (data/cases/*.toml, data/taxonomy.toml) and the bundled themes
//! (themes/*.toml) into the binary, and fingerprints the library so `--version` can name it.

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
    fs::write(out.join("bundled.rs"), code).expect("OUT_DIR is writable");
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
