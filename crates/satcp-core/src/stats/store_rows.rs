//! A run's summary as the rows of the results store's tables made from it
//! ([`TABLES`]: `flows`, `links`, `agents`, `paths`, `ground_stations`,
//! `nodes`, `pep_legs`; `python/satcp/store.py`), flattened here rather
//! than in Python.
//!
//! A sweep's parent process writes every run to the store; flattening a
//! summary of 20 flows cell by cell in Python took it about as long as the
//! engine took to run a one-second scenario. The workers flatten instead
//! and hand the parent each run's tables column by column, as bytes
//! ([`RunRows::encode`]); the parent merges a batch ([`Batch`]) and the
//! Python binding gives it each merged column as Arrow buffers, so no
//! Python object is made per cell on either side.
//!
//! The rules (tests/python/test_store.py has them in Python): a nested object's
//! fields become `outer_inner` columns, an array becomes its compact JSON
//! text, a non-finite number is null (as in the summary's JSON), anything
//! else is kept. A row starts with the columns that name it: a flow row
//! with `flow` (its name) and `flow_index`, leaving `name` out; a link row
//! with `link` ("from->to"); an agent row with `agent_index`; a path row
//! with `path` ("src->dst") and `path_index`; a ground station's with
//! `station` and `station_index` and a node's with `node` and
//! `node_index`, both leaving `name` out. One row per entry of the
//! summary's list of that name, in its order.
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

/// The store's tables made from a run's summary, each from the summary's
/// list of that name, in the order a run's bytes hold them.
pub const TABLES: [&str; 7] = ["flows", "links", "agents", "paths", "ground_stations", "nodes", "pep_legs"];

/// A run's store rows: its `sim_time_s` and `events` (for the `runs` row)
/// and its tables, one per name of [`TABLES`] in that order.
#[derive(Debug)]
pub struct RunRows {
    pub sim_time_s: Cell,
    pub events: Cell,
    pub tables: [Columns; TABLES.len()],
}

impl RunRows {
    /// The table of that name (one of [`TABLES`]).
    pub fn table(&self, name: &str) -> &Columns {
        &self.tables[table_index(name)]
    }
}

fn table_index(name: &str) -> usize {
    TABLES.iter().position(|t| *t == name).unwrap_or_else(|| panic!("{name} is not one of {TABLES:?}"))
}

/// The store rows of a summary in memory.
pub fn rows_of(s: &Summary) -> RunRows {
    let index = |t: &mut Columns, key: &str, i: usize| t.push("", key, Cell::uint(i as u64));
    let tables = [
        table_of(&s.flows, true, |t, i, f| {
            t.push("", "flow", Cell::Str(f.name.clone()));
            index(t, "flow_index", i);
        }),
        table_of(&s.links, false, |t, _, l| t.push("", "link", Cell::Str(format!("{}->{}", l.from, l.to)))),
        table_of(&s.agents, false, |t, i, _| index(t, "agent_index", i)),
        table_of(&s.paths, false, |t, i, p| {
            t.push("", "path", Cell::Str(format!("{}->{}", p.src, p.dst)));
            index(t, "path_index", i);
        }),
        table_of(&s.ground_stations, true, |t, i, g| {
            t.push("", "station", Cell::Str(g.name.clone()));
            index(t, "station_index", i);
        }),
        table_of(&s.nodes, true, |t, i, n| {
            t.push("", "node", Cell::Str(n.name.clone()));
            index(t, "node_index", i);
        }),
        pep_legs_of(s),
    ];
    RunRows { sim_time_s: Cell::float(s.sim_time_s), events: Cell::uint(s.events), tables }
}

/// The `pep_legs` table: one row per leg of each connection each PEP
/// split (`summary.peps[].connections[].legs[]`), led by the columns that
/// name it and the connection's own fields: `pep` (its node), `pep_index`,
/// `connection_index`, `flow`, `opened_s`, `state`, the bytes relayed and
/// the peaks each way, `leg_index` (0 towards the opener, 1 towards the
/// acceptor); then the leg's fields flattened (`toward`, `to_node`,
/// `variant`, `profile`, `completion_s`, `retransmissions`, `limited_cwnd`, ...).
fn pep_legs_of(s: &Summary) -> Columns {
    let mut t = Columns::default();
    for (k, p) in s.peps.iter().enumerate() {
        for (c, conn) in p.connections.iter().enumerate() {
            for (l, leg) in conn.legs.iter().enumerate() {
                t.push("", "pep", Cell::Str(p.node.clone()));
                t.push("", "pep_index", Cell::uint(k as u64));
                t.push("", "connection_index", Cell::uint(c as u64));
                t.push("", "flow", Cell::Str(conn.flow.clone()));
                t.push("", "opened_s", Cell::float(conn.opened_s));
                t.push("", "state", Cell::Str(conn.state.clone()));
                t.push("", "bytes_to_acceptor", Cell::uint(conn.bytes_to_acceptor));
                t.push("", "bytes_to_opener", Cell::uint(conn.bytes_to_opener));
                t.push("", "peak_to_acceptor_bytes", Cell::uint(conn.peak_to_acceptor_bytes));
                t.push("", "peak_to_opener_bytes", Cell::uint(conn.peak_to_opener_bytes));
                t.push("", "leg_index", Cell::uint(l as u64));
                leg.serialize(Flatten { table: &mut t, prefix: String::new(), skip_name: false }).expect("a leg is a struct");
                t.end_row();
            }
        }
    }
    t
}

/// [`pep_legs_of`] for the summary's JSON.
fn pep_legs_of_json(s: &Value) -> Columns {
    let mut t = Columns::default();
    let list = |v: &Value, k: &str| v.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let cell = |v: &Value, k: &str| v.get(k).map_or(Cell::Null, Cell::of_json);
    for (k, p) in list(s, "peps").iter().enumerate() {
        for (c, conn) in list(p, "connections").iter().enumerate() {
            for (l, leg) in list(conn, "legs").iter().enumerate() {
                t.push("", "pep", cell(p, "node"));
                t.push("", "pep_index", Cell::uint(k as u64));
                t.push("", "connection_index", Cell::uint(c as u64));
                for f in ["flow", "opened_s", "state", "bytes_to_acceptor", "bytes_to_opener", "peak_to_acceptor_bytes", "peak_to_opener_bytes"] {
                    t.push("", f, cell(conn, f));
                }
                t.push("", "leg_index", Cell::uint(l as u64));
                for (key, v) in leg.as_object().into_iter().flatten() {
                    t.push_json("", key, v);
                }
                t.end_row();
            }
        }
    }
    t
}

/// One row per item: the cells `lead` pushes (the columns that name the
/// row), then the item's fields flattened, `name` left out if `skip_name`.
fn table_of<T: Serialize>(items: &[T], skip_name: bool, lead: impl Fn(&mut Columns, usize, &T)) -> Columns {
    let mut t = Columns::default();
    for (i, x) in items.iter().enumerate() {
        lead(&mut t, i, x);
        x.serialize(Flatten { table: &mut t, prefix: String::new(), skip_name }).expect("a summary's entry is a struct");
        t.end_row();
    }
    t
}

/// The store rows of a summary's JSON text.
pub fn rows_of_json(summary_json: &str) -> Result<RunRows, serde_json::Error> {
    let s: Value = serde_json::from_str(summary_json)?;
    let cell = |v: &Value, k: &str| v.get(k).map_or(Cell::Null, Cell::of_json);
    let text = |v: &Value, k: &str| match v.get(k) {
        Some(Value::String(x)) => x.clone(),
        Some(v) => v.to_string(),
        None => "None".to_string(),
    };
    let index = |t: &mut Columns, key: &str, i: usize| t.push("", key, Cell::uint(i as u64));
    let tables = [
        table_of_json(&s, "flows", true, |t, i, f| {
            t.push("", "flow", cell(f, "name"));
            index(t, "flow_index", i);
        }),
        table_of_json(&s, "links", false, |t, _, l| {
            t.push("", "link", Cell::Str(format!("{}->{}", text(l, "from"), text(l, "to"))))
        }),
        table_of_json(&s, "agents", false, |t, i, _| index(t, "agent_index", i)),
        table_of_json(&s, "paths", false, |t, i, p| {
            t.push("", "path", Cell::Str(format!("{}->{}", text(p, "src"), text(p, "dst"))));
            index(t, "path_index", i);
        }),
        table_of_json(&s, "ground_stations", true, |t, i, g| {
            t.push("", "station", cell(g, "name"));
            index(t, "station_index", i);
        }),
        table_of_json(&s, "nodes", true, |t, i, n| {
            t.push("", "node", cell(n, "name"));
            index(t, "node_index", i);
        }),
        pep_legs_of_json(&s),
    ];
    Ok(RunRows { sim_time_s: cell(&s, "sim_time_s"), events: cell(&s, "events"), tables })
}

/// [`table_of`] for the summary's JSON: one row per entry of its list `key`.
fn table_of_json(s: &Value, key: &str, skip_name: bool, lead: impl Fn(&mut Columns, usize, &Value)) -> Columns {
    let mut t = Columns::default();
    for (i, x) in s.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
        lead(&mut t, i, x);
        for (k, v) in x.as_object().into_iter().flatten().filter(|(k, _)| !(skip_name && *k == "name")) {
            t.push_json("", k, v);
        }
        t.end_row();
    }
    t
}

// ---------------------------------------------------------------------------
// The trip from a worker to the parent: a run's rows as bytes (the worker
// pickles them as one object; as Python lists they were 900 objects a run
// of 20 flows to build, pickle, unpickle and walk), and a batch of runs
// merged into one table each, column by column, for one insert per table.

const TAG_NULL: u8 = 0;
const TAG_BOOL: u8 = 1;
const TAG_INT: u8 = 2;
const TAG_UINT: u8 = 3;
const TAG_FLOAT: u8 = 4;
const TAG_STR: u8 = 5;

fn put_cell(out: &mut Vec<u8>, c: &Cell) {
    match c {
        Cell::Null => out.push(TAG_NULL),
        Cell::Bool(b) => out.extend([TAG_BOOL, *b as u8]),
        Cell::Int(i) => {
            out.push(TAG_INT);
            out.extend(i.to_le_bytes())
        }
        Cell::UInt(u) => {
            out.push(TAG_UINT);
            out.extend(u.to_le_bytes())
        }
        Cell::Float(x) => {
            out.push(TAG_FLOAT);
            out.extend(x.to_le_bytes())
        }
        Cell::Str(x) => {
            out.push(TAG_STR);
            put_str(out, x)
        }
    }
}

fn put_str(out: &mut Vec<u8>, x: &str) {
    out.extend((x.len() as u32).to_le_bytes());
    out.extend(x.as_bytes());
}

/// Reads what `RunRows::encode` wrote; every read is bounds-checked.
struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.b.len() < n {
            return Err("store rows cut short".into());
        }
        let (head, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn str(&mut self) -> Result<&'a str, String> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).map_err(|e| e.to_string())
    }
    fn cell(&mut self) -> Result<Cell, String> {
        Ok(match self.u8()? {
            TAG_NULL => Cell::Null,
            TAG_BOOL => Cell::Bool(self.u8()? != 0),
            TAG_INT => Cell::Int(self.u64()? as i64),
            TAG_UINT => Cell::UInt(self.u64()?),
            TAG_FLOAT => Cell::Float(f64::from_bits(self.u64()?)),
            TAG_STR => Cell::Str(self.str()?.to_string()),
            t => return Err(format!("unknown cell tag {t}")),
        })
    }
    /// A cell appended to a merged column as it is read (no `Cell`, no
    /// allocation for a text); its kind.
    fn cell_into(&mut self, col: &mut MergedColumn) -> Result<u8, String> {
        let tag = self.u8()?;
        let (bits, kind) = match tag {
            TAG_NULL => (0, 0),
            TAG_BOOL => ((self.u8()? != 0) as u64, KIND_BOOL),
            TAG_INT | TAG_UINT => (self.u64()?, KIND_INT),
            TAG_FLOAT => (self.u64()?, KIND_FLOAT),
            TAG_STR => {
                col.text.extend_from_slice(self.str()?.as_bytes());
                (col.text.len() as u64, KIND_STR)
            }
            t => return Err(format!("unknown cell tag {t}")),
        };
        col.tags.push(tag);
        col.bits.push(bits);
        Ok(kind)
    }
}

impl RunRows {
    /// The rows as bytes, column by column (`Batch::of` reads them back).
    pub fn encode(&self) -> Vec<u8> {
        let cells: usize = self.tables.iter().map(|t| t.rows * t.names.len()).sum();
        let mut out = Vec::with_capacity(64 + 16 * cells);
        put_cell(&mut out, &self.sim_time_s);
        put_cell(&mut out, &self.events);
        for t in &self.tables {
            out.extend((t.names.len() as u32).to_le_bytes());
            out.extend((t.rows as u32).to_le_bytes());
            for (name, col) in t.names.iter().zip(&t.columns) {
                put_str(&mut out, name);
                col.iter().for_each(|c| put_cell(&mut out, c));
            }
        }
        out
    }
}

/// One table's rows of a batch of runs: each run's rows one after another,
/// columns in first-met order and as long as the table (null where a run
/// lacks the field); `run[i]` is the index (in the batch) of the run row
/// `i` belongs to.
#[derive(Default, Debug)]
pub struct MergedTable {
    pub names: Vec<String>,
    pub kinds: Vec<u8>,
    pub columns: Vec<MergedColumn>,
    pub run: Vec<u32>,
    index: HashMap<String, usize>,
    /// The column that followed the last one read: the runs of a sweep
    /// have the same columns in the same order, so a name is looked up only
    /// when that guess fails.
    next: usize,
}

/// A merged column, read straight from the runs' bytes: each row's tag
/// (`TAG_*`) and 64 bits (a boolean's 0 or 1, an integer's two's
/// complement, a float's bits, a text's end in `text`), and the texts one
/// after another. (A column of `Cell`s cost an allocation a text and a
/// 32-byte move a cell: the merge was a third of a sweep parent's time.)
#[derive(Default, Debug, Clone)]
pub struct MergedColumn {
    pub tags: Vec<u8>,
    pub bits: Vec<u64>,
    pub text: Vec<u8>,
}

impl MergedColumn {
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Null rows up to `rows`.
    fn pad(&mut self, rows: usize) {
        if self.tags.len() < rows {
            self.tags.resize(rows, TAG_NULL);
            self.bits.resize(rows, 0);
        }
    }

    /// Whether a row is not null.
    pub fn valid(&self, i: usize) -> bool {
        self.tags[i] != TAG_NULL
    }

    /// The rows as cells, in order.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        let mut start = 0;
        self.tags.iter().zip(&self.bits).map(move |(&tag, &bits)| match tag {
            TAG_BOOL => Cell::Bool(bits != 0),
            TAG_INT => Cell::Int(bits as i64),
            TAG_UINT => Cell::UInt(bits),
            TAG_FLOAT => Cell::Float(f64::from_bits(bits)),
            TAG_STR => {
                let end = bits as usize;
                let x = String::from_utf8_lossy(&self.text[start..end]).into_owned();
                start = end;
                Cell::Str(x)
            }
            _ => Cell::Null,
        })
    }

    /// A row's value as a float (an integer converted; 0 for a null or a
    /// text).
    pub fn f64_at(&self, i: usize) -> f64 {
        match self.tags[i] {
            TAG_FLOAT => f64::from_bits(self.bits[i]),
            TAG_INT => self.bits[i] as i64 as f64,
            TAG_UINT => self.bits[i] as f64,
            _ => 0.0,
        }
    }

    /// Whether an integer past `i64::MAX` is in the column.
    pub fn has_uint(&self) -> bool {
        self.tags.contains(&TAG_UINT)
    }

    /// Arrow's 64-bit offsets of the texts (a null row's text is empty).
    pub fn text_offsets(&self) -> Vec<i64> {
        let mut end = 0i64;
        let mut offsets = Vec::with_capacity(self.len() + 1);
        offsets.push(0);
        for (&tag, &bits) in self.tags.iter().zip(&self.bits) {
            if tag == TAG_STR {
                end = bits as i64;
            }
            offsets.push(end);
        }
        offsets
    }
}

impl MergedTable {
    /// Read one run's table (as `RunRows::encode` wrote it) onto the end.
    fn read(&mut self, run: u32, r: &mut Reader) -> Result<(), String> {
        let (ncols, rows) = (r.u32()? as usize, r.u32()? as usize);
        // every row has a cell of at least a byte in every column, and a
        // table with rows has columns (damaged bytes must not make the
        // batch allocate billions of rows)
        if rows > r.b.len() || (ncols == 0 && rows > 0) {
            return Err(format!("{rows} rows in {ncols} columns and {} bytes", r.b.len()));
        }
        let before = self.run.len();
        for _ in 0..ncols {
            let name = r.str()?;
            let k = match self.names.get(self.next) {
                Some(n) if n == name => self.next,
                _ => match self.index.get(name) {
                    Some(&k) => k,
                    None => {
                        self.index.insert(name.to_string(), self.names.len());
                        self.names.push(name.to_string());
                        self.kinds.push(0);
                        self.columns.push(MergedColumn::default());
                        self.columns.len() - 1
                    }
                },
            };
            let col = &mut self.columns[k];
            col.pad(before);
            if col.len() != before {
                return Err(format!("column {name} twice in a run's rows"));
            }
            let mut kinds = 0;
            for _ in 0..rows {
                kinds |= r.cell_into(col)?;
            }
            self.kinds[k] |= kinds;
            self.next = k + 1;
        }
        self.run.extend(std::iter::repeat_n(run, rows));
        Ok(())
    }

    /// Every column as long as the table.
    fn pad(&mut self) {
        for c in &mut self.columns {
            c.pad(self.run.len());
        }
    }
}

/// Many runs' rows merged for one insert per table: `sim_time_s[i]` and
/// `events[i]` of the batch's run `i` (null for a run without rows), and
/// one merged table per name of [`TABLES`], in that order.
#[derive(Default, Debug)]
pub struct Batch {
    pub sim_time_s: Vec<Cell>,
    pub events: Vec<Cell>,
    pub tables: [MergedTable; TABLES.len()],
}

impl Batch {
    /// Runs' rows in batch order, each as the bytes `RunRows::encode`
    /// wrote; `None` for a run without any (failed).
    pub fn of<'a>(runs: impl IntoIterator<Item = Option<&'a [u8]>>) -> Result<Batch, String> {
        let mut b = Batch::default();
        for (i, bytes) in runs.into_iter().enumerate() {
            let Some(bytes) = bytes else {
                b.sim_time_s.push(Cell::Null);
                b.events.push(Cell::Null);
                continue;
            };
            let mut r = Reader { b: bytes };
            b.sim_time_s.push(r.cell()?);
            b.events.push(r.cell()?);
            for t in &mut b.tables {
                t.read(i as u32, &mut r)?;
            }
            if !r.b.is_empty() {
                return Err("trailing bytes after store rows".into());
            }
        }
        b.tables.iter_mut().for_each(MergedTable::pad);
        Ok(b)
    }

    /// The merged table of that name (one of [`TABLES`]).
    pub fn table(&self, name: &str) -> &MergedTable {
        &self.tables[table_index(name)]
    }
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

/// A `Flatten` takes only structs: a scalar is refused (the caller then
/// goes through a JSON value).
macro_rules! refuse_scalars {
    ($($name:ident($t:ty)),*) => {
        $(fn $name(self, _: $t) -> Result<(), NotCell> {
            Err(NotCell::Other)
        })*
    };
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

    refuse_scalars!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8])
    );
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
    use crate::stats::output::{AgentSummary, FlowSummary, LegSummary, LinkSummary, Limited, NodeSummary, PathSummary, PepSummary, SplitSummary, StationSummary};

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
            "links": [{"from": "n1", "to": "n2", "drops": {"queue": 4}}],
            "agents": [{"node": "b1", "link": 0, "kind": "xfwa", "counters": {"updates": 5}},
                       {"node": "b2", "link": null, "kind": "monitor", "counters": {}}],
            "paths": [{"src": "p", "dst": "q", "changes_s": [1.5], "min_rtt_s": 0.04, "max_rtt_s": null}],
            "ground_stations": [{"name": "p", "handovers": 2, "handover_times_s": [3.0, 4.5]}],
            "nodes": [{"name": "n1", "drops_ttl": 1}, {"name": "n2", "drops_ttl": 0}]}"#;
        let r = rows_of_json(s).unwrap();
        assert_eq!((r.sim_time_s.clone(), r.events.clone()), (Cell::Float(2.5), Cell::Int(7)));
        assert_eq!(r.table("flows").names, ["flow", "flow_index", "limited_cwnd", "limited_rwnd", "udp", "x", "udp_lost"]);
        let f = by_name(r.table("flows"));
        assert_eq!(f["flow"], (&vec![Cell::Str("a".into()), Cell::Str("b".into())], KIND_STR));
        assert_eq!(f["flow_index"].0, &vec![Cell::Int(0), Cell::Int(1)]);
        assert_eq!(f["x"], (&vec![Cell::Str("[1,2]".into()), Cell::Null], KIND_STR));
        assert_eq!(f["udp"], (&vec![Cell::Null, Cell::Null], 0));
        assert_eq!(f["udp_lost"], (&vec![Cell::Null, Cell::Int(3)], KIND_INT));
        assert_eq!(r.table("flows").rows, 2);
        assert_eq!(r.table("links").names, ["link", "drops_queue", "from", "to"]);
        assert_eq!(r.table("links").columns[0], [Cell::Str("n1->n2".into())]);
        // an agent's counters (a map) flattened like a nested table; an
        // agent without counters has none of the columns
        let a = r.table("agents");
        assert_eq!(a.names, ["agent_index", "counters_updates", "kind", "link", "node"]);
        assert_eq!(by_name(a)["counters_updates"].0, &vec![Cell::Int(5), Cell::Null]);
        assert_eq!(by_name(a)["link"].0, &vec![Cell::Int(0), Cell::Null]);
        let p = r.table("paths");
        assert_eq!(p.names, ["path", "path_index", "changes_s", "dst", "max_rtt_s", "min_rtt_s", "src"]);
        assert_eq!((&p.columns[0][0], &by_name(p)["changes_s"].0[0]), (&Cell::Str("p->q".into()), &Cell::Str("[1.5]".into())));
        let g = r.table("ground_stations");
        assert_eq!(g.names, ["station", "station_index", "handover_times_s", "handovers"]);
        assert_eq!(by_name(g)["handover_times_s"].0[0], Cell::Str("[3.0,4.5]".into()));
        let n = r.table("nodes");
        assert_eq!((n.names.clone(), n.rows), (vec!["node".to_string(), "node_index".into(), "drops_ttl".into()], 2));
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
        let counters = [("acks_seen".to_string(), 7), ("rtt_avg_us_last".to_string(), u64::MAX)].into();
        s.agents.push(AgentSummary { node: "r".into(), link: Some(1), kind: "xfwa".into(), counters });
        s.agents.push(AgentSummary { node: "r".into(), link: None, kind: "monitor".into(), ..Default::default() });
        s.paths.push(PathSummary { src: "a".into(), dst: "b".into(), changes_s: vec![0.5, 12.0], min_rtt_s: Some(0.04),
                                   routes: vec!["a s1 b".into()], ..Default::default() });
        s.paths.push(PathSummary { src: "b".into(), dst: "c".into(), steps_without_path: 3, ..Default::default() });
        s.ground_stations.push(StationSummary { name: "a".into(), handovers: 1, handover_times_s: vec![12.0], ..Default::default() });
        s.nodes.push(NodeSummary { name: "a".into(), drops_no_route: 2, drops_ttl: 0 });
        s.nodes.push(NodeSummary { name: "b".into(), ..Default::default() });
        let leg = |toward: &str, retx| LegSummary { toward: toward.into(), to_node: "x".into(), variant: "hybla".into(), retransmissions: retx,
                                                    completion_s: (retx == 0).then_some(2.5), ..Default::default() };
        let conn = |flow: &str| SplitSummary { flow: flow.into(), opened_s: 0.25, state: "finished".into(), bytes_to_acceptor: 9,
                                               legs: vec![leg("opener", 0), leg("acceptor", 7)], ..Default::default() };
        s.peps.push(PepSummary { node: "gw".into(), connections: vec![conn("f0"), conn("f1")], ..Default::default() });
        s.peps.push(PepSummary { node: "term".into(), peer: Some("gw".into()), ..Default::default() });
        s.peps.push(PepSummary { node: "r".into(), connections: vec![conn("f2")], ..Default::default() });
        let typed = rows_of(&s);
        let json = rows_of_json(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!((&typed.sim_time_s, &typed.events), (&json.sim_time_s, &json.events));
        for (a, b) in typed.tables.iter().zip(&json.tables) {
            assert_eq!(a.rows, b.rows);
            assert_eq!(by_name(a), by_name(b));
            assert!(a.columns.iter().all(|c| c.len() == a.rows));
        }
        assert_eq!(typed.tables.iter().map(|t| t.rows).collect::<Vec<_>>(), [3, 2, 2, 2, 1, 2, 6]);
        // a row per leg, named by its PEP, connection and leg; a PEP that
        // split nothing has none
        let legs = by_name(typed.table("pep_legs"));
        assert_eq!(typed.table("pep_legs").names[..4], ["pep", "pep_index", "connection_index", "flow"]);
        let col = |n: &str| legs[n].0.clone();
        assert_eq!(col("pep"), ["gw", "gw", "gw", "gw", "r", "r"].map(|x| Cell::Str(x.into())));
        assert_eq!(col("pep_index"), [0, 0, 0, 0, 2, 2].map(Cell::Int));
        assert_eq!(col("connection_index"), [0, 0, 1, 1, 0, 0].map(Cell::Int));
        assert_eq!(col("leg_index"), [0, 1, 0, 1, 0, 1].map(Cell::Int));
        assert_eq!(col("retransmissions"), [0, 7, 0, 7, 0, 7].map(Cell::Int));
        assert_eq!(col("completion_s")[..2], [Cell::Float(2.5), Cell::Null]);
        assert!(legs.contains_key("limited_cwnd") && legs.contains_key("bytes_to_acceptor") && !legs.contains_key("legs"));
        let f = by_name(typed.table("flows"));
        assert_eq!(f["goodput_bps"].0[1], Cell::Null);
        assert_eq!(f["bytes_delivered"].0[2], Cell::UInt(u64::MAX));
        assert!(f.contains_key("udp") && f.contains_key("udp_packets_sent") && !f.contains_key("name"));
        assert_eq!(typed.table("flows").names[..3], ["flow", "flow_index", "src"], "the summary's field order");
        assert!(by_name(typed.table("links")).contains_key("arq_frames"));
        assert_eq!(by_name(typed.table("agents"))["counters_rtt_avg_us_last"].0, &vec![Cell::UInt(u64::MAX), Cell::Null]);
        assert_eq!(typed.table("paths").names[..3], ["path", "path_index", "src"]);
        assert_eq!(by_name(typed.table("paths"))["changes_s"].0[0], Cell::Str("[0.5,12.0]".into()));
        assert!(!by_name(typed.table("nodes")).contains_key("name") && !by_name(typed.table("ground_stations")).contains_key("name"));
        // the bytes a worker hands over read back as the same rows
        let bytes = typed.encode();
        let back = Batch::of([Some(&bytes[..])]).unwrap();
        assert_eq!((&back.sim_time_s[..], &back.events[..]), (&[typed.sim_time_s.clone()][..], &[typed.events.clone()][..]));
        for (a, b) in back.tables.iter().zip(&typed.tables) {
            let cells: Vec<Vec<Cell>> = a.columns.iter().map(|c| c.cells().collect()).collect();
            assert_eq!((&a.names, &a.kinds, &cells, a.run.len()), (&b.names, &b.kinds, &b.columns, b.rows));
        }
        assert!(Batch::of([Some(&bytes[..bytes.len() - 1])]).is_err() && Batch::of([Some(&[bytes.clone(), vec![0]].concat()[..])]).is_err());
    }

    #[test]
    fn a_batch_keeps_each_runs_rows_in_order_and_pads_what_a_run_lacks() {
        let a = rows_of_json(r#"{"flows": [{"name": "x", "goodput": 1.5, "ok": true}], "links": [], "events": 3}"#).unwrap();
        let b = rows_of_json(r#"{"flows": [{"name": "y", "goodput": 2, "udp": {"lost": 3}},
                                          {"name": "z", "goodput": null, "tag": "t"}]}"#).unwrap();
        let (a, b) = (a.encode(), b.encode());
        let batch = Batch::of([Some(&a[..]), None, Some(&b[..])]).unwrap();
        assert_eq!(batch.events, [Cell::Int(3), Cell::Null, Cell::Null]);
        let f = batch.table("flows");
        assert_eq!(f.names, ["flow", "flow_index", "goodput", "ok", "udp_lost", "tag"]);
        assert_eq!(f.run, [0, 2, 2]);
        let col = |n: &str| {
            let k = f.names.iter().position(|x| x == n).unwrap();
            (f.columns[k].cells().collect::<Vec<_>>(), f.kinds[k])
        };
        assert_eq!(col("flow").0, [Cell::Str("x".into()), Cell::Str("y".into()), Cell::Str("z".into())]);
        assert_eq!(col("goodput"), (vec![Cell::Float(1.5), Cell::Int(2), Cell::Null], KIND_FLOAT | KIND_INT));
        assert_eq!(col("ok"), (vec![Cell::Bool(true), Cell::Null, Cell::Null], KIND_BOOL));
        assert_eq!(col("udp_lost"), (vec![Cell::Null, Cell::Int(3), Cell::Null], KIND_INT));
        assert_eq!(col("tag"), (vec![Cell::Null, Cell::Null, Cell::Str("t".into())], KIND_STR));
        assert!(batch.tables[1..].iter().all(|t| t.names.is_empty() && t.run.is_empty()));
        // Arrow's offsets: a null row's text is empty
        let k = |n: &str| f.names.iter().position(|x| x == n).unwrap();
        assert_eq!(f.columns[k("tag")].text_offsets(), [0, 0, 0, 1]);
        assert_eq!(f.columns[k("flow")].text_offsets(), [0, 1, 2, 3]);
        assert_eq!((f.columns[k("goodput")].f64_at(1), f.columns[k("goodput")].valid(2)), (2.0, false));
        // a column named twice in one run's bytes is refused, not merged
        let mut dup = Vec::new();
        put_cell(&mut dup, &Cell::Null);
        put_cell(&mut dup, &Cell::Null);
        dup.extend(2u32.to_le_bytes());
        dup.extend(1u32.to_le_bytes());
        for _ in 0..2 {
            put_str(&mut dup, "x");
            put_cell(&mut dup, &Cell::Int(1));
        }
        dup.extend([0u8; 8 * (TABLES.len() - 1)]);
        assert!(Batch::of([Some(&dup[..])]).unwrap_err().contains("twice"));
        // a row count the bytes cannot hold
        let mut huge = Vec::new();
        put_cell(&mut huge, &Cell::Null);
        put_cell(&mut huge, &Cell::Null);
        huge.extend(0u32.to_le_bytes());
        huge.extend(u32::MAX.to_le_bytes());
        huge.extend([0u8; 8 * (TABLES.len() - 1)]);
        assert!(Batch::of([Some(&huge[..])]).unwrap_err().contains("rows"));
    }

    /// Bytes damaged anywhere (a byte changed, the end cut) are refused or
    /// merged, never a panic, and whatever merges has every column as long
    /// as the table.
    #[test]
    fn damaged_rows_never_panic_the_merge() {
        let good = rows_of_json(r#"{"sim_time_s": 1.0, "events": 5,
            "flows": [{"name": "x", "goodput": 1.5, "variant": "sack", "ok": true, "n": 3},
                      {"name": "y", "goodput": null, "variant": "cubic", "udp": {"lost": 2}}],
            "links": [{"from": "a", "to": "b", "drops": 1}],
            "agents": [{"node": "a", "kind": "xfwa", "counters": {"updates": 4}}],
            "nodes": [{"name": "a", "drops_ttl": 1}, {"name": "b", "drops_ttl": 0}]}"#)
        .unwrap()
        .encode();
        let mut rng = crate::sim::Rng::new(7, 0);
        let (mut refused, mut merged) = (0, 0);
        for _ in 0..20_000 {
            let mut b = good.clone();
            for _ in 0..1 + rng.next_u64() % 3 {
                let i = (rng.next_u64() % b.len() as u64) as usize;
                b[i] = rng.next_u64() as u8;
            }
            let cut = b.len() - (rng.next_u64() % 4) as usize * (rng.next_u64() % 2) as usize;
            match Batch::of([Some(&b[..cut]), Some(&good[..])]) {
                Err(_) => refused += 1,
                Ok(m) => {
                    merged += 1;
                    for t in &m.tables {
                        assert!(t.columns.iter().all(|c| c.len() == t.run.len() && c.cells().count() == t.run.len()));
                        assert!(t.columns.iter().all(|c| c.text_offsets().windows(2).all(|w| w[0] <= w[1])));
                    }
                }
            }
        }
        assert!(refused > 1000 && merged > 1000, "{refused} refused, {merged} merged");
    }
}
