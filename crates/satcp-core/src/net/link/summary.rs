//! What a run's summary reads of a link direction: its counters, its
//! utilisation, and the ARQ's account where the link has one. The world
//! gives the names (`DirLabel`); the direction gives everything it counted.

use super::service::{Service, OPPORTUNITY_BYTES};
use super::{LinkDir, Tx};
use crate::stats::output::{ArqSummary, DirLabel, Drops, LinkSummary, QueueSummary};
use crate::sim::{secs, Time};

impl LinkDir {
    /// This direction's line of the summary of a run that ended at `end`
    /// (`back` is the same link's other direction: an ARQ's receiver of
    /// this direction's frames lives there).
    pub fn summary(&self, label: DirLabel, end: Time, back: &LinkDir) -> LinkSummary {
        let s = &self.stats;
        let used = s.bytes_ok as f64 * 8.0;
        LinkSummary {
            index: label.index,
            a: label.a,
            b: label.b,
            direction: label.direction.to_string(),
            from: label.from,
            to: label.to,
            rate_bps: label.rate_bps,
            delay_s: label.delay_s,
            packets_tx: s.packets_tx,
            bytes_tx: s.bytes_tx,
            bytes_ok: s.bytes_ok,
            utilization: self.utilization(end),
            utilization_ok: if end == 0 { 0.0 } else { used / self.capacity_bits(end) },
            drops: Drops {
                queue: s.drops_queue,
                errors: s.drops_errors,
                red_early: s.drops_red_early,
                red_forced: s.drops_red_forced,
                down: s.drops_down,
                pushed_out: s.drops_pushed_out,
                head: s.drops_head,
                codel: s.drops_codel,
            },
            low_priority_tx: s.low_priority_tx,
            low_priority_dropped: s.low_priority_dropped,
            reordered: s.reordered,
            burst_delayed: s.burst_delayed,
            max_queue_packets: s.max_queue_packets,
            marks: s.marks,
            mean_queue_packets: (!self.holds_packets() && end > 0).then(|| s.queue_wait_ns as f64 / end as f64),
            arq: self.arq_summary(back),
            queue: self.queue_summary(),
        }
    }

    /// The sojourn account of a queue that keeps one.
    fn queue_summary(&self) -> Option<QueueSummary> {
        let Tx::Holding(h) = &self.tx else { return None };
        let s = h.sojourns()?;
        let p = |q| s.percentile(q).map(secs);
        Some(QueueSummary { dequeued: s.count(), sojourn_p50_s: p(0.5), sojourn_p95_s: p(0.95), sojourn_p99_s: p(0.99) })
    }

    /// Whether the direction carried or dropped anything (a constellation's
    /// summary lists only those of its thousands of links).
    pub fn was_used(&self) -> bool {
        let s = &self.stats;
        s.packets_tx > 0 || s.drops_queue + s.drops_down + s.drops_errors + s.drops_head + s.drops_codel > 0
    }

    /// Bits the direction could carry in [0, end]: its rate schedule
    /// integrated over the time it was up.
    pub fn capacity_bits(&self, end: Time) -> f64 {
        if let Service::Opportunities(o) = &self.service {
            return o.bits_between(0, end) as f64;
        }
        if self.schedule.is_fixed() {
            return self.rate_bps as f64 * secs(end);
        }
        self.schedule.capacity_bits(end)
    }

    /// Fraction of [0, end] the transmitter was busy; on a trace of
    /// delivery opportunities, the fraction of their bytes given to packets
    /// (counted when the transmitter takes them, so a queue left at the end
    /// counts: at most 1).
    pub fn utilization(&self, end: Time) -> f64 {
        if end == 0 {
            return 0.0;
        }
        if let Service::Opportunities(o) = &self.service {
            let offered = o.count_until(end) as f64 * OPPORTUNITY_BYTES as f64;
            return if offered == 0.0 { 0.0 } else { (o.used_bytes as f64 / offered).min(1.0) };
        }
        // committed transmission time after the end: the FIFO's runs back
        // to back to its busy_until; a shared device's member's packets
        // take turns with its peers'
        let beyond = match &self.tx {
            Tx::Shared(m) => m.busy_after(end),
            _ => self.busy_until().saturating_sub(end),
        };
        (self.stats.busy_ns.saturating_sub(beyond)) as f64 / end as f64
    }

    /// The ARQ's account of this direction's frames (`back` holds their
    /// receiver).
    fn arq_summary(&self, back: &LinkDir) -> Option<ArqSummary> {
        let (Tx::Arq(a), Tx::Arq(b)) = (&self.tx, &back.tx) else { return None };
        let (s, r) = (&a.snd.stats, &b.rx.stats);
        Some(ArqSummary {
            frames: s.frames,
            retransmissions: s.retransmissions,
            timer_expiries: s.by_timer,
            abandoned: s.abandoned,
            acks: a.stats.acks,
            bypass: a.stats.bypass,
            delivered: r.delivered,
            duplicates: r.duplicates,
            skipped: r.skipped,
            residual_loss: if s.frames == 0 { 0.0 } else { r.skipped as f64 / s.frames as f64 },
            delayed: r.delayed,
            mean_extra_delay_s: if r.delayed == 0 { 0.0 } else { secs(r.extra_delay_ns) / r.delayed as f64 },
            max_extra_delay_s: secs(r.max_extra_delay_ns),
            max_resequencing: r.max_buffered,
            timeout_s: secs(a.p.timeout_ns),
            reseq_timeout_s: secs(a.p.reseq_timeout_ns),
        })
    }
}

impl LinkDir {
    /// The capacity of a trace-driven direction at `now`: a series' rate,
    /// or what the opportunities of the last 100 ms carried.
    fn traced_rate(&self, now: Time) -> u64 {
        match &self.service {
            Service::Opportunities(o) => {
                const WINDOW: Time = 100_000_000;
                let from = now.saturating_sub(WINDOW);
                if now == from {
                    return 0;
                }
                (o.bits_between(from, now) as u128 * crate::sim::NS_PER_S as u128 / (now - from) as u128) as u64
            }
            Service::Rate => self.schedule.rate_at(now),
        }
    }
}

/// One row of a direction's time series.
#[derive(Clone, Copy, Debug)]
pub struct DirSample {
    /// Packets and IP bytes waiting (not in transmission).
    pub queue_packets: usize,
    pub queue_bytes: u64,
    /// The rate in force (0 while the direction is down); on a trace of
    /// delivery opportunities, the rate they gave over the last 100 ms.
    pub rate_bps: u64,
    /// IP bytes accepted for transmission so far.
    pub bytes_tx: u64,
    /// RED's average queue, if the discipline is RED.
    pub red_avg_packets: Option<f64>,
}

impl LinkDir {
    /// The direction as its time series reads it at `now`.
    pub fn sample(&mut self, now: Time) -> DirSample {
        DirSample {
            queue_packets: self.queue_packets(now),
            queue_bytes: self.queue_bytes(now),
            rate_bps: if !self.up {
                0
            } else if self.traced {
                self.traced_rate(now)
            } else {
                self.rate_bps
            },
            bytes_tx: self.stats.bytes_tx,
            red_avg_packets: self.red_avg(),
        }
    }
}
