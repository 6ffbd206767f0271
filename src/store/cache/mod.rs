//! The on-disk cache of large user libraries, under `$XDG_CACHE_HOME/incidex/`.
//!
//! An entry is a directory named by the library's [`fingerprint`] (program version, bundled
//! library, every file's path, size and modification time) holding `library.bin`, the cases'
//! heads and the diagnostics, `bodies.bin`, the cases' bodies, read one at a time when first used
//! ([`codec`], [`bodies`]), `index/`, the search index of those cases, and `index.sums`, the
//! checksums of the index's files, checked before the index is opened ([`manifest`]). An
//! entry is written in full to a temporary directory and renamed into place, so no reader ever
//! sees half of one, and it is never changed afterwards: nothing is locked ([`read_only_dir`]),
//! several processes can share the cache, and a read-only cache can be read.
//! A changed library has another fingerprint, so it gets a new entry; the oldest entries beyond
//! [`KEEP_ENTRIES`] are removed.
//!
//! The cache may make start-up faster; it never makes a result different and never makes a run
//! fail. When it cannot be written, or an entry cannot be read back (a file damaged, truncated or
//! missing, an index that fails its checksums or cannot be opened), the library is read as usual,
//! the entry is written again, and one line of warning says why.
//!
//! A writer killed half-way leaves its temporary directory behind (`tmp-HOST-PID-NANOS`); the
//! next writer removes it as soon as that process is gone from this host, and any such directory
//! an hour old whatever its host.
//!
//! Pruning deletes only what the cache made: a real directory holding the marker file
//! (`incidex-cache-entry`), and nothing at all when the cache root is a symbolic link, so a
//! cache pointed into someone's own directory never removes their `lib-*` or `tmp-*` folders.

pub mod bodies;
pub mod codec;
pub mod fingerprint;
pub mod manifest;
pub mod read_only_dir;

use std::{
    fs, io,
    path::{Path, PathBuf},
    time::{SystemTime, UNIX_EPOCH},
};

use std::sync::Arc;

use tantivy::Index;

use crate::{
    corpus::{
        Library, LoadOptions,
        body::BodySource,
        load::{FoundFile, list_files, load_taxonomy},
    },
    search::{Engine, Prebuilt, catalog::Catalog, index::CaseIndex},
    support::error::Result,
    support::progress::{Progress, ProgressFn, Stage},
};

/// When the cache is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Never.
    Off,
    /// For libraries of at least [`AUTO_MIN_FILES`] files (smaller ones read as fast without).
    Auto,
    /// For every library with a user directory.
    Always,
}

/// Libraries with fewer files than this are read without the cache in [`Mode::Auto`]: reading a
/// few hundred files and indexing them takes about as long as reading the cache would.
pub const AUTO_MIN_FILES: usize = 1000;

/// Entries kept; older ones are removed when a new one is written.
pub const KEEP_ENTRIES: usize = 4;

/// The name of the cases' heads and the diagnostics in an entry.
const LIBRARY_FILE: &str = "library.bin";
/// The name of the cases' bodies in an entry.
const BODIES_FILE: &str = "bodies.bin";
/// The name of the search index's directory in an entry.
const INDEX_DIR: &str = "index";
/// The name of the index's checksums in an entry.
const INDEX_SUMS: &str = "index.sums";
/// The file that marks a directory as one the cache made (an entry or a temporary directory):
/// pruning deletes nothing without it. Its text is [`MARKER_TEXT`].
const ENTRY_MARKER: &str = "incidex-cache-entry";
/// What [`ENTRY_MARKER`] holds.
const MARKER_TEXT: &[u8] = b"incidex cache entry; removed by incidex when stale\n";

/// Where the cache is and when it is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheOptions {
    /// The cache directory; `None` when there is none (no home directory).
    pub dir: Option<PathBuf>,
    /// When the cache is used.
    pub mode: Mode,
}

impl CacheOptions {
    /// `$XDG_CACHE_HOME/incidex`, used as `$INCIDEX_CACHE` says: `auto` (the default), `always`
    /// or `off`. An unknown value is a warning and means `auto`.
    pub fn from_env() -> (CacheOptions, Option<String>) {
        let (mode, warning) = match std::env::var("INCIDEX_CACHE").ok().as_deref().map(str::trim) {
            None | Some("" | "auto") => (Mode::Auto, None),
            Some("always" | "on") => (Mode::Always, None),
            Some("off" | "never" | "0") => (Mode::Off, None),
            Some(other) => (
                Mode::Auto,
                Some(format!(
                    "INCIDEX_CACHE is '{}'; expected auto, always or off (using auto)",
                    crate::text::one_line(other)
                )),
            ),
        };
        (CacheOptions { dir: crate::settings::config::cache_dir(), mode }, warning)
    }
}

/// What the cache did for one load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    /// Not used (turned off, a small library, or no user directory).
    Unused,
    /// The library came from the cache.
    Hit,
    /// The library was read and a new entry written.
    Stored,
    /// The library was read; the cache could not be written (see the warnings).
    NotStored,
}

/// A loaded library and how the cache served it.
#[derive(Debug)]
pub struct Opened {
    /// The library, exactly as [`Library::load`] would give it.
    pub library: Library,
    /// What the engine needs ready-made: the search index, when it was opened from the cache or
    /// built with progress (`None` for a library small enough to index in memory when the
    /// engine starts), and the catalog, when it was opened from the cache or built to store it.
    pub prebuilt: Prebuilt,
    /// What the cache did.
    pub cache: CacheUse,
    /// The cache entry the library belongs to, when it was read from or written to one.
    pub entry: Option<PathBuf>,
    /// One line each: why the cache could not be used as it should have been.
    pub warnings: Vec<String>,
}

impl Opened {
    /// The search engine over the library, on the cached index when there is one.
    pub fn into_engine(self) -> Result<Engine> {
        Engine::with_prebuilt(Arc::new(self.library), self.prebuilt)
    }
}

/// Load what `options` names, through the cache when `cache` says so; see the module docs.
/// `progress` hears about the files parsed and the cases indexed when the library has to be
/// read (nothing on a cache hit).
pub fn open(options: &LoadOptions, cache: &CacheOptions, progress: ProgressFn<'_>) -> Opened {
    if let Some(opened) = open_embedded(options) {
        return opened;
    }
    let (files, listing) = list_files(&options.dirs);
    let wanted = match cache.mode {
        Mode::Off => false,
        Mode::Auto => files.len() >= AUTO_MIN_FILES,
        Mode::Always => !options.dirs.is_empty(),
    };
    let Some(dir) = cache.dir.as_deref().filter(|_| wanted) else {
        let library = Library::load_files(options.bundled, &files, listing, progress);
        return Opened {
            library,
            prebuilt: Prebuilt::default(),
            cache: CacheUse::Unused,
            entry: None,
            warnings: Vec::new(),
        };
    };
    let key = fingerprint::fingerprint(options.bundled, &options.dirs, &files);
    let entry = dir.join(format!("lib-{key}"));
    let mut warnings = Vec::new();
    let prefixes = fingerprint::display_prefixes(&options.dirs);
    match read_entry(&entry, &files, &prefixes) {
        Ok(Some((library, index, catalog))) => {
            return Opened {
                library,
                prebuilt: Prebuilt { index: Some(index), catalog: Some(catalog) },
                cache: CacheUse::Hit,
                entry: Some(entry),
                warnings,
            };
        }
        Ok(None) => {}
        Err(why) => {
            warnings.push(format!(
                "the cache entry {} cannot be read ({why}); reading the library",
                entry.display()
            ));
            // A damaged entry would fail every run: remove it so this run can write a good one
            // (only when the cache made it, under a root that is not a link).
            if root_is_own(dir) && is_own(&entry) {
                let _ = fs::remove_dir_all(&entry);
            }
        }
    }
    let library = Library::load_files(options.bundled, &files, listing, progress);
    match store(dir, &entry, &library, &prefixes, progress) {
        Ok((index, catalog)) => Opened {
            library,
            prebuilt: Prebuilt { index: Some(index), catalog: Some(catalog) },
            cache: CacheUse::Stored,
            entry: Some(entry),
            warnings,
        },
        Err(e) => {
            warnings.push(format!(
                "cannot write the cache in {} ({e}); the library is read without it",
                dir.display()
            ));
            // Still a large library: index it now, with progress, rather than silently later.
            let index = Index::create_in_ram(CaseIndex::schema());
            let index = CaseIndex::write(&index, &library.cases, progress)
                .and_then(|()| CaseIndex::from_index(&index));
            Opened {
                library,
                prebuilt: Prebuilt { index: index.ok(), catalog: None },
                cache: CacheUse::NotStored,
                entry: None,
                warnings,
            }
        }
    }
}

/// The bundled library alone, as baked at build time (`crate::store::embedded`): no file to read, no
/// index to build. `None` when there are user directories (merged at run time) or, which the
/// tests rule out, when the baked library cannot be opened (then it is parsed as usual).
fn open_embedded(options: &LoadOptions) -> Option<Opened> {
    if !options.bundled || !options.dirs.is_empty() {
        return None;
    }
    let (library, prebuilt) = crate::store::embedded::open().ok()?;
    Some(Opened { library, prebuilt, cache: CacheUse::Unused, entry: None, warnings: Vec::new() })
}

/// The library and index in `entry`, `None` when there is no such entry, or why they cannot be
/// read.
fn read_entry(
    entry: &Path,
    files: &[FoundFile],
    prefixes: &[String],
) -> std::result::Result<Option<(Library, CaseIndex, Catalog)>, String> {
    let bytes = match fs::read(entry.join(LIBRARY_FILE)) {
        Ok(bytes) => bytes,
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(e.to_string()),
    };
    if !has_marker(entry) {
        return Err(format!("it has no {ENTRY_MARKER} file of the cache's own"));
    }
    let (bodies, bodies_len) =
        bodies::BodyFile::open(&entry.join(BODIES_FILE), entry).map_err(|e| format!("{BODIES_FILE}: {e}"))?;
    let bodies: Arc<dyn BodySource> = Arc::new(bodies);
    let codec::Decoded { cases, catalog, diagnostics } =
        codec::decode(bytes, &bodies, bodies_len, prefixes).map_err(|e| e.to_string())?;
    let sums = fs::read_to_string(entry.join(INDEX_SUMS)).map_err(|e| format!("{INDEX_SUMS}: {e}"))?;
    manifest::verify(&entry.join(INDEX_DIR), &sums).map_err(|e| format!("search index: {e}"))?;
    let index = open_index(&entry.join(INDEX_DIR)).map_err(|e| format!("search index: {e}"))?;
    if !index.covers(cases.len()) {
        return Err(format!(
            "the search index holds {} documents for {} cases",
            index.num_docs(),
            cases.len()
        ));
    }
    // The taxonomy is read again, by the code that read it the first time; its problems are
    // among the cached diagnostics already.
    let (taxonomy, _) = load_taxonomy(files);
    Ok(Some((Library { cases, taxonomy, diagnostics }, index, catalog)))
}

/// Open the index of a finished entry without writing or locking anything. A panic in tantivy
/// while opening (it asserts on what it reads) is an error like any other.
fn open_index(dir: &Path) -> std::result::Result<CaseIndex, String> {
    let open = || {
        let directory = read_only_dir::ReadOnlyDir::open(dir).map_err(|e| e.to_string())?;
        let index = Index::open(directory).map_err(|e| e.to_string())?;
        CaseIndex::from_index(&index).map_err(|e| e.to_string())
    };
    std::panic::catch_unwind(open).unwrap_or_else(|_| Err("it cannot be opened".into()))
}

/// Write `library` and its index as the entry `entry` in `dir`: in full to a temporary
/// directory, then renamed into place; the index is then opened from the entry.
fn store(
    dir: &Path,
    entry: &Path,
    library: &Library,
    prefixes: &[String],
    progress: ProgressFn<'_>,
) -> io::Result<(CaseIndex, Catalog)> {
    let catalog = Catalog::new(library);
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("tmp-{}-{}-{}", host_name(), std::process::id(), nanos_now()));
    fs::create_dir(&tmp)?;
    // Marked first, so even a writer killed at once leaves a directory pruning knows as its own.
    if let Err(e) = fs::write(tmp.join(ENTRY_MARKER), MARKER_TEXT) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let written = write_entry(&tmp, library, &catalog, prefixes, progress).and_then(|()| {
        match fs::rename(&tmp, entry) {
            Ok(()) => Ok(()),
            // Another process wrote the same entry first: theirs is as good as ours.
            Err(_) if entry.join(LIBRARY_FILE).is_file() => {
                let _ = fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => Err(e),
        }
    });
    if written.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    written?;
    prune(dir, entry);
    let index = open_index(&entry.join(INDEX_DIR)).map_err(io::Error::other)?;
    Ok((index, catalog))
}

fn write_entry(
    tmp: &Path,
    library: &Library,
    catalog: &Catalog,
    prefixes: &[String],
    progress: ProgressFn<'_>,
) -> io::Result<()> {
    let index_dir = tmp.join(INDEX_DIR);
    fs::create_dir(&index_dir)?;
    let index = Index::create_in_dir(&index_dir, CaseIndex::schema()).map_err(io::Error::other)?;
    CaseIndex::write(&index, &library.cases, progress).map_err(|e| io::Error::other(e.to_string()))?;
    drop(index);
    // tantivy leaves its (empty) lock files behind; a finished entry is never locked.
    for lock in [".tantivy-writer.lock", ".tantivy-meta.lock"] {
        let _ = fs::remove_file(index_dir.join(lock));
    }
    let sums = manifest::make(&index_dir)?;
    progress(Progress { stage: Stage::Saving, done: 0, total: 1 });
    let encoded = codec::encode(&library.cases, catalog, &library.diagnostics, prefixes);
    // The library file last: an entry with a library file is a finished one.
    for (name, bytes) in [
        (INDEX_SUMS, sums.as_bytes()),
        (BODIES_FILE, &encoded.bodies[..]),
        (LIBRARY_FILE, &encoded.library[..]),
    ] {
        let mut file = fs::File::create(tmp.join(name))?;
        io::Write::write_all(&mut file, bytes)?;
        file.sync_all()?;
    }
    progress(Progress { stage: Stage::Saving, done: 1, total: 1 });
    Ok(())
}

fn nanos_now() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// This host's name, as it goes into a temporary directory's name (no `-`, never empty).
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into the buffer.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name: String =
        if rc == 0 { String::from_utf8_lossy(&buf[..end]).into_owned() } else { String::new() };
    let name: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
    if name.is_empty() { "host".into() } else { name }
}

/// Whether the writer of the temporary directory `name` (`tmp-HOST-PID-NANOS`) is known to be
/// gone: it ran on this host and its process no longer exists.
fn writer_is_gone(name: &str, this_host: &str) -> bool {
    let mut parts = name.trim_start_matches("tmp-").rsplitn(3, '-');
    let (Some(_nanos), Some(pid), Some(host)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let Ok(pid) = pid.parse::<libc::pid_t>() else { return false };
    if host != this_host || pid <= 0 || pid == std::process::id() as libc::pid_t {
        return false;
    }
    // SAFETY: signal 0 only asks whether the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Remove entries beyond the newest [`KEEP_ENTRIES`] (never `keep`), temporary directories of
/// writers that are gone from this host, and any temporary directory an hour old (a writer on
/// another host sharing the cache). Best effort: what cannot be removed stays.
///
/// Only what the cache made is ever removed: a real directory (not a link) holding the
/// [`ENTRY_MARKER`] file with its text. Nothing is removed when the cache root itself is a
/// symbolic link, since what it points at may be anybody's directory.
fn prune(dir: &Path, keep: &Path) {
    if !root_is_own(dir) {
        return;
    }
    let Ok(read) = fs::read_dir(dir) else { return };
    let mut entries: Vec<(SystemTime, PathBuf)> = Vec::new();
    let hour_ago = SystemTime::now() - std::time::Duration::from_secs(3600);
    let this_host = host_name();
    for e in read.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().to_string();
        if !is_own(&e.path()) {
            continue;
        }
        let modified = e.metadata().and_then(|m| m.modified()).unwrap_or(UNIX_EPOCH);
        if name.starts_with("lib-") && e.path() != keep {
            entries.push((modified, e.path()));
        } else if name.starts_with("tmp-") && (modified < hour_ago || writer_is_gone(&name, &this_host)) {
            let _ = fs::remove_dir_all(e.path());
        }
    }
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, path) in entries.into_iter().skip(KEEP_ENTRIES.saturating_sub(1)) {
        let _ = fs::remove_dir_all(path);
    }
}

/// Whether the cache root may be deleted in: it is a real directory, not a symbolic link.
fn root_is_own(dir: &Path) -> bool {
    fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_dir())
}

/// Whether `path` is a directory the cache made: a real directory (not a link) holding the
/// [`ENTRY_MARKER`] file with the marker's text, or a library file that begins with the cache's
/// magic (an entry whose marker was damaged, or one written before there were markers).
fn is_own(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_dir())
        && (has_marker(path) || starts_with_magic(&path.join(LIBRARY_FILE)))
}

/// Whether `dir` holds the [`ENTRY_MARKER`] file, a regular file with the marker's text.
fn has_marker(dir: &Path) -> bool {
    let marker = dir.join(ENTRY_MARKER);
    fs::symlink_metadata(&marker)
        .is_ok_and(|m| m.file_type().is_file() && m.len() == MARKER_TEXT.len() as u64)
        && fs::read(&marker).is_ok_and(|bytes| bytes == MARKER_TEXT)
}

/// Whether the regular file `path` begins with the cache's library magic.
fn starts_with_magic(path: &Path) -> bool {
    use io::Read;
    if !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        return false;
    }
    let mut head = [0u8; 16];
    fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && codec::has_library_magic(&head)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: &str = "+++\norganization = \"Us\"\ncomponents = [\"NCCL\"]\nroot_causes = [\"Deadlock\"]\n\
symptom_tags = [\"Hang\"]\n+++\n# A hang\n\n## Summary\n\nStuck.\n\n## Detection\n\nPager.\n\n## Resolution\n\n\
- Restarted.\n\n## Action items\n\n- Add a watchdog.\n";

    struct Fixture {
        _tmp: tempfile::TempDir,
        data: PathBuf,
        cache: CacheOptions,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("pm");
        fs::create_dir(&data).unwrap();
        for i in 0..3 {
            fs::write(data.join(format!("2024-01-0{}-hang-{i}.md", i + 1)), CASE).unwrap();
        }
        let cache = CacheOptions { dir: Some(tmp.path().join("cache")), mode: Mode::Always };
        Fixture { _tmp: tmp, data, cache }
    }

    fn load(f: &Fixture) -> Opened {
        open(
            &LoadOptions { bundled: false, dirs: vec![f.data.clone()] },
            &f.cache,
            &crate::support::progress::silent,
        )
    }

    fn same(a: &Library, b: &Library) {
        assert_eq!(a.cases, b.cases);
        assert_eq!(a.diagnostics, b.diagnostics);
        assert_eq!(a.taxonomy.values(), b.taxonomy.values());
    }

    #[test]
    fn a_second_load_is_a_hit_with_the_same_library() {
        let f = fixture();
        let first = load(&f);
        assert_eq!(first.cache, CacheUse::Stored, "{:?}", first.warnings);
        let second = load(&f);
        assert_eq!(second.cache, CacheUse::Hit, "{:?}", second.warnings);
        assert!(second.warnings.is_empty());
        same(&first.library, &second.library);
        same(&second.library, &Library::load(&LoadOptions { bundled: false, dirs: vec![f.data.clone()] }));
    }

    /// Every file under `dir` with its size and modification time.
    fn snapshot(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
        let mut out = Vec::new();
        for e in fs::read_dir(dir).unwrap().filter_map(std::result::Result::ok) {
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                out.extend(snapshot(&e.path()));
            } else {
                out.push((e.path(), meta.len(), meta.modified().unwrap()));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_hit_searches_like_a_fresh_engine_and_writes_nothing() {
        let f = fixture();
        let first = load(&f);
        let entry = first.entry.clone().unwrap();
        let before = snapshot(f.cache.dir.as_ref().unwrap());
        assert!(
            !before.iter().any(|(p, _, _)| p.to_string_lossy().contains(".lock")),
            "no lock file is left in the entry: {before:?}"
        );
        let hit = load(&f);
        assert_eq!(hit.cache, CacheUse::Hit);
        assert!(hit.prebuilt.index.is_some());
        let none = crate::corpus::filter::Filters::default();
        let cached = hit.into_engine().unwrap();
        let fresh =
            Engine::new(Arc::new(Library::load(&LoadOptions { bundled: false, dirs: vec![f.data.clone()] })))
                .unwrap();
        for sentence in ["", "hang", "watchdog stuck", "restarted"] {
            let request = crate::search::Request::new(sentence, &none);
            assert_eq!(cached.search(&request), fresh.search(&request), "{sentence:?}");
        }
        // Opening and searching the entry wrote nothing, not even a lock file: a read-only cache
        // works the same.
        assert_eq!(snapshot(f.cache.dir.as_ref().unwrap()), before);
        assert!(entry.join(INDEX_DIR).join("meta.json").is_file());
    }

    #[test]
    fn a_damaged_index_is_rebuilt_with_a_warning() {
        let f = fixture();
        let first = load(&f);
        let index_dir = first.entry.unwrap().join(INDEX_DIR);
        let segment = fs::read_dir(&index_dir)
            .unwrap()
            .filter_map(std::result::Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "idx"))
            .expect("a segment file");
        fs::write(&segment, b"not an index").unwrap();
        let second = load(&f);
        assert_eq!(second.cache, CacheUse::Stored, "{:?}", second.warnings);
        assert_eq!(second.warnings.len(), 1, "{:?}", second.warnings);
        assert!(
            second.warnings[0].contains("cannot be read (search index: index file"),
            "{:?}",
            second.warnings
        );
        assert_eq!(load(&f).cache, CacheUse::Hit);
    }

    #[test]
    fn a_changed_file_invalidates_the_entry() {
        let f = fixture();
        load(&f);
        fs::write(f.data.join("2024-01-01-hang-0.md"), CASE.replace("# A hang", "# A longer hang")).unwrap();
        let after = load(&f);
        assert_eq!(after.cache, CacheUse::Stored);
        assert!(after.library.cases.iter().any(|c| c.title == "A longer hang"));
        assert_eq!(load(&f).cache, CacheUse::Hit);
    }

    #[test]
    fn a_corrupted_entry_is_rebuilt_with_a_warning() {
        let f = fixture();
        let first = load(&f);
        let path = first.entry.unwrap().join(LIBRARY_FILE);
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        fs::write(&path, bytes).unwrap();
        let second = load(&f);
        assert_eq!(second.cache, CacheUse::Stored);
        assert_eq!(second.warnings.len(), 1, "{:?}", second.warnings);
        assert!(second.warnings[0].contains("checksum mismatch"), "{:?}", second.warnings);
        same(&first.library, &second.library);
        assert_eq!(load(&f).cache, CacheUse::Hit);
    }

    #[test]
    fn bodies_are_read_from_the_entry_when_first_used() {
        let f = fixture();
        let first = load(&f);
        let hit = load(&f);
        assert_eq!(hit.cache, CacheUse::Hit);
        assert!(!hit.library.cases.all_decoded(), "a hit decodes no case at start-up");
        let engine_first = hit.prebuilt.catalog.as_ref().map(|c| c.len());
        assert_eq!(engine_first, Some(3), "the catalog comes from the entry");
        assert!(!hit.library.cases.all_decoded());
        assert!(hit.library.cases.iter().all(|c| !c.body.is_read()), "a hit reads no body at start-up");
        assert_eq!(hit.library.cases[1].body.detection, "Pager.");
        assert!(hit.library.cases[1].body.is_read());
        assert!(!hit.library.cases[0].body.is_read(), "only the body looked at is read");
        same(&first.library, &hit.library);
    }

    #[test]
    fn a_damaged_body_is_shown_as_such_and_the_entry_is_rebuilt_next_time() {
        let f = fixture();
        let entry = load(&f).entry.unwrap();
        let path = entry.join(BODIES_FILE);
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0x40;
        fs::write(&path, bytes).unwrap();
        let hit = load(&f);
        assert_eq!(hit.cache, CacheUse::Hit, "the heads are intact");
        let spoiled: Vec<&str> = hit
            .library
            .cases
            .iter()
            .map(|c| c.body.symptoms.as_str())
            .filter(|s| s.contains("could not be read from the cache"))
            .collect();
        assert_eq!(spoiled.len(), 1, "exactly the damaged body says so");
        assert!(!entry.exists(), "the damaged entry is removed");
        let next = load(&f);
        assert_eq!(next.cache, CacheUse::Stored, "{:?}", next.warnings);
        assert!(next.library.cases.iter().all(|c| c.body.symptoms == "Stuck."));
    }

    #[test]
    fn a_truncated_bodies_file_is_rebuilt_with_a_warning() {
        let f = fixture();
        let entry = load(&f).entry.unwrap();
        let path = entry.join(BODIES_FILE);
        let len = fs::metadata(&path).unwrap().len();
        fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - 1).unwrap();
        let second = load(&f);
        assert_eq!(second.cache, CacheUse::Stored);
        assert_eq!(second.warnings.len(), 1, "{:?}", second.warnings);
        assert!(second.warnings[0].contains("bytes, expected"), "{:?}", second.warnings);
        assert_eq!(load(&f).cache, CacheUse::Hit);
    }

    #[test]
    fn an_unwritable_cache_reads_in_memory_with_a_warning() {
        let mut f = fixture();
        // A path under a regular file cannot be created, whoever runs the test (root included).
        let blocker = f.data.parent().unwrap().join("not-a-dir");
        fs::write(&blocker, "").unwrap();
        f.cache.dir = Some(blocker.join("cache"));
        let opened = load(&f);
        assert_eq!(opened.cache, CacheUse::NotStored);
        assert_eq!(opened.warnings.len(), 1, "{:?}", opened.warnings);
        assert!(opened.warnings[0].starts_with("cannot write the cache in "), "{:?}", opened.warnings);
        assert_eq!(opened.library.cases.len(), 3);
        assert!(opened.prebuilt.index.is_some(), "a large library is still indexed, in memory");
    }

    #[test]
    fn small_libraries_skip_the_cache_in_auto_mode() {
        let mut f = fixture();
        f.cache.mode = Mode::Auto;
        assert_eq!(load(&f).cache, CacheUse::Unused);
        f.cache.mode = Mode::Off;
        assert_eq!(load(&f).cache, CacheUse::Unused);
        assert!(!f.cache.dir.as_ref().unwrap().exists(), "nothing was written");
    }

    #[test]
    fn a_killed_writers_temporary_directory_is_removed_by_the_next_writer() {
        let f = fixture();
        let dir = f.cache.dir.clone().unwrap();
        fs::create_dir_all(&dir).unwrap();
        // A child that has exited: its pid is gone from this host.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let host = host_name();
        let left = dir.join(format!("tmp-{host}-{dead}-123"));
        let alive = dir.join(format!("tmp-{host}-{}-456", std::process::id()));
        let elsewhere = dir.join(format!("tmp-otherhost-{dead}-789"));
        for d in [&left, &alive, &elsewhere] {
            fs::create_dir(d).unwrap();
            fs::write(d.join(ENTRY_MARKER), MARKER_TEXT).unwrap();
            fs::write(d.join(LIBRARY_FILE), b"half").unwrap();
        }
        assert_eq!(load(&f).cache, CacheUse::Stored);
        assert!(!left.exists(), "a dead writer's directory is removed at once");
        assert!(alive.exists(), "a live writer's directory stays");
        assert!(elsewhere.exists(), "another host's stays until it is an hour old");
    }

    #[test]
    fn every_file_of_the_index_is_checked_before_it_is_opened() {
        let f = fixture();
        let first = load(&f);
        let index_dir = first.entry.unwrap().join(INDEX_DIR);
        // Each rebuild names its segments anew: the files are listed again every time.
        let files = || {
            let mut files: Vec<PathBuf> = fs::read_dir(&index_dir)
                .unwrap()
                .filter_map(std::result::Result::ok)
                .map(|e| e.path())
                .collect();
            files.sort();
            files
        };
        let count = files().len();
        assert!(files().iter().any(|p| p.extension().is_some_and(|e| e == "fast")), "{:?}", files());
        for i in 0..count {
            let file = files()[i].clone();
            let good = fs::read(&file).unwrap();
            if good.is_empty() {
                continue;
            }
            let mut bad = good.clone();
            let middle = bad.len() / 2;
            bad[middle] ^= 0x10;
            fs::write(&file, &bad).unwrap();
            let damaged = load(&f);
            assert_eq!(damaged.cache, CacheUse::Stored, "{}: {:?}", file.display(), damaged.warnings);
            assert_eq!(damaged.warnings.len(), 1, "{:?}", damaged.warnings);
            assert!(damaged.warnings[0].contains("search index: index file"), "{:?}", damaged.warnings);
            same(&first.library, &damaged.library);
        }
    }

    #[test]
    fn two_spellings_of_one_directory_share_an_entry_and_show_their_own_paths() {
        let f = fixture();
        let dotted = f.data.join("..").join("pm").join(".");
        let stored = load(&f);
        assert_eq!(stored.cache, CacheUse::Stored);
        let options = LoadOptions { bundled: false, dirs: vec![dotted.clone()] };
        let other = open(&options, &f.cache, &crate::support::progress::silent);
        assert_eq!(other.cache, CacheUse::Hit, "{:?}", other.warnings);
        assert_eq!(other.entry, stored.entry);
        let fresh = Library::load(&options);
        same(&other.library, &fresh);
        assert!(other.library.cases.iter().all(|c| c.provenance.path.contains("/pm/./")), "as named now");
    }

    #[test]
    fn old_entries_are_pruned() {
        let f = fixture();
        for i in 0..(KEEP_ENTRIES + 2) {
            fs::write(f.data.join("2024-01-01-hang-0.md"), CASE.replace("Stuck.", &"Stuck. ".repeat(i + 1)))
                .unwrap();
            assert_eq!(load(&f).cache, CacheUse::Stored);
        }
        let entries = fs::read_dir(f.cache.dir.as_ref().unwrap()).unwrap().count();
        assert_eq!(entries, KEEP_ENTRIES);
    }

    /// Directories in the cache root that look like the cache's own (`lib-*`, `tmp-*`) but
    /// were made by someone else.
    fn strangers(root: &Path) -> Vec<PathBuf> {
        let mut made = Vec::new();
        for name in
            ["lib-user-project-a", "lib-user-project-b", "lib-user-project-c", "tmp-notes", "tmp-1-2-3"]
        {
            let d = root.join(name);
            fs::create_dir_all(d.join("sub")).unwrap();
            fs::write(d.join("sub").join("work.txt"), b"mine").unwrap();
            fs::write(d.join(LIBRARY_FILE), b"not a cache file").unwrap();
            made.push(d);
        }
        made
    }

    fn rebuild_past_the_limit(f: &Fixture) {
        for i in 0..(KEEP_ENTRIES + 2) {
            fs::write(f.data.join("2024-01-01-hang-0.md"), CASE.replace("Stuck.", &"Stuck. ".repeat(i + 1)))
                .unwrap();
            assert_eq!(load(f).cache, CacheUse::Stored);
        }
    }

    #[test]
    fn pruning_never_deletes_directories_the_cache_did_not_make() {
        let f = fixture();
        let root = f.cache.dir.clone().unwrap();
        fs::create_dir_all(&root).unwrap();
        let theirs = strangers(&root);
        rebuild_past_the_limit(&f);
        for d in &theirs {
            assert!(d.join("sub").join("work.txt").is_file(), "{} was deleted", d.display());
        }
        let ours = fs::read_dir(&root)
            .unwrap()
            .filter_map(std::result::Result::ok)
            .filter(|e| e.path().join(ENTRY_MARKER).is_file())
            .count();
        assert_eq!(ours, KEEP_ENTRIES, "the cache's own entries are still pruned");
    }

    #[test]
    fn a_symlinked_cache_root_is_never_pruned_through() {
        let f = fixture();
        let target = f.data.parent().unwrap().join("elsewhere");
        fs::create_dir_all(&target).unwrap();
        let theirs = strangers(&target);
        let root = f.cache.dir.clone().unwrap();
        fs::create_dir_all(root.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &root).unwrap();
        rebuild_past_the_limit(&f);
        for d in &theirs {
            assert!(d.join("sub").join("work.txt").is_file(), "{} was deleted", d.display());
        }
    }
}
