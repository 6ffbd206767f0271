//! Numbers as people read them: counts grouped by thousands (`100,228`), the same in the
//! terminal UI, the command line's text and its JSON sentences.

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
}
