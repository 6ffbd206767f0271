//! Dates as case files give them: a year, a month or a day (`2024`, `2024-03`, `2024-03-02`),
//! ordered so that a less precise date sorts first within its period.

use std::{fmt, str::FromStr};

use serde::{Serialize, Serializer};

/// A date with optional month and day, as case files give them (`2024`, `2024-03`, `2024-03-02`).
///
/// Ordering puts less precise dates first within the same period, so `2024` < `2024-01`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartialDate {
    /// Year, 1900..=2999.
    pub year: u16,
    /// Month, 1..=12.
    pub month: Option<u8>,
    /// Day, valid for the month.
    pub day: Option<u8>,
}

impl PartialDate {
    /// The first day this date can mean (for `after:` comparisons).
    pub fn start(self) -> (u16, u8, u8) {
        (self.year, self.month.unwrap_or(1), self.day.unwrap_or(1))
    }

    /// The last day this date can mean (for `before:` comparisons).
    pub fn end(self) -> (u16, u8, u8) {
        let month = self.month.unwrap_or(12);
        (self.year, month, self.day.unwrap_or_else(|| days_in_month(self.year, month)))
    }
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl FromStr for PartialDate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || format!("'{}' is not a date (expected YYYY, YYYY-MM or YYYY-MM-DD)", crate::text::one_line(s));
        let parts: Vec<&str> = s.trim().split('-').collect();
        let number = |p: &str, len: usize| -> Result<u16, String> {
            if p.len() == len && p.bytes().all(|b| b.is_ascii_digit()) {
                p.parse().map_err(|_| bad())
            } else {
                Err(bad())
            }
        };
        let (year, month, day) = match parts.as_slice() {
            [y] => (number(y, 4)?, None, None),
            [y, m] => (number(y, 4)?, Some(number(m, 2)? as u8), None),
            [y, m, d] => (number(y, 4)?, Some(number(m, 2)? as u8), Some(number(d, 2)? as u8)),
            _ => return Err(bad()),
        };
        if !(1900..=2999).contains(&year) {
            return Err(format!("year {year} is out of range"));
        }
        if let Some(m) = month {
            if !(1..=12).contains(&m) {
                return Err(format!("month {m:02} is out of range in '{}'", s.trim()));
            }
            if let Some(d) = day
                && !(1..=days_in_month(year, m)).contains(&d)
            {
                return Err(format!("day {d:02} does not exist in {year}-{m:02}"));
            }
        }
        Ok(PartialDate { year, month, day })
    }
}

impl fmt::Display for PartialDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if let Some(m) = self.month {
            write!(f, "-{m:02}")?;
        }
        if let Some(d) = self.day {
            write!(f, "-{d:02}")?;
        }
        Ok(())
    }
}

impl Serialize for PartialDate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
