//! Training progress records: the step lines a training job prints every few iterations
//! (`iteration 1999/500000 | lm loss: 2.1E+00 | learning rate: 3E-04 | number of nan
//! iterations: 0 |`, `{'loss': 2.1, 'grad_norm': 0.3, 'learning_rate': 1e-4}`). They carry the
//! words of facets (`loss scale`, `learning rate`, `nan iterations`) on every line of a healthy
//! run, so a log's salience (`logs::salience`) weighs one as routine unless it reports trouble:
//! a loss or norm that is `nan` or `inf`, or a count of NaN or skipped iterations above zero.
//! Pure functions of the line.

/// Keys that make a line of `key: number` pairs a training step's record.
const METRIC_KEYS: &[&str] =
    &["loss", "learning rate", "learning_rate", "lr", "grad norm", "grad_norm", "perplexity", "ppl"];

/// Counters of a step record that are trouble when above zero.
const TROUBLE_COUNTS: &[&str] = &["nan iterations", "skipped iterations", "nan steps", "skipped steps"];

/// Whether `message` is a step record of a healthy run: at least two `key: number` (or
/// `key=number`) pairs, a loss, learning rate or gradient norm among the keys, and nothing in it
/// that reports trouble ([`reports_trouble`]).
pub fn is_routine_progress(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    let metric = METRIC_KEYS.iter().any(|key| has_word(&lower, key));
    metric && pairs(&lower).count() >= 2 && !reports_trouble(&lower)
}

/// Whether a step record (lowercased) reports trouble: a value that is `nan` or `inf`, or a
/// count of NaN or skipped iterations above zero.
fn reports_trouble(lower: &str) -> bool {
    let not_finite = pairs(lower).any(not_finite);
    let counted = TROUBLE_COUNTS.iter().any(|counter| {
        lower.match_indices(counter).any(|(at, _)| {
            let rest = lower[at + counter.len()..].trim_start_matches([' ', ':', '=', '\'', '"']);
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            rest[..digits].parse::<u64>().is_ok_and(|n| n > 0)
        })
    });
    not_finite || counted
}

/// The values of the `key: value` and `key=value` pairs of `lower` whose key ends in a letter
/// or `)` (`time (ms): 12`) and whose value is a number, `nan` or `inf`: a timestamp's
/// `12:30:45` is no pair.
fn pairs(lower: &str) -> impl Iterator<Item = &str> {
    lower.match_indices([':', '=']).filter_map(|(at, _)| {
        let before = lower[..at].trim_end_matches([' ', '\'', '"']);
        let key_ends_right = before.bytes().last().is_some_and(|b| b.is_ascii_alphabetic() || b == b')');
        let value = lower[at + 1..].trim_start_matches([' ', '\'', '"']);
        let number = |v: &str| {
            let v = v.trim_start_matches(['-', '+']);
            v.starts_with(|c: char| c.is_ascii_digit())
                || (v.starts_with('.') && v[1..].starts_with(|c: char| c.is_ascii_digit()))
        };
        (key_ends_right && (number(value) || not_finite(value))).then_some(value)
    })
}

/// Whether a pair's value is `nan` or (signed) `inf`.
fn not_finite(value: &str) -> bool {
    value.starts_with("nan") || value.trim_start_matches(['-', '+']).starts_with("inf")
}

/// Whether `word` occurs in `text` not as part of a longer word.
fn has_word(text: &str, word: &str) -> bool {
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    text.match_indices(word).any(|(at, _)| {
        !alnum(text[..at].chars().next_back()) && !alnum(text[at + word.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEGATRON: &str = " iteration     1999/  500000 | consumed samples:      4093952 | elapsed time per iteration (ms): 8123.4 | learning rate: 2.999E-04 | global batch size:  2048 | lm loss: 2.145E+00 | loss scale: 1.0 | grad norm: 0.231 | number of skipped iterations:   0 | number of nan iterations:   0 |";

    #[test]
    fn step_records_of_a_healthy_run_are_routine() {
        assert!(is_routine_progress(MEGATRON));
        assert!(is_routine_progress(
            "{'loss': 2.1034, 'grad_norm': 0.331, 'learning_rate': 9.8e-05, 'epoch': 0.42}"
        ));
        assert!(is_routine_progress("[rank0]: step 120 | loss: 2.31 | lr: 1.0e-04 | grad_norm: 0.41"));
        assert!(is_routine_progress(
            "Epoch 0: 45%|####| 450/1000 [01:02<01:10, 1.45it/s, loss=2.1, v_num=12]"
        ));
    }

    #[test]
    fn step_records_that_report_trouble_are_not() {
        let nan = MEGATRON.replace("number of nan iterations:   0", "number of nan iterations:   3");
        assert!(!is_routine_progress(&nan));
        let skipped = MEGATRON.replace("skipped iterations:   0", "skipped iterations:  12");
        assert!(!is_routine_progress(&skipped));
        assert!(!is_routine_progress("step 120 | loss: nan | lr: 1.0e-04 | grad_norm: inf"));
        assert!(!is_routine_progress("{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1e-05}"));
    }

    #[test]
    fn other_lines_with_pairs_are_not_step_records() {
        assert!(!is_routine_progress(
            "Out of memory: Killed process 4242 (python) total-vm:98765432kB, anon-rss:87654321kB"
        ));
        assert!(!is_routine_progress("2024-05-01 12:30:45 loss of heartbeat from rank 3"));
        assert!(!is_routine_progress("RuntimeError: CUDA error: an illegal memory access was encountered"));
        assert!(!is_routine_progress("slowloss: 3, blr: 4"), "keys inside longer words do not count");
    }
}
