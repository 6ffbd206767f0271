//! The release tarballs that `scripts/dist` writes to `dist/`, checked as a user gets them: each
//! tarball against its `.sha256`, then unpacked into a temporary directory, where the binary's
//! ELF header must ask for glibc 2.17 at most and for no library beyond glibc's own, the binary
//! must print the same `--version` as this build and find the same cases in the bundled library
//! (an aarch64 binary under qemu-user), every man page must render with `man -l`, and each
//! completion file must load in its shell and complete.
//!
//! `cargo test` on a machine where `scripts/dist` was never run (or was run for another version
//! or library) prints why and checks nothing here. `.ci/run` builds the dist first and sets
//! `INCIDEX_REQUIRE_DIST=1`: then a missing tarball, `man`, zsh, fish or qemu-user is a failure,
//! not a skip.

use std::{
    collections::BTreeSet,
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output},
};

use clap::CommandFactory;
use incidex::cli::Cli;
use object::{
    Endianness,
    elf::{self, FileHeader64},
    read::elf::{Dyn, FileHeader},
};

/// The oldest glibc the release must start on (CentOS 7's).
const GLIBC_FLOOR: [u32; 2] = [2, 17];

/// The shared libraries a release binary may load: glibc's own (present on every Linux with
/// glibc) and the GCC runtime that every such system ships. Anything else (OpenSSL, say) would
/// make the binary fail on some login nodes.
const ALLOWED_LIBRARIES: &[&str] = &[
    "libc.so.6",
    "libm.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "libutil.so.1",
    "libgcc_s.so.1",
    "ld-linux-x86-64.so.2",
    "ld-linux-aarch64.so.1",
];

/// One unpacked release tarball.
struct Dist {
    /// `x86_64` or `aarch64`, from the tarball's name.
    arch: String,
    /// The unpacked `incidex-VERSION-ARCH-linux/` directory.
    root: PathBuf,
    /// Every path in the tarball, relative to `root` (directories end with `/`).
    entries: BTreeSet<String>,
    /// Keeps the unpacked files until the test ends.
    _tmp: tempfile::TempDir,
}

/// True when `.ci/run` asks for the dist to be checked, so that nothing may be skipped.
fn required() -> bool {
    std::env::var("INCIDEX_REQUIRE_DIST").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Say why a check is skipped, where `cargo test` shows it (libtest captures `eprintln!` of a
/// passing test, but not a write to stderr itself); fail instead when the dist is required.
fn skip(why: &str) {
    assert!(!required(), "INCIDEX_REQUIRE_DIST is set, but {why}");
    let _ = writeln!(std::io::stderr(), "tests/dist.rs: skipped: {why}");
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?} could not start: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// The incidex binary of this build, which the release must match.
fn this_build() -> Command {
    isolated(Command::new(env!("CARGO_BIN_EXE_incidex")))
}

/// A run that sees the bundled library only, whatever the user running the tests has set up.
fn isolated(mut cmd: Command) -> Command {
    let home = env!("CARGO_TARGET_TMPDIR");
    cmd.env_remove("INCIDEX_DATA")
        .env("INCIDEX_CACHE", "off")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("XDG_STATE_HOME", home)
        .env("XDG_CACHE_HOME", home);
    cmd
}

/// Every tarball of this version in `dist/`, verified against its checksum and unpacked; none
/// (after saying why) when there is nothing to check.
fn dists() -> Vec<Dist> {
    let version = env!("CARGO_PKG_VERSION");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("dist");
    let prefix = format!("incidex-{version}-");
    let suffix = "-linux.tar.gz";
    let mut tarballs: Vec<(String, PathBuf)> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    let arch = name.strip_prefix(&prefix)?.strip_suffix(suffix)?.to_owned();
                    Some((arch, e.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    tarballs.sort();
    let host = std::env::consts::ARCH;
    if !tarballs.iter().any(|(arch, _)| arch == host) {
        skip(&format!("no dist/{prefix}{host}{suffix}: `scripts/dist` builds it"));
        return Vec::new();
    }

    let mut dists = Vec::new();
    for (arch, tarball) in tarballs {
        let name = tarball.file_name().and_then(|n| n.to_str()).expect("a UTF-8 name").to_owned();
        let sums =
            run(Command::new("sha256sum").arg("--check").arg(format!("{name}.sha256")).current_dir(&dir));
        assert!(
            sums.status.success(),
            "{name} does not match {name}.sha256: {}{}",
            text(&sums.stdout),
            text(&sums.stderr)
        );

        let tmp = tempfile::tempdir().expect("a temporary directory");
        let untar = run(Command::new("tar").arg("-xzf").arg(&tarball).arg("-C").arg(tmp.path()));
        assert!(untar.status.success(), "tar -xzf {name}: {}", text(&untar.stderr));
        let list = run(Command::new("tar").arg("-tzf").arg(&tarball));
        let top = format!("{}/", name.trim_end_matches(".tar.gz"));
        let entries = text(&list.stdout)
            .lines()
            .map(|l| {
                l.strip_prefix(&top).unwrap_or_else(|| panic!("{name}: {l} is outside {top}")).to_owned()
            })
            .filter(|l| !l.is_empty())
            .collect();
        let root = tmp.path().join(&top);

        // A tarball left from another build is no evidence about this one.
        let ours = run(this_build().arg("--version"));
        if arch == host {
            let theirs = run(isolated(Command::new(root.join("incidex"))).arg("--version"));
            if theirs.stdout != ours.stdout {
                skip(&format!(
                    "{name} is from another build ({} here, {} there): run `scripts/dist` again",
                    text(&ours.stdout).trim(),
                    text(&theirs.stdout).trim()
                ));
                return Vec::new();
            }
        }
        dists.push(Dist { arch, root, entries, _tmp: tmp });
    }
    dists
}

/// The visible commands, each of which has a man page `incidex-NAME.1`.
fn commands() -> Vec<String> {
    Cli::command().get_subcommands().filter(|c| !c.is_hide_set()).map(|c| c.get_name().to_owned()).collect()
}

#[test]
fn each_tarball_holds_the_binary_man_pages_completions_readme_and_licences() {
    for dist in dists() {
        let mut want: BTreeSet<String> = [
            "incidex",
            "README.md",
            "LICENSE-MIT",
            "LICENSE-APACHE",
            "man/",
            "man/incidex.1",
            "completions/",
            "completions/incidex.bash",
            "completions/_incidex",
            "completions/incidex.fish",
        ]
        .map(String::from)
        .into();
        want.extend(commands().iter().map(|c| format!("man/incidex-{c}.1")));
        assert_eq!(dist.entries, want, "{}: the tarball's contents", dist.arch);
    }
}

/// `GLIBC_2.2.5` -> `[2, 2, 5]`; `None` for other version names (`GLIBC_PRIVATE`, `GCC_3.0`).
fn glibc_version(name: &str) -> Option<Vec<u32>> {
    name.strip_prefix("GLIBC_")?.split('.').map(|part| part.parse().ok()).collect()
}

#[test]
fn glibc_version_names_parse() {
    for (name, want) in [
        ("GLIBC_2.17", Some(vec![2, 17])),
        ("GLIBC_2.2.5", Some(vec![2, 2, 5])),
        ("GLIBC_2.34", Some(vec![2, 34])),
        ("GLIBC_PRIVATE", None),
        ("GLIBC_", None),
        ("GCC_3.0", None),
    ] {
        assert_eq!(glibc_version(name), want, "{name}");
    }
    // Compared as numbers, not as text: 2.17 is older than 2.3.
    assert!(glibc_version("GLIBC_2.3") < glibc_version("GLIBC_2.17"));
}

/// What an ELF executable needs from the dynamic linker: its machine, its shared libraries
/// (DT_NEEDED) and every symbol version it requires (.gnu.version_r), as `objdump -p` lists them.
struct Needs {
    machine: u16,
    libraries: Vec<String>,
    versions: Vec<String>,
}

fn elf_needs(path: &Path) -> Result<Needs, object::read::Error> {
    let data = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let data = data.as_slice();
    let header = FileHeader64::<Endianness>::parse(data)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, data)?;
    let mut needs = Needs { machine: header.e_machine(endian), libraries: Vec::new(), versions: Vec::new() };
    if let Some((entries, link)) = sections.dynamic(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        for entry in entries.iter().filter(|d| d.tag32(endian) == Some(elf::DT_NEEDED)) {
            needs.libraries.push(text(entry.string(endian, strings)?));
        }
    }
    if let Some((mut verneeds, link)) = sections.gnu_verneed(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        while let Some((_, mut vernauxs)) = verneeds.next()? {
            while let Some(vernaux) = vernauxs.next()? {
                needs.versions.push(text(vernaux.name(endian, strings)?));
            }
        }
    }
    Ok(needs)
}

#[test]
fn the_binary_needs_glibc_2_17_at_most_and_no_other_library() {
    for dist in dists() {
        let binary = dist.root.join("incidex");
        let needs =
            elf_needs(&binary).unwrap_or_else(|e| panic!("{}: not a 64-bit ELF file: {e}", binary.display()));
        let machine = match dist.arch.as_str() {
            "x86_64" => elf::EM_X86_64,
            "aarch64" => elf::EM_AARCH64,
            other => panic!("a tarball for an unknown architecture: {other}"),
        };
        assert_eq!(needs.machine, machine, "{}: the ELF machine", dist.arch);

        let glibc: Vec<(Vec<u32>, &String)> =
            needs.versions.iter().filter_map(|v| glibc_version(v).map(|n| (n, v))).collect();
        let (highest, name) = glibc.iter().max().unwrap_or_else(|| {
            panic!(
                "{}: no GLIBC_ symbol version at all (needs: {:?}): is it dynamically linked?",
                dist.arch, needs.versions
            )
        });
        assert!(
            highest.as_slice() <= GLIBC_FLOOR.as_slice(),
            "{}: needs {name}, newer than glibc {}.{}; all: {:?}",
            dist.arch,
            GLIBC_FLOOR[0],
            GLIBC_FLOOR[1],
            needs.versions
        );
        let _ = writeln!(std::io::stderr(), "tests/dist.rs: {}: highest symbol version {name}", dist.arch);

        assert!(
            needs.libraries.iter().any(|l| l == "libc.so.6"),
            "{}: libraries {:?}",
            dist.arch,
            needs.libraries
        );
        for library in &needs.libraries {
            assert!(
                ALLOWED_LIBRARIES.contains(&library.as_str()),
                "{}: needs {library}, which login nodes may lack",
                dist.arch
            );
        }
    }
}

/// A command that runs the release binary of `dist` here: directly on its own architecture;
/// for another, under qemu-user with Debian's glibc for it (`qemu-user`, `libc6-arm64-cross`),
/// when both are installed.
fn runner(dist: &Dist) -> Option<Command> {
    let binary = dist.root.join("incidex");
    if dist.arch == std::env::consts::ARCH {
        return Some(isolated(Command::new(binary)));
    }
    let qemu = format!("qemu-{}", dist.arch);
    let sysroot = PathBuf::from(format!("/usr/{}-linux-gnu", dist.arch));
    if !on_path(&qemu) || !sysroot.join("lib").is_dir() {
        skip(&format!("{qemu} or {} is missing, so the {} binary is not run", sysroot.display(), dist.arch));
        return None;
    }
    let mut cmd = Command::new(qemu);
    cmd.arg("-L").arg(sysroot).arg(binary);
    Some(isolated(cmd))
}

#[test]
fn the_binary_prints_its_version_and_searches_the_bundled_library() {
    let ours = run(this_build().arg("--version"));
    for dist in dists() {
        let Some(mut release) = runner(&dist) else { continue };
        let version = run(release.arg("--version"));
        assert!(version.status.success(), "{} --version: {}", dist.arch, text(&version.stderr));
        if version.stdout != ours.stdout {
            // Only a tarball of another architecture gets here (dists() left out a stale one of
            // this architecture), for example from an earlier `scripts/dist aarch64`.
            skip(&format!(
                "the {} tarball is from another build ({}): run `scripts/dist` again",
                dist.arch,
                text(&version.stdout).trim()
            ));
            continue;
        }

        // The same search through the release and through this build: the same cases, in order.
        let args = ["search", "job hung at the end of the epoch", "--limit", "5", "--json"];
        let ids = |o: &Output| -> (u64, Vec<String>) {
            assert!(o.status.success(), "{} search: {}", dist.arch, text(&o.stderr));
            let json: serde_json::Value =
                serde_json::from_slice(&o.stdout).expect("search --json prints JSON");
            let results = json["results"].as_array().expect("results");
            (
                json["total"].as_u64().expect("total"),
                results.iter().map(|r| r["id"].as_str().expect("id").to_owned()).collect(),
            )
        };
        let mut search = runner(&dist).expect("it ran --version");
        let (total, found) = ids(&run(search.args(args)));
        assert!(total > 0 && found.len() == 5, "{}: the release found {total} cases: {found:?}", dist.arch);
        assert_eq!(
            (total, found),
            ids(&run(this_build().args(args))),
            "{}: release and this build disagree",
            dist.arch
        );
    }
}

#[test]
fn every_man_page_renders() {
    let dists = dists();
    if dists.is_empty() {
        return;
    }
    if !on_path("man") {
        skip("`man` is not installed (Debian: man-db)");
        return;
    }
    for dist in dists {
        let pages = std::iter::once("incidex".to_owned())
            .chain(commands().into_iter().map(|c| format!("incidex-{c}")));
        for page in pages {
            let file = dist.root.join(format!("man/{page}.1"));
            // --warnings turns on groff's warnings, which go to stderr: a page must have none.
            let o = run(Command::new("man")
                .arg("--warnings")
                .arg("-l")
                .arg(&file)
                .env("MANPAGER", "cat")
                .env("PAGER", "cat")
                .env("MANWIDTH", "80")
                .env("LC_ALL", "C.UTF-8"));
            let (out, err) = (text(&o.stdout), text(&o.stderr));
            assert!(o.status.success() && err.is_empty(), "man -l {}: {err}", file.display());
            for want in ["NAME", "SYNOPSIS", "DESCRIPTION", &page] {
                assert!(out.contains(want), "man -l {}: no {want:?} in\n{out}", file.display());
            }
            if page == "incidex" {
                for c in commands() {
                    assert!(
                        out.contains(&format!("incidex-{c}(1)")),
                        "incidex.1 does not list incidex-{c}(1)"
                    );
                }
                assert!(out.contains("EXIT STATUS") && out.contains("INCIDEX_DATA"), "{out}");
            }
            if page == "incidex-search" {
                assert!(out.contains("--limit"), "incidex-search.1 lacks --limit:\n{out}");
            }
        }
    }
}

/// Run `script` in `shell` (with its arguments) and return its standard output, after checking
/// that it succeeded and printed nothing on stderr.
fn shell(shell: &str, args: &[&str], script: &str) -> String {
    let o = run(Command::new(shell).args(args).arg(script).env("HOME", env!("CARGO_TARGET_TMPDIR")));
    assert!(o.status.success() && o.stderr.is_empty(), "{shell}: {}\n{script}", text(&o.stderr));
    text(&o.stdout)
}

/// Skip a shell that is not installed, unless the dist is required.
fn have(program: &str) -> bool {
    on_path(program) || {
        skip(&format!("{program} is not installed, so its completions are not loaded"));
        false
    }
}

#[test]
fn each_completion_file_loads_in_its_shell_and_completes_a_command() {
    for dist in dists() {
        let dir = dist.root.join("completions");
        let path = |name: &str| dir.join(name).display().to_string();

        // bash, as bash-completion would source it: the function completes "se" to "search".
        let bash = shell(
            "bash",
            &["--noprofile", "--norc", "-c"],
            &format!(
                "source '{}' && complete -p incidex >/dev/null && \
                 COMP_WORDS=(incidex se) COMP_CWORD=1 COMP_LINE='incidex se' COMP_POINT=10 && \
                 _incidex incidex se incidex && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                path("incidex.bash")
            ),
        );
        assert!(bash.lines().any(|l| l == "search"), "bash completed 'incidex se' to:\n{bash}");

        // zsh, found through fpath as the README says: compinit registers it for incidex.
        if have("zsh") {
            let zsh = shell(
                "zsh",
                &["-f", "-c"],
                &format!(
                    "fpath=('{}' $fpath) && autoload -Uz compinit && compinit -u -d \"$HOME/zcompdump-$$\" && \
                     autoload -Uz +X _incidex && print -r -- $_comps[incidex]",
                    dir.display()
                ),
            );
            assert_eq!(zsh.trim(), "_incidex", "zsh's completion function for incidex");
        }

        // fish, sourced as ~/.config/fish/completions would: "incidex se" completes to search.
        if have("fish") {
            let fish = shell(
                "fish",
                &["--no-config", "-c"],
                &format!("source '{}'; complete -C'incidex se'", path("incidex.fish")),
            );
            assert!(fish.lines().any(|l| l.starts_with("search")), "fish completed 'incidex se' to:\n{fish}");
        }
    }
}
