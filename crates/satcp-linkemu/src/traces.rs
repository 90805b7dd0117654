//! A hop's trace-driven capacity, delay and loss: the files satcp's
//! `capacity_trace`, `delay_trace` and `loss_trace` read, replayed here with
//! satcp's own code and rules (`satcp_core::net::link::service` for the
//! Mahimahi delivery opportunities, `trace_files` for the formats;
//! `docs/models/trace-links.md`), so that the kernel under the emulator
//! meets the link a satcp run meets. Trace time 0 is the emulator's start.
//!
//! * Capacity: a packet read from the TUN device (an IP packet: the devices
//!   carry no packet-information header) takes its length plus Mahimahi's 4
//!   bytes of TUN header from the opportunities (satcp's default `overhead`
//!   on a capacity trace); it leaves at the opportunity carrying its last
//!   byte; the trace repeats.
//! * Delay: the value of the interval in which the packet's last bit
//!   leaves, the series repeated; `down` loses the packet (counted with the
//!   errors). With `overtake` a packet may leave the far end before one
//!   sent earlier (the hop's packets are kept in release order, ties in the
//!   order sent); `in_order` holds it behind.
//! * Loss: the probability of the interval in which the packet starts, the
//!   series repeated, an independent draw per packet.

use satcp_core::net::link::service::{Opportunities, TUN_HEADER_BYTES};
use satcp_core::net::link::trace_files;

use crate::link::Ns;

/// A delay or loss series: a value per interval, repeated.
#[derive(Clone, Debug)]
pub struct Series<T> {
    pub interval_ns: Ns,
    pub values: Vec<T>,
}

impl<T: Copy> Series<T> {
    pub fn at(&self, t: Ns) -> T {
        self.values[((t / self.interval_ns) % self.values.len() as u64) as usize]
    }
}

/// What traces a hop replays.
#[derive(Clone, Debug)]
pub struct HopTraces {
    /// The CLOCK_MONOTONIC instant of trace time 0.
    pub base: Ns,
    pub capacity: Option<Opportunities>,
    /// ns per interval; None: down.
    pub delay: Option<Series<Option<u64>>>,
    pub overtake: bool,
    pub loss: Option<Series<f64>>,
}

impl HopTraces {
    /// (start, end) of a packet of `len` IP bytes offered at `now` on the
    /// opportunities, committed; None without a capacity trace.
    pub fn serve(&mut self, now: Ns, len: usize) -> Option<(Ns, Ns)> {
        let o = self.capacity.as_mut()?;
        let bytes = len as u32 + TUN_HEADER_BYTES;
        let p = o.plan(now.saturating_sub(self.base), bytes);
        o.commit(&p, bytes);
        Some((self.base + p.start, self.base + p.end))
    }

    /// The delay of a packet whose last bit leaves at `end`: Some(None) if
    /// the series says the path is down; None without a delay series.
    pub fn delay(&self, end: Ns) -> Option<Option<u64>> {
        self.delay.as_ref().map(|s| s.at(end.saturating_sub(self.base)))
    }

    /// The loss probability for a packet starting at `start` (0 without a
    /// loss series).
    pub fn loss(&self, start: Ns) -> f64 {
        self.loss.as_ref().map_or(0.0, |s| s.at(start.saturating_sub(self.base)))
    }
}

/// Read a trace file with satcp's parser; the error names the file.
pub fn read<T>(path: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    parse(&text).map_err(|e| format!("{path}: {e}"))
}

/// A Mahimahi trace as satcp reads it.
pub fn capacity(path: &str) -> Result<Opportunities, String> {
    read(path, trace_files::parse_opportunities).map(|ms| Opportunities::new(&ms))
}

pub fn delays(path: &str, interval_ns: Ns) -> Result<Series<Option<u64>>, String> {
    read(path, trace_files::parse_delays).map(|values| Series { interval_ns, values })
}

pub fn losses(path: &str, interval_ns: Ns) -> Result<Series<f64>, String> {
    read(path, trace_files::parse_probabilities).map(|values| Series { interval_ns, values })
}
