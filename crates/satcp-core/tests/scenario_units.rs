//! Unit parsing: formatting an integer with each suffix and parsing it back
//! gives the exact value in base units; a few edge cases through the public
//! API.

use proptest::prelude::*;
use satcp_core::scenario::units::*;
use toml::Value;

const RATES: &[(&str, u64)] = &[("bps", 1), ("kbps", 1_000), ("Kbps", 1_000), ("Mbps", 1_000_000), ("Gbps", 1_000_000_000)];
const DURATIONS: &[(&str, u64)] = &[("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)];
const SIZES: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
];

proptest! {
    #[test]
    fn rate_roundtrip(n in 1u64..=10_000_000_000, k in 0usize..RATES.len(), space in any::<bool>()) {
        let (unit, f) = RATES[k];
        let sep = if space { " " } else { "" };
        prop_assert_eq!(parse_rate(&format!("{}{}{}", n, sep, unit)), Ok(n * f));
    }

    #[test]
    fn duration_roundtrip(n in 0u64..=10_000_000_000, k in 0usize..DURATIONS.len(), space in any::<bool>()) {
        let (unit, f) = DURATIONS[k];
        let sep = if space { " " } else { "" };
        prop_assert_eq!(parse_duration(&format!("{}{}{}", n, sep, unit)), Ok(n * f));
    }

    #[test]
    fn size_roundtrip(n in 0u64..=1_000_000_000, k in 0usize..SIZES.len(), space in any::<bool>()) {
        let (unit, f) = SIZES[k];
        let sep = if space { " " } else { "" };
        prop_assert_eq!(parse_size(&format!("{}{}{}", n, sep, unit)), Ok(n * f));
    }

    /// Decimal fractions are exact: "12.345ms" = 12_345_000 ns.
    #[test]
    fn decimal_ms(n in 0u64..=100_000_000) {
        let s = format!("{}.{:03}ms", n / 1000, n % 1000);
        prop_assert_eq!(parse_duration(&s), Ok(n * 1_000));
    }

    /// Plain integers are base units (bps, seconds, bytes).
    #[test]
    fn plain_integers(n in 1i64..=1_000_000_000) {
        let u = n as u64;
        prop_assert_eq!(rate_bps("r", &Value::Integer(n)), Ok(u));
        prop_assert_eq!(duration_ns("d", &Value::Integer(n)), Ok(u * 1_000_000_000));
        prop_assert_eq!(size_bytes("s", &Value::Integer(n)), Ok(u));
    }
}

#[test]
fn edge_cases() {
    assert_eq!(parse_rate("1 Gbps"), Ok(1_000_000_000));
    assert_eq!(parse_size("50MB"), Ok(50_000_000));
    assert_eq!(parse_size("50MiB"), Ok(50 * 1024 * 1024));
    assert_eq!(parse_duration("0.000000001s"), Ok(1));
    assert!(parse_rate("18446744073709551616bps").is_err()); // 2^64: out of range
    assert_eq!(parse_rate("18446744073709551615bps"), Ok(u64::MAX));
    for s in ["", "10 Mbpss", "fast", "1e", "-1Mbps", "NaN", "inf", "1.2.3Mbps", "Mbps10"] {
        assert!(parse_rate(s).is_err(), "{:?}", s);
    }
    let e = duration_ns("run.stop", &Value::Float(-1.0)).unwrap_err();
    assert_eq!(e.path, "run.stop");
    assert_eq!(e.value, "-1.0");
    let e = size_bytes("flows.f.app.size", &Value::String("1e".into())).unwrap_err();
    assert!(e.allowed.contains("unknown unit \"e\""), "{}", e.allowed);
}
