//! Calendar arithmetic on epoch milliseconds. Pure: the caller passes `now`.

const DAY_MS: i64 = 86_400_000;

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of an epoch day.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Epoch ms of a UTC date-time; `None` when a field is out of range.
pub fn utc_ms(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32) -> Option<i64> {
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some(
        days * DAY_MS
            + i64::from(h) * 3_600_000
            + i64::from(mi) * 60_000
            + i64::from(s) * 1000
            + i64::from(ms),
    )
}

/// Parses `YYYY-MM-DD[T| ]HH:MM[:SS[.fff]][Z|UTC|±HH[:]MM]`; no zone means UTC.
pub fn parse_iso(text: &str) -> Option<i64> {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() < 16
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> { t.get(r)?.parse().ok() };
    let y = i64::from(num(0..4)?);
    let (mo, d, h, mi) = (num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?);
    let mut rest = &t[16..];
    let mut s = 0;
    let mut frac_ms = 0;
    if let Some(r) = rest.strip_prefix(':') {
        s = r.get(0..2)?.parse().ok()?;
        rest = &r[2..];
        if let Some(r) = rest.strip_prefix('.') {
            let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
            rest = &r[digits.len()..];
            let padded = format!("{digits:0<3}");
            frac_ms = padded.get(0..3)?.parse().ok()?;
        }
    }
    let base = utc_ms(y, mo, d, h, mi, s, frac_ms)?;
    let zone = rest.trim();
    let offset_min: i64 =
        if zone.is_empty() || zone.eq_ignore_ascii_case("z") || zone.eq_ignore_ascii_case("utc") {
            0
        } else {
            let (sign, digits) = match zone.as_bytes()[0] {
                b'+' => (1, &zone[1..]),
                b'-' => (-1, &zone[1..]),
                _ => return None,
            };
            let digits: String = digits.chars().filter(|c| *c != ':').collect();
            if digits.len() != 4 || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let hh: i64 = digits[0..2].parse().ok()?;
            let mm: i64 = digits[2..4].parse().ok()?;
            sign * (hh * 60 + mm)
        };
    Some(base - offset_min * 60_000)
}

/// Milliseconds until the next daily reset at `hour_utc`; a result above 25 h or not positive
/// becomes 24 h, as in the reference.
pub fn ms_until_daily_reset(now_ms: i64, hour_utc: u8) -> u64 {
    let day_start = now_ms.div_euclid(DAY_MS).saturating_mul(DAY_MS);
    let mut reset = day_start.saturating_add(i64::from(hour_utc) * 3_600_000);
    if reset <= now_ms {
        reset = reset.saturating_add(DAY_MS);
    }
    let wait = reset.saturating_sub(now_ms);
    if wait <= 0 || wait > 25 * 3_600_000 {
        DAY_MS as u64
    } else {
        wait as u64
    }
}

/// The year of an epoch instant (for year-less "MM-DD HH:MM UTC" resets).
pub fn year_of(ms: i64) -> i64 {
    civil_from_days(ms.div_euclid(DAY_MS)).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-1000, 0, 1, 59, 365, 10_957, 20_000, 30_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(utc_ms(2026, 11, 30, 0, 0, 0, 0), Some(1_795_996_800_000));
    }

    #[test]
    fn iso_forms() {
        let base = utc_ms(2026, 11, 30, 12, 0, 0, 0).expect("valid");
        assert_eq!(parse_iso("2026-11-30T12:00:00Z"), Some(base));
        assert_eq!(parse_iso("2026-11-30 12:00"), Some(base));
        assert_eq!(parse_iso("2026-11-30T14:00:00+0200"), Some(base));
        assert_eq!(parse_iso("2026-11-30T14:00:00+02:00"), Some(base));
        assert_eq!(parse_iso("2026-11-30T12:00:00.500Z"), Some(base + 500));
        assert_eq!(parse_iso("2026-13-30T12:00:00Z"), None);
        assert_eq!(parse_iso("not a date at all"), None);
    }

    #[test]
    fn daily_reset_wait() {
        let noon = utc_ms(2026, 11, 30, 12, 0, 0, 0).expect("valid");
        assert_eq!(ms_until_daily_reset(noon, 0), 12 * 3_600_000);
        assert_eq!(ms_until_daily_reset(noon, 13), 3_600_000);
        let midnight = utc_ms(2026, 11, 30, 0, 0, 0, 0).expect("valid");
        assert_eq!(ms_until_daily_reset(midnight, 0), 86_400_000);
        assert_eq!(ms_until_daily_reset(i64::MAX, 23), 86_400_000);
        assert_eq!(ms_until_daily_reset(i64::MIN, 0), 86_400_000);
    }
}
