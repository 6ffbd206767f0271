//! A case's body — its long text (symptoms, detection, remediation, action items, sources, ...) —
//! read when it is first used.
//!
//! A library parsed from its files holds every body already. A library opened from the on-disk
//! cache (`crate::store::cache`) decodes only what start-up needs (ids, titles, dates, facets: the
//! case's head) and leaves each body where it is stored, behind a [`BodySource`]: the body is
//! read the first time anything looks at it, once, from any thread. So a library of 100,000
//! postmortems opens in the time it takes to read its heads, and a search that shows ten cases
//! reads ten bodies.
//!
//! [`Body`] dereferences to [`CaseBody`]: code reads `case.body.symptoms` the same whichever way
//! the case was loaded. A stored body that cannot be read back (the cache file was damaged after
//! the library was opened) becomes a body that says so, and the source is told, so the next
//! start reads the library again; nothing panics.

use std::{
    fmt,
    ops::{Deref, DerefMut},
    sync::{Arc, OnceLock},
};

use super::content::CaseBody;

/// Where stored bodies are read from.
pub trait BodySource: Send + Sync {
    /// Read the body stored at `at` (`len` bytes), or say why it cannot be read.
    fn read(&self, at: u64, len: u32) -> Result<CaseBody, String>;

    /// Told when a body could not be read, so the store is not trusted again.
    fn damaged(&self, why: &str);
}

/// A body not read yet: where it is.
#[derive(Clone)]
struct Stored {
    source: Arc<dyn BodySource>,
    at: u64,
    len: u32,
}

/// A case's body, in memory or read on first use; see the module docs.
#[derive(Clone)]
pub struct Body {
    cell: OnceLock<Box<CaseBody>>,
    stored: Option<Stored>,
}

impl Body {
    /// A body already in memory.
    pub fn new(body: CaseBody) -> Body {
        Body { cell: OnceLock::from(Box::new(body)), stored: None }
    }

    /// A body to be read from `source` at `at` (`len` bytes) when first used.
    pub fn stored(source: Arc<dyn BodySource>, at: u64, len: u32) -> Body {
        Body { cell: OnceLock::new(), stored: Some(Stored { source, at, len }) }
    }

    /// Whether the body is in memory (parsed, or read already).
    pub fn is_read(&self) -> bool {
        self.cell.get().is_some()
    }

    fn get(&self) -> &CaseBody {
        self.cell.get_or_init(|| {
            Box::new(match &self.stored {
                Some(stored) => stored.source.read(stored.at, stored.len).unwrap_or_else(|why| {
                    stored.source.damaged(&why);
                    CaseBody::unreadable(&why)
                }),
                None => CaseBody::default(),
            })
        })
    }
}

impl Default for Body {
    fn default() -> Self {
        Body::new(CaseBody::default())
    }
}

impl From<CaseBody> for Body {
    fn from(body: CaseBody) -> Body {
        Body::new(body)
    }
}

impl Deref for Body {
    type Target = CaseBody;

    fn deref(&self) -> &CaseBody {
        self.get()
    }
}

impl DerefMut for Body {
    fn deref_mut(&mut self) -> &mut CaseBody {
        self.get();
        // Changed in memory, it no longer is the stored body.
        self.stored = None;
        match self.cell.get_mut() {
            Some(body) => body,
            None => unreachable!("`get` filled the cell"),
        }
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Body) -> bool {
        self.get() == other.get()
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    };

    use super::*;

    /// Bodies whose symptoms say where they were read from; at 13 the store is damaged.
    #[derive(Default)]
    struct Counting {
        reads: AtomicUsize,
        damage: Mutex<Vec<String>>,
    }

    impl BodySource for Counting {
        fn read(&self, at: u64, len: u32) -> Result<CaseBody, String> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            if at == 13 {
                return Err("checksum mismatch".into());
            }
            Ok(CaseBody { symptoms: format!("read at {at}, {len} bytes"), ..CaseBody::default() })
        }
        fn damaged(&self, why: &str) {
            self.damage.lock().unwrap().push(why.to_string());
        }
    }

    #[test]
    fn a_stored_body_is_read_once_on_first_use() {
        let source = Arc::new(Counting::default());
        let body = Body::stored(source.clone(), 40, 7);
        assert!(!body.is_read());
        assert_eq!(source.reads.load(Ordering::SeqCst), 0, "nothing is read before it is used");
        assert_eq!(body.symptoms, "read at 40, 7 bytes");
        assert_eq!(body.detection, "");
        assert!(body.is_read());
        let copy = body.clone();
        assert_eq!(copy.symptoms, body.symptoms);
        assert_eq!(source.reads.load(Ordering::SeqCst), 1, "read once, clones share what was read");
    }

    #[test]
    fn a_body_is_read_once_whatever_the_threads() {
        let source = Arc::new(Counting::default());
        let body = Body::stored(source.clone(), 1, 1);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(body.symptoms, "read at 1, 1 bytes"));
            }
        });
        assert_eq!(source.reads.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn an_unreadable_body_says_so_and_the_store_is_told() {
        let source = Arc::new(Counting::default());
        let body = Body::stored(source.clone(), 13, 5);
        assert!(body.symptoms.contains("checksum mismatch"), "{}", body.symptoms);
        assert_eq!(*source.damage.lock().unwrap(), ["checksum mismatch"]);
    }

    #[test]
    fn a_changed_body_is_no_longer_the_stored_one() {
        let source = Arc::new(Counting::default());
        let mut body = Body::stored(source.clone(), 2, 2);
        body.symptoms.push_str(", then changed");
        let copy = body.clone();
        assert_eq!(copy.symptoms, "read at 2, 2 bytes, then changed");
        assert_eq!(source.reads.load(Ordering::SeqCst), 1);
        assert_eq!(Body::new(CaseBody::default()), Body::default());
    }
}
