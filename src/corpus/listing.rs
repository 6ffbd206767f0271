//! Finding the library files in user directories: every `*.toml` case file and `*.md` /
//! `*.markdown` postmortem, with the size and modification time the cache's fingerprint needs.
//!
//! Listing is the one cost every start pays, cache or not, so it is done a directory level at a
//! time on several threads: the directories of a level are read in parallel, then the files found
//! are `stat`ed in parallel (a hundred thousand files take a few hundred microseconds of system
//! time per thousand; on two cores half of it). Hidden entries (`.git`, `.DS_Store`) are skipped.
//!
//! Links are followed, but every directory is read once: the walk keeps the device and inode of
//! each directory it has read, so a link back up the tree (a loop) or a second way to the same
//! directory is skipped with a warning, and the walk stays linear in the size of the tree. What
//! is neither a regular file nor a directory — a FIFO (reading it would block), a socket, a
//! device node — and a link to nothing are skipped with a warning naming the path. The result is
//! the same whatever the threads do: under each directory given, its directories sorted by path
//! and each one's files sorted by name.

use std::{
    collections::HashSet,
    fs,
    os::unix::fs::{FileTypeExt, MetadataExt},
    path::{Path, PathBuf},
    time::SystemTime,
};

use crate::support::diag::{Diagnostic, Severity};

/// A library file found in a user directory, with what a cache fingerprint needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// The file, as found under the directory the user named.
    pub path: PathBuf,
    /// Its size in bytes.
    pub len: u64,
    /// When it was last modified, when the system says.
    pub modified: Option<SystemTime>,
}

/// How deep below a directory the walk goes.
const MAX_DEPTH: usize = 16;

/// A directory's identity on the system: its device and inode.
type DirId = (u64, u64);

fn dir_id(meta: &fs::Metadata) -> DirId {
    (meta.dev(), meta.ino())
}

/// Below this many files, they are `stat`ed on the calling thread.
const PARALLEL_FROM: usize = 256;
/// Below this many directories in a level, they are read on the calling thread.
const PARALLEL_DIRS_FROM: usize = 8;

/// Every library file under `dirs` (directories in the order given; under each, its
/// directories sorted by path and each one's files by name), and the problems met listing them.
pub fn list_files(dirs: &[PathBuf]) -> (Vec<FoundFile>, Vec<Diagnostic>) {
    let mut files = Vec::new();
    let mut diagnostics = Vec::new();
    for dir in dirs {
        let mut found = walk(dir, &mut diagnostics);
        // By the path's bytes: as deterministic as `Path`'s component order, and many times
        // faster on a hundred thousand paths.
        found.sort_unstable_by(|a, b| {
            a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes())
        });
        files.extend(found);
    }
    (files, diagnostics)
}

/// Whether a file in a user directory is one incidex reads: a case file or a postmortem.
pub fn is_library_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "toml") || is_markdown(path)
}

/// Whether a file is a Markdown postmortem (`.md` or `.markdown`).
pub fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// A library file found by reading its directory, not yet `stat`ed.
struct Entry {
    entry: fs::DirEntry,
    /// The directory's path and the file's name.
    path: PathBuf,
    /// Whether it is a link (its target is `stat`ed by path).
    link: bool,
}

/// What reading one directory found.
#[derive(Default)]
struct Listed {
    dir: PathBuf,
    /// Library files, sorted by name.
    files: Vec<Entry>,
    /// Directories in it (links followed), with their identity.
    subdirs: Vec<(PathBuf, DirId)>,
    problems: Vec<Diagnostic>,
}

fn warning(path: &Path, message: String) -> Diagnostic {
    Diagnostic::new(crate::text::clean_name(&path.display().to_string()), (0, 0), Severity::Warning, message)
}

/// The library files under `root`: each directory's files sorted by name, directories sorted by
/// path. Read a level at a time, each step on threads.
fn walk(root: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<FoundFile> {
    let mut groups: Vec<(PathBuf, Vec<FoundFile>)> = Vec::new();
    let mut level = vec![root.to_path_buf()];
    // Every directory read, so that none is read twice (a missing root is reported by read_dir).
    let mut visited: HashSet<DirId> = fs::metadata(root).map(|m| dir_id(&m)).into_iter().collect();
    for depth in 0..=MAX_DEPTH {
        if level.is_empty() {
            break;
        }
        let listed = parallel_map(std::mem::take(&mut level), PARALLEL_DIRS_FROM, read_dir);
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        let mut next = Vec::new();
        for l in listed {
            dirs.push((l.dir, l.files.len()));
            files.extend(l.files);
            diagnostics.extend(l.problems);
            if depth < MAX_DEPTH {
                next.extend(l.subdirs);
            }
        }
        // In path order, so which of two ways to one directory is kept does not depend on the
        // order the system listed them in.
        next.sort_unstable_by(|a, b| {
            a.0.as_os_str().as_encoded_bytes().cmp(b.0.as_os_str().as_encoded_bytes())
        });
        let next: Vec<PathBuf> = next
            .into_iter()
            .filter_map(|(path, id)| {
                if visited.insert(id) {
                    return Some(path);
                }
                diagnostics.push(warning(
                    &path,
                    "skipped: a link to a directory already read (a loop, or a second way to it)".into(),
                ));
                None
            })
            .collect();
        let mut stated = parallel_map(files, PARALLEL_FROM, stat).into_iter();
        for (dir, n) in dirs {
            groups.push((dir, stated.by_ref().take(n).flatten().collect()));
        }
        level = next;
    }
    // Directories in path order; a few hundred of them, where sorting every file by its whole
    // path would compare a hundred thousand long shared prefixes.
    groups
        .sort_unstable_by(|a, b| a.0.as_os_str().as_encoded_bytes().cmp(b.0.as_os_str().as_encoded_bytes()));
    groups.into_iter().flat_map(|(_, files)| files).collect()
}

fn read_dir(dir: PathBuf) -> Listed {
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) => {
            return Listed {
                problems: vec![Diagnostic::new(
                    crate::text::clean_name(&dir.display().to_string()),
                    (0, 0),
                    Severity::Error,
                    format!("cannot read directory: {e}"),
                )],
                ..Listed::default()
            };
        }
    };
    let dir_len = dir.as_os_str().len();
    let mut listed = Listed { dir, ..Listed::default() };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        // The path made once, to its size: a hundred thousand `join`s that grow their buffer
        // are a tenth of the listing.
        let mut path = PathBuf::with_capacity(dir_len + 1 + name.len());
        path.push(&listed.dir);
        path.push(&name);
        // The entry's own type costs nothing (the directory listing has it); only links need a
        // `stat` of their target.
        let Ok(kind) = entry.file_type() else { continue };
        let link = kind.is_symlink();
        let kind = if link {
            match fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => {
                    listed.subdirs.push((path, dir_id(&meta)));
                    continue;
                }
                Ok(meta) => meta.file_type(),
                Err(e) => {
                    let target = fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
                    listed.problems.push(warning(&path, format!("skipped: a link to {target} ({e})")));
                    continue;
                }
            }
        } else {
            kind
        };
        if kind.is_dir() {
            match entry.metadata() {
                Ok(meta) => listed.subdirs.push((path, dir_id(&meta))),
                Err(e) => listed.problems.push(warning(&path, format!("skipped: {e}"))),
            }
        } else if kind.is_file() {
            if is_library_file(Path::new(&name)) {
                listed.files.push(Entry { entry, path, link });
            }
        } else {
            listed
                .problems
                .push(warning(&path, format!("skipped: {}, not a regular file", special_kind(&kind))));
        }
    }
    // By name (the paths share the directory): cheap, and on the thread that read the directory.
    listed.files.sort_unstable_by(|a, b| {
        a.path.as_os_str().as_encoded_bytes()[dir_len..]
            .cmp(&b.path.as_os_str().as_encoded_bytes()[dir_len..])
    });
    listed
}

/// What a file that is neither a regular file nor a directory is, in words.
fn special_kind(kind: &fs::FileType) -> &'static str {
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device node"
    } else {
        "a special file"
    }
}

/// Size and modification time of a file; `None` when it went away meanwhile.
fn stat(found: Entry) -> Option<FoundFile> {
    // `DirEntry::metadata` stats relative to the open directory; a link's target by path.
    let meta = if found.link { fs::metadata(&found.path) } else { found.entry.metadata() };
    meta.ok().map(|meta| FoundFile { len: meta.len(), modified: meta.modified().ok(), path: found.path })
}

/// `f` of every item, in order, on up to eight threads when there are `from` items or more.
fn parallel_map<T: Send, R: Send>(items: Vec<T>, from: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if items.len() < from || threads < 2 {
        return items.into_iter().map(f).collect();
    }
    let per_thread = items.len().div_ceil(threads);
    let mut parts: Vec<Vec<T>> = Vec::with_capacity(threads);
    let mut items = items.into_iter();
    loop {
        let part: Vec<T> = items.by_ref().take(per_thread).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || part.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        // A thread that panicked (it cannot: reading a directory returns errors) loses its part.
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "x").unwrap();
    }

    #[test]
    fn files_are_found_at_every_depth_sorted_and_hidden_ones_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for name in
            ["b.toml", "a.md", "sub/c.markdown", "sub/deeper/d.toml", ".hidden/e.toml", "f.txt", ".g.md"]
        {
            touch(&root.join(name));
        }
        let (files, problems) = list_files(&[root.to_path_buf()]);
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<String> =
            files.iter().map(|f| f.path.strip_prefix(root).unwrap().display().to_string()).collect();
        assert_eq!(names, ["a.md", "b.toml", "sub/c.markdown", "sub/deeper/d.toml"]);
        assert!(files.iter().all(|f| f.len == 1 && f.modified.is_some()));
    }

    #[test]
    fn many_files_list_the_same_as_few() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        // Enough files and directories that both steps run on threads.
        for i in 0..(3 * PARALLEL_FROM) {
            touch(&root.join(format!("d{:03}/case-{i:05}.toml", i % (PARALLEL_DIRS_FROM + 7))));
        }
        let (files, problems) = list_files(&[root.to_path_buf()]);
        assert!(problems.is_empty());
        assert_eq!(files.len(), 3 * PARALLEL_FROM);
        assert!(files.windows(2).all(|w| w[0].path < w[1].path), "sorted by directory, then name");
    }

    #[test]
    fn a_missing_directory_is_a_problem_not_a_failure() {
        let tmp = tempfile::tempdir().unwrap();
        touch(&tmp.path().join("a/x.toml"));
        let missing = tmp.path().join("nope");
        let (files, problems) = list_files(&[missing.clone(), tmp.path().join("a")]);
        assert_eq!(files.len(), 1);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].message.starts_with("cannot read directory"), "{problems:?}");
    }

    #[test]
    fn a_link_loop_is_walked_once_with_a_warning() {
        // Links back up the tree were followed to the depth limit: k links made k^16 paths.
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        touch(&a.join("x.toml"));
        touch(&a.join("sub/y.toml"));
        for i in 0..4 {
            std::os::unix::fs::symlink(&a, a.join(format!("loop{i}"))).unwrap();
            std::os::unix::fs::symlink(&a, a.join(format!("sub/up{i}"))).unwrap();
        }
        let started = std::time::Instant::now();
        let (files, problems) = list_files(std::slice::from_ref(&a));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let names: Vec<String> =
            files.iter().map(|f| f.path.strip_prefix(&a).unwrap().display().to_string()).collect();
        assert_eq!(names, ["sub/y.toml", "x.toml"]);
        assert_eq!(problems.len(), 8, "{problems:?}");
        assert!(
            problems.iter().all(|p| p.severity == Severity::Warning && p.message.contains("already read"))
        );
    }

    #[test]
    fn fifos_sockets_and_dangling_links_are_named_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        touch(&root.join("good.toml"));
        let fifo = root.join("blocked.toml");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        let _socket = std::os::unix::net::UnixListener::bind(root.join("agent.sock")).unwrap();
        std::os::unix::fs::symlink(root.join("gone"), root.join("dangling.md")).unwrap();
        let (files, problems) = list_files(&[root.to_path_buf()]);
        assert_eq!(files.len(), 1);
        let mut said: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.path.rsplit('/').next().unwrap(), p.message))
            .collect();
        said.sort();
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(said[0].starts_with("agent.sock: skipped: a socket"), "{said:?}");
        assert!(said[1].starts_with("blocked.toml: skipped: a FIFO"), "{said:?}");
        assert!(said[2].starts_with("dangling.md: skipped: a link to "), "{said:?}");
    }
}
