//! A run's summary as the rows of the results store's `flows` and `links`
//! tables (`python/satcp/store.py`), flattened here rather than in Python.
//!
//! A sweep's parent process writes every run to the store; flattening a
//! summary of 20 flows cell by cell in Python took it about as long as the
//! engine took to run a one-second scenario, so the parent, not the
//! workers, set the pace of a sweep of short runs. The workers call this
//! instead (`satcp.worker.run_task`); the parent merges a batch with
//! `merge_rows`.
//!
//! The rules (tests/python/test_store.py has them in Python): a nested object's
//! fields become `outer_inner` columns, an array becomes its compact JSON
//! text, anything else is kept; a flow row starts with `flow` (its name)
//! and `flow_index` and leaves `name` out; a link row starts with `link`
//! ("from->to"). Columns appear in the order first met, fields in
//! alphabetical order within a row (serde_json's map order; the Python
//! rules kept the summary's field order, which only changes the order in
//! which a new store's columns are added).
//!
//! The output is one JSON object: `sim_time_s`, `events`, and per table
//! `{"names": [...], "columns": [[...], ...]}`, every column as long as the
//! table has rows (null where a row lacks the field).

use serde_json::{Map, Value};

/// Columns in first-met order, each as long as the rows pushed so far.
#[derive(Default)]
struct Table {
    names: Vec<String>,
    index: std::collections::HashMap<String, usize>,
    columns: Vec<Vec<Value>>,
    rows: usize,
}

impl Table {
    fn push_row(&mut self, cells: Vec<(String, Value)>) {
        for (name, v) in cells {
            let k = match self.index.get(&name) {
                Some(&k) => k,
                None => {
                    self.index.insert(name.clone(), self.names.len());
                    self.names.push(name);
                    self.columns.push(vec![Value::Null; self.rows]);
                    self.columns.len() - 1
                }
            };
            self.columns[k].push(v);
        }
        self.rows += 1;
        for c in &mut self.columns {
            c.resize(self.rows, Value::Null);
        }
    }

    fn into_json(self) -> Value {
        let mut m = Map::new();
        m.insert("names".into(), Value::from(self.names));
        m.insert("columns".into(), Value::from(self.columns.into_iter().map(Value::from).collect::<Vec<_>>()));
        Value::Object(m)
    }
}

fn flatten(obj: &Map<String, Value>, prefix: &str, out: &mut Vec<(String, Value)>) {
    for (k, v) in obj {
        let name = format!("{prefix}{k}");
        match v {
            Value::Object(inner) => flatten(inner, &format!("{name}_"), out),
            Value::Array(_) => out.push((name, Value::String(v.to_string()))),
            _ => out.push((name, v.clone())),
        }
    }
}

/// The store rows of the summary `summary_json` (see the module doc).
pub fn store_rows(summary_json: &str) -> Result<String, serde_json::Error> {
    let s: Value = serde_json::from_str(summary_json)?;
    Ok(store_rows_of(&s).to_string())
}

/// The store rows of a summary already held as a JSON value (a worker that
/// has the run's summary in memory need not print and parse it again).
pub fn store_rows_of(s: &Value) -> Value {
    let empty = Vec::new();
    let mut flows = Table::default();
    for (i, f) in s.get("flows").and_then(Value::as_array).unwrap_or(&empty).iter().enumerate() {
        let mut cells = vec![("flow".to_string(), f.get("name").cloned().unwrap_or(Value::Null)), ("flow_index".to_string(), Value::from(i))];
        if let Some(o) = f.as_object() {
            let mut rest = Vec::new();
            flatten(o, "", &mut rest);
            cells.extend(rest.into_iter().filter(|(k, _)| k != "name"));
        }
        flows.push_row(cells);
    }
    let mut links = Table::default();
    for l in s.get("links").and_then(Value::as_array).unwrap_or(&empty) {
        let end = |k: &str| match l.get(k) {
            Some(Value::String(x)) => x.clone(),
            Some(v) => v.to_string(),
            None => "None".to_string(),
        };
        let mut cells = vec![("link".to_string(), Value::String(format!("{}->{}", end("from"), end("to"))))];
        if let Some(o) = l.as_object() {
            flatten(o, "", &mut cells);
        }
        links.push_row(cells);
    }
    let mut m = Map::new();
    m.insert("sim_time_s".into(), s.get("sim_time_s").cloned().unwrap_or(Value::Null));
    m.insert("events".into(), s.get("events").cloned().unwrap_or(Value::Null));
    m.insert("flows".into(), flows.into_json());
    m.insert("links".into(), links.into_json());
    Value::Object(m)
}

/// Kinds of value a merged column holds (bits of [`MergedTable::kinds`]).
pub const KIND_BOOL: u8 = 1;
pub const KIND_INT: u8 = 2;
pub const KIND_FLOAT: u8 = 4;
pub const KIND_STR: u8 = 8;

/// One table's rows of a batch of runs: each run's rows one after another,
/// columns in first-met order and as long as the table (null where a run
/// lacks the field); `run[i]` is the index (in the batch) of the run row `i`
/// belongs to; `kinds[c]` the kinds of non-null value column `c` holds.
/// The store's writer decides each column's SQL type from its kinds alone,
/// not value by value.
#[derive(Default, Debug)]
pub struct MergedTable {
    pub names: Vec<String>,
    pub kinds: Vec<u8>,
    pub columns: Vec<Vec<Value>>,
    pub run: Vec<u32>,
    index: std::collections::HashMap<String, usize>,
}

fn kind(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => KIND_BOOL,
        Value::Number(n) if n.is_f64() => KIND_FLOAT,
        Value::Number(_) => KIND_INT,
        _ => KIND_STR,
    }
}

impl MergedTable {
    fn append(&mut self, run: u32, table: &Value) {
        let (Some(names), Some(columns)) = (table.get("names").and_then(Value::as_array), table.get("columns").and_then(Value::as_array)) else {
            return;
        };
        let n = columns.first().and_then(Value::as_array).map_or(0, Vec::len);
        if n == 0 {
            return;
        }
        let before = self.run.len();
        for (name, col) in names.iter().zip(columns) {
            let name = name.as_str().unwrap_or_default();
            let k = match self.index.get(name) {
                Some(&k) => k,
                None => {
                    self.index.insert(name.to_string(), self.names.len());
                    self.names.push(name.to_string());
                    self.kinds.push(0);
                    self.columns.push(vec![Value::Null; before]);
                    self.columns.len() - 1
                }
            };
            for v in col.as_array().into_iter().flatten() {
                self.kinds[k] |= kind(v);
                self.columns[k].push(v.clone());
            }
        }
        self.run.extend(std::iter::repeat_n(run, n));
        for c in &mut self.columns {
            c.resize(before + n, Value::Null);
        }
    }
}

/// Many runs' store rows (each as [`store_rows_of`] makes them) merged into
/// one `flows` and one `links` table, for one insert per table and batch.
pub fn merge_rows(runs: &[Value]) -> (MergedTable, MergedTable) {
    let (mut flows, mut links) = (MergedTable::default(), MergedTable::default());
    for (i, r) in runs.iter().enumerate() {
        flows.append(i as u32, &r["flows"]);
        links.append(i as u32, &r["links"]);
    }
    (flows, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattens_nests_and_pads_missing_fields() {
        let s = r#"{"sim_time_s": 2.5, "events": 7,
            "flows": [{"name": "a", "limited": {"cwnd": 0.5, "rwnd": 0.5}, "udp": null, "x": [1, 2]},
                      {"name": "b", "limited": {"cwnd": 1.0, "rwnd": 0.0}, "udp": {"lost": 3}}],
            "links": [{"from": "n1", "to": "n2", "drops": {"queue": 4}}]}"#;
        let v: Value = serde_json::from_str(&store_rows(s).unwrap()).unwrap();
        assert_eq!(v["sim_time_s"], 2.5);
        assert_eq!(v["events"], 7);
        let f = &v["flows"];
        let names: Vec<&str> = f["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        assert_eq!(names, ["flow", "flow_index", "limited_cwnd", "limited_rwnd", "udp", "x", "udp_lost"]);
        let col = |n: &str| &f["columns"][names.iter().position(|x| *x == n).unwrap()];
        assert_eq!(col("flow"), &serde_json::json!(["a", "b"]));
        assert_eq!(col("flow_index"), &serde_json::json!([0, 1]));
        assert_eq!(col("x"), &serde_json::json!(["[1,2]", null]));
        assert_eq!(col("udp"), &serde_json::json!([null, null]));
        assert_eq!(col("udp_lost"), &serde_json::json!([null, 3]));
        assert_eq!(v["links"]["names"], serde_json::json!(["link", "drops_queue", "from", "to"]));
        assert_eq!(v["links"]["columns"][0], serde_json::json!(["n1->n2"]));
    }

    #[test]
    fn merged_runs_keep_their_rows_in_order_and_pad_what_a_run_lacks() {
        let a = store_rows_of(&serde_json::json!({"flows": [{"name": "x", "goodput": 1.5, "ok": true}], "links": []}));
        let b = store_rows_of(&serde_json::json!({"flows": [{"name": "y", "goodput": 2, "udp": {"lost": 3}},
                                                            {"name": "z", "goodput": null, "tag": "t"}]}));
        let (flows, links) = merge_rows(&[a, b]);
        assert_eq!(flows.names, ["flow", "flow_index", "goodput", "ok", "udp_lost", "tag"]);
        assert_eq!(flows.run, [0, 1, 1]);
        let col = |n: &str| (flows.columns[flows.names.iter().position(|x| x == n).unwrap()].clone(), flows.kinds[flows.names.iter().position(|x| x == n).unwrap()]);
        assert_eq!(col("flow"), (vec![Value::from("x"), Value::from("y"), Value::from("z")], KIND_STR));
        assert_eq!(col("goodput"), (vec![Value::from(1.5), Value::from(2), Value::Null], KIND_FLOAT | KIND_INT));
        assert_eq!(col("ok"), (vec![Value::from(true), Value::Null, Value::Null], KIND_BOOL));
        assert_eq!(col("udp_lost"), (vec![Value::Null, Value::from(3), Value::Null], KIND_INT));
        assert_eq!(col("tag"), (vec![Value::Null, Value::Null, Value::from("t")], KIND_STR));
        assert!(links.names.is_empty() && links.run.is_empty());
    }
}
