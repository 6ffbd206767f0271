//! The ranks a line was printed by: read from the launcher's prefix (`[rank3]:`,
//! `[default3]:`, mpirun's `[1,3]<stderr>:`, srun's `3: `) before the template folds them away,
//! and shown as ranges (`rank 3`, `ranks 0-63`, `ranks 0-3,17 and 4 more`), so the evidence says
//! which ranks failed while the same line from every rank stays one line.
//!
//! Bounded: at most [`MAX_RANKS`] distinct ranks are kept per line (a job of more ranks still
//! shows its first ranges and how many more there were).

/// Distinct ranks kept for one template.
pub const MAX_RANKS: usize = 1 << 14;

/// Ranges shown before "and N more".
const SHOWN_RANGES: usize = 4;

/// A set of ranks, sorted, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Ranks(Vec<u32>);

impl Ranks {
    /// Add `rank` (nothing past [`MAX_RANKS`] distinct ones).
    pub fn insert(&mut self, rank: u32) {
        // Lines come rank after rank: the common case is the last place.
        if self.0.last().is_some_and(|&last| last < rank) {
            if self.0.len() < MAX_RANKS {
                self.0.push(rank);
            }
            return;
        }
        if let Err(at) = self.0.binary_search(&rank)
            && self.0.len() < MAX_RANKS
        {
            self.0.insert(at, rank);
        }
    }

    /// Add every rank of `other`.
    pub fn extend(&mut self, other: &Ranks) {
        for &rank in &other.0 {
            self.insert(rank);
        }
    }

    /// Whether no rank is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The ranks, lowest first.
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }

    /// `rank 3`, `ranks 0-63`, `ranks 0-3,17,40-41`, `ranks 0,2,4,6 and 60 more`; empty when no
    /// rank is known.
    pub fn label(&self) -> String {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for &rank in &self.0 {
            match ranges.last_mut() {
                Some((_, end)) if end.checked_add(1) == Some(rank) => *end = rank,
                _ => ranges.push((rank, rank)),
            }
        }
        let shown: Vec<String> = ranges
            .iter()
            .take(SHOWN_RANGES)
            .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
            .collect();
        let hidden: usize = ranges.iter().skip(SHOWN_RANGES).map(|&(a, b)| (b - a) as usize + 1).sum();
        match (self.0.len(), hidden) {
            (0, _) => String::new(),
            (1, _) => format!("rank {}", self.0[0]),
            (_, 0) => format!("ranks {}", shown.join(",")),
            (_, more) => format!("ranks {} and {more} more", shown.join(",")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ranks;

    fn of(ranks: &[u32]) -> Ranks {
        let mut set = Ranks::default();
        for &r in ranks {
            set.insert(r);
        }
        set
    }

    #[test]
    fn ranks_show_as_ranges() {
        assert_eq!(of(&[]).label(), "");
        assert_eq!(of(&[3]).label(), "rank 3");
        assert_eq!(of(&[3, 3, 3]).label(), "rank 3");
        assert_eq!(of(&(0..64).rev().collect::<Vec<_>>()).label(), "ranks 0-63");
        assert_eq!(of(&[17, 0, 1, 2, 3, 41, 40]).label(), "ranks 0-3,17,40-41");
        assert_eq!(of(&(0..64).step_by(2).collect::<Vec<_>>()).label(), "ranks 0,2,4,6 and 28 more");
        assert_eq!(of(&[u32::MAX, u32::MAX - 1]).label(), format!("ranks {}-{}", u32::MAX - 1, u32::MAX));
    }

    #[test]
    fn the_set_is_bounded() {
        let many = of(&(0..(super::MAX_RANKS as u32 + 100)).collect::<Vec<_>>());
        assert_eq!(many.as_slice().len(), super::MAX_RANKS);
    }
}
