//! Trace-driven error model: a file of error intervals, each `start,end[,per]`
//! in seconds, one per line (CSV). Inside an interval a packet is lost with
//! the interval's PER (1.0 when the column is left out), outside none is.
//! Lets a recorded channel (or bursts placed by hand, e.g. the TRANSAT paper's
//! Fig. 7 burst at t = 4.2 s) be replayed exactly.
//!
//! Format choices: `#` starts a comment line; blank lines are skipped; an
//! optional first line `start,end` or `start,end,per` is a header; intervals
//! must be in increasing order and must not overlap (touching is allowed);
//! end > start; per in [0, 1]. The parser reports the line number of the
//! first problem. A relative path is resolved against the scenario file's
//! directory (`scenario::parse_toml_in`), or the working directory when the
//! scenario came as text.

use crate::scenario::ErrorInterval;
use crate::sim::{Rng, Time};

/// Parse the text of a trace file. Errors name the 1-based line.
pub fn parse_intervals(text: &str) -> Result<Vec<ErrorInterval>, String> {
    let mut out: Vec<ErrorInterval> = Vec::new();
    let mut first = true;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if first && cols.first() == Some(&"start") {
            first = false;
            continue;
        }
        first = false;
        if cols.len() != 2 && cols.len() != 3 {
            return Err(format!("line {n}: expected start,end or start,end,per (got {line:?})"));
        }
        let num = |s: &str, what: &str| -> Result<f64, String> {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("line {n}: {what} {s:?} is not a number"))
        };
        let start = num(cols[0], "start")?;
        let end = num(cols[1], "end")?;
        let per = if cols.len() == 3 { num(cols[2], "per")? } else { 1.0 };
        if start < 0.0 {
            return Err(format!("line {n}: start {start} is negative"));
        }
        if end <= start {
            return Err(format!("line {n}: end {end} must be greater than start {start}"));
        }
        if !(0.0..=1.0).contains(&per) {
            return Err(format!("line {n}: per {per} must be in [0, 1]"));
        }
        let to_ns = |s: f64| (s * 1e9).round() as u64;
        let iv = ErrorInterval { start_ns: to_ns(start), end_ns: to_ns(end), per };
        if let Some(prev) = out.last() {
            if iv.start_ns < prev.end_ns {
                return Err(format!(
                    "line {n}: interval starting at {start} s begins before the previous one ends ({} s); \
                     intervals must be sorted and must not overlap",
                    prev.end_ns as f64 / 1e9
                ));
            }
        }
        out.push(iv);
    }
    Ok(out)
}

pub struct ErrorTrace {
    intervals: std::sync::Arc<[ErrorInterval]>,
    /// First interval that has not ended before the last query.
    next: usize,
    losses: Rng,
}

impl ErrorTrace {
    pub fn new(intervals: std::sync::Arc<[ErrorInterval]>, losses: Rng) -> Self {
        ErrorTrace { intervals, next: 0, losses }
    }

    /// The PER at `t` (non-decreasing from call to call), and whether `t` is
    /// inside an interval.
    pub fn per_at(&mut self, t: Time) -> Option<f64> {
        while self.next < self.intervals.len() && self.intervals[self.next].end_ns <= t {
            self.next += 1;
        }
        self.intervals.get(self.next).filter(|iv| iv.start_ns <= t).map(|iv| iv.per)
    }

    /// (lost, inside an interval) for a packet looked at `t`.
    pub fn judge(&mut self, t: Time) -> (bool, bool) {
        match self.per_at(t) {
            None => (false, false),
            Some(p) => (p >= 1.0 || (p > 0.0 && self.losses.bernoulli(p)), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_intervals_with_comments_header_and_default_per() {
        let iv = parse_intervals("# bursts\nstart,end,per\n4.2,4.5\n\n6,6.25,0.25\n").unwrap();
        assert_eq!(
            iv,
            vec![
                ErrorInterval { start_ns: 4_200_000_000, end_ns: 4_500_000_000, per: 1.0 },
                ErrorInterval { start_ns: 6_000_000_000, end_ns: 6_250_000_000, per: 0.25 },
            ]
        );
    }

    #[test]
    fn malformed_lines_are_reported_with_their_number() {
        let err = |t: &str| parse_intervals(t).unwrap_err();
        assert_eq!(err("1,2\n3\n"), "line 2: expected start,end or start,end,per (got \"3\")");
        assert_eq!(err("1,x"), "line 1: end \"x\" is not a number");
        assert_eq!(err("# c\n2,1"), "line 2: end 1 must be greater than start 2");
        assert_eq!(err("1,2,1.5"), "line 1: per 1.5 must be in [0, 1]");
        assert!(err("1,3\n2,4").starts_with("line 2: interval starting at 2 s begins before"));
        assert_eq!(err("-1,2"), "line 1: start -1 is negative");
    }

    #[test]
    fn lookups_walk_the_intervals() {
        let iv: std::sync::Arc<[ErrorInterval]> = parse_intervals("1,2\n2,3,0\n5,6,0.5").unwrap().into();
        let mut t = ErrorTrace::new(iv, Rng::new(1, 1));
        let s = 1_000_000_000;
        assert_eq!(t.per_at(0), None);
        assert_eq!(t.per_at(s), Some(1.0));
        assert_eq!(t.judge(2 * s - 1), (true, true));
        assert_eq!(t.judge(2 * s), (false, true), "second interval, per 0");
        assert_eq!(t.per_at(4 * s), None);
        let lost = (0..10_000).filter(|i| t.judge(5 * s + i).0).count();
        assert!((4700..5300).contains(&lost), "{lost}");
        assert_eq!(t.per_at(6 * s), None);
    }
}
