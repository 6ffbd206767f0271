//! A set of cases as a bitset over their positions in `Library::cases`.
//!
//! Filters, result sets, per-value facet sets and the counts the UI shows are all intersections
//! and population counts of these sets, which keeps a keystroke cheap at 100,000 cases. The set
//! knows its capacity (the library's size); positions at or beyond it are never members.

/// A set of case positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseSet {
    words: Vec<u64>,
    len: usize,
}

impl CaseSet {
    /// The empty set over `len` cases.
    pub fn empty(len: usize) -> CaseSet {
        CaseSet { words: vec![0; len.div_ceil(64)], len }
    }

    /// Every case of `len`.
    pub fn full(len: usize) -> CaseSet {
        let mut set = CaseSet { words: vec![u64::MAX; len.div_ceil(64)], len };
        set.clear_tail();
        set
    }

    fn clear_tail(&mut self) {
        let rest = self.len % 64;
        if rest != 0
            && let Some(last) = self.words.last_mut()
        {
            *last &= (1u64 << rest) - 1;
        }
    }

    /// The set as 64-bit words, case `i` at bit `i % 64` of word `i / 64` (to store it).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The set [`CaseSet::words`] gave for `len` cases; `None` when the words do not fit `len`.
    pub fn from_words(len: usize, words: Vec<u64>) -> Option<CaseSet> {
        if words.len() != len.div_ceil(64) {
            return None;
        }
        let mut set = CaseSet { words, len };
        set.clear_tail();
        Some(set)
    }

    /// The number of cases the set ranges over (not the number of members).
    pub fn capacity(&self) -> usize {
        self.len
    }

    /// Add case `i`; positions out of range are ignored.
    pub fn insert(&mut self, i: usize) {
        if i < self.len {
            self.words[i / 64] |= 1 << (i % 64);
        }
    }

    /// Remove case `i`.
    pub fn remove(&mut self, i: usize) {
        if i < self.len {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Whether case `i` is a member.
    pub fn contains(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// The number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether there is no member.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Keep only the members of `other` too.
    pub fn intersect_with(&mut self, other: &CaseSet) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter().chain(std::iter::repeat(&0))) {
            *a &= b;
        }
    }

    /// Drop the members of `other`.
    pub fn subtract(&mut self, other: &CaseSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// Add the members of `other`.
    pub fn union_with(&mut self, other: &CaseSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
        self.clear_tail();
    }

    /// The size of the intersection with `other`, without building it.
    pub fn intersection_count(&self, other: &CaseSet) -> usize {
        self.words.iter().zip(&other.words).map(|(a, b)| (a & b).count_ones() as usize).sum()
    }

    /// The members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let bit = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + bit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::CaseSet;

    #[test]
    fn set_operations_agree_with_a_naive_model() {
        for len in [0, 1, 63, 64, 65, 130] {
            let full = CaseSet::full(len);
            assert_eq!(full.count(), len, "full set of {len}");
            assert_eq!(full.iter().collect::<Vec<_>>(), (0..len).collect::<Vec<_>>());
            let mut odd = CaseSet::empty(len);
            let mut threes = CaseSet::empty(len);
            for i in 0..len + 5 {
                if i % 2 == 1 {
                    odd.insert(i);
                }
                if i % 3 == 0 {
                    threes.insert(i);
                }
            }
            let both = (0..len).filter(|i| i % 2 == 1 && i % 3 == 0).count();
            assert_eq!(odd.intersection_count(&threes), both);
            let mut and = odd.clone();
            and.intersect_with(&threes);
            assert_eq!(and.count(), both);
            let mut or = odd.clone();
            or.union_with(&threes);
            assert_eq!(or.count(), (0..len).filter(|i| i % 2 == 1 || i % 3 == 0).count());
            let mut minus = odd.clone();
            minus.subtract(&threes);
            assert_eq!(minus.count(), (0..len).filter(|i| i % 2 == 1 && i % 3 != 0).count());
            assert!(!odd.contains(len), "positions past the end are never members");
        }
    }

    #[test]
    fn insert_remove_and_emptiness() {
        let mut s = CaseSet::empty(10);
        assert!(s.is_empty());
        s.insert(3);
        s.insert(99);
        assert!(s.contains(3) && !s.contains(99));
        s.remove(3);
        assert!(s.is_empty());
        assert_eq!(s.capacity(), 10);
    }
}
