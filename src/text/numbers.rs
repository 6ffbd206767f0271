//! Numbers as people read them: counts grouped by thousands (`100,228`) and sizes (`2.1 MB`), the
//! same in the terminal UI, the command line's text and its JSON sentences.

/// `n` with its thousands grouped by commas: `41,203`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size in bytes as people write it: `2.1 MB`, `840.0 KB`, `12 B` (decimal units).
pub fn bytes(bytes: u64) -> String {
    const UNITS: [(&str, f64); 3] = [("GB", 1e9), ("MB", 1e6), ("KB", 1e3)];
    for (unit, size) in UNITS {
        if bytes as f64 >= size {
            return format!("{:.1} {unit}", bytes as f64 / size);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        for (n, want) in [(0, "0"), (999, "999"), (1000, "1,000"), (41203, "41,203"), (1234567, "1,234,567")]
        {
            assert_eq!(thousands(n), want);
        }
    }

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(bytes(12), "12 B");
        assert_eq!(bytes(2_100_000), "2.1 MB");
        assert_eq!(bytes(1_500_000_000), "1.5 GB");
    }
}
