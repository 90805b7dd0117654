//! Quantities with units: rates, durations and sizes, written as a string
//! with a suffix (`"10Mbps"`, `"10 Mbps"`, `"250ms"`, `"64KiB"`) or as a plain
//! TOML number in the base unit (bps, seconds, bytes).
//!
//! Choices made here:
//! * Arithmetic is exact: the number is read as a decimal (digits and a power
//!   of ten) and multiplied by the unit's integer factor, so `"0.1ms"` is
//!   exactly 100_000 ns. A plain TOML float goes through its shortest decimal
//!   form (`0.25` -> `"0.25"`).
//! * The result must be a whole number of base units. A result within 1e-9
//!   (relative) of an integer is rounded to it; anything further off is an
//!   error, never silently truncated.
//! * Suffixes are case-sensitive (`mB` is not `MB`); prefixes are decimal
//!   except the `KiB`/`MiB`/`GiB` sizes.
//! * NaN, infinities, negative numbers, empty strings, unknown suffixes and
//!   anything that is not `<number><optional spaces><unit>` are rejected.

use super::ScenarioError;
use toml::Value;

/// What a rate may look like (used as `allowed` in errors).
pub const RATE_ALLOWED: &str =
    "a rate > 0 with unit bps, kbps (or Kbps), Mbps or Gbps (plain numbers are bps), e.g. \"10Mbps\"";
/// What a duration may look like (used as `allowed` in errors).
pub const DURATION_ALLOWED: &str =
    "a duration >= 0 with unit ns, us, ms or s (plain numbers are seconds), e.g. \"250ms\"";
/// What a size may look like (used as `allowed` in errors).
pub const SIZE_ALLOWED: &str =
    "a size >= 0 with unit B, KB (or kB), MB, GB, KiB, MiB or GiB (plain integers are bytes), e.g. \"64KB\"";

/// Rate units -> factor in bits per second (decimal prefixes).
const RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("kbps", 1_000),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
];

/// Duration units -> factor in nanoseconds.
const DURATION_UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
];

/// Size units -> factor in bytes. Note: `KB`/`kB` = 10^3, `MB` = 10^6 and
/// `GB` = 10^9 bytes (SI, as link and file sizes are usually quoted);
/// `KiB` = 1024, `MiB` = 1024^2, `GiB` = 1024^3 bytes.
const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

/// Parse a rate string (`"2048kbps"`, `"10 Mbps"`, `"9600"`) to bits per
/// second. Must be > 0. The error is a short reason.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let v = parse_quantity(s, RATE_UNITS, 1, "bps")?;
    if v == 0 {
        return Err("a rate must be > 0".into());
    }
    Ok(v)
}

/// Parse a duration string (`"250ms"`, `"1.5 s"`, `"0.25"` = seconds) to
/// nanoseconds. Must be >= 0; callers check stricter bounds.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    parse_quantity(s, DURATION_UNITS, 1_000_000_000, "ns")
}

/// Parse a size string (`"50MB"`, `"64 KiB"`, `"1460"` = bytes) to bytes.
/// `MB` means 10^6 bytes and `MiB` 2^20 bytes. Must be >= 0; callers check
/// stricter bounds.
pub fn parse_size(s: &str) -> Result<u64, String> {
    parse_quantity(s, SIZE_UNITS, 1, "bytes")
}

/// A rate from a TOML value (string with unit, or plain number of bps).
pub fn rate_bps(path: &str, v: &Value) -> Result<u64, ScenarioError> {
    from_value(path, v, RATE_ALLOWED, parse_rate)
}

/// A duration from a TOML value (string with unit, or plain number of
/// seconds), in nanoseconds.
pub fn duration_ns(path: &str, v: &Value) -> Result<u64, ScenarioError> {
    from_value(path, v, DURATION_ALLOWED, parse_duration)
}

/// A size from a TOML value (string with unit, or plain integer of bytes),
/// in bytes. `MB` = 10^6 bytes.
pub fn size_bytes(path: &str, v: &Value) -> Result<u64, ScenarioError> {
    from_value(path, v, SIZE_ALLOWED, parse_size)
}

fn from_value(
    path: &str,
    v: &Value,
    allowed: &str,
    parse: fn(&str) -> Result<u64, String>,
) -> Result<u64, ScenarioError> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        // `{}` on f64 is the shortest decimal that reads back as the same
        // float, without an exponent; NaN/inf print as "NaN"/"inf" and are
        // then rejected by the parser.
        Value::Float(f) => format!("{}", f),
        other => {
            return Err(ScenarioError::new(
                path,
                show(other),
                format!("expected {} (got {})", allowed, a_type(other)),
            ))
        }
    };
    parse(&text).map_err(|why| ScenarioError::new(path, show(v), format!("{}; expected {}", why, allowed)))
}

/// The value's TOML type with its article: "an integer", "a string".
pub(crate) fn a_type(v: &Value) -> String {
    let t = v.type_str();
    let article = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{} {}", article, t)
}

/// A value as the user wrote it, for error messages: strings quoted, tables
/// inline, floats in Rust's shortest form (`1e-7`, not `0.0000001`).
pub(crate) fn show(v: &Value) -> String {
    match v {
        Value::Float(f) => format!("{:?}", f),
        other => other.to_string(),
    }
}

/// A non-negative decimal number: `mantissa * 10^exp10`.
struct Decimal {
    mantissa: u128,
    exp10: i32,
}

/// Split `s` into a number and a unit, and return number x factor(unit) in
/// base units. `plain_factor` is used when there is no unit.
fn parse_quantity(s: &str, units: &[(&str, u128)], plain_factor: u128, base: &str) -> Result<u64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty value".into());
    }
    let (num, rest) = split_number(s).ok_or_else(|| format!("{:?} does not start with a number", s))?;
    let unit = rest.trim_start();
    let factor = if unit.is_empty() {
        plain_factor
    } else {
        match units.iter().find(|(u, _)| *u == unit) {
            Some((_, f)) => *f,
            None => return Err(format!("unknown unit {:?}", unit)),
        }
    };
    if num.starts_with('-') {
        return Err("negative values are not allowed".into());
    }
    let d = parse_decimal(num).ok_or_else(|| format!("{:?} is not a number in range", num))?;
    to_integer(&d, factor).ok_or_else(|| format!("{} is not a whole number of {} in range", s, base))
}

/// The longest prefix of `s` that is a decimal number: optional sign,
/// digits, optional fraction, optional exponent (only if digits follow the
/// `e`). Returns None if there are no digits at all.
fn split_number(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - frac_start;
        i = j;
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_digits_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_digits_start {
            i = j;
        }
    }
    Some((&s[..i], &s[i..]))
}

/// Parse a number that `split_number` accepted (sign already rejected if
/// negative) into an exact decimal.
fn parse_decimal(num: &str) -> Option<Decimal> {
    let num = num.strip_prefix('+').unwrap_or(num);
    let (body, exp) = match num.find(['e', 'E']) {
        Some(k) => (&num[..k], num[k + 1..].parse::<i32>().ok()?),
        None => (num, 0),
    };
    if !(-400..=400).contains(&exp) {
        return None;
    }
    let (int_part, frac_part) = match body.find('.') {
        Some(k) => (&body[..k], &body[k + 1..]),
        None => (body, ""),
    };
    let frac_part = frac_part.trim_end_matches('0');
    let mut mantissa: u128 = 0;
    for c in int_part.bytes().chain(frac_part.bytes()) {
        mantissa = mantissa.checked_mul(10)?.checked_add(u128::from(c - b'0'))?;
    }
    Some(Decimal { mantissa, exp10: exp - frac_part.len() as i32 })
}

/// `d * factor` as a u64, if it is (within 1e-9 relative) a whole number.
fn to_integer(d: &Decimal, factor: u128) -> Option<u64> {
    if d.mantissa == 0 {
        return Some(0);
    }
    let num = d.mantissa.checked_mul(factor)?;
    let value: u128 = if d.exp10 >= 0 {
        num.checked_mul(10u128.checked_pow(d.exp10 as u32)?)?
    } else {
        let den = 10u128.checked_pow((-d.exp10) as u32)?;
        let q = num / den;
        let r = num % den;
        let (nearest, off) = if r * 2 >= den { (q + 1, den - r) } else { (q, r) };
        // |value - nearest| = off / den must be <= 1e-9 * nearest.
        if nearest == 0 || (off as f64) / (den as f64) > 1e-9 * nearest as f64 {
            return None;
        }
        nearest
    };
    u64::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("10 Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("2048kbps"), Ok(2_048_000));
        assert_eq!(parse_rate("256Kbps"), Ok(256_000));
        assert_eq!(parse_rate("1.5Gbps"), Ok(1_500_000_000));
        assert_eq!(parse_rate("9600"), Ok(9600));
        assert_eq!(parse_rate("9600bps"), Ok(9600));
        assert_eq!(parse_rate("1e6"), Ok(1_000_000));
        assert_eq!(parse_rate("2.5e3kbps"), Ok(2_500_000));
    }

    #[test]
    fn bad_rates() {
        for s in ["0Mbps", "0", "-5Mbps", "", "  ", "10 Mbpss", "fast", "1e", "1e Mbps", "Mbps", "NaN", "inf",
            "1.5bps", "10 mbps", "10MBps", "1..2Mbps", ".", "1e999Mbps", "99999999999999999999Gbps"]
        {
            assert!(parse_rate(s).is_err(), "{:?} should be rejected", s);
        }
        assert!(parse_rate("10 Mbpss").unwrap_err().contains("Mbpss"));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("negative"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Ok(250_000_000));
        assert_eq!(parse_duration("0.1ms"), Ok(100_000));
        assert_eq!(parse_duration("2000s"), Ok(2_000_000_000_000));
        assert_eq!(parse_duration("2000"), Ok(2_000_000_000_000));
        assert_eq!(parse_duration("0.25"), Ok(250_000_000));
        assert_eq!(parse_duration("7us"), Ok(7_000));
        assert_eq!(parse_duration("3 ns"), Ok(3));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("0ms"), Ok(0));
        // 1e-9 relative rounding, both ways.
        assert_eq!(parse_duration("1.0000000000001s"), Ok(1_000_000_000));
        assert_eq!(parse_duration("0.9999999999999s"), Ok(1_000_000_000));
        for s in ["1.5ns", "-1ms", "1 min", "ms", "1e-10", "0.5ns"] {
            assert!(parse_duration(s).is_err(), "{:?} should be rejected", s);
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("50MB"), Ok(50_000_000));
        assert_eq!(parse_size("64KB"), Ok(64_000));
        assert_eq!(parse_size("64kB"), Ok(64_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1460"), Ok(1460));
        assert_eq!(parse_size("1460 B"), Ok(1460));
        assert_eq!(parse_size("0.5KB"), Ok(500));
        for s in ["1.5", "1.5B", "1mb", "1Kib", "-1B", "x"] {
            assert!(parse_size(s).is_err(), "{:?} should be rejected", s);
        }
    }

    #[test]
    fn values() {
        assert_eq!(rate_bps("r", &Value::Integer(9600)), Ok(9600));
        assert_eq!(duration_ns("d", &Value::Float(0.25)), Ok(250_000_000));
        assert_eq!(duration_ns("d", &Value::Integer(2)), Ok(2_000_000_000));
        assert_eq!(size_bytes("s", &Value::Float(1000.0)), Ok(1000));
        assert!(duration_ns("d", &Value::Float(f64::NAN)).is_err());
        assert!(duration_ns("d", &Value::Float(f64::INFINITY)).is_err());
        assert!(size_bytes("s", &Value::Float(1.5)).is_err());
        let e = rate_bps("links.0.rate", &Value::String("-5Mbps".into())).unwrap_err();
        assert_eq!(e.path, "links.0.rate");
        assert_eq!(e.value, "\"-5Mbps\"");
        assert!(e.allowed.contains("rate > 0"), "{}", e.allowed);
        let e = rate_bps("x", &Value::Boolean(true)).unwrap_err();
        assert!(e.allowed.contains("boolean"), "{}", e.allowed);
    }
}
