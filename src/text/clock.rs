//! Today's date, the one place incidex reads the clock for what it writes (an export's date), so
//! that `$SOURCE_DATE_EPOCH` makes every such output reproducible.

/// Today's date (UTC) as `YYYY-MM-DD`, or the date of `$SOURCE_DATE_EPOCH` when it holds
/// seconds since 1970 (the reproducible-builds convention, so exports can be compared).
pub fn today() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
                .unwrap_or(0)
        });
    date_of(seconds)
}

/// The UTC date of `seconds` since 1970 as `YYYY-MM-DD` (1970-01-01 when out of range).
pub fn date_of(seconds: i64) -> String {
    let date =
        time::OffsetDateTime::from_unix_timestamp(seconds).unwrap_or(time::OffsetDateTime::UNIX_EPOCH).date();
    format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day())
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_utc_calendar_days() {
        for (seconds, want) in [
            (0, "1970-01-01"),
            (951_782_400, "2000-02-29"),
            (1_735_689_599, "2024-12-31"),
            (1_735_689_600, "2025-01-01"),
            (i64::MAX, "1970-01-01"),
        ] {
            assert_eq!(super::date_of(seconds), want, "{seconds}");
        }
    }
}
