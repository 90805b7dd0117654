//! The trace files a link direction replays (`capacity_trace`,
//! `rate_trace`, `delay_trace`, `loss_trace`): their formats and the checks
//! made when a scenario is loaded. Every error names the 1-based line, the
//! value found there and what is allowed; the scenario parser adds the
//! file and the key (`scenario/parse/links.rs`).
//!
//! Formats:
//! * **Mahimahi delivery opportunities** (`capacity_trace`): one integer
//!   millisecond per line, non-decreasing, each line one opportunity to send
//!   1,504 bytes at that instant (a value repeated k times is k
//!   opportunities at once). Mahimahi's own checks are kept (`link_queue.cc`
//!   in ravinet/mahimahi and in LeoReplayer, SpaceNetLab/LeoCC
//!   `leoreplayer/replayer/src/frontend/link_queue.cc`): at least one line,
//!   timestamps never decrease, and the last is > 0 (it is the trace's
//!   period). Mahimahi refuses empty lines; here blank lines and lines
//!   starting with `#` are skipped (so a file can say where it comes from),
//!   which accepts every file Mahimahi accepts.
//! * **A value per fixed interval** (`delay_trace`, `loss_trace`): line i
//!   (counting only value lines) holds the value for [i x interval,
//!   (i + 1) x interval), as LeoReplayer's delay file (`traces/README.md`
//!   of SpaceNetLab/LeoCC: "Line 1: 24 -> 0-10 ms delay = 24 ms"). A delay
//!   is a number of milliseconds >= 0 (decimals allowed; LeoReplayer reads
//!   integers) or the word `down`: the path is out over that interval (see
//!   `net/link/service.rs`, "loss that follows the trace's outages"). A
//!   loss value is a probability in [0, 1].
//! * **Delay pairs** (`delay_trace` without `interval`): lines `t,delay`,
//!   `t` in seconds, the first 0, increasing; `delay` in milliseconds or
//!   `down`, in force from `t` to the next line (the last holds); an
//!   optional first line `t,delay` is a header.
//! * **A rate series** (`rate_trace`, satcp's own): lines `t,rate`, `t` in
//!   seconds (a plain number), `rate` written as the `rate` key is (`"12Mbps"`,
//!   a plain number is bits per second); the first `t` is 0, the times
//!   increase; an optional first line `t,rate` is a header.

/// Skip blank and `#` lines: (1-based line number, trimmed text).
fn value_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// A Mahimahi trace: the opportunities' instants in ms, in file order.
pub fn parse_opportunities(text: &str) -> Result<Vec<u64>, String> {
    let mut out: Vec<u64> = Vec::new();
    for (n, line) in value_lines(text) {
        let ms: u64 = line
            .parse()
            .map_err(|_| format!("line {n}: {line:?} is not allowed: a whole number of milliseconds >= 0 (one delivery opportunity of 1504 bytes)"))?;
        if let Some(&prev) = out.last() {
            if ms < prev {
                return Err(format!(
                    "line {n}: {ms} is not allowed: timestamps must be non-decreasing (the line before says {prev})"
                ));
            }
        }
        out.push(ms);
    }
    match out.last() {
        None => Err("no opportunities: the file needs at least one line with a millisecond timestamp".into()),
        Some(0) => Err("the last timestamp is 0: a trace must last a nonzero time (its last timestamp is its period)".into()),
        Some(_) => Ok(out),
    }
}

/// A delay series: ns per interval, None where the line says `down`.
pub fn parse_delays(text: &str) -> Result<Vec<Option<u64>>, String> {
    let mut out = Vec::new();
    for (n, line) in value_lines(text) {
        out.push(delay_value(n, line)?);
    }
    if out.is_empty() {
        return Err("no delays: the file needs at least one line (a delay in milliseconds per interval)".into());
    }
    if out.iter().all(Option::is_none) {
        return Err("every line says down: at least one interval needs a delay".into());
    }
    Ok(out)
}

/// One delay on line `n`: ns, or None for `down`.
fn delay_value(n: usize, v: &str) -> Result<Option<u64>, String> {
    if v == "down" {
        return Ok(None);
    }
    let ms: f64 = v
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("line {n}: {v:?} is not allowed: a one-way delay in milliseconds >= 0, or down (an outage)"))?;
    if ms < 0.0 {
        return Err(format!("line {n}: {v} is not allowed: a delay is >= 0 ms"));
    }
    Ok(Some((ms * 1e6).round() as u64))
}

/// A delay series of `t,delay` pairs: (from ns, delay ns or None for
/// `down`), the first from 0, times increasing.
pub fn parse_delay_pairs(text: &str) -> Result<Vec<(u64, Option<u64>)>, String> {
    let mut out: Vec<(u64, Option<u64>)> = Vec::new();
    let mut first = true;
    for (n, line) in value_lines(text) {
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if first && cols.len() == 2 && cols[0].starts_with('t') && cols[0].parse::<f64>().is_err() {
            first = false;
            continue;
        }
        first = false;
        let [t, delay] = cols[..] else {
            return Err(format!("line {n}: {line:?} is not allowed: two columns t,delay (t in seconds, delay in milliseconds or down)"));
        };
        let at = seconds(n, t)?;
        let delay = delay_value(n, delay)?;
        match out.last() {
            None if at != 0 => return Err(format!("line {n}: t {t} is not allowed: the first time is 0 (the delay from the start)")),
            Some(&(prev, _)) if at <= prev => {
                return Err(format!("line {n}: t {t} is not allowed: times increase (the line before says {} s)", prev as f64 / 1e9))
            }
            _ => {}
        }
        out.push((at, delay));
    }
    if out.is_empty() {
        return Err("no delays: the file needs at least one line t,delay".into());
    }
    if out.iter().all(|(_, d)| d.is_none()) {
        return Err("every line says down: at least one needs a delay".into());
    }
    Ok(out)
}

/// A time in seconds >= 0 on line `n`, in ns.
fn seconds(n: usize, t: &str) -> Result<u64, String> {
    t.parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
        .map(|s| (s * 1e9).round() as u64)
        .ok_or_else(|| format!("line {n}: t {t:?} is not allowed: a time in seconds >= 0"))
}

/// A loss series: a probability per interval.
pub fn parse_probabilities(text: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for (n, line) in value_lines(text) {
        let p: f64 = line
            .parse()
            .ok()
            .filter(|p: &f64| (0.0..=1.0).contains(p))
            .ok_or_else(|| format!("line {n}: {line:?} is not allowed: a loss probability in [0, 1]"))?;
        out.push(p);
    }
    if out.is_empty() {
        return Err("no probabilities: the file needs at least one line (a loss probability per interval)".into());
    }
    Ok(out)
}

/// A rate series: (from ns, bits per second), the first from 0.
pub fn parse_rates(text: &str) -> Result<Vec<(u64, u64)>, String> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut first = true;
    for (n, line) in value_lines(text) {
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if first && cols.first().is_some_and(|c| c.parse::<f64>().is_err()) && cols.len() == 2 && cols[0].starts_with('t') {
            first = false;
            continue;
        }
        first = false;
        let [t, rate] = cols[..] else {
            return Err(format!("line {n}: {line:?} is not allowed: two columns t,rate (t in seconds, rate as the rate key, e.g. 0.5,12Mbps)"));
        };
        let at = seconds(n, t)?;
        let bps = crate::scenario::units::parse_rate(rate)
            .map_err(|e| format!("line {n}: rate {rate:?} is not allowed: {} ({e})", crate::scenario::units::RATE_ALLOWED))?;
        match out.last() {
            None if at != 0 => return Err(format!("line {n}: t {t} is not allowed: the first time is 0 (the rate from the start)")),
            Some(&(prev, _)) if at <= prev => {
                return Err(format!("line {n}: t {t} is not allowed: times increase (the line before says {} s)", prev as f64 / 1e9))
            }
            _ => {}
        }
        out.push((at, bps));
    }
    if out.is_empty() {
        return Err("no rates: the file needs at least one line t,rate".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mahimahi_files_load_and_bad_ones_name_the_line() {
        assert_eq!(parse_opportunities("# synthetic\n1\n1\n\n3\n"), Ok(vec![1, 1, 3]));
        let e = parse_opportunities("1\n5\n4\n").unwrap_err();
        assert!(e.starts_with("line 3: 4 is not allowed") && e.contains("non-decreasing"), "{e}");
        let e = parse_opportunities("1\n-2\n").unwrap_err();
        assert!(e.starts_with("line 2: \"-2\""), "{e}");
        assert!(parse_opportunities("# nothing\n").unwrap_err().contains("no opportunities"));
        assert!(parse_opportunities("0\n0\n").unwrap_err().contains("nonzero time"));
    }

    #[test]
    fn series_files_check_each_value() {
        assert_eq!(parse_delays("24\n18.5\ndown\n"), Ok(vec![Some(24_000_000), Some(18_500_000), None]));
        let e = parse_delays("24\n-1\n").unwrap_err();
        assert!(e.starts_with("line 2: -1 is not allowed") && e.contains(">= 0"), "{e}");
        assert!(parse_delays("down\n").unwrap_err().contains("every line says down"));
        assert!(parse_delays("").unwrap_err().contains("no delays"));
        assert_eq!(parse_probabilities("0\n0.5\n1\n"), Ok(vec![0.0, 0.5, 1.0]));
        let e = parse_probabilities("0.1\n1.5\n").unwrap_err();
        assert!(e.starts_with("line 2: \"1.5\" is not allowed: a loss probability in [0, 1]"), "{e}");
        assert_eq!(parse_rates("t,rate\n0,10Mbps\n1.5,2000\n"), Ok(vec![(0, 10_000_000), (1_500_000_000, 2000)]));
        assert_eq!(parse_delay_pairs("t,delay\n0,24\n12.5,down\n13,30.5\n"), Ok(vec![(0, Some(24_000_000)), (12_500_000_000, None), (13_000_000_000, Some(30_500_000))]));
        let e = parse_delay_pairs("0,24\n1,-3\n").unwrap_err();
        assert!(e.starts_with("line 2: -3 is not allowed"), "{e}");
        assert!(parse_delay_pairs("0,24\n1,20\n1,30\n").unwrap_err().starts_with("line 3: t 1"));
        assert!(parse_rates("1,10Mbps\n").unwrap_err().contains("the first time is 0"));
        assert!(parse_rates("0,1Mbps\n0,2Mbps\n").unwrap_err().starts_with("line 2: t 0"));
        assert!(parse_rates("0,0Mbps\n").unwrap_err().starts_with("line 1: rate \"0Mbps\""));
    }
}
