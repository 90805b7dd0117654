//! The scenario reader: a view of one TOML table that knows its dotted
//! path ([`Tbl`]), and the errors it makes. It depends on nothing of the
//! scenario but its error type and units, so a model that reads its own
//! keys (a window controller's parameters, a router agent's) imports this
//! leaf and not the parser that assembles a scenario.
//!
//! A table's keys are checked against the allowed list when it is opened
//! (in file order), so a misspelt key is reported as an unknown key rather
//! than as a confusing "missing" error for the key it was meant to be.
//! Every error names the dotted path in the syntax `--set` uses, the value
//! as written and what would be accepted.

use super::units;
use super::ScenarioError;
use toml::Value;

pub(crate) type Res<T> = Result<T, ScenarioError>;

/// `path.key`, or `key` at the root.
pub(crate) fn join(path: &str, key: &str) -> String {
    // an empty key (`"" = 1`) is shown quoted, so an error still names it
    let key = if key.is_empty() { "\"\"" } else { key };
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{}.{}", path, key)
    }
}

pub(crate) use units::show;

pub(crate) fn type_error(path: &str, v: &Value, expected: &str) -> ScenarioError {
    ScenarioError::new(path, show(v), format!("expected {} (got {})", expected, units::a_type(v)))
}

pub(crate) fn missing(path: &str, expected: &str) -> ScenarioError {
    ScenarioError::new(path, "", format!("missing; expected {}", expected))
}

/// `> 0` variants of the unit descriptions.
pub(crate) fn positive(allowed: &str) -> String {
    allowed.replacen(">= 0", "> 0", 1)
}

pub(crate) fn quoted_list(options: &[&str]) -> String {
    let q: Vec<String> = options.iter().map(|o| format!("\"{}\"", o)).collect();
    q.join(", ")
}

/// `key`'s value in `map`. A scenario's tables hold a few keys and most
/// lookups are of keys left out (defaults): comparing with each key is
/// cheaper than hashing the one looked for (SipHash; the hashed lookups were
/// a quarter of a 10,000-flow scenario's parse).
pub(crate) fn lookup<'a>(map: &'a toml::Table, key: &str) -> Option<&'a Value> {
    if map.len() <= 16 {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// One TOML table and its dotted path. Keys not in the allowed list (set
/// with [`Tbl::only`]) are "unknown key" errors.
pub(crate) struct Tbl<'a> {
    pub(crate) path: String,
    pub(crate) map: &'a toml::Table,
    pub(crate) allowed: &'static [&'static str],
}

impl<'a> Tbl<'a> {
    /// `v` must be a table; `what` describes the expected table in errors.
    pub(crate) fn new(path: String, v: &'a Value, what: &str) -> Res<Self> {
        match v {
            Value::Table(map) => Ok(Tbl { path, map, allowed: &[] }),
            other => Err(type_error(&path, other, what)),
        }
    }

    /// Declare the allowed keys and reject any other key (first in file
    /// order).
    pub(crate) fn only(&mut self, allowed: &'static [&'static str]) -> Res<()> {
        self.allowed = allowed;
        for (k, v) in self.map {
            if !allowed.contains(&k.as_str()) {
                let list = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
                return Err(ScenarioError::new(
                    self.at(k),
                    show(v),
                    format!("unknown key {:?}; allowed keys here: {}", k, list),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        debug_assert!(self.allowed.contains(&key), "{} read without being allowed", key);
        lookup(self.map, key)
    }

    /// Error for `key` whose value is out of range.
    pub(crate) fn bad(&self, key: &str, allowed: impl Into<String>) -> ScenarioError {
        let value = lookup(self.map, key).map(show).unwrap_or_default();
        ScenarioError::new(self.at(key), value, allowed)
    }

    pub(crate) fn require<T>(&self, key: &str, v: Option<T>, expected: &str) -> Res<T> {
        v.ok_or_else(|| missing(&self.at(key), expected))
    }

    pub(crate) fn str(&self, key: &str) -> Res<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(type_error(&self.at(key), v, "a string")),
        }
    }

    pub(crate) fn bool(&self, key: &str) -> Res<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(type_error(&self.at(key), v, "a boolean (true or false)")),
        }
    }

    /// An integer in `lo..=hi`.
    pub(crate) fn int(&self, key: &str, lo: i64, hi: i64) -> Res<Option<i64>> {
        // the message is built only for an error (as in `choice`)
        let expected = || {
            if hi == i64::MAX {
                format!("an integer >= {}", lo)
            } else {
                format!("an integer in {}..={}", lo, hi)
            }
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if (lo..=hi).contains(i) => Ok(Some(*i)),
            Some(Value::Integer(_)) => Err(self.bad(key, expected())),
            Some(v) => Err(type_error(&self.at(key), v, &expected())),
        }
    }

    pub(crate) fn u32_in(&self, key: &str, lo: u32, hi: u32) -> Res<Option<u32>> {
        Ok(self.int(key, lo.into(), hi.into())?.map(|i| i as u32))
    }

    /// One of `options`.
    pub(crate) fn choice(&self, key: &str, options: &[&str]) -> Res<Option<&'a str>> {
        // the message is built only for an error: parsing a scenario of
        // many flows would otherwise spend most of its time formatting it
        let expected = || format!("one of {}", quoted_list(options));
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if options.contains(&s.as_str()) => Ok(Some(s)),
            Some(Value::String(_)) => Err(self.bad(key, expected())),
            Some(v) => Err(type_error(&self.at(key), v, &expected())),
        }
    }

    /// A probability in [0, 1).
    pub(crate) fn prob(&self, key: &str) -> Res<Option<f64>> {
        let expected = "a number in [0, 1), e.g. 1e-7";
        let x = match self.get(key) {
            None => return Ok(None),
            Some(Value::Float(x)) => *x,
            Some(Value::Integer(i)) => *i as f64,
            Some(v) => return Err(type_error(&self.at(key), v, expected)),
        };
        if x.is_finite() && (0.0..1.0).contains(&x) {
            Ok(Some(x))
        } else {
            Err(self.bad(key, expected))
        }
    }

    /// A finite number (integer or float) accepted by `ok`.
    pub(crate) fn number(&self, key: &str, ok: impl Fn(f64) -> bool, expected: &str) -> Res<Option<f64>> {
        let x = match self.get(key) {
            None => return Ok(None),
            Some(Value::Float(x)) => *x,
            Some(Value::Integer(i)) => *i as f64,
            Some(v) => return Err(type_error(&self.at(key), v, expected)),
        };
        if x.is_finite() && ok(x) {
            Ok(Some(x))
        } else {
            Err(self.bad(key, expected))
        }
    }

    /// A probability in [0, 1] (a channel state may lose every packet).
    pub(crate) fn prob_closed(&self, key: &str) -> Res<Option<f64>> {
        self.number(key, |x| (0.0..=1.0).contains(&x), "a number in [0, 1]")
    }

    pub(crate) fn rate(&self, key: &str) -> Res<Option<u64>> {
        self.get(key).map(|v| units::rate_bps(&self.at(key), v)).transpose()
    }

    pub(crate) fn duration(&self, key: &str) -> Res<Option<u64>> {
        self.get(key).map(|v| units::duration_ns(&self.at(key), v)).transpose()
    }

    /// A duration that must be > 0.
    pub(crate) fn duration_pos(&self, key: &str) -> Res<Option<u64>> {
        match self.duration(key)? {
            Some(0) => Err(self.bad(key, positive(units::DURATION_ALLOWED))),
            d => Ok(d),
        }
    }

    pub(crate) fn size(&self, key: &str) -> Res<Option<u64>> {
        self.get(key).map(|v| units::size_bytes(&self.at(key), v)).transpose()
    }

    /// A size that must be > 0.
    pub(crate) fn size_pos(&self, key: &str) -> Res<Option<u64>> {
        match self.size(key)? {
            Some(0) => Err(self.bad(key, positive(units::SIZE_ALLOWED))),
            s => Ok(s),
        }
    }

    /// A sub-table (None if absent).
    pub(crate) fn table(&self, key: &str, what: &str) -> Res<Option<Tbl<'a>>> {
        self.get(key).map(|v| Tbl::new(self.at(key), v, what)).transpose()
    }
}

/// The non-empty array at `root[key]`.
pub(crate) fn array<'a>(root: &Tbl<'a>, key: &str, what: &str) -> Res<&'a Vec<Value>> {
    match root.get(key) {
        None => Err(missing(key, what)),
        Some(Value::Array(a)) if a.is_empty() => Err(ScenarioError::new(key, "[]", what)),
        Some(Value::Array(a)) => Ok(a),
        Some(v) => Err(type_error(key, v, what)),
    }
}

/// A quoted list, cut short when long (a constellation has thousands of
/// nodes).
pub(crate) fn few(names: &[&str]) -> String {
    const SHOWN: usize = 16;
    if names.len() <= SHOWN {
        return quoted_list(names);
    }
    format!("{}, ... ({} in all)", quoted_list(&names[..SHOWN]), names.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lookup` finds what the map's own hashed lookup finds, in tables
    /// small enough to scan and larger ones, for keys present and absent
    /// (among them prefixes and extensions of present keys).
    #[test]
    fn lookup_agrees_with_the_hashed_lookup() {
        for n in [0usize, 1, 2, 15, 16, 17, 40] {
            let mut map = toml::Table::new();
            for i in 0..n {
                map.insert(format!("key_{i}"), Value::Integer(i as i64));
            }
            let mut probes: Vec<String> = (0..n + 3).map(|i| format!("key_{i}")).collect();
            probes.extend(["", "key", "key_", "key_1x", "Key_1"].map(String::from));
            for k in &probes {
                assert_eq!(lookup(&map, k), map.get(k.as_str()), "{n} keys, {k:?}");
            }
        }
    }
}
