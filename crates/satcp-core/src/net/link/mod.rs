//! One direction of a full-duplex point-to-point link: a transmitter with a
//! rate, a queue discipline, a propagation delay and an error model, whose
//! rate, delay and up/down state may follow a schedule (`net/link/schedule.rs`).
//!
//! Two transmitters:
//! * **FIFO, the fast path** (drop-tail and RED). Because the queue is FIFO,
//!   a packet's departure time is known the moment it is accepted
//!   (`max(now, busy_until) + framed_bits / rate`), so the arrival at the far
//!   end is scheduled then: one event per packet per hop. Queue occupancy at
//!   any instant follows from the committed transmission start times
//!   (`waiting`), which is all drop-tail needs. A schedule of changes is
//!   looked up at acceptance (the rate when the transmission starts, the
//!   delay when it ends, an outage before arrival), so links that change
//!   keep this path and its exactness.
//! * **Holding** (`held.rs`): packets wait in the queue as pool indices and
//!   the transmitter schedules its own transmission-complete event, one
//!   more event per packet. Used only where a discipline must reorder or
//!   drop packets after accepting them: the priority queue that pushes
//!   dummy segments out (`net/queue/priority.rs`) and the class queue. The
//!   link-layer ARQ (`arq/`) is a third transmitter of the same kind. Both
//!   are link protocols behind one interface (`protocol.rs`): the world
//!   offers them packets, hands them their events and outages, and reads
//!   back what they dropped, lost, started or delivered.
//!
//! Packets on the wire (accepted and not yet arrived) are kept here in
//! arrival order (`in_flight`, pool indices), so the event queue needs one
//! entry per busy direction rather than one per packet.
//!
//! Queue semantics (a choice; ns-2's): the limit counts packets (or IP bytes)
//! waiting for the transmitter, not the one being transmitted. A packet that
//! finds the transmitter idle is never dropped by the queue. RED
//! (`net/queue/red.rs`) decides on arrival too, so it fits the same scheme. When a
//! packet arrives at the very instant the next waiting packet begins its
//! transmission, it finds that packet still waiting: ns-3 handles
//! simultaneous events in the order they were scheduled, and the arrival
//! was scheduled a propagation delay earlier than the transmitter's
//! completion (ns-2, whose time is a double, orders such near-ties by
//! floating-point rounding; in the ns-2 cross-check's FACK cells it too ran
//! the arrival first). Such ties are common in simulation: with one packet
//! size an ACK clock puts arrivals exactly on transmission boundaries, and
//! which packet of a pair a full queue drops decided whole repairs there.
//! (ns-2's `DropTail` also drops when the waiting packets would reach
//! `qlim_`, so an ns-2 limit of N is N - 1 here.)
//!
//! Outages (`changes = [{ at, down = true }]`): a packet queued, being sent
//! or on the wire when the link goes down is lost, and one offered while it
//! is down is refused; both count as `drops_down`. The FIFO knows at
//! acceptance which packets an outage will take (the schedule is known);
//! when the outage begins, [`LinkDir::go_down`] forgets the queue and frees
//! the transmitter, and the holding transmitter hands back what it held.
//!
//! Reordering (`reorder = { probability, extra_delay }`) and the TRANSAT
//! S-LACP delay in "overtake" mode hold a packet back after its
//! serialisation: the transmitter and queue are unchanged, only the
//! packet's propagation is longer, so later packets overtake it. Such packets
//! leave the in-order FIFO and go to `late` (a small heap; one event each),
//! which keeps the common path as it was. The S-LACP delay in "in order"
//! mode stays in the FIFO: later packets arrive no earlier than it.
//!
//! The error model acts on the link (a corrupted packet takes its
//! transmission time and is discarded by the far end) or, with
//! `loss_placement = "head"` (ns-2's `lossmodel`, FIFO only), at the link's
//! head: a packet is judged as it is offered and a lost one never reaches
//! the queue. Corrupted packets are discarded by the far end; when a router agent there
//! wants to see them (`deliver_corrupted`), they travel the wire like any
//! other packet and arrive marked corrupted, so the agent sees them before
//! the node discards them.

pub mod arq;
mod fifo;
mod held;
pub mod protocol;
pub mod schedule;
pub mod service;
mod shared;
mod summary;
pub mod trace_files;
#[cfg(test)]
mod traced_tests;


use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use arq::selective_repeat::ArqParams;
use arq::ArqLink;
use fifo::{Discipline, Fifo};
use held::Holding;
use service::{Opportunities, Service};
use shared::Member;
pub use held::Sending;
pub use protocol::{link_event, LinkCtx, LinkEvent, LinkOut};
pub use shared::Devices;
use schedule::DirSchedule;
use crate::net::errors::{sub_stream, ErrorModel};
use crate::net::queue::codel::CoDelParams;
use crate::net::queue::fq_codel::FqCoDelParams;
use crate::net::queue::red::{Red, RedParams, RedVerdict};
use crate::scenario::{ArqCfg, CapacityTrace, LinkDirCfg, LossPlacement, QueueCfg, QueueLimit, ReorderCfg};
use crate::sim::{Rng, Time, NS_PER_S};


enum Tx {
    Fifo(Fifo),
    Holding(Box<Holding>),
    /// A link-layer ARQ (`net/link/arq/mod.rs`).
    Arq(Box<ArqLink>),
    /// A FIFO whose transmitter and queue other directions share
    /// (`shared.rs`).
    Shared(Box<Member>),
}

pub struct LinkDir {
    pub from: u32,
    pub to: u32,
    /// The rate, propagation delay and state in force now: the schedule's
    /// values, kept up to date by [`LinkDir::on_change`] (the fixed fast
    /// path and routing read them without a lookup).
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub up: bool,
    pub overhead_bytes: u32,
    tx: Tx,
    schedule: DirSchedule,
    /// When a packet the transmitter takes leaves it (`service.rs`): the
    /// schedule's rate, or a trace of delivery opportunities.
    service: Service,
    /// Capacity or delay come from a trace (the series read them there).
    traced: bool,
    /// Out of line (some 360 bytes, read per packet only on a lossy
    /// link): a constellation's thousands of directions stay smaller in
    /// cache; `lossless` says when it need not be read.
    errors: Box<ErrorModel>,
    lossless: bool,
    reorder: Option<Box<(ReorderCfg, Rng)>>,
    /// The error model sits at the link's head (`loss_placement = "head"`).
    loss_at_head: bool,
    /// Corrupted packets travel to the far end, marked, for a router agent
    /// there; otherwise they vanish at once.
    pub deliver_corrupted: bool,
    /// Arrival time of the last packet put in `in_flight`.
    last_arrival: Time,
    /// Transmission start of the last packet the FIFO accepted.
    last_start: Time,
    /// (IP bytes, rate, serialisation ns) of the last packet serialised on
    /// the fixed path: a direction carries mostly one size, and the
    /// division was a fourteenth of forwarding's time.
    tx_cache: (u32, u64, u64),
    /// Packets overtaken by later ones: (arrival, tie-break seq, pool index).
    late: BinaryHeap<Reverse<(Time, u64, u32)>>,
    late_seq: u64,
    /// (arrival time at the far end, packet pool index), in arrival order.
    in_flight: VecDeque<(Time, u32)>,
    /// Entries taken off `in_flight` so far: the number of its first entry
    /// counted from the start of the run.
    popped: u64,
    /// Numbers (counted as `popped`) of the entries of `in_flight` whose
    /// arrival may be scheduled only once an arming instant has come
    /// ([`LinkDir::push_unarmed`]), in order.
    unarmed: VecDeque<u64>,
    /// Packets offered ahead of time that will overtake others (a falling
    /// delay series): (arrival, pool index), each to be held back
    /// ([`LinkDir::push_late`]) only at its arming instant
    /// ([`LinkDir::push_unarmed_late`]), in order.
    unarmed_late: VecDeque<(Time, u32)>,
    /// The kind of each pending arming, in order: true for `unarmed_late`.
    arming_late: VecDeque<bool>,
    /// The first `doomed` packets of `in_flight` were on the link when it
    /// went down (a moving link's outage, decided as the run goes): they
    /// are discarded as they come off it.
    doomed: usize,
    pub stats: LinkStats,
}

/// See [`LinkDir::summary_mark`].
#[derive(Clone, Copy, Debug)]
pub struct SummaryMark {
    stats: LinkStats,
    busy_until: Time,
    /// A trace of delivery opportunities: how far it was used.
    service: Option<service::Cursor>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    /// Packets accepted for transmission (FIFO: counted on acceptance, so
    /// the count runs ahead of the wire by the queue; holding transmitter:
    /// counted when the transmission starts, since a queued packet may
    /// still be pushed out).
    pub packets_tx: u64,
    pub bytes_tx: u64,
    pub bytes_ok: u64,
    /// Sum of transmission times of every packet sent (cut short by an
    /// outage where one interrupted it).
    pub busy_ns: u64,
    pub drops_queue: u64,
    pub drops_errors: u64,
    /// RED probabilistic ("unforced") drops.
    pub drops_red_early: u64,
    /// RED forced drops: average queue at or above max_th (2 max_th gentle).
    pub drops_red_forced: u64,
    /// Lost because the link was down: queued, being sent or on the wire
    /// when it went down, or offered while it was down.
    pub drops_down: u64,
    /// Accepted, then pushed out of a priority queue by a higher-priority
    /// packet.
    pub drops_pushed_out: u64,
    /// Drop-front: waiting packets dropped at the head for an arrival.
    pub drops_head: u64,
    /// Dropped by CoDel's control law at dequeue.
    pub drops_codel: u64,
    /// ECN-capable packets marked CE instead of a drop (`ecn = true` on a
    /// RED, CoDel or FQ-CoDel queue).
    pub marks: u64,
    pub max_queue_packets: u64,
    /// The FIFO's packets' waiting times summed (ns): by Little's law the
    /// time integral of the number waiting.
    pub queue_wait_ns: u64,
    /// Packets delivered out of order by the reordering model or the
    /// overtakable burst delay.
    pub reordered: u64,
    /// Packets delayed by a burst model's extra delay.
    pub burst_delayed: u64,
    /// Low-priority packets (dummy segments and their ACKs) counted in
    /// `packets_tx`, and those this direction's queue dropped (refused,
    /// pushed out, RED; also in those drop causes).
    pub low_priority_tx: u64,
    pub low_priority_dropped: u64,
}

impl LinkStats {
    /// Count a queue's verdict on an arrival: None if it was accepted,
    /// Some(true) if RED dropped it early or forced, Some(false) if the
    /// queue was full.
    pub(super) fn count_drop(&mut self, v: RedVerdict) -> Option<bool> {
        match v {
            RedVerdict::Accept => return None,
            RedVerdict::Mark => {
                self.marks += 1;
                return None;
            }
            RedVerdict::Overflow => self.drops_queue += 1,
            RedVerdict::EarlyDrop => self.drops_red_early += 1,
            RedVerdict::ForcedDrop => self.drops_red_forced += 1,
        }
        Some(v != RedVerdict::Overflow)
    }
}

/// What became of a packet offered to the link (FIFO), or of a packet the
/// holding transmitter finished sending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// It will arrive intact at the far end at this time.
    Arrives(Time),
    /// The queue was full.
    DroppedQueue,
    /// RED dropped it early (probabilistically) or forced by the average.
    DroppedRed,
    /// It will arrive intact at this time, possibly after packets sent
    /// later: hand it to [`LinkDir::push_late`].
    ArrivesLate(Time),
    /// It is transmitted but corrupted; the far end discards it.
    Corrupted,
    /// It is transmitted, corrupted, and arrives marked at this time for a
    /// router agent at the far end (`deliver_corrupted`).
    CorruptedArrives(Time),
    /// The link is down: refused, or lost to an outage that begins before
    /// it arrives. `sent`: its transmission had begun by then.
    Down { sent: bool },
    /// The error model at the link's head (`loss_placement = "head"`)
    /// dropped it before the queue: it never reaches the wire.
    LostAtHead,
}

/// What became of a packet offered to the holding transmitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Queued (pushed-out packets, if any, in [`LinkDir::take_pushed_out`]).
    Queued,
    DroppedQueue,
    DroppedDown,
}

impl LinkDir {
    /// A direction that never changes. `rng` is the direction's error
    /// stream; RED and reordering derive their own streams from it without
    /// drawing from it.
    pub fn new(from: u32, to: u32, cfg: &LinkDirCfg, rng: Rng) -> Self {
        Self::with_schedule(from, to, cfg, DirSchedule::fixed(cfg.rate_bps, cfg.delay_ns), rng)
    }

    /// A direction whose rate, delay and state follow `schedule` (its values
    /// at time 0 are `cfg`'s).
    pub fn with_schedule(from: u32, to: u32, cfg: &LinkDirCfg, mut schedule: DirSchedule, rng: Rng) -> Self {
        let mut service = Service::Rate;
        if let Some(t) = &cfg.traces {
            schedule.apply_traces(t);
            if let Some(CapacityTrace::Opportunities { ms, .. }) = &t.capacity {
                service = Service::Opportunities(Box::new(Opportunities::new(ms)));
            }
        }
        let fifo = |discipline| Tx::Fifo(Fifo::new(discipline));
        let tx = match cfg.queue {
            QueueCfg::DropTail { limit } => fifo(Discipline::DropTail(limit)),
            QueueCfg::Red(r) => fifo(Discipline::Red(Box::new(Red::new(
                RedParams::resolve(&r, cfg.rate_bps, cfg.delay_ns),
                sub_stream(&rng, 2),
            )))),
            QueueCfg::Priority { limit, low_drop } => Tx::Holding(Box::new(Holding::priority(limit, low_drop))),
            QueueCfg::Classes { tcp, other, tcp_share } => Tx::Holding(Box::new(Holding::classes(tcp, other, tcp_share))),
            QueueCfg::DropFront { limit } => Tx::Holding(Box::new(Holding::drop_front(limit))),
            QueueCfg::CoDel { limit, target_ns, interval_ns, ecn } => Tx::Holding(Box::new(Holding::codel(limit, CoDelParams { target_ns, interval_ns, ecn }))),
            QueueCfg::FqCoDel { limit_packets, flows, quantum, target_ns, interval_ns, ecn } => Tx::Holding(Box::new(Holding::fq_codel(FqCoDelParams {
                limit_packets,
                flows,
                quantum,
                codel: CoDelParams { target_ns, interval_ns, ecn },
            }))),
        };
        let reorder = cfg.reorder.map(|r| Box::new((r, sub_stream(&rng, 3))));
        let errors = Box::new(ErrorModel::new(cfg.errors.clone(), rng));
        LinkDir {
            from,
            to,
            rate_bps: cfg.rate_bps,
            delay_ns: cfg.delay_ns,
            up: true,
            overhead_bytes: cfg.overhead_bytes,
            tx,
            schedule,
            service,
            traced: cfg.traces.is_some(),
            reorder,
            loss_at_head: cfg.loss_placement == LossPlacement::Head,
            lossless: errors.lossless(),
            errors,
            deliver_corrupted: false,
            last_arrival: 0,
            last_start: 0,
            tx_cache: (0, 0, 0),
            late: BinaryHeap::new(),
            late_seq: 0,
            in_flight: VecDeque::new(),
            popped: 0,
            unarmed: VecDeque::new(),
            unarmed_late: VecDeque::new(),
            arming_late: VecDeque::new(),
            doomed: 0,
            stats: LinkStats::default(),
        }
    }

    /// A direction between moving ends (`net::schedule`'s moving
    /// schedule): its delay is set step by step with
    /// [`LinkDir::set_ramp`] and its outages as they happen.
    pub fn moving(from: u32, to: u32, cfg: &LinkDirCfg, rng: Rng) -> Self {
        Self::with_schedule(from, to, cfg, DirSchedule::moving(cfg.rate_bps, cfg.delay_ns), rng)
    }

    /// A moving direction's delay is `d0` at `t0` (now) and `d1` at `t1`.
    pub fn set_ramp(&mut self, t0: Time, d0: u64, t1: Time, d1: u64) {
        self.schedule.set_ramp(t0, d0, t1, d1);
        self.delay_ns = d0;
    }

    /// A moving direction `d` goes down at `ctx.now`: what is queued, being
    /// sent or on the wire is lost (the FIFO's packets as they come off the
    /// wire, see [`LinkDir::pop_doomed`]; a holding transmitter's go to
    /// `ctx.out.lost`), and it accepts nothing until [`LinkDir::come_up_now`].
    /// Packets accepted after it comes back still arrive behind the lost
    /// ones' arrival times (the FIFO's order).
    pub fn go_down_now(&mut self, d: u32, ctx: &mut LinkCtx) {
        self.schedule.go_down(ctx.now);
        self.up = false;
        self.doomed = self.in_flight.len();
        self.go_down(d, ctx);
    }

    /// The propagation delay a packet whose last bit leaves at `t` takes.
    pub fn delay_at(&self, t: Time) -> u64 {
        self.schedule.delay_at(t)
    }

    /// Packets of the pool this direction holds: on the wire (in order or
    /// held back), queued or being sent by a holding transmitter (the ARQ
    /// keeps its own copies).
    pub fn pool_packets(&self) -> usize {
        let held = match &self.tx {
            Tx::Holding(h) => h.pool_packets(),
            _ => 0,
        };
        self.in_flight.len() + self.late.len() + self.unarmed_late.len() + held
    }

    /// The direction is in an outage at `t` (scheduled, or a moving
    /// link's).
    pub fn schedule_down(&self, t: Time) -> bool {
        self.schedule.down_at(t)
    }

    /// A moving direction comes back up at `now`.
    pub fn come_up_now(&mut self, now: Time) {
        self.schedule.come_up(now);
        self.up = true;
    }

    /// The packet just taken by [`LinkDir::pop_arrival`] was on the link
    /// when it went down: it is lost (counted here; `bytes_ok` had counted
    /// it if it was intact).
    #[inline]
    pub fn pop_doomed(&mut self, ip_bytes: u32, corrupted: bool) -> bool {
        if self.doomed == 0 {
            return false;
        }
        self.doomed -= 1;
        self.stats.drops_down += 1;
        if !corrupted {
            self.stats.bytes_ok -= ip_bytes as u64;
        }
        true
    }

    /// Put a link-layer ARQ on this direction's transmitter; the queue
    /// discipline (drop-tail or RED; the scenario refuses the priority
    /// queue with `arq`) becomes its IP queue's.
    pub fn enable_arq(&mut self, p: ArqParams, cfg: &ArqCfg) {
        let fifo = Fifo::new(Discipline::DropTail(QueueLimit::Unlimited));
        let Tx::Fifo(f) = std::mem::replace(&mut self.tx, Tx::Fifo(fifo)) else {
            unreachable!("arq goes on a drop-tail or RED queue (checked by the scenario)")
        };
        self.tx = Tx::Arq(Box::new(ArqLink::new(p, cfg, f.discipline)));
    }

    /// Packets are offered to this direction through the link-protocol
    /// interface ([`LinkDir::accept`]): a transmitter that holds packets
    /// (the priority and class queues, the ARQ) or a member of a shared
    /// device. The plain FIFO takes them with [`LinkDir::enqueue`].
    #[inline]
    pub fn offered_by_protocol(&self) -> bool {
        !matches!(self.tx, Tx::Fifo(_))
    }

    /// The transmitter holds packets (schedules its own completions).
    pub fn holds_packets(&self) -> bool {
        matches!(self.tx, Tx::Holding(_) | Tx::Arq(_))
    }

    /// Record that packet `pkt` will arrive at `at`. Returns true if it is
    /// now the first in flight (so its arrival must be scheduled).
    pub fn push_in_flight(&mut self, at: Time, pkt: u32) -> bool {
        debug_assert!(self.in_flight.back().is_none_or(|&(t, _)| t <= at), "FIFO arrivals");
        self.in_flight.push_back((at, pkt));
        self.in_flight.len() == 1
    }

    /// Hold packet `pkt` (returned as [`Enqueued::ArrivesLate`]) until `at`;
    /// the caller schedules one arrival event for it.
    pub fn push_late(&mut self, at: Time, pkt: u32) {
        self.late.push(Reverse((at, self.late_seq, pkt)));
        self.late_seq += 1;
    }

    /// The late packet whose event has come (the earliest; ties in the
    /// order they were held, as the event queue breaks ties).
    pub fn pop_late(&mut self) -> u32 {
        self.late.pop().expect("a late arrival was scheduled").0 .2
    }

    /// RED's average queue (packets), if the discipline is RED.
    pub fn red_avg(&self) -> Option<f64> {
        match &self.tx {
            Tx::Fifo(Fifo { discipline: Discipline::Red(r), .. }) => Some(r.avg()),
            Tx::Arq(a) => a.red_avg(),
            _ => None,
        }
    }

    /// Take the first packet in flight; also return when the next one
    /// arrives and its pool index, if any.
    pub fn pop_arrival(&mut self) -> (u32, Option<(Time, u32)>) {
        let (_, pkt) = self.in_flight.pop_front().expect("an arrival was scheduled");
        self.popped += 1;
        match self.in_flight.front() {
            // the next one's arrival is scheduled when it is armed
            Some(&(t, next)) if self.unarmed.front() != Some(&self.popped) => (pkt, Some((t, next))),
            _ => (pkt, None),
        }
    }

    /// A FIFO with a fixed rate and delay (or values from traces that let
    /// no packet overtake another) whose packets reach the far end
    /// in the order it accepted them, never held back (no reordering, no
    /// overtaking burst delay) and never delivered corrupted to an agent:
    /// what the world's cut-through of relay nodes needs of both
    /// directions it joins (`world/cut_through.rs`).
    pub fn in_order_fifo(&self) -> bool {
        // (trace-driven values are functions of time known before the run:
        // an offer made ahead of time meets them as it would have)
        self.fifo_of_known_values() && !self.schedule.delay_overtakes()
    }

    /// What the cut-through of relays needs of the direction it offers
    /// packets to ahead of time: [`LinkDir::in_order_fifo`], except that a
    /// falling delay series may let packets overtake there (such a packet
    /// is held back from the instant it would have been offered,
    /// [`LinkDir::push_unarmed_late`]). The direction it takes them from
    /// may not let them overtake: its packets must reach the relay in the
    /// order it sent them.
    pub fn cut_through_target(&self) -> bool {
        self.fifo_of_known_values()
    }

    fn fifo_of_known_values(&self) -> bool {
        let known = self.schedule.is_fixed() || self.schedule.only_traces();
        !self.offered_by_protocol() && known && self.reorder.is_none() && !self.errors.may_overtake() && !self.deliver_corrupted
    }

    /// What a run's summary reads of this FIFO direction: its counters and
    /// the end of its last committed transmission (`utilization`).
    #[inline]
    pub fn summary_mark(&self) -> SummaryMark {
        let service = match &self.service {
            Service::Opportunities(o) => Some(o.cursor()),
            Service::Rate => None,
        };
        SummaryMark { stats: self.stats, busy_until: self.busy_until(), service }
    }

    /// Put back what the summary reads as it was at `m`: for a run that
    /// ended before offers the world had already made to this direction
    /// took place (`world/cut_through.rs`). The waiting list loses those
    /// offers too, so that every packet in it still starts before
    /// `busy_until` (`Fifo::advance` relies on it); the wire keeps its
    /// packets: no event runs after this.
    pub fn rewind_summary(&mut self, m: &SummaryMark) {
        self.stats = m.stats;
        if let (Service::Opportunities(o), Some(c)) = (&mut self.service, m.service) {
            o.set_cursor(c);
        }
        if let Tx::Fifo(f) = &mut self.tx {
            f.busy_until = m.busy_until;
            // the offers after the mark start at or after its busy_until
            f.waiting.retain(|&(start, _)| start < m.busy_until);
            f.waiting_bytes = f.waiting.iter().map(|&(_, b)| b as u64).sum();
        }
    }

    /// Put packet `pkt`, arriving at `at`, on the wire behind the others,
    /// its arrival to be scheduled only when [`LinkDir::arm`] is called for
    /// it (by an event the caller schedules), not when the packet before it
    /// arrives: a packet the world offered ahead of time (the cut-through of
    /// relays, `world/cut_through.rs`) has its arrival scheduled at the
    /// instant it would have been offered.
    pub fn push_unarmed(&mut self, at: Time, pkt: u32) {
        debug_assert!(self.in_flight.back().is_none_or(|&(t, _)| t <= at), "FIFO arrivals");
        self.unarmed.push_back(self.popped + self.in_flight.len() as u64);
        self.arming_late.push_back(false);
        self.in_flight.push_back((at, pkt));
    }

    /// The first unarmed packet's instant has come: its arrival time and
    /// pool index if it is first on the wire now (to be scheduled);
    /// otherwise it is scheduled when the packet before it arrives, as any
    /// other.
    pub fn arm(&mut self) -> Option<(Time, u32)> {
        debug_assert_eq!(self.arming_late.front(), Some(&false), "a packet for the in-order wire to arm");
        self.arming_late.pop_front();
        let i = self.unarmed.pop_front().expect("a packet to arm");
        debug_assert!(i >= self.popped, "an unarmed packet arrived");
        (i == self.popped).then(|| *self.in_flight.front().expect("on the wire"))
    }

    /// Packet `pkt`, offered ahead of time, will arrive at `at` before
    /// packets sent earlier: it is held back ([`LinkDir::push_late`]) only
    /// when [`LinkDir::arm_late`] is called for it, by an event the caller
    /// schedules for the instant it would have been offered (so that its
    /// arrival event takes its place among the events of that instant then).
    pub fn push_unarmed_late(&mut self, at: Time, pkt: u32) {
        self.unarmed_late.push_back((at, pkt));
        self.arming_late.push_back(true);
    }

    /// The next arming of this direction is of a packet that overtakes
    /// ([`LinkDir::push_unarmed_late`]): its arrival, to be scheduled now.
    pub fn arm_late(&mut self) -> Option<Time> {
        if self.arming_late.front() != Some(&true) {
            return None;
        }
        self.arming_late.pop_front();
        let (at, pkt) = self.unarmed_late.pop_front().expect("a late packet to arm");
        self.push_late(at, pkt);
        Some(at)
    }

    /// No packet is on the wire (in order or held back).
    #[inline]
    pub fn nothing_in_flight(&self) -> bool {
        self.in_flight.is_empty() && self.late.is_empty()
    }

    /// The last packet on the wire reaches the far end after `t`.
    #[inline]
    pub fn last_in_flight_after(&self, t: Time) -> bool {
        self.in_flight.back().is_some_and(|&(a, _)| a > t)
    }

    /// Start loading what an arrival on this direction reads
    /// ([`LinkDir::pop_arrival`], [`LinkDir::pop_doomed`], its far end).
    #[inline(always)]
    pub fn prefetch_arrival(&self) {
        use crate::sim::prefetch::prefetch;
        prefetch(&self.in_flight);
        prefetch(&self.unarmed);
        prefetch(&self.doomed);
        prefetch(&self.to);
    }

    /// Packets waiting (not in transmission) at `now`.
    pub fn queue_packets(&mut self, now: Time) -> usize {
        match &mut self.tx {
            Tx::Fifo(f) => {
                f.advance(now);
                f.waiting.len()
            }
            Tx::Holding(h) => h.queue_len(),
            Tx::Arq(a) => a.queue_packets(),
            Tx::Shared(m) => m.waiting(now).count(),
        }
    }

    /// Packets waiting that a TCP packet queues behind: the TCP class's
    /// under the class queue, every waiting packet otherwise.
    pub fn tcp_queue_packets(&mut self, now: Time) -> usize {
        match &self.tx {
            Tx::Holding(h) => h.tcp_queue_len(),
            _ => self.queue_packets(now),
        }
    }

    pub fn queue_bytes(&mut self, now: Time) -> u64 {
        match &mut self.tx {
            Tx::Fifo(f) => {
                f.advance(now);
                f.waiting_bytes
            }
            Tx::Holding(h) => h.queue_bytes(),
            Tx::Arq(a) => a.queue_bytes(),
            Tx::Shared(m) => m.waiting(now).map(u64::from).sum(),
        }
    }

    /// When the transmitter finishes everything it has accepted (a member
    /// of a shared device: its own packets).
    pub fn busy_until(&self) -> Time {
        match &self.tx {
            Tx::Fifo(f) => f.busy_until,
            Tx::Holding(h) => h.busy_until(),
            Tx::Arq(a) => a.busy_until(),
            Tx::Shared(m) => m.busy_until(),
        }
    }

    /// Transmission start of the last packet the FIFO accepted.
    pub fn last_tx_start(&self) -> Time {
        self.last_start
    }

    // ----- changes ----------------------------------------------------------

    /// A scheduled change happened at `now`: take the rate, delay and
    /// state in force from the schedule (the one source of all three).
    pub fn on_change(&mut self, now: Time) {
        self.rate_bps = self.schedule.rate_at(now);
        self.delay_ns = self.schedule.delay_at(now);
        self.up = !self.schedule.down_at(now);
    }
}

/// Serialisation time of a packet of `ip_bytes` plus `overhead` framing
/// bytes at `rate_bps`, rounded up to a whole ns.
#[inline]
pub(super) fn serialisation_ns(ip_bytes: u32, overhead: u32, rate_bps: u64) -> u64 {
    let bits = 8 * (ip_bytes as u64 + overhead as u64);
    match bits.checked_mul(NS_PER_S) {
        Some(n) => n.div_ceil(rate_bps),
        None => ((bits as u128 * NS_PER_S as u128).div_ceil(rate_bps as u128)) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{DelayOrder, ErrorCfg};

    fn dir(rate: u64, delay: u64, limit: QueueLimit) -> LinkDir {
        let cfg = LinkDirCfg { rate_bps: rate, delay_ns: delay, queue: QueueCfg::DropTail { limit }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        LinkDir::new(0, 1, &cfg, Rng::new(1, 1))
    }

    #[test]
    fn back_to_back_packets_serialise_fifo() {
        // 1500 B at 2048 kb/s = 5.859375 ms each.
        let mut l = dir(2_048_000, 250_000_000, QueueLimit::Unlimited);
        let tx = 5_859_375;
        assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(tx + 250_000_000));
        assert_eq!(l.enqueue(0, 1500), Enqueued::Arrives(2 * tx + 250_000_000));
        assert_eq!(l.enqueue(1, 1500), Enqueued::Arrives(3 * tx + 250_000_000));
        // idle link: starts immediately
        assert_eq!(l.enqueue(10 * tx, 1500), Enqueued::Arrives(11 * tx + 250_000_000));
    }

    #[test]
    fn droptail_limit_counts_waiting_packets_only() {
        let mut l = dir(8_000, 0, QueueLimit::Packets(2)); // 1 ms per byte
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(10_000_000))); // in service
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_))); // waits (1)
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_))); // waits (2)
        assert_eq!(l.enqueue(0, 10), Enqueued::DroppedQueue);
        assert_eq!(l.queue_packets(0), 2);
        // at the instant the first finishes, an arrival still finds the
        // second waiting (ns-3's order: the arrival was scheduled first):
        // dropped
        assert_eq!(l.enqueue(10_000_000, 10), Enqueued::DroppedQueue);
        // a moment later the second is in service: one waiting
        assert_eq!(l.queue_packets(10_000_001), 1);
        assert!(matches!(l.enqueue(10_000_001, 10), Enqueued::Arrives(40_000_000)));
        assert_eq!(l.stats.drops_queue, 2);
        assert_eq!(l.stats.max_queue_packets, 2);
        // waits: 10 ms and 20 ms for the two at 0, and 19.999999 ms for
        // the last (offered at 10.000001 ms, sent from 30 ms): Little's
        // integral of the number waiting
        assert_eq!(l.stats.queue_wait_ns, 10_000_000 + 20_000_000 + (20_000_000 - 1));
    }

    /// The FIFO's admission against a plain model that keeps every queued
    /// packet's start time and counts those not yet started: random offers,
    /// many of them at the instant the link falls idle or one ns either
    /// side (where `Fifo::advance`'s idle shortcut must agree with the
    /// scan).
    #[test]
    fn admission_matches_a_model_that_keeps_every_start() {
        let mut rng = Rng::new(7, 3);
        // (rate, ns a byte, largest packet): also packets of a few ns, so
        // that one starts at the very instant looked at
        let cases = [(8_000_000u64, 1_000u64, 1_500u64), (8_000_000_000, 1, 3)];
        for (rate, ns_a_byte, max_bytes, limit) in cases.into_iter().flat_map(|c| [1u32, 2, 5].map(|n| (c.0, c.1, c.2, n))) {
            let mut l = dir(rate, 1_000, QueueLimit::Packets(limit));
            let (mut busy, mut starts, mut now) = (0u64, Vec::<u64>::new(), 0u64);
            for _ in 0..5_000 {
                now = match rng.next_u64() % 5 {
                    0 => busy.max(now),
                    1 => busy.saturating_sub(1).max(now),
                    2 => (busy + 1).max(now),
                    _ => now + rng.next_u64() % (2 * max_bytes * ns_a_byte),
                };
                let bytes = 1 + (rng.next_u64() % max_bytes) as u32;
                let waiting = starts.iter().filter(|&&s| s >= now).count();
                assert_eq!(l.queue_packets(now), waiting, "waiting at {now}");
                let start = busy.max(now);
                let want = if start > now && waiting >= limit as usize {
                    Enqueued::DroppedQueue
                } else {
                    if start > now {
                        starts.push(start);
                    }
                    busy = start + bytes as u64 * ns_a_byte;
                    Enqueued::Arrives(busy + 1_000)
                };
                assert_eq!(l.enqueue(now, bytes), want, "offer at {now} (busy until {busy})");
            }
        }
    }

    /// A rewind to a mark forgets the offers made after it in what a
    /// summary or the queue reads: the counters, the transmitter's end and
    /// the waiting list are those of the mark (no offer follows a rewind).
    #[test]
    fn a_rewound_fifo_waits_as_it_did_at_the_mark() {
        let mut l = dir(8_000, 0, QueueLimit::Packets(10)); // 1 ms a byte
        l.enqueue(0, 10); // in service until 10 ms
        l.enqueue(0, 10); // waits, sent 10-20 ms
        let mark = l.summary_mark();
        l.enqueue(1, 10); // waits, sent 20-30 ms
        l.enqueue(2, 10); // waits, sent 30-40 ms
        assert_eq!((l.queue_packets(5_000_000), l.busy_until()), (3, 40_000_000));
        l.rewind_summary(&mark);
        assert_eq!((l.busy_until(), l.stats.packets_tx), (20_000_000, 2));
        assert_eq!((l.queue_packets(5_000_000), l.queue_bytes(5_000_000)), (1, 10));
        assert_eq!(l.queue_packets(10_000_001), 0);
    }

    #[test]
    fn byte_limit() {
        let mut l = dir(8_000, 0, QueueLimit::Bytes(25));
        l.enqueue(0, 10);
        assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_)));
        assert!(matches!(l.enqueue(0, 15), Enqueued::Arrives(_)));
        assert_eq!(l.enqueue(0, 1), Enqueued::DroppedQueue);
        assert_eq!(l.queue_bytes(0), 25);
    }

    fn red_dir(min_th: f64, max_th: f64, w_q: f64, limit: Option<u32>) -> LinkDir {
        let red = crate::scenario::RedCfg {
            limit_packets: limit,
            min_th: Some(min_th),
            max_th: Some(max_th),
            max_p: 0.1,
            w_q: Some(w_q),
            gentle: true,
            wait: true,
            mean_pktsize: 10,
            byte_mode: false,
            target_delay_ns: 5_000_000,
            ecn: false,
        };
        let cfg = LinkDirCfg { rate_bps: 8_000, delay_ns: 0, queue: QueueCfg::Red(red), errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        LinkDir::new(0, 1, &cfg, Rng::new(1, 1))
    }

    #[test]
    fn red_sees_the_waiting_queue_and_the_idle_time() {
        // 8 kb/s, 10-byte packets: 10 ms each; ptc = 100 packets/s.
        // w_q = 0.5. Arrivals at 0: q seen 0, 0 (one in service, none
        // waiting), 1, 2 -> avg 0, 0, 0.5, 1.25.
        let mut l = red_dir(100.0, 200.0, 0.5, None);
        for want in [0.0, 0.0, 0.5, 1.25] {
            assert!(matches!(l.enqueue(0, 10), Enqueued::Arrives(_)));
            assert_eq!(l.red_avg(), Some(want));
        }
        // The four packets are sent by 40 ms; the queue idles until 70 ms:
        // m = floor(100 x 0.03) = 3: 1.25 / 8 = 0.15625, then q = 0 -> 0.078125.
        assert!(matches!(l.enqueue(70_000_000, 10), Enqueued::Arrives(80_000_000)));
        assert_eq!(l.red_avg(), Some(0.078125));
    }

    #[test]
    fn red_hard_limit_and_forced_drops_are_counted_apart() {
        // w_q = 1 (avg = q seen), min_th 1, max_th 2: gentle forced at 4.
        let mut l = red_dir(1.0, 2.0, 1.0, Some(3));
        let verdicts: Vec<Enqueued> = (0..7).map(|_| l.enqueue(0, 10)).collect();
        // q seen: 0 (in service), 0, 1 (avg 1 >= min_th but q <= 1), 2
        // (crosses min_th: count := 1), then 3 three times: avg 3 is in the
        // gentle region, p_b = 0.1 + 0.9 x 1/2 = 0.55, count 2: p_a = 0.55 /
        // (2 - 1.1) = 0.61; but 3 packets wait, the hard limit, and ns-2
        // reports that as a forced (overflow) drop whatever the draw says.
        assert!(verdicts[..4].iter().all(|v| matches!(v, Enqueued::Arrives(_))));
        assert!(verdicts[4..].iter().all(|v| *v == Enqueued::DroppedQueue));
        assert_eq!((l.stats.drops_queue, l.stats.drops_red_early), (3, 0));
        assert_eq!(l.stats.drops_red_forced, 0);
        // avg >= 2 max_th: forced
        // (no hard limit; early drops at q = 3 until one is accepted, then
        // q = 4 gives avg 4 = 2 max_th)
        let mut l = red_dir(1.0, 2.0, 1.0, None);
        while l.queue_packets(0) < 4 {
            l.enqueue(0, 10);
        }
        assert_eq!(l.stats.drops_red_forced, 0);
        assert_eq!(l.enqueue(0, 10), Enqueued::DroppedRed);
        assert_eq!(l.stats.drops_red_forced, 1);
    }

    #[test]
    fn reordered_packets_leave_the_fifo_but_keep_their_slot_on_the_wire() {
        // probability 1: every packet is held back 50 ms; serialisation is
        // unchanged (10 ms each), so the transmitter stays FIFO.
        let mut cfg = LinkDirCfg { rate_bps: 8_000, delay_ns: 1_000_000, queue: QueueCfg::DropTail { limit: QueueLimit::Unlimited }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        cfg.reorder = Some(ReorderCfg { probability: 1.0, extra_delay_ns: 50_000_000 });
        let mut l = LinkDir::new(0, 1, &cfg, Rng::new(1, 1));
        assert_eq!(l.enqueue(0, 10), Enqueued::ArrivesLate(61_000_000));
        assert_eq!(l.enqueue(0, 10), Enqueued::ArrivesLate(71_000_000));
        assert_eq!(l.busy_until(), 20_000_000);
        l.push_late(71_000_000, 8);
        l.push_late(61_000_000, 7);
        assert_eq!(l.pop_late(), 7);
        assert_eq!(l.pop_late(), 8);
        assert_eq!(l.stats.reordered, 2);
        // probability 0.3: about that fraction held back
        cfg.reorder = Some(ReorderCfg { probability: 0.3, extra_delay_ns: 50_000_000 });
        let mut l = LinkDir::new(0, 1, &cfg, Rng::new(1, 1));
        let late = (0..10_000u64).filter(|i| matches!(l.enqueue(i * 20_000_000, 10), Enqueued::ArrivesLate(_))).count();
        assert!((2800..3200).contains(&late), "{late}");
    }

    #[test]
    fn in_order_burst_delay_holds_back_later_packets() {
        use crate::scenario::{BoundedExp, Bounding, DsnBurstCfg, ErrorClock, GapFrom};
        // Fixed bursts of 15 ms every 1 s (first at 1 s), PER 0 inside and
        // 100 ms extra delay, in order. Three 10-ms packets offered at 1 s:
        // #1 starts at 1 s (burst): arrives 1.010 + 0.1 = 1.110 s; #2 starts
        // at 1.010 s (burst): 1.120 s; #3 starts at 1.020 s (after the burst)
        // and would arrive at 1.030 s, but waits behind #2: 1.120 s.
        let fixed = |ns| BoundedExp { mean_ns: ns, min_ns: ns, max_ns: ns, bounding: Bounding::Truncate };
        let dsn = DsnBurstCfg {
            burst: fixed(15_000_000),
            gap: fixed(1_000_000_000),
            gap_from: GapFrom::Start,
            per_burst: 0.0,
            per_good: 0.0,
            clock: ErrorClock::TxStart,
            burst_delay_ns: 100_000_000,
            burst_delay_order: DelayOrder::InOrder,
        };
        let mut cfg = LinkDirCfg { rate_bps: 8_000, delay_ns: 0, queue: QueueCfg::DropTail { limit: QueueLimit::Unlimited }, errors: ErrorCfg::DsnBurst(dsn), overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        let s = 1_000_000_000;
        let mut l = LinkDir::new(0, 1, &cfg, Rng::new(1, 1));
        assert_eq!(l.enqueue(s, 10), Enqueued::Arrives(s + 110_000_000));
        assert_eq!(l.enqueue(s, 10), Enqueued::Arrives(s + 120_000_000));
        assert_eq!(l.enqueue(s, 10), Enqueued::Arrives(s + 120_000_000), "waits behind the delayed packet");
        assert_eq!(l.stats.burst_delayed, 2);
        // Overtake: the third arrives on time, the delayed ones late.
        cfg.errors = ErrorCfg::DsnBurst(DsnBurstCfg { burst_delay_order: DelayOrder::Overtake, ..dsn });
        let mut l = LinkDir::new(0, 1, &cfg, Rng::new(1, 1));
        assert_eq!(l.enqueue(s, 10), Enqueued::ArrivesLate(s + 110_000_000));
        assert_eq!(l.enqueue(s, 10), Enqueued::ArrivesLate(s + 120_000_000));
        assert_eq!(l.enqueue(s, 10), Enqueued::Arrives(s + 30_000_000));
        assert_eq!(l.stats.reordered, 2);
    }

    #[test]
    fn an_error_model_at_the_head_drops_before_the_queue() {
        use crate::scenario::{BoundedExp, Bounding, DsnBurstCfg, ErrorClock, GapFrom};
        // 8 kb/s, 10-byte packets: 10 ms each; a burst (PER 1) over
        // [1.000, 1.020) s. Three packets offered at 0.990 s are sent over
        // [0.990, 1.020): on the link (judged at transmission start) the
        // second and third are lost and still take their time; at the head
        // (judged when offered) all three get through, and a fourth offered
        // at 1.005 s is dropped at once, before the queue (on the link it
        // would have been sent after the burst).
        let fixed = |ns| BoundedExp { mean_ns: ns, min_ns: ns, max_ns: ns, bounding: Bounding::Truncate };
        let dsn = DsnBurstCfg {
            burst: fixed(20 * MS),
            gap: fixed(1_000 * MS),
            gap_from: GapFrom::Start,
            per_burst: 1.0,
            per_good: 0.0,
            clock: ErrorClock::TxStart,
            burst_delay_ns: 0,
            burst_delay_order: DelayOrder::InOrder,
        };
        let mut cfg = LinkDirCfg {
            rate_bps: 8_000,
            delay_ns: 0,
            queue: QueueCfg::DropTail { limit: QueueLimit::Unlimited },
            errors: ErrorCfg::DsnBurst(dsn),
            overhead_bytes: 0,
            reorder: None,
            loss_placement: LossPlacement::Link,
            traces: None,
        };
        let mut l = LinkDir::new(0, 1, &cfg, Rng::new(1, 1));
        let fates: Vec<_> = (0..3).map(|_| l.enqueue(990 * MS, 10)).collect();
        assert_eq!(fates, vec![Enqueued::Arrives(1_000 * MS), Enqueued::Corrupted, Enqueued::Corrupted]);
        // a fourth offered in the burst waits and is sent after it: intact
        assert_eq!(l.enqueue(1_005 * MS, 10), Enqueued::Arrives(1_030 * MS));
        assert_eq!((l.busy_until(), l.stats.drops_errors), (1_030 * MS, 2));
        cfg.loss_placement = LossPlacement::Head;
        let mut l = LinkDir::new(0, 1, &cfg, Rng::new(1, 1));
        let fates: Vec<_> = (0..3).map(|_| l.enqueue(990 * MS, 10)).collect();
        assert_eq!(fates, vec![Enqueued::Arrives(1_000 * MS), Enqueued::Arrives(1_010 * MS), Enqueued::Arrives(1_020 * MS)]);
        assert_eq!(l.enqueue(1_005 * MS, 10), Enqueued::LostAtHead);
        assert_eq!((l.busy_until(), l.stats.drops_errors, l.stats.packets_tx), (1_020 * MS, 1, 3), "the lost packet took no time");
        assert_eq!(l.queue_packets(1_005 * MS), 1, "nor queue room");
    }

    #[test]
    fn utilization_is_busy_fraction_and_at_most_one() {
        let mut l = dir(8_000, 0, QueueLimit::Unlimited);
        for _ in 0..10 {
            l.enqueue(0, 10); // 10 ms each -> busy until 100 ms
        }
        assert!((l.utilization(200_000_000) - 0.5).abs() < 1e-12);
        assert!((l.utilization(50_000_000) - 1.0).abs() < 1e-12);
    }

    /// 8 kb/s, 10-byte packets: 10 ms each; 5 ms propagation.
    fn changing(limit: QueueLimit, changes: &[(Time, crate::scenario::DirChange, Option<bool>)]) -> LinkDir {
        let cfg = LinkDirCfg { rate_bps: 8_000, delay_ns: 5_000_000, queue: QueueCfg::DropTail { limit }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        LinkDir::with_schedule(0, 1, &cfg, DirSchedule::new(8_000, 5_000_000, changes), Rng::new(1, 1))
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn fifo_outage_loses_what_is_queued_or_on_the_wire_and_refuses_while_down() {
        use crate::scenario::DirChange;
        let none = DirChange::default();
        // down at 32 ms, up at 60 ms
        let mut l = changing(QueueLimit::Unlimited, &[(32 * MS, none, Some(false)), (60 * MS, none, Some(true))]);
        // five packets at 0: sent [0,10) [10,20) [20,30) [30,40) [40,50),
        // arriving 15, 25, 35, 45, 55 ms
        let fates: Vec<Enqueued> = (0..5).map(|_| l.enqueue(0, 10)).collect();
        assert_eq!(fates[0], Enqueued::Arrives(15 * MS));
        assert_eq!(fates[1], Enqueued::Arrives(25 * MS));
        // the third is on the wire at 32 ms (arrives 35): lost, as are the
        // fourth (being sent) and the fifth (still queued)
        assert_eq!(fates[2], Enqueued::Down { sent: true });
        assert_eq!(fates[3], Enqueued::Down { sent: true });
        assert_eq!(fates[4], Enqueued::Down { sent: false });
        assert_eq!(l.stats.drops_down, 3);
        l.on_change(32 * MS);
        l.go_down(0, &mut protocol::TestWorld::default().ctx(32 * MS, 1));
        assert_eq!((l.queue_packets(32 * MS), l.busy_until()), (0, 32 * MS), "the queue is gone, the transmitter free");
        assert_eq!(l.stats.busy_ns, 32 * MS, "busy until the outage only");
        assert_eq!(l.enqueue(40 * MS, 10), Enqueued::Down { sent: false }, "refused while down");
        assert_eq!(l.stats.drops_down, 4);
        l.on_change(60 * MS);
        assert!(l.up);
        assert_eq!(l.enqueue(60 * MS, 10), Enqueued::Arrives(75 * MS), "an idle link after the outage");
    }

    #[test]
    fn a_packet_held_back_past_an_outage_is_lost() {
        use crate::scenario::DirChange;
        let none = DirChange::default();
        // every packet held back 50 ms: sent [0, 10), due at 15 ms, held to
        // 65 ms; the link goes down at 40 ms
        let cfg = LinkDirCfg {
            rate_bps: 8_000,
            delay_ns: 5_000_000,
            queue: QueueCfg::DropTail { limit: QueueLimit::Unlimited },
            errors: ErrorCfg::None,
            overhead_bytes: 0,
            reorder: Some(ReorderCfg { probability: 1.0, extra_delay_ns: 50 * MS }),
            loss_placement: LossPlacement::Link,
            traces: None,
        };
        let sched = DirSchedule::new(8_000, 5_000_000, &[(40 * MS, none, Some(false)), (41 * MS, none, Some(true))]);
        let mut l = LinkDir::with_schedule(0, 1, &cfg, sched, Rng::new(1, 1));
        assert_eq!(l.enqueue(0, 10), Enqueued::Down { sent: true });
        assert_eq!((l.stats.drops_down, l.stats.reordered), (1, 0));
        // after the outage, held back but delivered
        assert_eq!(l.enqueue(50 * MS, 10), Enqueued::ArrivesLate(115 * MS));
    }

    #[test]
    fn fifo_rate_and_delay_changes_apply_from_their_times_in_order() {
        use crate::scenario::DirChange;
        let half = DirChange { rate_bps: Some(4_000), delay_ns: None };
        let short = DirChange { rate_bps: None, delay_ns: Some(1_000_000) };
        let mut l = changing(QueueLimit::Unlimited, &[(15 * MS, half, None), (30 * MS, short, None)]);
        // [0,10) at 8 kb/s; [10,20) started before the change keeps it; the
        // third starts at 20 ms, after the change: 20 ms long, ends at 40 ms,
        // under the shorter delay: 41 ms
        assert_eq!(l.enqueue(0, 10), Enqueued::Arrives(15 * MS));
        assert_eq!(l.enqueue(0, 10), Enqueued::Arrives(25 * MS));
        assert_eq!(l.enqueue(0, 10), Enqueued::Arrives(41 * MS));
        // a packet sent at 29 ms ends at 49 ms: after the shrink of the delay
        // it would arrive at 50 ms; one sent in [40, 60) arrives at 61 ms
        l.on_change(30 * MS);
        assert_eq!((l.rate_bps, l.delay_ns), (4_000, 1_000_000));
        assert_eq!(l.enqueue(40 * MS, 10), Enqueued::Arrives(61 * MS));
    }

    #[test]
    fn a_shorter_delay_never_reorders_the_fifo() {
        use crate::scenario::DirChange;
        let short = DirChange { rate_bps: None, delay_ns: Some(0) };
        let mut l = changing(QueueLimit::Unlimited, &[(15 * MS, short, None)]);
        // the first leaves at 10 ms under 5 ms; the second at 20 ms under 0:
        // 20 ms, after the first
        assert_eq!(l.enqueue(0, 10), Enqueued::Arrives(15 * MS));
        assert_eq!(l.enqueue(0, 10), Enqueued::Arrives(20 * MS));
        // with a drop to 0 right as the first arrives, a packet sent in
        // [10, 11) would beat it; the FIFO holds it back
        let short_at_10 = DirChange { rate_bps: None, delay_ns: Some(0) };
        let mut l = changing(QueueLimit::Unlimited, &[(11 * MS, short_at_10, None)]);
        let cfg_small = 1; // 1-byte packets: 1 ms each
        assert_eq!(l.enqueue(0, 10), Enqueued::Arrives(15 * MS));
        assert_eq!(l.enqueue(10 * MS, cfg_small), Enqueued::Arrives(15 * MS), "waits behind the first (it would arrive at 11 ms)");
    }

}
