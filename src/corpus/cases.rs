//! The cases of a library, decoded when they are used.
//!
//! A library parsed from its files holds every case already. A library opened from the on-disk
//! cache (`crate::store::cache`) holds none at first: a search that shows ten results decodes ten case
//! heads (`cases[i]`, [`Cases::get`]), and only what needs every case at once — listing them all,
//! building the graph, an iteration — decodes them all ([`Cases::all`], or through `Deref` to
//! `[Case]`), once, on several threads. So a warm start of 100,000 cases costs what the first
//! screen shows, not what the library holds.
//!
//! `len`, `is_empty`, `get` and indexing never decode more than the case asked for; every other
//! slice method (`iter`, `first`, `windows`, ...) goes through `Deref` and sees every case.

use std::{
    fmt,
    ops::{Deref, DerefMut, Index, IndexMut},
    sync::{Arc, OnceLock},
};

use super::model::Case;

/// Where stored cases are decoded from.
pub trait CaseSource: Send + Sync {
    /// The number of cases.
    fn len(&self) -> usize;

    /// Whether there is no case.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decode case `i` (below `len`).
    fn case(&self, i: usize) -> Case;

    /// Decode every case, in order (on several threads where that is faster).
    fn all(&self) -> Vec<Case>;
}

/// The cases of a library, newest first; see the module docs.
pub struct Cases {
    /// Every case, once decoded (from the start for a library read from its files).
    all: OnceLock<Vec<Case>>,
    /// Cases decoded one at a time before `all` was needed; empty for a library read from its files.
    single: Vec<OnceLock<Box<Case>>>,
    source: Option<Arc<dyn CaseSource>>,
}

impl Cases {
    /// Cases decoded from `source` when used.
    pub fn stored(source: Arc<dyn CaseSource>) -> Cases {
        let single = (0..source.len()).map(|_| OnceLock::new()).collect();
        Cases { all: OnceLock::new(), single, source: Some(source) }
    }

    /// The number of cases.
    pub fn len(&self) -> usize {
        match (self.all.get(), &self.source) {
            (Some(all), _) => all.len(),
            (None, Some(_)) => self.single.len(),
            (None, None) => 0,
        }
    }

    /// Whether there is no case.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Case `i`, decoding it alone if the cases are not all decoded yet.
    pub fn get(&self, i: usize) -> Option<&Case> {
        if let Some(all) = self.all.get() {
            return all.get(i);
        }
        let (cell, source) = (self.single.get(i)?, self.source.as_ref()?);
        Some(cell.get_or_init(|| Box::new(source.case(i))))
    }

    /// Whether every case is decoded (from the start for a library read from its files).
    pub fn all_decoded(&self) -> bool {
        self.all.get().is_some()
    }

    /// Every case, decoding them all the first time.
    pub fn all(&self) -> &[Case] {
        self.all.get_or_init(|| self.source.as_ref().map(|s| s.all()).unwrap_or_default())
    }

    /// Every case, to change; decodes them all first.
    pub fn all_mut(&mut self) -> &mut Vec<Case> {
        self.all();
        // Changed, the cases decoded one at a time are out of date.
        self.single.clear();
        self.source = None;
        match self.all.get_mut() {
            Some(all) => all,
            None => unreachable!("`all` filled the cell"),
        }
    }

    /// The cases as a vector.
    pub fn into_vec(mut self) -> Vec<Case> {
        std::mem::take(self.all_mut())
    }
}

impl From<Vec<Case>> for Cases {
    fn from(cases: Vec<Case>) -> Cases {
        Cases { all: OnceLock::from(cases), single: Vec::new(), source: None }
    }
}

impl Default for Cases {
    fn default() -> Self {
        Cases::from(Vec::new())
    }
}

impl Clone for Cases {
    fn clone(&self) -> Self {
        match &self.source {
            Some(source) if self.all.get().is_none() => Cases::stored(source.clone()),
            _ => Cases::from(self.all().to_vec()),
        }
    }
}

impl Deref for Cases {
    type Target = [Case];

    fn deref(&self) -> &[Case] {
        self.all()
    }
}

impl DerefMut for Cases {
    fn deref_mut(&mut self) -> &mut [Case] {
        self.all_mut()
    }
}

impl Index<usize> for Cases {
    type Output = Case;

    fn index(&self, i: usize) -> &Case {
        match self.get(i) {
            Some(case) => case,
            None => panic!("case {i} of {}", self.len()),
        }
    }
}

/// Ranges index every case (as slices do); a single position decodes one case.
macro_rules! index_ranges {
    ($($range:ty),*) => {$(
        impl Index<$range> for Cases {
            type Output = [Case];

            fn index(&self, range: $range) -> &[Case] {
                &self.all()[range]
            }
        }
    )*};
}

index_ranges!(
    std::ops::Range<usize>,
    std::ops::RangeTo<usize>,
    std::ops::RangeFrom<usize>,
    std::ops::RangeInclusive<usize>,
    std::ops::RangeFull
);

impl IndexMut<usize> for Cases {
    fn index_mut(&mut self, i: usize) -> &mut Case {
        &mut self.all_mut()[i]
    }
}

impl<'a> IntoIterator for &'a Cases {
    type Item = &'a Case;
    type IntoIter = std::slice::Iter<'a, Case>;

    fn into_iter(self) -> Self::IntoIter {
        self.all().iter()
    }
}

impl serde::Serialize for Cases {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.all().serialize(s)
    }
}

impl PartialEq for Cases {
    fn eq(&self, other: &Cases) -> bool {
        self.all() == other.all()
    }
}

impl fmt::Debug for Cases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.all()).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Cases whose titles say how they were decoded.
    #[derive(Default)]
    struct Counting {
        singles: AtomicUsize,
        alls: AtomicUsize,
    }

    fn case(i: usize, how: &str) -> Case {
        let mut case = crate::corpus::model::test_case(&format!("case-{i}"), &[]);
        case.title = format!("{how} {i}");
        case
    }

    impl CaseSource for Counting {
        fn len(&self) -> usize {
            5
        }
        fn case(&self, i: usize) -> Case {
            self.singles.fetch_add(1, Ordering::SeqCst);
            case(i, "single")
        }
        fn all(&self) -> Vec<Case> {
            self.alls.fetch_add(1, Ordering::SeqCst);
            (0..5).map(|i| case(i, "all")).collect()
        }
    }

    #[test]
    fn one_case_is_decoded_alone_and_only_once() {
        let source = Arc::new(Counting::default());
        let cases = Cases::stored(source.clone());
        assert_eq!(cases.len(), 5);
        assert_eq!(cases[3].title, "single 3");
        assert_eq!(cases.get(3).map(|c| c.id.as_str()), Some("case-3"));
        assert!(cases.get(5).is_none());
        assert_eq!(source.singles.load(Ordering::SeqCst), 1);
        assert_eq!(source.alls.load(Ordering::SeqCst), 0, "nothing else is decoded");
        assert!(!cases.all_decoded());
    }

    #[test]
    fn slice_methods_decode_every_case_once() {
        let source = Arc::new(Counting::default());
        let cases = Cases::stored(source.clone());
        let _ = &cases[1];
        assert_eq!(cases.iter().count(), 5);
        assert_eq!(cases.first().map(|c| c.title.as_str()), Some("all 0"));
        assert_eq!(cases[1..3].len(), 2);
        assert_eq!(cases[..].len(), 5);
        assert_eq!(cases[1].title, "all 1", "once all are decoded, indexing reads them");
        assert_eq!(source.alls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn cases_in_memory_and_changed_cases_read_the_same() {
        let source = Arc::new(Counting::default());
        let mut cases = Cases::stored(source);
        let copy = cases.clone();
        cases[0].title = "changed".into();
        assert_eq!(cases[0].title, "changed");
        assert_ne!(cases, copy);
        let vec = cases.clone().into_vec();
        assert_eq!(Cases::from(vec.clone()), cases);
        assert_eq!(vec.len(), 5);
        assert!(Cases::default().is_empty());
    }
}
