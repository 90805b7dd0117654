//! Per-link-direction packet error models.
//!
//! Uniform PER; and independent bit errors turned into a packet error rate by
//! PER = 1 - (1 - BER)^bits, where bits is 8 x the packet's IP length or, as
//! in the ADaLR thesis' Eq. 7.1, a fixed 12,000 bits for every packet. A
//! packet with any bit error is lost (the thesis' ECC threshold of 1.2e-6 is
//! below one bit in 12,000, so this is what it amounts to). Lost packets still
//! occupy the transmitter; they are discarded at the far end.
//!
//! This file also dispatches to the channel-state models, each in its own
//! file: the TRANSAT/DSN bursts (`dsn_burst.rs`), Gilbert-Elliott
//! (`gilbert_elliott.rs`), error-interval traces (`trace.rs`) and a loss
//! probability per interval (`loss_series.rs`).

pub mod dsn_burst;
pub mod gilbert_elliott;
pub mod loss_series;
pub mod trace;


use crate::net::link::arq::fec::FecCfg;
use dsn_burst::DsnBurst;
use gilbert_elliott::GilbertElliott;
use loss_series::LossSeries;
use trace::ErrorTrace;
use crate::scenario::{DelayOrder, ErrorCfg, ErrorClock};
use crate::sim::{Rng, Time};

/// What the channel does to one transmitted packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Intact,
    Lost,
    /// Arrives intact but this much later (TRANSAT's S-LACP model).
    Delayed { extra_ns: u64, order: DelayOrder },
}

/// A stream derived from `rng` without drawing from it (so a model that
/// needs a second stream leaves the first one's numbers unchanged).
pub fn sub_stream(rng: &Rng, k: u64) -> Rng {
    let mut c = rng.clone();
    Rng::new(c.next_u64(), k)
}

/// The channel-state models, looked at a time.
enum Channel {
    None,
    Dsn(DsnBurst),
    Ge(GilbertElliott),
    Trace(ErrorTrace),
    Series(LossSeries),
}

pub struct ErrorModel {
    cfg: ErrorCfg,
    channel: Channel,
    rng: Rng,
    /// ln(1 - BER), cached.
    ln_keep_bit: f64,
    /// The last (packet size, PER) computed: sizes repeat (full segments,
    /// ACKs), and exp_m1 per packet is measurable.
    last: (u32, f64),
    /// The same for the residual PER after FEC.
    last_fec: (u32, f64),
    /// No packet can be lost (no model, or a PER or BER of 0): judged
    /// with one test (on an error-free link the float matches of the
    /// configuration were 4% of the 50-flow benchmark's instructions).
    lossless: bool,
}

impl ErrorModel {
    /// No packet can be lost, delayed or corrupted: [`ErrorModel::judge`]
    /// always says `Intact`.
    pub fn lossless(&self) -> bool {
        self.lossless
    }

    /// Some packets may be delayed so that later ones overtake them.
    pub fn may_overtake(&self) -> bool {
        match &self.cfg {
            ErrorCfg::DsnBurst(c) => c.burst_delay_ns > 0 && c.burst_delay_order == DelayOrder::Overtake,
            ErrorCfg::Trace(c) => c.burst_delay_ns > 0 && c.burst_delay_order == DelayOrder::Overtake,
            _ => false,
        }
    }

    pub fn new(cfg: ErrorCfg, rng: Rng) -> Self {
        let ln_keep_bit = match cfg {
            ErrorCfg::Ber { ber, .. } => (-ber).ln_1p(),
            _ => 0.0,
        };
        let channel = match &cfg {
            ErrorCfg::DsnBurst(c) => Channel::Dsn(DsnBurst::new(*c, sub_stream(&rng, 1), rng.clone())),
            ErrorCfg::GilbertElliott(c) => Channel::Ge(GilbertElliott::new(*c, sub_stream(&rng, 1), rng.clone())),
            ErrorCfg::Trace(c) => Channel::Trace(ErrorTrace::new(c.intervals.clone(), rng.clone())),
            ErrorCfg::LossSeries(c) => Channel::Series(LossSeries::new(c.interval_ns, c.probabilities.clone(), rng.clone())),
            _ => Channel::None,
        };
        let lossless = matches!(cfg, ErrorCfg::None | ErrorCfg::Per(0.0) | ErrorCfg::Ber { ber: 0.0, .. });
        ErrorModel { cfg, channel, rng, ln_keep_bit, last: (u32::MAX, 0.0), last_fec: (u32::MAX, 0.0), lossless }
    }

    /// The fate of a packet of `ip_bytes` whose transmission starts at
    /// `tx_start` and which would arrive at `arrival`. Times are
    /// non-decreasing from call to call on one link direction.
    #[inline(always)]
    pub fn judge(&mut self, ip_bytes: u32, tx_start: Time, arrival: Time) -> Fate {
        if self.lossless {
            return Fate::Intact;
        }
        let at = |clock: ErrorClock| if clock == ErrorClock::TxStart { tx_start } else { arrival };
        let lost = match (&mut self.channel, &self.cfg) {
            (Channel::None, _) => return if self.corrupts(ip_bytes) { Fate::Lost } else { Fate::Intact },
            (Channel::Dsn(m), ErrorCfg::DsnBurst(c)) => {
                let (lost, bad) = m.judge(at(c.clock));
                if bad && !lost && c.burst_delay_ns > 0 {
                    return Fate::Delayed { extra_ns: c.burst_delay_ns, order: c.burst_delay_order };
                }
                lost
            }
            (Channel::Ge(m), ErrorCfg::GilbertElliott(c)) => m.judge(at(c.clock)).0,
            (Channel::Trace(m), ErrorCfg::Trace(c)) => {
                let (lost, bad) = m.judge(at(c.clock));
                if bad && !lost && c.burst_delay_ns > 0 {
                    return Fate::Delayed { extra_ns: c.burst_delay_ns, order: c.burst_delay_order };
                }
                lost
            }
            (Channel::Series(m), _) => m.judge(tx_start),
            _ => unreachable!("channel built from this cfg"),
        };
        if lost {
            Fate::Lost
        } else {
            Fate::Intact
        }
    }

    /// The fate of a link-layer frame protected by FEC (`net/link/arq/fec.rs`):
    /// `bytes` of frame, `coded` on the air. On independent bit errors the
    /// residual loss is computed from the code; on any other model a frame
    /// the channel corrupts is repaired with the configured probability.
    pub fn judge_fec(&mut self, fec: &FecCfg, bytes: u32, coded: u32, tx_start: Time, arrival: Time) -> Fate {
        if let (Channel::None, ErrorCfg::Ber { ber, .. }, None) = (&self.channel, &self.cfg, fec.repair) {
            if *ber == 0.0 {
                return Fate::Intact;
            }
            if self.last_fec.0 != bytes {
                self.last_fec = (bytes, fec.residual_per(*ber, bytes));
            }
            return if self.rng.bernoulli(self.last_fec.1) { Fate::Lost } else { Fate::Intact };
        }
        match self.judge(coded, tx_start, arrival) {
            Fate::Lost if self.rng.bernoulli(fec.repair.unwrap_or(0.0)) => Fate::Intact,
            f => f,
        }
    }

    /// Probability that a packet of `ip_bytes` is lost.
    pub fn per(&self, ip_bytes: u32) -> f64 {
        match self.cfg {
            ErrorCfg::None => 0.0,
            ErrorCfg::Per(p) => p,
            ErrorCfg::Ber { fixed_bits, .. } => {
                let bits = fixed_bits.map(f64::from).unwrap_or(8.0 * ip_bytes as f64);
                -(self.ln_keep_bit * bits).exp_m1()
            }
            ErrorCfg::DsnBurst(_) | ErrorCfg::GilbertElliott(_) | ErrorCfg::Trace(_) | ErrorCfg::LossSeries(_) => {
                unreachable!("channel-state models have no fixed PER")
            }
        }
    }

    /// Draw whether this packet is corrupted. Draws nothing when the model
    /// cannot lose packets, so adding an error-free link shifts no stream.
    #[inline]
    fn corrupts(&mut self, ip_bytes: u32) -> bool {
        if self.lossless {
            return false;
        }
        if self.last.0 != ip_bytes {
            self.last = (ip_bytes, self.per(ip_bytes));
        }
        let p = self.last.1;
        self.rng.bernoulli(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_to_per_matches_thesis_table_7_1() {
        // Exact values of 1 - (1 - BER)^12000 (spec 000 section 3.1).
        for (ber, exact) in [(1e-9, 1.19999e-5), (1e-7, 1.1993e-3), (1e-6, 1.1928e-2), (1e-5, 0.11308)] {
            let m = ErrorModel::new(ErrorCfg::Ber { ber, fixed_bits: Some(12_000) }, Rng::new(1, 1));
            let per = m.per(40);
            assert!((per - exact).abs() / exact < 1e-4, "ber {ber}: {per} vs {exact}");
        }
    }

    #[test]
    fn size_dependent_per_uses_ip_bytes() {
        let m = ErrorModel::new(ErrorCfg::Ber { ber: 1e-5, fixed_bits: None }, Rng::new(1, 1));
        let full = m.per(1500);
        let ack = m.per(40);
        assert!((full - (1.0 - (1.0f64 - 1e-5).powi(12_000))).abs() < 1e-12);
        assert!((ack - (1.0 - (1.0f64 - 1e-5).powi(320))).abs() < 1e-12);
        assert!(ack < full / 30.0);
    }

    #[test]
    fn uniform_per_loses_that_fraction() {
        let mut m = ErrorModel::new(ErrorCfg::Per(0.05), Rng::new(3, 4));
        let n = 100_000;
        let lost = (0..n).filter(|_| m.corrupts(1000)).count() as f64 / n as f64;
        assert!((lost - 0.05).abs() < 0.003, "{lost}");
    }
}
