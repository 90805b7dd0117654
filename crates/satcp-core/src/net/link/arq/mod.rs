//! The link-layer ARQ on a link direction's transmitter (`arq = {...}` on a
//! link; the protocol itself is `net/link/arq/selective_repeat.rs`).
//!
//! Each direction of an ARQ link holds, at its sending node: the ARQ sender
//! of its own frames, the ARQ receiver of the frames that come the other way
//! (so the ACKs it sends are built where they are sent), the IP queue, and
//! what is on its wire. Its transmitter serves, in this order: a link ACK
//! the local receiver owes, a retransmission, then the oldest IP packet
//! (an ARQ-class packet only when the window has room; a bypass packet
//! behind it may go first). Everything it sends takes capacity: frames are
//! the IP packet plus `header` bytes (times n/k with FEC, plus the link's
//! `overhead`), ACKs `ack_size` bytes.
//!
//! Bypass classes (`bypass = ["udp", "tcp_ack", "dummy"]`): packets of
//! these kinds are framed and sent on the same transmitter, FEC included,
//! but get no link sequence number: no ARQ, no resequencing, delivered on
//! arrival if intact (S-LACP's channels for delay-sensitive flows).
//!
//! Choices: the IP queue is the link's `queue` (drop-tail or RED, as a
//! router's queue above its link layer; frames in the window and
//! retransmissions are the ARQ's own buffer, bounded by the window); an outage loses the IP queue and what is on the air, while the
//! window survives and is retransmitted (persistence permitting) when the
//! link is back; corrupted frames are discarded by the link layer, so
//! router agents on an ARQ link never see them. The ARQ needs a FIFO hop:
//! the `reorder` model and the S-LACP approximation's `burst_delay` are
//! refused with it (the scenario says so).

pub mod fec;
pub mod selective_repeat;


use std::collections::VecDeque;

use super::protocol::{LinkCtx, LinkEvent};
use super::{serialisation_ns, Discipline, LinkDir, Offered, Tx};
use crate::net::errors::Fate;
use crate::net::queue::red::RedVerdict;
use crate::net::{Kind, Packet};
use crate::scenario::{ArqCfg, LinkDirCfg, QueueLimit};
use crate::sim::{Event, EventQueue, Time, Timer};
use fec::FecCfg;
use selective_repeat::{ArqParams, ArqReceiver, ArqSender, Frame, LinkAck};

/// The ARQ's events on a direction (`Event::Link`): the item on the air
/// has been sent; the first item on the air reaches the far end; the
/// retransmission or resequencing timer.
pub(in crate::net::link) const TX_DONE: LinkEvent = 0;
pub(in crate::net::link) const AIR_ARRIVAL: LinkEvent = 1;
pub(in crate::net::link) const TIMER: LinkEvent = 2;

/// Bypass classes: bits of `ArqCfg::bypass`.
pub const BYPASS_UDP: u8 = 1;
pub const BYPASS_TCP_ACK: u8 = 2;
pub const BYPASS_DUMMY: u8 = 4;
pub const BYPASS_NAMES: &[(&str, u8)] = &[("udp", BYPASS_UDP), ("tcp_ack", BYPASS_TCP_ACK), ("dummy", BYPASS_DUMMY)];

fn bypasses(mask: u8, kind: Kind) -> bool {
    let class = match kind {
        Kind::Udp | Kind::Quic => BYPASS_UDP,
        Kind::Ack => BYPASS_TCP_ACK,
        Kind::Dummy | Kind::DummyAck => BYPASS_DUMMY,
        _ => 0,
    };
    mask & class != 0
}

/// What travels on an ARQ link's air.
#[derive(Clone, Copy, Debug)]
pub enum WireItem {
    Frame(Frame),
    Bypass(Packet),
    Ack(LinkAck),
}

/// The largest IP packet the automatic timeout allows for.
const MAX_IP_BYTES: u32 = 1500;

/// The scenario's `arq` for direction `fwd` (frames) whose ACKs go on
/// `rev`, with the automatic values filled in: the timeout is 1.25 x the
/// hop's round trip plus a largest frame each way (an ACK may wait behind
/// one) plus an ACK; the resequencing timeout (persistence + 1) timeouts.
pub fn resolve(cfg: &ArqCfg, fwd: &LinkDirCfg, rev: &LinkDirCfg) -> ArqParams {
    let air = |d: &LinkDirCfg, bytes: u32| {
        let coded = cfg.fec.map_or(bytes, |f| f.coded_bytes(bytes));
        serialisation_ns(coded, d.overhead_bytes, d.rate_bps)
    };
    let largest = MAX_IP_BYTES + cfg.header_bytes;
    let rtt = fwd.delay_ns + rev.delay_ns;
    let auto = rtt + rtt / 4 + air(fwd, largest) + air(rev, largest) + air(rev, cfg.ack_bytes);
    let timeout_ns = cfg.timeout_ns.unwrap_or(auto);
    ArqParams {
        persistence: cfg.persistence,
        window: cfg.window,
        timeout_ns,
        reseq_timeout_ns: cfg.reseq_timeout_ns.unwrap_or((cfg.persistence as u64 + 1) * timeout_ns),
        header_bytes: cfg.header_bytes,
        ack_bytes: cfg.ack_bytes,
        ack_blocks: cfg.ack_blocks as usize,
    }
}

#[derive(Clone, Copy, Debug)]
struct OnAir {
    item: WireItem,
    start: Time,
    end: Time,
    bytes: u32,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct ArqLinkStats {
    pub acks: u64,
    pub bypass: u64,
}

pub struct ArqLink {
    pub p: ArqParams,
    fec: Option<FecCfg>,
    bypass: u8,
    /// The IP queue's discipline: drop-tail or RED.
    discipline: Discipline,
    ipq: VecDeque<Packet>,
    /// When the last transmission ended (RED's idle time).
    last_end: Time,
    ipq_bytes: u64,
    pub snd: ArqSender,
    /// Receiver of the frames that come the other way.
    pub rx: ArqReceiver,
    sending: Option<OnAir>,
    /// Completion events of transmissions an outage cut short.
    stale: Vec<Time>,
    wire: VecDeque<(Time, WireItem)>,
    last_arrival: Time,
    /// The retransmission and resequencing timers' earliest deadline, on
    /// the project's lazy timer (`Event::ArqTimer`).
    timer: Timer,
    pub stats: ArqLinkStats,
}

impl ArqLink {
    pub(super) fn new(p: ArqParams, cfg: &ArqCfg, discipline: Discipline) -> Self {
        ArqLink {
            p,
            fec: cfg.fec,
            bypass: cfg.bypass,
            discipline,
            ipq: VecDeque::new(),
            last_end: 0,
            ipq_bytes: 0,
            snd: ArqSender::new(p),
            rx: ArqReceiver::new(&p),
            sending: None,
            stale: Vec::new(),
            wire: VecDeque::new(),
            last_arrival: 0,
            timer: Timer::default(),
            stats: ArqLinkStats::default(),
        }
    }

    pub fn queue_packets(&self) -> usize {
        self.ipq.len()
    }

    pub fn queue_bytes(&self) -> u64 {
        self.ipq_bytes
    }

    pub fn busy_until(&self) -> Time {
        self.sending.map_or(0, |s| s.end)
    }

    /// RED's average queue, if the IP queue is RED.
    pub fn red_avg(&self) -> Option<f64> {
        match &self.discipline {
            Discipline::Red(r) => Some(r.avg()),
            Discipline::DropTail(_) => None,
        }
    }

    /// Bytes on the air for `bytes` of frame (header included).
    fn coded(&self, bytes: u32) -> u32 {
        self.fec.map_or(bytes, |f| f.coded_bytes(bytes))
    }

    /// The next thing to send, taken from its queue.
    fn next_item(&mut self, now: Time, delay_ns: u64, ser: impl Fn(u32) -> u64) -> Option<WireItem> {
        if self.rx.ack_due {
            self.stats.acks += 1;
            return Some(WireItem::Ack(self.rx.build_ack()));
        }
        if let Some(f) = self.snd.send_retx() {
            return Some(WireItem::Frame(f));
        }
        let room = self.snd.can_send_new();
        let k = self.ipq.iter().position(|p| room || bypasses(self.bypass, p.kind))?;
        let p = self.ipq.remove(k).unwrap();
        self.ipq_bytes -= p.ip_bytes as u64;
        if bypasses(self.bypass, p.kind) {
            self.stats.bypass += 1;
            return Some(WireItem::Bypass(p));
        }
        let nominal = now + ser(self.coded(p.ip_bytes + self.p.header_bytes)) + delay_ns;
        Some(WireItem::Frame(self.snd.send_new(p, nominal)))
    }

    /// Frame bytes (before FEC) of an item.
    fn frame_bytes(&self, item: &WireItem) -> u32 {
        match item {
            WireItem::Frame(f) => f.pkt.ip_bytes + self.p.header_bytes,
            WireItem::Bypass(p) => p.ip_bytes + self.p.header_bytes,
            WireItem::Ack(_) => self.p.ack_bytes,
        }
    }
}

/// The IP packet an item carries (none for a link ACK).
fn ip_packet(item: &WireItem) -> Option<Packet> {
    match item {
        WireItem::Frame(f) => Some(f.pkt),
        WireItem::Bypass(p) => Some(*p),
        WireItem::Ack(_) => None,
    }
}

/// An item judged and put on the wire, or lost.
enum AirFate {
    /// It will arrive at this time; `first`: it is now first on the wire
    /// (its arrival must be scheduled).
    Arrives { first: bool },
    /// Corrupted, or lost to an outage; a bypass packet so lost is handed
    /// back for the world to count.
    Lost(Option<Packet>),
}

/// ARQ direction `d`'s event `what` at `ctx.now`. An item that arrives
/// over `d` is taken by the link's other end (direction `d ^ 1`'s state:
/// its receiver of frames, its sender's window for link ACKs).
pub(in crate::net::link) fn arq_event(dirs: &mut [LinkDir], d: u32, what: LinkEvent, ctx: &mut LinkCtx) {
    let now = ctx.now;
    match what {
        TX_DONE => {
            let dir = &mut dirs[d as usize];
            match dir.arq_finish(now) {
                Some(AirFate::Arrives { first: true }) => {
                    let at = dir.arq_wire_head().expect("just put on the wire");
                    ctx.q.push(at, Event::Link { dir: d, what: AIR_ARRIVAL });
                }
                Some(AirFate::Lost(Some(p))) => ctx.out.lost.push(p),
                _ => {}
            }
            dir.arq_kick(d, ctx);
        }
        AIR_ARRIVAL => {
            let (item, next) = dirs[d as usize].arq_pop_wire();
            if let Some(at) = next {
                ctx.q.push(at, Event::Link { dir: d, what: AIR_ARRIVAL });
            }
            let back = d ^ 1;
            ctx.out.delivered_over = d;
            dirs[back as usize].arq_receive(now, item, &mut ctx.out.delivered, &mut ctx.out.lost);
            dirs[back as usize].arq_kick(back, ctx);
        }
        TIMER => {
            let dir = &mut dirs[d as usize];
            if !dir.arq().timer.on_pop(now, ctx.q, Event::Link { dir: d, what: TIMER }) {
                return;
            }
            // the data it releases came over the opposite direction
            ctx.out.delivered_over = d ^ 1;
            dir.arq_timer(now, &mut ctx.out.delivered, &mut ctx.out.lost);
            dir.arq_kick(d, ctx);
        }
        _ => unreachable!("an ARQ event {what}"),
    }
}

impl LinkDir {
    /// The world routed `p` onto ARQ direction `d`: into the IP queue, and
    /// the transmitter started if idle.
    pub(in crate::net::link) fn arq_accept(&mut self, d: u32, p: Packet, ctx: &mut LinkCtx) {
        match self.arq_offer(ctx.now, p) {
            Offered::Queued => self.arq_kick(d, ctx),
            Offered::DroppedQueue => ctx.out.queue_drops.push((d, p)),
            Offered::DroppedDown => ctx.out.lost.push(p),
        }
    }

    /// A scheduled outage begins: the IP queue and the item on the air are
    /// lost; the window stays.
    pub(in crate::net::link) fn arq_go_down(&mut self, _d: u32, ctx: &mut LinkCtx) {
        self.arq_lose_queue(ctx.now, &mut ctx.out.lost);
    }

    /// The outage ends: the window is retransmitted (persistence
    /// permitting) and the queue served.
    pub(in crate::net::link) fn arq_come_up(&mut self, d: u32, ctx: &mut LinkCtx) {
        self.arq_kick(d, ctx);
    }

    /// Start direction `d`'s next transmission if it is idle, and keep its
    /// timer armed.
    fn arq_kick(&mut self, d: u32, ctx: &mut LinkCtx) {
        if let Some((end, ip)) = self.arq_start(ctx.now) {
            ctx.q.push(end, Event::Link { dir: d, what: TX_DONE });
            if let (true, Some(p)) = (ctx.captures, ip) {
                ctx.out.started.push((d, ctx.now, p));
            }
        }
        self.arq_arm(ctx.q, Event::Link { dir: d, what: TIMER });
    }

    fn arq(&mut self) -> &mut ArqLink {
        match &mut self.tx {
            Tx::Arq(a) => a,
            _ => unreachable!("an ARQ call on a direction without ARQ"),
        }
    }

    /// Offer an IP packet to the ARQ link's queue.
    fn arq_offer(&mut self, now: Time, mut p: Packet) -> Offered {
        if self.schedule.down_at(now) {
            self.stats.drops_down += 1;
            return Offered::DroppedDown;
        }
        let a = self.arq();
        let idle = a.sending.is_none() && a.ipq.is_empty();
        let verdict = match &mut a.discipline {
            Discipline::Red(red) => red.on_arrival(now, a.ipq.len(), idle.then_some(a.last_end), p.ip_bytes, p.ecn().capable()),
            Discipline::DropTail(limit) => {
                let full = !idle
                    && match *limit {
                        QueueLimit::Unlimited => false,
                        QueueLimit::Packets(n) => a.ipq.len() >= n as usize,
                        QueueLimit::Bytes(b) => a.ipq_bytes + p.ip_bytes as u64 > b,
                    };
                if full {
                    RedVerdict::Overflow
                } else {
                    RedVerdict::Accept
                }
            }
        };
        if self.stats.count_drop(verdict).is_some() {
            return Offered::DroppedQueue;
        }
        if verdict == RedVerdict::Mark {
            p.set_ecn(crate::net::packet::Ecn::Ce);
        }
        let a = self.arq();
        a.ipq.push_back(p);
        a.ipq_bytes += p.ip_bytes as u64;
        let len = a.ipq.len() as u64;
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(len);
        Offered::Queued
    }

    /// If the transmitter is idle, up and has something to send, start it;
    /// returns when it ends and, for a frame or bypass packet, the IP packet
    /// (for captures).
    fn arq_start(&mut self, now: Time) -> Option<(Time, Option<Packet>)> {
        if self.schedule.down_at(now) {
            return None;
        }
        let rate = self.schedule.rate_at(now);
        let (delay, overhead) = (self.schedule.delay_at(now), self.overhead_bytes);
        let a = self.arq();
        if a.sending.is_some() {
            return None;
        }
        let ser = |b: u32| serialisation_ns(b, overhead, rate);
        let item = a.next_item(now, delay, ser)?;
        let bytes = a.coded(a.frame_bytes(&item));
        let end = now + ser(bytes);
        a.sending = Some(OnAir { item, start: now, end, bytes });
        let ip = ip_packet(&item);
        // the link's byte counters count IP bytes (a link ACK has none);
        // its busy time counts everything on the air
        self.count_tx(now, end, ip.map_or(0, |p| p.ip_bytes));
        Some((end, ip))
    }

    /// The transmission that ends at `now` is complete: judge it on the
    /// air. None for a completion an outage made stale.
    fn arq_finish(&mut self, now: Time) -> Option<AirFate> {
        let a = self.arq();
        if let Some(k) = a.stale.iter().position(|&t| t == now) {
            a.stale.swap_remove(k);
            return None;
        }
        let s = a.sending.take().expect("a transmission was under way");
        debug_assert_eq!(s.end, now);
        a.last_end = now;
        if let WireItem::Frame(f) = &s.item {
            a.snd.sent(f, now);
        }
        let fec = a.fec;
        let data_bytes = a.frame_bytes(&s.item);
        let arrival = now + self.schedule.delay_at(now);
        let fate = match fec {
            Some(fec) => self.errors.judge_fec(&fec, data_bytes, s.bytes, s.start, arrival),
            None => self.errors.judge(s.bytes, s.start, arrival),
        };
        debug_assert!(!matches!(fate, Fate::Delayed { .. }), "burst_delay is refused with arq");
        let bypassed = match s.item {
            WireItem::Bypass(p) => Some(p),
            _ => None,
        };
        if self.schedule.next_down_from(now).is_some_and(|d| d < arrival) {
            self.stats.drops_down += 1;
            return Some(AirFate::Lost(bypassed));
        }
        if fate == Fate::Lost {
            self.stats.drops_errors += 1;
            return Some(AirFate::Lost(bypassed));
        }
        self.stats.bytes_ok += ip_packet(&s.item).map_or(0, |p| p.ip_bytes as u64);
        let a = self.arq();
        let at = arrival.max(a.last_arrival);
        a.last_arrival = at;
        a.wire.push_back((at, s.item));
        Some(AirFate::Arrives { first: a.wire.len() == 1 })
    }

    /// When the first item on the wire arrives.
    fn arq_wire_head(&mut self) -> Option<Time> {
        self.arq().wire.front().map(|w| w.0)
    }

    /// Take the first item on the wire; also when the next one arrives.
    fn arq_pop_wire(&mut self) -> (WireItem, Option<Time>) {
        let a = self.arq();
        let (_, item) = a.wire.pop_front().expect("an ARQ arrival was scheduled");
        (item, a.wire.front().map(|w| w.0))
    }

    /// An item that came over the reverse direction reaches this end at
    /// `now`: packets now in order go to `out`, packets the sender gives up
    /// to `gone`.
    fn arq_receive(&mut self, now: Time, item: WireItem, out: &mut Vec<Packet>, gone: &mut Vec<Packet>) {
        let a = self.arq();
        match item {
            WireItem::Frame(f) => a.rx.on_frame(now, &f, out),
            WireItem::Bypass(p) => out.push(p),
            WireItem::Ack(ack) => a.snd.on_ack(&ack, gone),
        }
    }

    /// The ARQ timer at `now` (the sender's retransmission timer and the
    /// receiver's resequencing timer).
    fn arq_timer(&mut self, now: Time, out: &mut Vec<Packet>, gone: &mut Vec<Packet>) {
        let a = self.arq();
        a.snd.on_timer(now, gone);
        a.rx.on_timer(now, out);
    }

    /// Keep the ARQ timer at the earliest deadline of the sender's
    /// retransmission timer and the receiver's resequencing timer
    /// (`ev` is this direction's `TIMER` event).
    fn arq_arm(&mut self, q: &mut EventQueue, ev: Event) {
        let a = self.arq();
        let next = match (a.snd.next_deadline(), a.rx.deadline()) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        match next {
            Some(t) if a.timer.deadline() != Some(t) => a.timer.set(t, q, ev),
            Some(_) => {}
            None => a.timer.stop(),
        }
    }

    /// The link goes down at `now`: the IP queue and the item on the air
    /// are lost (IP packets into `lost`); the window stays.
    fn arq_lose_queue(&mut self, now: Time, lost: &mut Vec<Packet>) {
        let a = self.arq();
        let mut busy_cut = 0;
        if let Some(s) = a.sending.take() {
            a.stale.push(s.end);
            busy_cut = s.end - now;
            match s.item {
                // the window keeps it: its timer runs from the cut
                WireItem::Frame(f) => a.snd.sent(&f, now),
                WireItem::Bypass(p) => lost.push(p),
                WireItem::Ack(_) => a.rx.ack_due = true,
            }
        }
        let n = a.ipq.len() as u64;
        lost.extend(a.ipq.drain(..));
        a.ipq_bytes = 0;
        self.stats.busy_ns -= busy_cut;
        self.stats.drops_down += n;
    }
}
