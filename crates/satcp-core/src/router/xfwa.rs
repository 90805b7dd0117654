//! XFWA, the explicit and fair window adjustment (`kind = "xfwa"`; Taleb,
//! Kato and Nemoto, IEEE JSAC 2003, section III and Appendix I; spec 004
//! section 1): a router on a satellite path computes, once per average
//! round trip, each active TCP flow's share of the pipe and its buffer,
//! and writes it into the window field of the flow's ACKs.
//!
//! * The agent sits on one interface (`link` is required): the data of a
//!   flow leaves over it, the flow's ACKs arrive over its other direction.
//! * Flow table (III-A): per flow its hop counts, RTT estimate and the time
//!   its last data packet is transmitted on the interface (the packet
//!   arrives, then waits for the backlog ahead of it in the FIFO: the
//!   agent reads the backlog and dates the transmission then; dating it at
//!   the arrival would let a flow whose window arrives in one burst look
//!   idle for most of a round trip once a standing queue doubles the RTT);
//!   a flow is active while now - last < delta, delta = the latest
//!   RTT_avg; an inactive flow leaves the table.
//! * RTT from hop counts (Eq. 1): RTT = 2 (H_b + H_f + `extra_hops`) x
//!   `isl_delay`, H_f the routers a data packet crossed before this one,
//!   H_b those an ACK crossed (from their TTLs; satcp decrements the TTL at
//!   each router, not at the sending host). `extra_hops` = 2 (the uplink
//!   and the downlink) is the reading that gives the paper's 160 ms on a
//!   three-satellite chain (spec A1).
//! * Every RTT_avg (evaluated at the first packet at or after the
//!   period's end; while packets pass that is within a packet time): N
//!   active flows with known RTTs, RTT_avg their mean, R = Bw RTT_avg +
//!   Q_size, and (Eq. 2) feedback_i = RTT_i^alpha / sum RTT_j^alpha x R.
//! * Units (spec A4): packets of the flows' largest data packet (ns-2's
//!   packets), so Bw RTT_avg is in packets; a flow's feedback in bytes is
//!   floor(feedback) of its segments, at least one.
//! * Q_size (spec A3): `q_size = "capacity"` (default: the queue's limit,
//!   "the total buffer size") or `"free"` (the limit less the packets
//!   waiting at the update).
//! * ACK rewrite (III-C): a passing ACK of a flow with a feedback gets
//!   min(its window, feedback), never more; scales as `window_field.rs`.
//! * New flows (spec A7): `new_flows = "immediate"` (default: once its
//!   round trip is known, a flow gets RTT^alpha x Upsilon of the last
//!   update, the group form's h~^alpha x Upsilon of Appendix I, before it
//!   is counted at the next update) or `"wait"` (no feedback before the
//!   next update). With different RTTs "wait" leaves the long-RTT flows
//!   unclamped in slow start for up to two round trips: at T2 and T3 the
//!   buffer overflows (1630 drops and Jain 0.87 at T2 against 62 and 0.97);
//!   with equal RTTs both give the same runs.
//! * RTT estimation errors (V-C, spec A14): `rtt_error = sigma` multiplies
//!   each flow's estimate by 1 + e, e drawn once per flow from
//!   `rtt_error_dist`: `"uniform"` U[-sigma, sigma] (the paper's ns
//!   min_/max_, default), `"uniform_variance"` (uniform with variance
//!   sigma^2, as the text says) or `"normal"` N(0, sigma^2) (Appendix II).
//!   RTT_avg is the mean of the erroneous estimates (Appendix II's R hat).
//! * Non-responsive traffic (III-D): only TCP flows enter the table; UDP
//!   passes untouched and is not counted. The paper's classes are the
//!   interface's queue discipline (`queue = { kind = "classes" }`: TCP and
//!   other traffic in their own buffers with shares of the link): on such
//!   an interface Bw is the TCP class's share of the rate, Q_size the TCP
//!   class's buffer and the backlog the TCP class's.
//! * Before the first update the agent rewrites nothing (spec A6).

use std::collections::BTreeMap;

use super::window_field::WindowField;
use super::{AgentEnv, AgentParams, AgentPlugin, AgentSite, RouterAgent};
use crate::net::packet::{Kind, FLAG_ACK, INITIAL_TTL};
use crate::ids::Side;
use crate::net::Packet;
use crate::scenario::reader::{missing, Res, Tbl};
use crate::scenario::QueueLimit;
use crate::sim::{Rng, Time};

/// What Q_size in Eq. 2 is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QSize {
    Capacity,
    Free,
}

/// When a newly seen flow gets its feedback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewFlows {
    Wait,
    Immediate,
}

/// How an RTT estimation error is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorDist {
    Uniform,
    UniformVariance,
    Normal,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XfwaCfg {
    pub alpha: f64,
    pub isl_delay_ns: u64,
    pub extra_hops: u32,
    pub q_size: QSize,
    pub new_flows: NewFlows,
    pub rtt_error: f64,
    pub rtt_error_dist: ErrorDist,
}

impl Default for XfwaCfg {
    fn default() -> Self {
        XfwaCfg {
            alpha: 1.0,
            isl_delay_ns: 20_000_000,
            extra_hops: 2,
            q_size: QSize::Capacity,
            new_flows: NewFlows::Immediate,
            rtt_error: 0.0,
            rtt_error_dist: ErrorDist::Uniform,
        }
    }
}

impl AgentParams for XfwaCfg {
    const KEYS: &'static [&'static str] = &["alpha", "isl_delay", "extra_hops", "q_size", "new_flows", "rtt_error", "rtt_error_dist"];

    /// Every key has the paper's default; `link` is required.
    fn parse(t: &Tbl, site: &AgentSite) -> Res<Self> {
        if site.link.is_none() {
            return Err(missing(&t.at("link"), "the link whose interface the agent adjusts (its data leaves over it)"));
        }
        let d = XfwaCfg::default();
        Ok(XfwaCfg {
            alpha: t.number("alpha", |x| x > 0.0 && x <= 10.0, "a skew factor in (0, 10], e.g. 1")?.unwrap_or(d.alpha),
            isl_delay_ns: t.duration("isl_delay")?.unwrap_or(d.isl_delay_ns),
            extra_hops: t.u32_in("extra_hops", 0, 64)?.unwrap_or(d.extra_hops),
            q_size: match t.choice("q_size", &["capacity", "free"])? {
                Some("free") => QSize::Free,
                Some(_) => QSize::Capacity,
                None => d.q_size,
            },
            new_flows: match t.choice("new_flows", &["wait", "immediate"])? {
                Some("immediate") => NewFlows::Immediate,
                Some(_) => NewFlows::Wait,
                None => d.new_flows,
            },
            rtt_error: t.number("rtt_error", |x| (0.0..1.0).contains(&x), "a relative error sigma in [0, 1), e.g. 0.1")?.unwrap_or(d.rtt_error),
            rtt_error_dist: match t.choice("rtt_error_dist", &["uniform", "uniform_variance", "normal"])? {
                Some("uniform_variance") => ErrorDist::UniformVariance,
                Some("normal") => ErrorDist::Normal,
                Some(_) => ErrorDist::Uniform,
                None => d.rtt_error_dist,
            },
        })
    }
}

/// Eq. 1: the round trip from the hop counts, in ns.
pub fn eq1_rtt_ns(h_b: u32, h_f: u32, extra_hops: u32, isl_delay_ns: u64) -> f64 {
    2.0 * (h_b + h_f + extra_hops) as f64 * isl_delay_ns as f64
}

/// Eq. 2: each flow's window (in the unit of `budget`) from its RTT.
pub fn eq2_windows(rtts: &[f64], alpha: f64, budget: f64) -> Vec<f64> {
    let sum: f64 = rtts.iter().map(|r| r.powf(alpha)).sum();
    rtts.iter().map(|r| r.powf(alpha) / sum * budget).collect()
}

/// Appendix I: the windows of hop-count groups (n_m flows with h_m hops
/// each, h~ = h + 1), Upsilon = R / sum n_j h~_j^alpha and feedback_m =
/// h~_m^alpha Upsilon, with R = Bw RTT_avg + Q and RTT_avg = 2 (sum n_j
/// h~_j / N) ISL. `bw` in packets per second, `isl` in seconds.
pub fn grouped_windows(groups: &[(u32, u32)], alpha: f64, bw: f64, isl: f64, q: f64) -> Vec<f64> {
    let n: u32 = groups.iter().map(|g| g.0).sum();
    let rtt_avg = 2.0 * groups.iter().map(|&(c, h)| c as f64 * (h + 1) as f64).sum::<f64>() / n as f64 * isl;
    let r = bw * rtt_avg + q;
    let phi: f64 = groups.iter().map(|&(c, h)| c as f64 * ((h + 1) as f64).powf(alpha)).sum();
    let upsilon = r / phi;
    groups.iter().map(|&(_, h)| ((h + 1) as f64).powf(alpha) * upsilon).collect()
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    h_f: Option<u32>,
    h_b: Option<u32>,
    last: Time,
    /// 1 + e, the flow's RTT estimation error.
    error: f64,
    /// Its data segments' payload (the largest seen).
    segment: u32,
    /// Its window in packets, from the last update (or at once).
    feedback: Option<f64>,
}

impl Entry {
    fn rtt(&self, c: &XfwaCfg) -> Option<f64> {
        Some(eq1_rtt_ns(self.h_b?, self.h_f?, c.extra_hops, c.isl_delay_ns) * self.error)
    }
}

pub struct Xfwa {
    cfg: XfwaCfg,
    /// The interface: data leaves over `out`, ACKs arrive over `back`.
    out: u32,
    back: u32,
    bw_bps: f64,
    /// The queue's limit in packets (None: in bytes, converted at each
    /// update by the data packet size).
    limit_packets: Option<f64>,
    limit_bytes: Option<f64>,
    /// Packets waiting on `out` as the world last told (transmission
    /// times, `q_size = "free"`).
    backlog: usize,
    table: BTreeMap<u32, Entry>,
    field: WindowField,
    rng: Rng,
    /// The largest data packet seen (IP bytes): the unit of Eq. 2.
    packet_bytes: u32,
    rtt_avg: Option<f64>,
    upsilon: Option<f64>,
    next_update: Time,
    acks: u64,
    lowered: u64,
    updates: u64,
    active: u64,
}

impl Xfwa {
    /// An agent on link direction `out` (its reverse is `back`) of rate
    /// `bw_bps` whose queue holds `limit_packets` or `limit_bytes`.
    pub fn new(cfg: XfwaCfg, out: u32, back: u32, bw_bps: u64, limit_packets: Option<u32>, limit_bytes: Option<u64>, flows: usize, rng: Rng) -> Self {
        Xfwa {
            cfg,
            out,
            back,
            bw_bps: bw_bps as f64,
            limit_packets: limit_packets.map(f64::from),
            limit_bytes: limit_bytes.map(|b| b as f64),
            backlog: 0,
            table: BTreeMap::new(),
            field: WindowField::new(flows),
            rng,
            packet_bytes: 0,
            rtt_avg: None,
            upsilon: None,
            next_update: 0,
            acks: 0,
            lowered: 0,
            updates: 0,
            active: 0,
        }
    }

    /// The latest RTT_avg (ns), if an update has run.
    pub fn rtt_avg_ns(&self) -> Option<f64> {
        self.rtt_avg
    }

    /// A flow's window in packets, if it has one.
    pub fn feedback(&self, flow: u32) -> Option<f64> {
        self.table.get(&flow).and_then(|e| e.feedback)
    }

    /// Flows in the table.
    pub fn flows(&self) -> usize {
        self.table.len()
    }

    fn draw_error(&mut self) -> f64 {
        let s = self.cfg.rtt_error;
        if s <= 0.0 {
            return 1.0;
        }
        let e = match self.cfg.rtt_error_dist {
            ErrorDist::Uniform => s * (2.0 * self.rng.uniform() - 1.0),
            ErrorDist::UniformVariance => 3f64.sqrt() * s * (2.0 * self.rng.uniform() - 1.0),
            ErrorDist::Normal => s * self.rng.normal(),
        };
        // an estimate stays positive whatever the draw
        (1.0 + e).max(0.01)
    }

    fn entry(&mut self, flow: u32, now: Time) -> &mut Entry {
        if !self.table.contains_key(&flow) {
            let error = self.draw_error();
            self.table.insert(flow, Entry { h_f: None, h_b: None, last: now, error, segment: 0, feedback: None });
        }
        self.table.get_mut(&flow).unwrap()
    }

    /// The queue's size for Eq. 2, in packets.
    fn q_packets(&self) -> f64 {
        let unit = self.packet_bytes.max(1) as f64;
        let cap = self.limit_packets.or(self.limit_bytes.map(|b| b / unit)).unwrap_or(0.0);
        match self.cfg.q_size {
            QSize::Capacity => cap,
            QSize::Free => (cap - self.backlog as f64).max(0.0),
        }
    }

    /// The periodic computation (Eq. 2), if its time has come.
    fn maybe_update(&mut self, now: Time) {
        if now < self.next_update {
            return;
        }
        let delta = self.rtt_avg;
        if let Some(d) = delta {
            self.table.retain(|_, e| (now.saturating_sub(e.last) as f64) < d);
        }
        let c = self.cfg;
        let rtts: Vec<(u32, f64)> = self.table.iter().filter_map(|(&f, e)| e.rtt(&c).map(|r| (f, r))).collect();
        if rtts.is_empty() {
            // nothing to share yet: look again at the next packet once a
            // flow's round trip is known, else after the last period
            self.next_update = delta.map_or(now, |d| now + d as Time);
            self.active = 0;
            return;
        }
        let n = rtts.len() as f64;
        let rtt_avg = rtts.iter().map(|r| r.1).sum::<f64>() / n;
        let budget = self.bw_bps * rtt_avg * 1e-9 / (8.0 * self.packet_bytes.max(1) as f64) + self.q_packets();
        let rs: Vec<f64> = rtts.iter().map(|r| r.1).collect();
        let w = eq2_windows(&rs, c.alpha, budget);
        for e in self.table.values_mut() {
            e.feedback = None;
        }
        for ((f, _), w) in rtts.iter().zip(w) {
            self.table.get_mut(f).unwrap().feedback = Some(w);
        }
        self.upsilon = Some(budget / rs.iter().map(|r| r.powf(c.alpha)).sum::<f64>());
        self.rtt_avg = Some(rtt_avg);
        self.next_update = now + (rtt_avg as Time).max(1);
        self.updates += 1;
        self.active = rtts.len() as u64;
    }

    /// A flow's round trip just became known: under `new_flows =
    /// "immediate"` it gets RTT^alpha x Upsilon at once.
    fn on_rtt_known(&mut self, flow: u32) {
        if self.cfg.new_flows != NewFlows::Immediate {
            return;
        }
        let (Some(u), c) = (self.upsilon, self.cfg) else { return };
        let e = self.table.get_mut(&flow).unwrap();
        if e.feedback.is_none() {
            e.feedback = e.rtt(&c).map(|r| r.powf(c.alpha) * u);
        }
    }
}

impl AgentPlugin for Xfwa {
    type Params = XfwaCfg;

    fn new(p: &XfwaCfg, env: AgentEnv) -> Self {
        // the parser requires a link attached to the node
        let i = env.interface.expect("an xfwa agent has a link");
        let (lp, lb) = match i.limit {
            QueueLimit::Packets(n) => (Some(n), None),
            QueueLimit::Bytes(b) => (None, Some(b)),
            QueueLimit::Unlimited => (None, None),
        };
        // with TCP and other traffic in classes, XFWA shares the TCP
        // class's part of the link and its buffer (III-D)
        let bw = (i.rate_bps as f64 * i.tcp_share) as u64;
        Xfwa::new(*p, i.out, i.back, bw, lp, lb, env.flows, env.rng)
    }
}

impl RouterAgent for Xfwa {
    fn on_forward(&mut self, now: Time, dir: u32, p: &mut Packet) {
        if dir != self.out || !p.kind.is_tcp() {
            return;
        }
        self.field.observe(p);
        // a data packet on its way to its flow's client
        if p.kind == Kind::Data && p.payload > 0 && p.endpoint().side() == Side::Client {
            let flow = p.flow().0;
            self.packet_bytes = self.packet_bytes.max(p.ip_bytes);
            // the TTL was decremented here already: routers before this one
            let h_f = (INITIAL_TTL - p.ttl).saturating_sub(1) as u32;
            let sent_at = now + (self.backlog as f64 * p.ip_bytes as f64 * 8e9 / self.bw_bps) as Time;
            let e = self.entry(flow, now);
            let new = e.h_f.is_none() && e.h_b.is_some();
            e.h_f = Some(h_f);
            e.last = e.last.max(sent_at);
            e.segment = e.segment.max(p.payload);
            if new {
                self.on_rtt_known(flow);
            }
        }
        self.maybe_update(now);
    }

    fn on_arrival(&mut self, now: Time, dir: u32, p: &mut Packet) {
        if dir != self.back || !p.kind.is_tcp() {
            return;
        }
        self.field.observe(p);
        self.maybe_update(now);
        // an ACK on its way to its flow's server
        if p.endpoint().side() != Side::Server || !p.tcp.has(FLAG_ACK) {
            return;
        }
        let flow = p.flow().0;
        let Some(e) = self.table.get_mut(&flow) else { return };
        // not yet decremented here: routers before this one
        let new = e.h_b.is_none() && e.h_f.is_some();
        e.h_b = Some((INITIAL_TTL - p.ttl) as u32);
        if new {
            self.on_rtt_known(flow);
        }
        let e = self.table[&flow];
        self.acks += 1;
        if let (Some(w), true) = (e.feedback, e.segment > 0) {
            let bytes = (w.floor().max(1.0) as u64) * e.segment as u64;
            if self.field.lower(p, bytes) {
                self.lowered += 1;
            }
        }
    }

    fn wants_arrivals(&self) -> bool {
        true
    }

    /// The backlog of its interface: transmission times, and `q_size =
    /// "free"`.
    fn on_backlog(&mut self, dir: u32, packets: usize) {
        if dir == self.out {
            self.backlog = packets;
        }
    }

    fn wants_backlog(&self, dir: u32) -> bool {
        dir == self.out
    }

    fn counters(&self) -> BTreeMap<String, u64> {
        BTreeMap::from([
            ("acks_seen".to_string(), self.acks),
            ("acks_lowered".to_string(), self.lowered),
            ("updates".to_string(), self.updates),
            ("active_flows_last".to_string(), self.active),
            ("rtt_avg_us_last".to_string(), self.rtt_avg.map_or(0, |r| (r / 1e3).round() as u64)),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::TcpHeader;

    const MS: u64 = 1_000_000;

    #[test]
    fn eq1_gives_the_papers_160_ms_on_three_satellites() {
        // at S1: the data crossed no router before it, the ACK S3 and S2
        assert_eq!(eq1_rtt_ns(2, 0, 2, 20 * MS), 160e6);
        // the same sum at S2 (1 + 1) and S3 (2 + 0... here 0 + 2)
        assert_eq!(eq1_rtt_ns(1, 1, 2, 20 * MS), 160e6);
        assert_eq!(eq1_rtt_ns(0, 2, 2, 20 * MS), 160e6);
        // the different-RTT groups of section V-B: 160, 240, 320, 400 ms
        let v: Vec<f64> = (0..4).map(|i| eq1_rtt_ns(2 + i, i, 2, 20 * MS) / 1e6).collect();
        assert_eq!(v, vec![160.0, 240.0, 320.0, 400.0]);
    }

    #[test]
    fn eq2_windows_share_the_budget_in_proportion_to_rtt() {
        // T1, RTTs 160/240/320/400 ms twice (section V-B): RTT_avg 280 ms,
        // R = Bw RTT_avg + Q = 1.5e6 x 0.28 / 8000 + 30 = 82.5 packets
        let rtts = [160.0, 240.0, 320.0, 400.0, 160.0, 240.0, 320.0, 400.0];
        let r = 1.5e6 * 0.28 / 8000.0 + 30.0;
        let w = eq2_windows(&rtts, 1.0, r);
        assert!((w.iter().sum::<f64>() - r).abs() < 1e-9);
        // alpha = 1: window / RTT the same for all (equal rates)
        assert!(w.iter().zip(rtts).all(|(w, t)| (w / t - r / 2240.0).abs() < 1e-12));
        // alpha = 0: equal windows; alpha = 2: the long flows get more
        let w0 = eq2_windows(&rtts, 0.0, r);
        assert!(w0.iter().all(|&x| (x - r / 8.0).abs() < 1e-12));
        let w2 = eq2_windows(&rtts, 2.0, r);
        assert!((w2[3] / w2[0] - 6.25).abs() < 1e-12);
    }

    #[test]
    fn grouped_form_equals_the_per_flow_form() {
        // groups (n_m, h_m): h~ = h + 1 one-way links, RTT = 2 h~ ISL
        let groups = [(2, 3), (3, 5), (1, 7), (4, 4)];
        let (bw, isl, q) = (187.5, 0.02, 30.0);
        for alpha in [0.5, 1.0, 1.5, 2.0] {
            let g = grouped_windows(&groups, alpha, bw, isl, q);
            let rtts: Vec<f64> = groups.iter().flat_map(|&(n, h)| std::iter::repeat_n(2.0 * (h + 1) as f64 * isl, n as usize)).collect();
            let rtt_avg = rtts.iter().sum::<f64>() / rtts.len() as f64;
            let per_flow = eq2_windows(&rtts, alpha, bw * rtt_avg + q);
            let mut i = 0;
            for (m, &(n, _)) in groups.iter().enumerate() {
                for _ in 0..n {
                    assert!((per_flow[i] - g[m]).abs() < 1e-9, "alpha {alpha} group {m}");
                    i += 1;
                }
            }
        }
    }

    /// An agent on direction 0 (out) / 1 (back) of a T1 link with a
    /// 30-packet queue; flow f's data (to endpoint 2f + 1) and ACKs (to 2f).
    fn agent() -> Xfwa {
        agent_with(NewFlows::Wait)
    }

    fn agent_with(new_flows: NewFlows) -> Xfwa {
        Xfwa::new(XfwaCfg { new_flows, ..XfwaCfg::default() }, 0, 1, 1_500_000, Some(30), None, 4, Rng::new(1, 1))
    }

    fn data(flow: u32, routers_before: u8) -> Packet {
        let mut p = Packet::tcp(0, 1, 2 * flow + 1, TcpHeader { flags: FLAG_ACK, ..Default::default() }, 960, 1, false);
        p.ip_bytes = 1000;
        // the TTL as forward() leaves it at this router: decremented here too
        p.ttl = INITIAL_TTL - routers_before - 1;
        p
    }

    fn ack(flow: u32, routers_before: u8, wnd: u16) -> Packet {
        let mut p = Packet::tcp(1, 0, 2 * flow, TcpHeader { flags: FLAG_ACK, wnd, ..Default::default() }, 0, 0, false);
        p.ttl = INITIAL_TTL - routers_before;
        p
    }

    #[test]
    fn acks_get_their_flows_share_and_are_never_raised() {
        let mut a = agent();
        // two flows at S1 of a three-satellite chain: RTT 160 ms each
        a.on_forward(0, 0, &mut data(0, 0));
        a.on_forward(0, 0, &mut data(1, 0));
        let mut first = ack(0, 2, 60_000);
        a.on_arrival(MS, 1, &mut first);
        assert_eq!((a.feedback(0), first.tcp.wnd), (None, 60_000), "nothing before the first update");
        // the first update comes with the first round trip known: flow 0
        // alone, R = 1.5e6 x 0.16 / 8000 + 30 = 60 packets
        a.on_arrival(MS, 1, &mut ack(1, 2, 60_000));
        assert_eq!(a.rtt_avg_ns(), Some(160e6));
        assert!((a.feedback(0).unwrap() - 60.0).abs() < 1e-9);
        assert_eq!(a.feedback(1), None, "new flows wait for the next update");
        // RTT_avg later both share it: 30 each
        a.on_forward(100 * MS, 0, &mut data(1, 0));
        a.on_forward(161 * MS, 0, &mut data(0, 0));
        assert!((a.feedback(0).unwrap() - 30.0).abs() < 1e-9);
        assert!((a.feedback(1).unwrap() - 30.0).abs() < 1e-9);
        let mut big = ack(0, 2, 60_000);
        a.on_arrival(3 * MS, 1, &mut big);
        assert_eq!(big.tcp.wnd, 30 * 960, "30 segments of 960 bytes");
        let mut small = ack(1, 2, 5_000);
        a.on_arrival(3 * MS, 1, &mut small);
        assert_eq!(small.tcp.wnd, 5_000, "never raised");
        // a packet on another interface is not the agent's business
        let mut other = ack(0, 2, 60_000);
        a.on_arrival(3 * MS, 7, &mut other);
        assert_eq!(other.tcp.wnd, 60_000);
    }

    #[test]
    fn immediate_new_flows_get_the_last_updates_share_at_once() {
        // flow 0 alone: Upsilon = 60 packets / 160 ms; flow 1's round trip
        // becomes known between updates: 160 ms x Upsilon = 60 packets at
        // once (it is counted, and the two share, at the next update)
        let mut a = agent_with(NewFlows::Immediate);
        a.on_forward(0, 0, &mut data(0, 0));
        a.on_arrival(MS, 1, &mut ack(0, 2, 60_000));
        a.on_forward(2 * MS, 0, &mut data(0, 0));
        assert!((a.feedback(0).unwrap() - 60.0).abs() < 1e-9);
        a.on_forward(3 * MS, 0, &mut data(1, 0));
        assert_eq!(a.feedback(1), None);
        let mut first = ack(1, 2, 60_000);
        a.on_arrival(4 * MS, 1, &mut first);
        assert!((a.feedback(1).unwrap() - 60.0).abs() < 1e-9);
        assert_eq!(first.tcp.wnd, 60 * 960, "its first ACK is clamped already");
        a.on_forward(100 * MS, 0, &mut data(1, 0));
        a.on_forward(170 * MS, 0, &mut data(0, 0));
        assert!((a.feedback(1).unwrap() - 30.0).abs() < 1e-9);
    }

    #[test]
    fn an_idle_flow_leaves_the_table_after_delta() {
        let mut a = agent();
        for f in 0..2 {
            a.on_forward(0, 0, &mut data(f, 0));
            a.on_arrival(MS, 1, &mut ack(f, 2, 60_000));
        }
        a.on_forward(2 * MS, 0, &mut data(0, 0));
        assert_eq!(a.flows(), 2);
        // flow 0 keeps sending, flow 1 stops: at the update after 160 ms
        // of silence it is gone and flow 0 gets the whole 60 packets
        let mut t = 2 * MS;
        while t < 400 * MS {
            t += 10 * MS;
            a.on_forward(t, 0, &mut data(0, 0));
        }
        assert_eq!(a.flows(), 1);
        assert!((a.feedback(0).unwrap() - 60.0).abs() < 1e-9);
        assert_eq!(a.feedback(1), None);
    }

    #[test]
    fn a_standing_queue_dates_the_transmission_later() {
        // 30 packets of 1000 bytes ahead on a 1.5 Mb/s link: transmitted
        // 160 ms after it arrives, so still active 160 ms later
        let mut a = agent();
        a.on_forward(0, 0, &mut data(0, 0));
        a.on_arrival(MS, 1, &mut ack(0, 2, 60_000));
        a.on_forward(2 * MS, 0, &mut data(1, 0));
        a.on_arrival(3 * MS, 1, &mut ack(1, 2, 60_000));
        a.on_backlog(0, 30);
        a.on_forward(4 * MS, 0, &mut data(0, 0));
        a.on_backlog(0, 0);
        // flow 1 silent since 2 ms, flow 0 since its 4 ms packet leaves at 164 ms
        let mut t = 4 * MS;
        while t < 300 * MS {
            t += 50 * MS;
            a.on_arrival(t, 1, &mut ack(0, 2, 60_000));
        }
        assert_eq!(a.flows(), 1, "flow 0 stays, flow 1 left");
    }

    #[test]
    fn rtt_errors_are_drawn_once_per_flow_within_sigma() {
        let cfg = XfwaCfg { rtt_error: 0.2, ..XfwaCfg::default() };
        let mut a = Xfwa::new(cfg, 0, 1, 1_500_000, Some(30), None, 64, Rng::new(3, 1));
        for f in 0..64 {
            a.on_forward(0, 0, &mut data(f, 0));
            a.on_arrival(MS, 1, &mut ack(f, 2, 60_000));
        }
        let e: Vec<f64> = a.table.values().map(|e| e.error).collect();
        assert!(e.iter().all(|&x| (0.8..=1.2).contains(&x)));
        assert!(e.iter().any(|&x| x < 0.95) && e.iter().any(|&x| x > 1.05));
        // the same flow keeps its error
        let before = a.table[&5].error;
        a.on_forward(2 * MS, 0, &mut data(5, 0));
        assert_eq!(a.table[&5].error, before);
    }
}
