//! Fuzz targets' bodies: each takes arbitrary bytes, drives one model with
//! them and panics on anything a correct model never does. The libFuzzer
//! targets in `fuzz/` call these (`make fuzz`); `tests/fuzz_corpus.rs` runs
//! the committed corpus through them in every test run, so a crash once
//! found stays fixed.
//!
//! * [`scenario`]: bytes as scenario text; a clear error (a field path and
//!   what is allowed) or a valid run, never a panic; runs are capped at
//!   200,000 events (a hang would be a loop that never ends, not a long
//!   valid run).
//! * [`receiver`]: an established TCP receiver fed arbitrary segments (out
//!   of order, duplicated, overlapping, beyond the window, across the
//!   32-bit wrap, bogus ACK numbers and SACK blocks, stray FINs): it never
//!   delivers a byte it was not given, never goes back, holds no more than
//!   its window, and its cumulative ACK never goes back.
//! * [`sender`]: an established TCP sender with data to send, fed arbitrary
//!   ACK streams and timer expiries, for every variant and profile: its
//!   window stays sane (cwnd at least one segment, ssthresh at least two
//!   where the controller uses one: not BBR),
//!   una <= max, and new data stays within the peer's window.
//! * [`arq`]: the link-layer ARQ's sender and receiver with frames lost,
//!   duplicated, reordered and ACKs forged: each packet reaches IP at most
//!   once, in order, and neither end holds more than its window.

mod arq;
mod receiver;
mod scenario;
mod sender;

pub use arq::arq;
pub use receiver::receiver;
pub use scenario::scenario;
pub use sender::sender;

/// A reader of fuzz bytes: every read succeeds (zeros past the end).
pub(crate) struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }

    pub(crate) fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    pub(crate) fn u8(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub(crate) fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub(crate) fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// One of `n` choices.
    pub(crate) fn pick(&mut self, n: usize) -> usize {
        self.u8() as usize % n.max(1)
    }
}

/// The TCP settings of a flow with these `tcp` overrides; None if the
/// combination is refused (a variant whose preset a profile cannot take).
pub(crate) fn tcp_cfg(sets: &[String]) -> Option<crate::scenario::TcpCfg> {
    const BASE: &str = "[run]\nstop = \"1s\"\n[nodes]\na = {}\nb = {}\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nsrc = \"a\"\ndst = \"b\"\napp = { kind = \"ftp\" }\n";
    crate::scenario::parse_toml(BASE, sets).ok().map(|s| s.flows[0].tcp.clone())
}
