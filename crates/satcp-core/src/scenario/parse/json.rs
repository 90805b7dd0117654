//! A JSON tree that keeps object key order and `null`s, so that node
//! indices follow the file and nulls can be reported with their path.

use super::{join, Res, ScenarioError};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use toml::Value;

pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Convert to a TOML value; `path` is this value's dotted path.
    pub fn into_toml(self, path: &str) -> Res<Value> {
        let here = || if path.is_empty() { "<json>".to_string() } else { path.to_string() };
        Ok(match self {
            Json::Null => {
                return Err(ScenarioError::new(
                    here(),
                    "null",
                    "a value (null is not allowed; leave the key out to get its default)",
                ))
            }
            Json::Bool(b) => Value::Boolean(b),
            Json::Int(i) => Value::Integer(i),
            Json::UInt(u) => match i64::try_from(u) {
                Ok(i) => Value::Integer(i),
                Err(_) => return Err(ScenarioError::new(here(), u.to_string(), "an integer <= 2^63 - 1")),
            },
            Json::Float(f) => Value::Float(f),
            Json::Str(s) => Value::String(s),
            Json::Arr(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    let seg = segment(path, i, &item);
                    out.push(item.into_toml(&join(path, &seg))?);
                }
                Value::Array(out)
            }
            Json::Obj(entries) => {
                let mut t = toml::Table::new();
                for (k, v) in entries {
                    let p = join(path, &k);
                    if t.contains_key(&k) {
                        return Err(ScenarioError::new(p, "", "a key that appears only once in its object"));
                    }
                    let v = v.into_toml(&p)?;
                    t.insert(k, v);
                }
                Value::Table(t)
            }
        })
    }
}

/// Flows are addressed by name (when they have one), everything else by
/// index, as in validation errors.
fn segment(path: &str, i: usize, item: &Json) -> String {
    if path == "flows" {
        if let Json::Obj(entries) = item {
            if let Some((_, Json::Str(name))) = entries.iter().find(|(k, _)| k == "name") {
                return name.clone();
            }
        }
    }
    i.to_string()
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Json, E> {
        Ok(Json::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Json, E> {
        Ok(Json::UInt(u))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Json, E> {
        Ok(Json::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            entries.push((k, v));
        }
        Ok(Json::Obj(entries))
    }
}
