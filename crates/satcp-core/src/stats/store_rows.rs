//! A run's summary as the rows of the results store's `flows` and `links`
//! tables (`python/satcp/store.py`), flattened here rather than in Python.
//!
//! A sweep's parent process writes every run to the store; flattening a
//! summary of 20 flows cell by cell in Python took it about as long as the
//! engine took to run a one-second scenario. The workers flatten instead,
//! and hand the parent each table column by column ([`RunRows`]), which the
//! parent concatenates for a batch's insert.
//!
//! The rules (tests/python/test_store.py has them in Python): a nested object's
//! fields become `outer_inner` columns, an array becomes its compact JSON
//! text, a non-finite number is null (as in the summary's JSON), anything
//! else is kept; a flow row starts with `flow` (its name) and `flow_index`
//! and leaves `name` out; a link row starts with `link` ("from->to").
//!
//! Two ways in, one result: [`rows_of`] walks the summary in memory through
//! its `Serialize` impl (no JSON value tree: building one and flattening it
//! cost a worker 0.3 ms a run of 20 flows, a tenth of the run), and
//! [`rows_of_json`] flattens a summary's JSON text (an outcome that carries
//! only that). Columns come in the order first met: the summary's field
//! order on the first path, alphabetical within an object on the second
//! (serde_json's maps); only the order in which a new store's columns are
//! added differs. The test below checks the two paths against each other.

use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use serde_json::Value;
use std::collections::HashMap;

use super::output::Summary;

/// Kinds of value a column holds (bits of [`Columns::kinds`]).
pub const KIND_BOOL: u8 = 1;
pub const KIND_INT: u8 = 2;
pub const KIND_FLOAT: u8 = 4;
pub const KIND_STR: u8 = 8;

/// One cell of a store row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer past `i64::MAX`.
    UInt(u64),
    Float(f64),
    Str(String),
}

impl Cell {
    fn kind(&self) -> u8 {
        match self {
            Cell::Null => 0,
            Cell::Bool(_) => KIND_BOOL,
            Cell::Int(_) | Cell::UInt(_) => KIND_INT,
            Cell::Float(_) => KIND_FLOAT,
            Cell::Str(_) => KIND_STR,
        }
    }

    fn float(x: f64) -> Cell {
        if x.is_finite() {
            Cell::Float(x)
        } else {
            Cell::Null // what the summary's JSON holds for it
        }
    }

    fn uint(u: u64) -> Cell {
        i64::try_from(u).map_or(Cell::UInt(u), Cell::Int)
    }

    /// A JSON scalar as a cell; an array or object becomes its text.
    fn of_json(v: &Value) -> Cell {
        match v {
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Cell::Int(i),
                (None, Some(u)) => Cell::UInt(u),
                _ => Cell::float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(x) => Cell::Str(x.clone()),
            other => Cell::Str(other.to_string()),
        }
    }
}

/// One table's rows of one run, column by column: columns in first-met
/// order, each as long as the table has rows (null where a row lacks the
/// field); `kinds[c]` are the kinds of non-null value column `c` holds, from
/// which the store's writer types the column without looking at its values.
#[derive(Default, Debug)]
pub struct Columns {
    pub names: Vec<String>,
    pub kinds: Vec<u8>,
    pub columns: Vec<Vec<Cell>>,
    pub rows: usize,
    index: HashMap<String, usize>,
    /// The column the previous row had after the last cell pushed: rows of
    /// one table usually have the same fields in the same order, so a name
    /// is looked up only when that guess fails.
    next: usize,
}

impl Columns {
    /// Push the cell of field `prefix` + `key` of the current row.
    fn push(&mut self, prefix: &str, key: &str, cell: Cell) {
        let guess = self.names.get(self.next).is_some_and(|n| {
            n.len() == prefix.len() + key.len() && n.starts_with(prefix) && n.ends_with(key)
        });
        let k = if guess {
            self.next
        } else {
            let name = format!("{prefix}{key}");
            match self.index.get(&name) {
                Some(&k) => k,
                None => {
                    self.index.insert(name.clone(), self.names.len());
                    self.names.push(name);
                    self.kinds.push(0);
                    self.columns.push(vec![Cell::Null; self.rows]);
                    self.columns.len() - 1
                }
            }
        };
        // a field named twice in a row keeps its first value
        if self.columns[k].len() == self.rows {
            self.kinds[k] |= cell.kind();
            self.columns[k].push(cell);
        }
        self.next = k + 1;
    }

    fn end_row(&mut self) {
        self.rows += 1;
        self.next = 0;
        for c in &mut self.columns {
            if c.len() < self.rows {
                c.push(Cell::Null);
            }
        }
    }

    /// Push a JSON value as field `prefix` + `key`: an object's fields
    /// flattened under `prefix` + `key` + `_`, anything else one cell.
    fn push_json(&mut self, prefix: &str, key: &str, v: &Value) {
        match v {
            Value::Object(o) => {
                let inner = format!("{prefix}{key}_");
                for (k, x) in o {
                    self.push_json(&inner, k, x);
                }
            }
            _ => self.push(prefix, key, Cell::of_json(v)),
        }
    }
}

/// A run's store rows: its `sim_time_s` and `events` (for the `runs` row)
/// and its `flows` and `links` tables.
#[derive(Debug)]
pub struct RunRows {
    pub sim_time_s: Cell,
    pub events: Cell,
    pub flows: Columns,
    pub links: Columns,
}

/// The store rows of a summary in memory.
pub fn rows_of(s: &Summary) -> RunRows {
    let mut flows = Columns::default();
    for (i, f) in s.flows.iter().enumerate() {
        flows.push("", "flow", Cell::Str(f.name.clone()));
        flows.push("", "flow_index", Cell::uint(i as u64));
        f.serialize(Flatten { table: &mut flows, prefix: String::new(), skip_name: true })
            .expect("a flow summary is a struct");
        flows.end_row();
    }
    let mut links = Columns::default();
    for l in &s.links {
        links.push("", "link", Cell::Str(format!("{}->{}", l.from, l.to)));
        l.serialize(Flatten { table: &mut links, prefix: String::new(), skip_name: false })
            .expect("a link summary is a struct");
        links.end_row();
    }
    RunRows { sim_time_s: Cell::float(s.sim_time_s), events: Cell::uint(s.events), flows, links }
}

/// The store rows of a summary's JSON text.
pub fn rows_of_json(summary_json: &str) -> Result<RunRows, serde_json::Error> {
    let s: Value = serde_json::from_str(summary_json)?;
    let empty = Vec::new();
    let mut flows = Columns::default();
    for (i, f) in s.get("flows").and_then(Value::as_array).unwrap_or(&empty).iter().enumerate() {
        flows.push("", "flow", f.get("name").map_or(Cell::Null, Cell::of_json));
        flows.push("", "flow_index", Cell::uint(i as u64));
        for (k, v) in f.as_object().into_iter().flatten().filter(|(k, _)| *k != "name") {
            flows.push_json("", k, v);
        }
        flows.end_row();
    }
    let mut links = Columns::default();
    for l in s.get("links").and_then(Value::as_array).unwrap_or(&empty) {
        let end = |k: &str| match l.get(k) {
            Some(Value::String(x)) => x.clone(),
            Some(v) => v.to_string(),
            None => "None".to_string(),
        };
        links.push("", "link", Cell::Str(format!("{}->{}", end("from"), end("to"))));
        for (k, v) in l.as_object().into_iter().flatten() {
            links.push_json("", k, v);
        }
        links.end_row();
    }
    let get = |k: &str| s.get(k).map_or(Cell::Null, Cell::of_json);
    Ok(RunRows { sim_time_s: get("sim_time_s"), events: get("events"), flows, links })
}

// ---------------------------------------------------------------------------
// Flattening through `Serialize`: a field is offered to `CellSer`, which
// takes scalars and says what else it was handed; a struct (or an Option of
// one) is then flattened under the field's name, an array written as its
// JSON text, and anything else (maps, enum variants with data) goes through
// a JSON value, the rules' own definition.

/// Why a value is not one cell.
#[derive(Debug)]
enum NotCell {
    Object,
    Array,
    Other,
}

impl std::fmt::Display for NotCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for NotCell {}

impl ser::Error for NotCell {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotCell::Other
    }
}

/// A scalar as a cell, as serde_json would write it.
struct CellSer;

impl Serializer for CellSer {
    type Ok = Cell;
    type Error = NotCell;
    type SerializeSeq = Impossible<Cell, NotCell>;
    type SerializeTuple = Impossible<Cell, NotCell>;
    type SerializeTupleStruct = Impossible<Cell, NotCell>;
    type SerializeTupleVariant = Impossible<Cell, NotCell>;
    type SerializeMap = Impossible<Cell, NotCell>;
    type SerializeStruct = Impossible<Cell, NotCell>;
    type SerializeStructVariant = Impossible<Cell, NotCell>;

    fn serialize_bool(self, v: bool) -> Result<Cell, NotCell> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, NotCell> {
        Ok(Cell::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, NotCell> {
        Ok(Cell::uint(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, NotCell> {
        Ok(Cell::float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, NotCell> {
        Ok(Cell::float(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, NotCell> {
        Ok(Cell::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, NotCell> {
        Ok(Cell::Str(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Cell, NotCell> {
        Err(NotCell::Array)
    }
    fn serialize_none(self) -> Result<Cell, NotCell> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Cell, NotCell> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, NotCell> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, NotCell> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Cell, NotCell> {
        Ok(Cell::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<Cell, NotCell> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotCell> {
        Err(NotCell::Array)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotCell> {
        Err(NotCell::Array)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, NotCell> {
        Err(NotCell::Array)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, NotCell> {
        Err(NotCell::Object)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotCell> {
        Err(NotCell::Other)
    }
}

/// A struct's fields pushed as cells of the current row, under `prefix`.
struct Flatten<'a> {
    table: &'a mut Columns,
    prefix: String,
    /// Leave the field `name` out (a flow row has it as `flow`).
    skip_name: bool,
}

impl Flatten<'_> {
    fn field<T: ?Sized + Serialize>(&mut self, key: &str, v: &T) {
        match v.serialize(CellSer) {
            Ok(cell) => self.table.push(&self.prefix, key, cell),
            Err(NotCell::Array) => {
                let text = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
                self.table.push(&self.prefix, key, Cell::Str(text))
            }
            Err(NotCell::Object) => {
                let inner = Flatten { table: &mut *self.table, prefix: format!("{}{key}_", self.prefix), skip_name: false };
                v.serialize(inner).expect("a struct flattens");
            }
            Err(NotCell::Other) => {
                let value = serde_json::to_value(v).unwrap_or(Value::Null);
                self.table.push_json(&self.prefix, key, &value)
            }
        }
    }
}

impl SerializeStruct for Flatten<'_> {
    type Ok = ();
    type Error = NotCell;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> Result<(), NotCell> {
        if !(self.skip_name && key == "name") {
            self.field(key, v);
        }
        Ok(())
    }

    fn end(self) -> Result<(), NotCell> {
        Ok(())
    }
}

/// Only what `CellSer` calls an object reaches a `Flatten`: a struct, an
/// Option of one or a newtype around one.
impl<'a> Serializer for Flatten<'a> {
    type Ok = ();
    type Error = NotCell;
    type SerializeSeq = Impossible<(), NotCell>;
    type SerializeTuple = Impossible<(), NotCell>;
    type SerializeTupleStruct = Impossible<(), NotCell>;
    type SerializeTupleVariant = Impossible<(), NotCell>;
    type SerializeMap = Impossible<(), NotCell>;
    type SerializeStruct = Flatten<'a>;
    type SerializeStructVariant = Impossible<(), NotCell>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Flatten<'a>, NotCell> {
        Ok(self)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<(), NotCell> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<(), NotCell> {
        v.serialize(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_i8(self, _: i8) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_i16(self, _: i16) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_i32(self, _: i32) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_i64(self, _: i64) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_u8(self, _: u8) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_u16(self, _: u16) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_u32(self, _: u32) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_u64(self, _: u64) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_f32(self, _: f32) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_f64(self, _: f64) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_char(self, _: char) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_str(self, _: &str) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_none(self) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_unit(self) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotCell> {
        Err(NotCell::Other)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotCell> {
        Err(NotCell::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::output::{FlowSummary, LinkSummary, Limited};

    /// A table as name -> (column, kinds), for comparing paths whose
    /// column order differs.
    fn by_name(t: &Columns) -> HashMap<&str, (&Vec<Cell>, u8)> {
        t.names.iter().enumerate().map(|(k, n)| (n.as_str(), (&t.columns[k], t.kinds[k]))).collect()
    }

    #[test]
    fn flattens_nests_and_pads_missing_fields() {
        let s = r#"{"sim_time_s": 2.5, "events": 7,
            "flows": [{"name": "a", "limited": {"cwnd": 0.5, "rwnd": 0.5}, "udp": null, "x": [1, 2]},
                      {"name": "b", "limited": {"cwnd": 1.0, "rwnd": 0.0}, "udp": {"lost": 3}}],
            "links": [{"from": "n1", "to": "n2", "drops": {"queue": 4}}]}"#;
        let r = rows_of_json(s).unwrap();
        assert_eq!((r.sim_time_s.clone(), r.events.clone()), (Cell::Float(2.5), Cell::Int(7)));
        assert_eq!(r.flows.names, ["flow", "flow_index", "limited_cwnd", "limited_rwnd", "udp", "x", "udp_lost"]);
        let f = by_name(&r.flows);
        assert_eq!(f["flow"], (&vec![Cell::Str("a".into()), Cell::Str("b".into())], KIND_STR));
        assert_eq!(f["flow_index"].0, &vec![Cell::Int(0), Cell::Int(1)]);
        assert_eq!(f["x"], (&vec![Cell::Str("[1,2]".into()), Cell::Null], KIND_STR));
        assert_eq!(f["udp"], (&vec![Cell::Null, Cell::Null], 0));
        assert_eq!(f["udp_lost"], (&vec![Cell::Null, Cell::Int(3)], KIND_INT));
        assert_eq!(r.flows.rows, 2);
        assert_eq!(r.links.names, ["link", "drops_queue", "from", "to"]);
        assert_eq!(r.links.columns[0], [Cell::Str("n1->n2".into())]);
    }

    /// Both paths give the same rows for summaries with every kind of
    /// field: nested structs, an Option of one (set and not), arrays,
    /// non-finite numbers, counters past i64.
    #[test]
    fn the_typed_path_gives_the_rows_of_the_json_path() {
        let mut s = Summary { sim_time_s: 3.0, events: 11, ..Default::default() };
        for i in 0..3 {
            s.flows.push(FlowSummary {
                name: format!("f{i}"),
                variant: "sack".into(),
                goodput_bps: if i == 1 { f64::NAN } else { 1e6 * i as f64 },
                bytes_delivered: if i == 2 { u64::MAX } else { i },
                completion_s: (i == 0).then_some(1.5),
                limited: (i != 2).then_some(Limited { cwnd: 0.25, rwnd: 0.75, app: 0.0, pacing: 0.0 }),
                udp: (i == 2).then(Default::default),
                abort_reason: (i == 1).then(|| "rto".to_string()),
                ..Default::default()
            });
        }
        s.links.push(LinkSummary { from: "a".into(), to: "b".into(), utilization: 0.5, ..Default::default() });
        s.links.push(LinkSummary { from: "b".into(), to: "a".into(), arq: Some(Default::default()), ..Default::default() });
        let typed = rows_of(&s);
        let json = rows_of_json(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!((&typed.sim_time_s, &typed.events), (&json.sim_time_s, &json.events));
        for (a, b) in [(&typed.flows, &json.flows), (&typed.links, &json.links)] {
            assert_eq!(a.rows, b.rows);
            assert_eq!(by_name(a), by_name(b));
            assert!(a.columns.iter().all(|c| c.len() == a.rows));
        }
        let f = by_name(&typed.flows);
        assert_eq!(f["goodput_bps"].0[1], Cell::Null);
        assert_eq!(f["bytes_delivered"].0[2], Cell::UInt(u64::MAX));
        assert!(f.contains_key("udp") && f.contains_key("udp_packets_sent") && !f.contains_key("name"));
        assert_eq!(typed.flows.names[..3], ["flow", "flow_index", "src"], "the summary's field order");
        assert!(by_name(&typed.links).contains_key("arq_frames"));
    }
}
