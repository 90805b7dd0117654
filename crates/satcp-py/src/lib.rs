//! `satcp._core`: the PyO3 binding. One call per run; the GIL is released
//! while the engine parses and runs.
//!
//! Results cross the boundary as a JSON summary string plus columnar tables
//! given as `(name, numpy dtype string, little-endian bytes)` triples, which
//! the Python side turns into arrays with `numpy.frombuffer` (no per-row
//! Python objects).

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use satcp_core::scenario::{apply_override, parse_json_in, parse_toml_in};
use satcp_core::stats::output::{FlowSeries, LinkSeries, PageTable, PathSeries, PepSeries};
use satcp_core::stats::store_rows::{Batch, Cell, MergedColumn, MergedTable, RunRows, KIND_BOOL, KIND_FLOAT, KIND_INT, KIND_STR, TABLES};
use satcp_core::{RunOutput, Scenario, ScenarioError as CoreError};

create_exception!(
    satcp._core,
    ScenarioError,
    PyValueError,
    "A scenario that cannot run. args = (message, path, value, allowed)."
);

fn to_py_err(e: CoreError) -> PyErr {
    ScenarioError::new_err((e.to_string(), e.path, e.value, e.allowed))
}

/// `base_dir`: the scenario file's directory, against which relative paths
/// in it (error traces) are resolved; None = the working directory.
fn parse(text: &str, fmt: &str, overrides: &[String], base_dir: Option<&str>) -> Result<Scenario, CoreError> {
    let base = base_dir.map(std::path::Path::new);
    match fmt {
        "toml" => parse_toml_in(text, overrides, base),
        "json" => parse_json_in(text, overrides, base),
        other => Err(CoreError::new("<format>", other, "\"toml\" or \"json\"")),
    }
}

/// What one run hands back: the summary JSON and the flow, link and page
/// tables.
type RunParts = (String, Option<RunRows>, Vec<Col>, Vec<Col>, Vec<Col>, Vec<Col>, Option<Vec<Col>>);

/// A column ready to cross into Python.
enum Col {
    F64(&'static str, Vec<u8>),
    U32(&'static str, Vec<u8>),
}

fn f64_col(name: &'static str, v: &[f64]) -> Col {
    let mut b = Vec::with_capacity(v.len() * 8);
    for x in v {
        b.extend_from_slice(&x.to_le_bytes());
    }
    Col::F64(name, b)
}

fn u32_col(name: &'static str, v: &[u32]) -> Col {
    let mut b = Vec::with_capacity(v.len() * 4);
    for x in v {
        b.extend_from_slice(&x.to_le_bytes());
    }
    Col::U32(name, b)
}

fn flow_cols(s: &FlowSeries) -> Vec<Col> {
    vec![
        f64_col("time_s", &s.time_s),
        u32_col("flow", &s.flow),
        f64_col("cwnd_bytes", &s.cwnd_bytes),
        f64_col("ssthresh_bytes", &s.ssthresh_bytes),
        f64_col("eff_window_bytes", &s.eff_window_bytes),
        f64_col("flight_bytes", &s.flight_bytes),
        f64_col("srtt_s", &s.srtt_s),
        f64_col("rto_s", &s.rto_s),
        f64_col("rcv_high_bytes", &s.rcv_high_bytes),
        f64_col("delivered_bytes", &s.delivered_bytes),
        f64_col("snd_max_bytes", &s.snd_max_bytes),
        f64_col("timeouts", &s.timeouts),
        f64_col("spurious_rtos", &s.spurious_rtos),
    ]
}

fn link_cols(s: &LinkSeries) -> Vec<Col> {
    vec![
        f64_col("time_s", &s.time_s),
        u32_col("link", &s.link),
        f64_col("queue_packets", &s.queue_packets),
        f64_col("queue_bytes", &s.queue_bytes),
        f64_col("rate_bps", &s.rate_bps),
        f64_col("bytes_tx", &s.bytes_tx),
        f64_col("red_avg_packets", &s.red_avg_packets),
    ]
}

fn page_cols(s: &PageTable) -> Vec<Col> {
    vec![
        u32_col("flow", &s.flow),
        u32_col("page", &s.page),
        f64_col("start_s", &s.start_s),
        f64_col("end_s", &s.end_s),
        f64_col("response_s", &s.response_s),
    ]
}

fn path_cols(s: &PathSeries) -> Vec<Col> {
    vec![
        f64_col("time_s", &s.time_s),
        u32_col("pair", &s.pair),
        f64_col("rtt_s", &s.rtt_s),
        u32_col("hops", &s.hops),
        u32_col("route", &s.route),
    ]
}

fn pep_cols(s: &PepSeries) -> Vec<Col> {
    vec![
        f64_col("time_s", &s.time_s),
        u32_col("pep", &s.pep),
        u32_col("connection", &s.connection),
        u32_col("flow", &s.flow),
        f64_col("to_acceptor_bytes", &s.to_acceptor_bytes),
        f64_col("to_opener_bytes", &s.to_opener_bytes),
        f64_col("pool_used_bytes", &s.pool_used_bytes),
    ]
}

fn cols_to_py<'py>(py: Python<'py>, cols: Vec<Col>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for c in cols {
        let (name, dtype, bytes) = match c {
            Col::F64(n, b) => (n, "<f8", b),
            Col::U32(n, b) => (n, "<u4", b),
        };
        let t = PyTuple::new(
            py,
            [
                name.into_pyobject(py)?.into_any(),
                dtype.into_pyobject(py)?.into_any(),
                PyBytes::new(py, &bytes).into_any(),
            ],
        )?;
        list.append(t)?;
    }
    Ok(list)
}

/// The engine version (part of the key of stored results).
#[pyfunction]
fn version() -> &'static str {
    satcp_core::VERSION
}

/// Parse and validate a scenario without running it.
/// Raises ScenarioError if it cannot run.
#[pyfunction]
#[pyo3(signature = (text, fmt, overrides = Vec::new(), base_dir = None))]
fn validate(py: Python<'_>, text: String, fmt: String, overrides: Vec<String>, base_dir: Option<String>) -> PyResult<()> {
    py.allow_threads(|| parse(&text, &fmt, &overrides, base_dir.as_deref()))
        .map(|_| ())
        .map_err(to_py_err)
}

/// Apply `--set` overrides (`dotted.path=value`, in order) to a scenario
/// tree given as JSON and return the edited tree as JSON, without
/// validating it. The rules are the engine's own (`apply_override`), so a
/// sweep's factor levels land exactly where `satcp run --set` puts them.
/// Key order is kept both ways (toml's `preserve_order`): the order of
/// `[nodes]` is their index. Raises ScenarioError (path, value, allowed).
#[pyfunction]
fn apply_overrides(tree_json: &str, overrides: Vec<String>) -> PyResult<String> {
    edit_tree(tree_json, &overrides).map_err(to_py_err)
}

fn edit_tree(tree_json: &str, overrides: &[String]) -> Result<String, CoreError> {
    let mut root: toml::Value = serde_json::from_str(tree_json)
        .map_err(|e| CoreError::new("<json>", "", format!("malformed JSON: {}", e)))?;
    for spec in overrides {
        apply_override(&mut root, spec)?;
    }
    check_json_safe(&root, "")?;
    serde_json::to_string(&root).map_err(|e| CoreError::new("<json>", "", e.to_string()))
}

/// An override can write what JSON cannot hold (`x=nan`, `x=1979-05-27`);
/// serde_json would turn NaN into null and a date into an object, so refuse.
fn check_json_safe(v: &toml::Value, path: &str) -> Result<(), CoreError> {
    let join = |k: &str| if path.is_empty() { k.to_string() } else { format!("{}.{}", path, k) };
    match v {
        toml::Value::Float(f) if !f.is_finite() => Err(CoreError::new(path, f.to_string(), "a finite number")),
        toml::Value::Datetime(d) => Err(CoreError::new(path, d.to_string(), "a string, number, boolean, array or table (no dates)")),
        toml::Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, x)| check_json_safe(x, &join(&i.to_string())))
        }
        toml::Value::Table(t) => t.iter().try_for_each(|(k, x)| check_json_safe(x, &join(k))),
        _ => Ok(()),
    }
}

thread_local! {
    /// The last sweep template `run(..., seed=...)` parsed in this thread.
    static RESEED_CACHE: std::cell::RefCell<satcp_core::scenario::ReseedCache> = Default::default();
}

/// Events between two calls of a run's `progress` callback (about 10 ms of
/// engine time at 6 million events per second).
const PROGRESS_EVERY: u64 = 1 << 16;

/// Parse, validate and run a scenario. Returns a dict with "summary" (a JSON
/// string) and "flow_series", "link_series", "pages", "path_series" (lists of
/// (column name, dtype, bytes)), and "pep_series" when the run sampled a
/// PEP's connections; with `store_rows`, also "store_rows": the
/// summary as the results store's rows (bytes, as [`store_rows`] gives
/// them), made from the summary in memory rather than from its JSON.
///
/// With `seed`, `text` is a sweep cell's scenario as JSON with a
/// placeholder seed, and the run is its replication with that seed
/// (`satcp_core::scenario::parse_json_reseeded`: the template's parse is
/// kept for the next replication).
///
/// `progress`, if given, is called with the simulated time in seconds every
/// `PROGRESS_EVERY` events (taking the GIL for the call). If it raises, or a
/// signal handler does (Ctrl-C), the run stops and that exception is raised.
#[pyfunction]
#[pyo3(signature = (text, fmt, overrides = Vec::new(), base_dir = None, progress = None, store_rows = false, seed = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: String,
    fmt: String,
    overrides: Vec<String>,
    base_dir: Option<String>,
    progress: Option<PyObject>,
    store_rows: bool,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut raised: Option<PyErr> = None;
    let out: PyResult<RunParts> = py.allow_threads(|| {
        let scn = match seed {
            // a sweep's replication: `text` is its cell's template (JSON, no
            // overrides), parsed once per template in this thread
            Some(seed) if fmt == "json" && overrides.is_empty() && base_dir.is_none() => RESEED_CACHE
                .with(|c| satcp_core::scenario::parse_json_reseeded(&text, seed, &mut c.borrow_mut()))
                .map_err(to_py_err)?,
            Some(_) => return Err(PyValueError::new_err("seed= takes a JSON template with no overrides or base_dir")),
            None => parse(&text, &fmt, &overrides, base_dir.as_deref()).map_err(to_py_err)?,
        };
        let mut observe = |sim_s: f64| {
            let Some(cb) = &progress else { return true };
            Python::with_gil(|py| match cb.call1(py, (sim_s,)).and_then(|_| py.check_signals()) {
                Ok(_) => true,
                Err(e) => {
                    raised = Some(e);
                    false
                }
            })
        };
        let every = if progress.is_some() { PROGRESS_EVERY } else { u64::MAX };
        // Only capture files can make a run fail.
        let out: RunOutput =
            satcp_core::run_observed(&scn, every, &mut observe).map_err(|e| PyOSError::new_err(e.to_string()))?;
        let rows = store_rows.then(|| satcp_core::stats::store_rows::rows_of(&out.summary));
        let summary = out.summary_json();
        Ok((
            summary,
            rows,
            flow_cols(&out.flow_series),
            link_cols(&out.link_series),
            page_cols(&out.pages),
            path_cols(&out.path_series),
            (!out.pep_series.time_s.is_empty()).then(|| pep_cols(&out.pep_series)),
        ))
    });
    if let Some(e) = raised {
        return Err(e);
    }
    let (summary, rows, fs, ls, pg, ps, pep) = out?;
    let d = PyDict::new(py);
    d.set_item("summary", summary)?;
    if let Some(rows) = rows {
        d.set_item("store_rows", PyBytes::new(py, &rows.encode()))?;
    }
    d.set_item("flow_series", cols_to_py(py, fs)?)?;
    d.set_item("link_series", cols_to_py(py, ls)?)?;
    d.set_item("pages", cols_to_py(py, pg)?)?;
    d.set_item("path_series", cols_to_py(py, ps)?)?;
    if let Some(pep) = pep {
        d.set_item("pep_series", cols_to_py(py, pep)?)?;
    }
    Ok(d)
}

/// A run's summary JSON as the results store's rows (bytes, as `run(...,
/// store_rows=True)` gives them), for an outcome that carries only the
/// summary's text.
#[pyfunction]
fn store_rows<'py>(py: Python<'py>, summary_json: &str) -> PyResult<Bound<'py, PyBytes>> {
    let rows = py
        .allow_threads(|| satcp_core::stats::store_rows::rows_of_json(summary_json))
        .map_err(|e| PyValueError::new_err(format!("not a summary: {e}")))?;
    Ok(PyBytes::new(py, &rows.encode()))
}

fn cell_to_py<'py>(py: Python<'py>, c: &Cell) -> PyResult<Bound<'py, PyAny>> {
    Ok(match c {
        Cell::Null => py.None().into_bound(py),
        Cell::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Cell::Int(i) => i.into_pyobject(py)?.into_any(),
        Cell::UInt(u) => u.into_pyobject(py)?.into_any(),
        Cell::Float(x) => x.into_pyobject(py)?.into_any(),
        Cell::Str(x) => x.into_pyobject(py)?.into_any(),
    })
}

/// Arrow's validity bitmap of a column (bit i set: row i not null).
fn validity(col: &MergedColumn) -> Vec<u8> {
    let mut bits = vec![0u8; col.len().div_ceil(8)];
    for i in 0..col.len() {
        if col.valid(i) {
            bits[i / 8] |= 1 << (i % 8);
        }
    }
    bits
}

/// A merged column for Python: a column of numbers, booleans or text as the
/// buffers of an Arrow array, ("f64" | "i64" | "bool", length, validity
/// bitmap, values) or ("str", length, validity bitmap, 64-bit offsets,
/// text), which the store hands to DuckDB without a Python object per cell;
/// a column of mixed kinds (text and numbers) as a list.
fn column_to_py<'py>(py: Python<'py>, col: &MergedColumn, kinds: u8) -> PyResult<Bound<'py, PyAny>> {
    let fixed = |tag: &str, data: &[u8]| -> PyResult<Bound<'py, PyAny>> {
        let t = (tag, col.len(), PyBytes::new(py, &validity(col)), PyBytes::new(py, data));
        Ok(t.into_pyobject(py)?.into_any())
    };
    let le = |words: &mut dyn Iterator<Item = u64>| words.flat_map(u64::to_le_bytes).collect::<Vec<u8>>();
    if kinds & !(KIND_INT | KIND_FLOAT) == 0 && (kinds & KIND_FLOAT != 0 || kinds == 0) {
        return fixed("f64", &le(&mut (0..col.len()).map(|i| col.f64_at(i).to_bits())));
    }
    if kinds == KIND_INT && !col.has_uint() {
        // a null row's bits are 0
        return fixed("i64", &le(&mut col.bits.iter().copied()));
    }
    if kinds == KIND_STR {
        // Arrow's large_string: 64-bit offsets into the concatenated text
        let offsets = le(&mut col.text_offsets().into_iter().map(|o| o as u64));
        let t = ("str", col.len(), PyBytes::new(py, &validity(col)), PyBytes::new(py, &offsets), PyBytes::new(py, &col.text));
        return Ok(t.into_pyobject(py)?.into_any());
    }
    if kinds == KIND_BOOL {
        let mut bits = vec![0u8; col.len().div_ceil(8)];
        for (i, &b) in col.bits.iter().enumerate() {
            if b != 0 && col.valid(i) {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        return fixed("bool", &bits);
    }
    let items = col.cells().map(|v| cell_to_py(py, &v)).collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

/// Many runs' store rows (each bytes as [`store_rows`] or `run(...,
/// store_rows=True)` give them, or None for a run without rows) merged for
/// one insert per table: a dict with "sim_time_s" and "events" (a list
/// each, one per run) and, under each name of `store_rows::TABLES`
/// ("flows", "links", "agents", ...), a dict of "names", "kinds" (bits: 1
/// bool, 2 int, 4 float, 8 text), "columns" (see `column_to_py`) and "run"
/// (each row's run index). The store's writer
/// types each column from its kinds alone and inserts the batch column by
/// column.
#[pyfunction]
fn merge_store_rows<'py>(py: Python<'py>, rows: Vec<Option<Bound<'py, PyBytes>>>) -> PyResult<Bound<'py, PyDict>> {
    // (bytes read in place: extracting a Vec<u8> would walk them as ints)
    let batch = Batch::of(rows.iter().map(|r| r.as_ref().map(|b| b.as_bytes())))
        .map_err(|e| PyValueError::new_err(format!("not store rows: {e}")))?;
    let table = |t: &MergedTable| -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("names", &t.names)?;
        d.set_item("kinds", &t.kinds)?;
        let cols = PyList::empty(py);
        for (c, &k) in t.columns.iter().zip(&t.kinds) {
            cols.append(column_to_py(py, c, k)?)?;
        }
        d.set_item("columns", cols)?;
        d.set_item("run", &t.run)?;
        Ok(d)
    };
    let d = PyDict::new(py);
    let per_run = |cells: &[Cell]| cells.iter().map(|c| cell_to_py(py, c)).collect::<PyResult<Vec<_>>>();
    d.set_item("sim_time_s", PyList::new(py, per_run(&batch.sim_time_s)?)?)?;
    d.set_item("events", PyList::new(py, per_run(&batch.events)?)?)?;
    for (name, t) in TABLES.iter().zip(&batch.tables) {
        d.set_item(name, table(t)?)?;
    }
    Ok(d)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(store_rows, m)?)?;
    m.add_function(wrap_pyfunction!(merge_store_rows, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", satcp_core::VERSION)?;
    Ok(())
}
