//! `--set dotted.path=value`: edit the raw scenario tree before validation.
//!
//! * The spec is split at the first `=`. The value is read as a TOML value
//!   (`1e-6`, `true`, `"sack"`, `{ ber = 1e-6 }`, `[1, 2]`); if it is not
//!   valid TOML it is taken as a plain string, so `tcp.variant=sack` works.
//! * Path segments are separated by `.`. On an array, a numeric segment is a
//!   0-based index and any other segment selects the element (a table) whose
//!   `name` equals it (`flows.download`, `links.satellite`).
//! * A missing key in a table is created, intermediate tables too, so that
//!   a misspelt key reaches validation and is reported there as an unknown
//!   key with its full path. Overrides never check the schema themselves.

use super::ScenarioError;
use toml::Value;

/// Apply one `dotted.path=value` override to `root`.
pub fn apply_override(root: &mut toml::Value, spec: &str) -> Result<(), ScenarioError> {
    let Some((path, raw)) = spec.split_once('=') else {
        return Err(ScenarioError::new(
            spec,
            "",
            "an override of the form dotted.path=value, e.g. flows.download.tcp.variant=sack",
        ));
    };
    let path = path.trim();
    let value = parse_value(raw.trim());
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(ScenarioError::new(
            path,
            raw,
            "a dotted path of non-empty keys, e.g. links.1.rate_ab (override written as path=value)",
        ));
    }
    let mut node = root;
    for (i, seg) in segments.iter().enumerate() {
        let here = segments[..=i].join(".");
        let last = i + 1 == segments.len();
        node = match node {
            Value::Table(t) => {
                if last {
                    t.insert(seg.to_string(), value);
                    return Ok(());
                }
                t.entry(seg.to_string()).or_insert_with(|| Value::Table(toml::Table::new()))
            }
            Value::Array(items) => {
                let k = element(items, seg).ok_or_else(|| {
                    let names: Vec<String> = items
                        .iter()
                        .filter_map(|it| it.get("name").and_then(Value::as_str).map(|n| format!("{:?}", n)))
                        .collect();
                    let by_name = if names.is_empty() {
                        "no element has a name".to_string()
                    } else {
                        format!("or a name: {}", names.join(", "))
                    };
                    let by_index = if items.is_empty() {
                        "the array is empty".to_string()
                    } else {
                        format!("an index 0..={}", items.len() - 1)
                    };
                    ScenarioError::new(here.clone(), raw, format!("{} {}", by_index, by_name))
                })?;
                if last {
                    items[k] = value;
                    return Ok(());
                }
                &mut items[k]
            }
            other => {
                let parent = segments[..i].join(".");
                return Err(ScenarioError::new(
                    here,
                    raw,
                    format!("{} is {}, which has no fields to set", parent, super::units::a_type(other)),
                ));
            }
        };
    }
    unreachable!("the loop returns at the last segment")
}

/// The index of the array element `seg` selects: a 0-based index, or the
/// first table whose `name` is `seg`.
fn element(items: &[Value], seg: &str) -> Option<usize> {
    if seg.bytes().all(|b| b.is_ascii_digit()) {
        let k: usize = seg.parse().ok()?;
        return (k < items.len()).then_some(k);
    }
    items.iter().position(|it| it.get("name").and_then(Value::as_str) == Some(seg))
}

/// `raw` as a TOML value, or as a plain string if it is not one.
fn parse_value(raw: &str) -> Value {
    match toml::from_str::<toml::Table>(&format!("x = {}", raw)) {
        Ok(mut t) if t.len() == 1 => t.remove("x").unwrap_or_else(|| Value::String(raw.to_string())),
        _ => Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Value {
        toml::from_str::<toml::Table>(
            r#"
            [[links]]
            a = "x"
            [[links]]
            name = "sat"
            [[flows]]
            name = "download"
            tcp = { variant = "newreno" }
            "#,
        )
        .map(Value::Table)
        .unwrap()
    }

    #[test]
    fn values() {
        assert_eq!(parse_value("1e-6"), Value::Float(1e-6));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("\"sack\""), Value::String("sack".into()));
        assert_eq!(parse_value("sack"), Value::String("sack".into()));
        assert_eq!(parse_value("10 Mbps"), Value::String("10 Mbps".into()));
        assert_eq!(parse_value("1\ny = 2"), Value::String("1\ny = 2".into()));
        assert!(parse_value("{ ber = 1e-6 }").is_table());
        assert!(parse_value("[1, 2]").is_array());
    }

    #[test]
    fn addressing() {
        let mut v = tree();
        apply_override(&mut v, "flows.download.tcp.variant=sack").unwrap();
        assert_eq!(v["flows"][0]["tcp"]["variant"].as_str(), Some("sack"));
        apply_override(&mut v, "links.1.rate=\"1Mbps\"").unwrap();
        assert_eq!(v["links"][1]["rate"].as_str(), Some("1Mbps"));
        apply_override(&mut v, "links.sat.delay=0.25").unwrap();
        assert_eq!(v["links"][1]["delay"].as_float(), Some(0.25));
        apply_override(&mut v, "run.stop=10s").unwrap();
        assert_eq!(v["run"]["stop"].as_str(), Some("10s"));
        apply_override(&mut v, "a.b.c=1").unwrap();
        assert_eq!(v["a"]["b"]["c"].as_integer(), Some(1));
    }

    #[test]
    fn errors() {
        let mut v = tree();
        let e = apply_override(&mut v, "links.2.rate=1").unwrap_err();
        assert_eq!(e.path, "links.2");
        assert!(e.allowed.contains("0..=1"), "{}", e.allowed);
        let e = apply_override(&mut v, "flows.upload.tcp.mss=1000").unwrap_err();
        assert_eq!(e.path, "flows.upload");
        assert!(e.allowed.contains("\"download\""), "{}", e.allowed);
        let e = apply_override(&mut v, "links.0.a.x=1").unwrap_err();
        assert_eq!(e.path, "links.0.a.x");
        assert!(apply_override(&mut v, "run.stop").is_err());
        assert!(apply_override(&mut v, "run..stop=1").is_err());
    }
}
