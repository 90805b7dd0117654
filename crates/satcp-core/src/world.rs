//! The world: every model of one run in arenas, and the event loop that
//! drives them.
//!
//! One event per packet per hop: a packet accepted by a FIFO link direction
//! is scheduled straight to its arrival at the far end (a transmitter that
//! holds packets adds its transmission-complete event), or, where its far
//! end only relays it and nothing can tell, offered to the next hop at once
//! (`world/cut_through.rs`). A node that is not
//! the packet's destination decrements its TTL and forwards it on the
//! next-hop link of the routing table, through the node's router agents.
//! Scheduled link changes (rate, delay, down, up) are events; a change of
//! delay or state marks the routes for recomputation before the next packet
//! is routed. Endpoints and applications talk through small buffers (`out`,
//! `notes`, `actions`) that are reused for the whole run.

mod cut_through;
mod leo;

use crate::app::{Action, App, AppNote, Side};
use crate::net::link::arq::{self, AirFate};
use crate::net::capture::Capture;
use crate::net::routing::{self, Routes};
use crate::net::link::schedule::DirSchedule;
use crate::net::{Enqueued, Kind, LinkDir, Offered, Packet, PacketPool};
use crate::router::{Agents, RouterAgent};
use crate::scenario::{AppCfg, Scenario, TcpCfg};
use crate::sim::{secs, Event, EventQueue, Rng, Time};
use crate::stats::output::*;
use crate::tcp::sender::SSTHRESH_INFINITE;
use crate::tcp::{Ctx, Endpoint, Note};
use std::sync::Arc;

/// Per-flow bookkeeping the world keeps beside the application.
struct FlowRun {
    finished_eps: u8,
    fin_done_at: Option<Time>,
    aborted: bool,
    done: bool,
}

/// Per-node drop counters.
#[derive(Clone, Copy, Debug, Default)]
struct NodeStats {
    /// No route to the packet's destination (links down).
    drops_no_route: u64,
    /// The TTL ran out (a routing loop).
    drops_ttl: u64,
}

pub struct World {
    scn: Scenario,
    now: Time,
    q: EventQueue,
    pkts: PacketPool,
    dirs: Vec<LinkDir>,
    routes: Routes,
    /// Which nodes may relay (empty: all).
    relay: Vec<bool>,
    /// The constellations' state (`world/leo.rs`); None without them.
    leo: Option<Box<leo::LeoRun>>,
    /// A link's delay or state changed since the routes were computed.
    routes_dirty: bool,
    /// For each link, the index of its next scheduled change.
    next_change: Vec<usize>,
    nodes: Vec<NodeStats>,
    agents: Agents,
    /// Pool indices of packets a transmitter gave up (reused buffer).
    lost: Vec<u32>,
    /// Packets an ARQ end delivers to IP, or gives up (reused buffers).
    arq_out: Vec<Packet>,
    arq_gone: Vec<Packet>,
    /// Endpoint 2f is flow f's server, 2f + 1 its client.
    eps: Vec<Endpoint>,
    apps: Vec<App>,
    flows: Vec<FlowRun>,
    finite_left: usize,
    ended_by: &'static str,
    out: Vec<Packet>,
    notes: Vec<Note>,
    notes_spare: Vec<Note>,
    actions: Vec<Action>,
    flow_series: FlowSeries,
    link_series: LinkSeries,
    /// Packet captures (`[[captures]]`); None costs one test per hop.
    pub capture: Option<Box<Capture>>,
    /// Relay nodes may be cut through (`world/cut_through.rs`; on unless
    /// turned off to compare).
    cut_through: bool,
    /// Per direction: the direction its packets are cut through onto at its
    /// far end, or `NO_CUT`; planned when the run starts (directions a
    /// constellation adds later are not in it).
    cut_to: Vec<u32>,
    /// Cuts are made for arrivals before this instant (the stop time).
    cut_before: Time,
    /// Per direction, the pool index of the packet its queued arrival
    /// event is for (`World::prefetch_next`'s hint; one more field in every
    /// event-queue entry cost more than it saved).
    head_ids: Vec<u32>,
    /// The cuts whose arrival instant has not passed, in the order made: a
    /// run that ends before them forgets them (`World::rewind_cuts`).
    cut_log: std::collections::VecDeque<cut_through::CutRecord>,
    /// The run may end before its stop time (finite flows, an observer):
    /// cuts are logged.
    cut_rewindable: bool,
}

/// Stream ids for random number streams (see `sim::rng`).
const STREAM_LINK_ERRORS: u64 = 1 << 32;
/// + endpoint index: each endpoint's window controller.
const STREAM_TCP_CC: u64 = 2 << 32;
/// Applications' streams (on/off sources, jittered CBR), one per flow.
const STREAM_APPS: u64 = 7 << 40;
/// The phase of each endpoint's TCP clock (ns-2's `boot_time_`).
const STREAM_TCP_CLOCK: u64 = 3 << 32;

/// From this many link directions on, the run loop prefetches the next
/// event's packet and direction (`World::prefetch_next`). Below it the next
/// event is mostly on a direction just used, whose data is still in cache,
/// and the hint only costs instructions (+3% on a GEO dumbbell); on a
/// 1,584-satellite shell (~6,400 directions) it took the run to 0.59-0.69
/// of its time (`docs/performance.md`). A round figure between the two,
/// not tuned.
const PREFETCH_AHEAD_DIRS: usize = 64;

impl World {
    pub fn build(scn: &Scenario) -> Self {
        let seed = scn.run.seed;
        let mut dirs = Vec::with_capacity(2 * scn.links.len());
        let mut q = EventQueue::new();
        if let Some(stop) = scn.run.stop_ns {
            q.push(stop, Event::Stop);
        }
        for (i, l) in scn.links.iter().enumerate() {
            let (a, b) = (l.a as u32, l.b as u32);
            for (d, (from, to)) in [(a, b), (b, a)].into_iter().enumerate() {
                let idx = (2 * i + d) as u64;
                let c = &l.dirs[d];
                let changes: Vec<_> = l.changes.iter().map(|ch| (ch.at_ns, ch.dirs[d], ch.up)).collect();
                let schedule = DirSchedule::new(c.rate_bps, c.delay_ns, &changes);
                dirs.push(LinkDir::with_schedule(from, to, c, schedule, Rng::new(seed, STREAM_LINK_ERRORS + idx)));
            }
            if let Some(arq) = &l.arq {
                for d in 0..2 {
                    let p = arq::resolve(arq, &l.dirs[d], &l.dirs[1 - d]);
                    dirs[2 * i + d].enable_arq(p, arq);
                }
            }
            for ch in &l.changes {
                q.push(ch.at_ns, Event::LinkChange { link: i as u32 });
            }
        }
        let ends: Vec<(u32, u32)> = dirs.iter().map(|d| (d.from, d.to)).collect();
        let agents = Agents::build(scn, &ends);
        for (i, d) in dirs.iter_mut().enumerate() {
            d.deliver_corrupted = agents.wants_corrupted(i as u32);
        }
        let mut dsts: Vec<u32> = scn.flows.iter().flat_map(|f| [f.src as u32, f.dst as u32]).collect();
        let mut relay = Vec::new();
        if let Some(leo) = &scn.leo {
            dsts.extend(leo.paths.iter().flat_map(|&(a, b)| [a as u32, b as u32]));
            relay = vec![true; scn.nodes.len()];
            for s in &leo.stations {
                relay[s.node] = s.relay;
            }
        }
        dsts.sort_unstable();
        dsts.dedup();
        let routes = routing::compute(scn.nodes.len(), &edges_of(&dirs), &dsts, &relay);
        let mut eps = Vec::with_capacity(2 * scn.flows.len());
        let mut apps = Vec::with_capacity(scn.flows.len());
        let mut flows = Vec::with_capacity(scn.flows.len());
        // endpoints share a configuration with those of the last few flows
        // configured alike (a many-flow scenario has a handful at most)
        let mut shared: Vec<Arc<TcpCfg>> = Vec::new();
        for (f, fc) in scn.flows.iter().enumerate() {
            let (s, c) = ((2 * f) as u32, (2 * f + 1) as u32);
            let cfg = match shared.iter().rev().take(8).find(|c| ***c == fc.tcp) {
                Some(c) => c.clone(),
                None => {
                    shared.push(Arc::new(fc.tcp.clone()));
                    shared[shared.len() - 1].clone()
                }
            };
            for (me, peer, node, peer_node) in [(s, c, fc.src, fc.dst), (c, s, fc.dst, fc.src)] {
                let cc_rng = Rng::new(seed, STREAM_TCP_CC + me as u64);
                let mut ep = Endpoint::with_shared_cfg(me, peer, node as u32, peer_node as u32, cfg.clone(), cc_rng);
                ep.seed_clock(Rng::new(seed, STREAM_TCP_CLOCK + me as u64));
                eps.push(ep);
            }
            let app = App::new(&fc.app, Rng::new(seed, STREAM_APPS + f as u64));
            q.push(app.start_time(), Event::App { app: f as u32 });
            apps.push(app);
            flows.push(FlowRun { finished_eps: 0, fin_done_at: None, aborted: false, done: false });
        }
        if scn.run.sample_interval_ns.is_some() {
            q.push(0, Event::Sample);
        }
        let finite_left = apps.iter().filter(|a| a.is_finite()).count();
        let mut w = World {
            scn: scn.clone(),
            now: 0,
            q,
            pkts: PacketPool::default(),
            dirs,
            routes,
            relay,
            leo: None,
            routes_dirty: false,
            next_change: vec![0; scn.links.len()],
            nodes: vec![NodeStats::default(); scn.nodes.len()],
            agents,
            lost: Vec::new(),
            arq_out: Vec::new(),
            arq_gone: Vec::new(),
            eps,
            apps,
            flows,
            finite_left,
            ended_by: "idle",
            out: Vec::new(),
            notes: Vec::new(),
            notes_spare: Vec::new(),
            actions: Vec::new(),
            flow_series: FlowSeries::default(),
            link_series: LinkSeries::default(),
            capture: None,
            cut_through: true,
            cut_to: Vec::new(),
            cut_before: 0,
            head_ids: Vec::new(),
            cut_log: Default::default(),
            cut_rewindable: false,
        };
        w.head_ids = vec![0; w.dirs.len()];
        w.leo_start();
        w
    }

    /// Give every hop its own arrival event (no cut-through of relay
    /// nodes): the same results, more events; to compare.
    pub fn without_cut_through(&mut self) {
        self.cut_through = false;
    }

    pub fn run(&mut self) {
        self.run_observed(u64::MAX, &mut |_| true);
    }

    /// [`World::run`], calling `observe(simulated time)` every `every`
    /// events (for progress displays). When `observe` returns false the run
    /// stops there and ends by "interrupted" (for good: what it had offered
    /// ahead of time to the hops after relay nodes is rewound from their
    /// summaries, `world/cut_through.rs`).
    pub fn run_observed(&mut self, every: u64, observe: &mut dyn FnMut(Time) -> bool) {
        self.plan_cut_through(every != u64::MAX);
        let has_finite = self.finite_left > 0;
        let mut countdown = every.max(1);
        while let Some((t, ev)) = self.q.peek() {
            debug_assert!(t >= self.now, "time went back from {} to {t}", self.now);
            // an arrival takes its entry off with its direction's next one
            if !matches!(ev, Event::Arrive { .. }) {
                self.q.pop();
                self.prefetch_next();
            }
            self.now = t;
            countdown -= 1;
            if countdown == 0 {
                countdown = every.max(1);
                if !observe(t) {
                    if matches!(ev, Event::Arrive { .. }) {
                        self.q.pop(); // taken off and not handled, as any other
                    }
                    self.rewind_cuts(t, self.q.last_seq());
                    self.ended_by = "interrupted";
                    return;
                }
            }
            match ev {
                Event::Arm { dir } => {
                    if let Some((at, id)) = self.dirs[dir as usize].arm() {
                        self.schedule_arrival(at, dir, id);
                    }
                }
                Event::Arrive { dir } => {
                    let d = &mut self.dirs[dir as usize];
                    let (pkt, next) = d.pop_arrival();
                    let node = d.to;
                    match next {
                        Some((at, id)) => {
                            self.pkts.prefetch(id); // used at this direction's next arrival
                            self.head_ids[dir as usize] = id;
                            self.q.replace_top(at, Event::Arrive { dir })
                        }
                        None => self.q.pop(),
                    };
                    let mut p = self.pkts.remove(pkt);
                    let doomed = d.pop_doomed(p.ip_bytes, p.corrupted);
                    self.prefetch_next();
                    if doomed {
                        // on a moving link when it went down
                        self.lose(&p);
                    } else if p.corrupted {
                        // seen by the node's agents, then discarded
                        self.agents.corrupted(t, dir, &p);
                        self.lose(&p);
                    } else {
                        self.arrive(dir, node, &mut p);
                    }
                }
                Event::Timer { ep, kind } => {
                    let mut ctx = Ctx { now: t, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
                    self.eps[ep as usize].on_timer(&mut ctx, kind);
                    #[cfg(debug_assertions)]
                    self.eps[ep as usize].check_invariants();
                    self.settle();
                }
                Event::App { app } => {
                    self.apps[app as usize].on_wakeup(t, &mut self.actions);
                    self.apply_actions(app as usize);
                    self.settle();
                }
                Event::Sample => {
                    self.sample();
                    if let Some(iv) = self.scn.run.sample_interval_ns {
                        self.q.push(t + iv, Event::Sample);
                    }
                }
                Event::Stop => {
                    self.ended_by = "stop";
                    return;
                }
                Event::ArriveLate { dir } => {
                    let d = &mut self.dirs[dir as usize];
                    let (pkt, node) = (d.pop_late(), d.to);
                    let mut p = self.pkts.remove(pkt);
                    self.arrive(dir, node, &mut p);
                }
                Event::TxDone { dir } => {
                    if self.dirs[dir as usize].arq_state().is_some() {
                        self.arq_tx_done(dir);
                    } else {
                        if let Some((id, fate)) = self.dirs[dir as usize].finish(t) {
                            self.on_wire(dir, id, fate);
                        }
                        self.start_tx(dir);
                    }
                }
                Event::ArqArrive { dir } => self.arq_arrive(dir),
                Event::ArqTimer { dir } => self.arq_timer(dir),
                Event::LinkChange { link } => self.link_change(link as usize),
                Event::Topology => self.topology_step(),
            }
            if has_finite && self.finite_left == 0 {
                // every finite flow is done: finished, or some gave up
                self.rewind_cuts(self.now, self.q.last_seq());
                self.ended_by = if self.flows.iter().any(|f| f.aborted) { "aborted" } else { "completed" };
                return;
            }
        }
        self.ended_by = "idle";
    }

    /// The event after the one being handled is likely the heap's top now:
    /// if it is an arrival, start loading its packet and its direction,
    /// cold on a network of thousands of links (a hint only: whatever comes
    /// first, nothing changes but the time). On a few links they stay warm
    /// and the hint would only cost instructions (3% on a GEO dumbbell).
    #[inline(always)]
    fn prefetch_next(&self) {
        if self.dirs.len() < PREFETCH_AHEAD_DIRS {
            return;
        }
        if let Some((_, Event::Arrive { dir })) = self.q.peek() {
            self.pkts.prefetch(self.head_ids[dir as usize]);
            self.dirs[dir as usize].prefetch_arrival();
        }
    }

    /// The first packet on direction `dir`'s wire, pool index `id`,
    /// arrives at `at`.
    #[inline]
    fn schedule_arrival(&mut self, at: Time, dir: u32, id: u32) {
        self.head_ids[dir as usize] = id;
        self.q.push(at, Event::Arrive { dir });
    }

    /// `p` arrived intact at `node` over link direction `dir`: the node's
    /// agents that watch arrivals see it first.
    #[inline]
    fn arrive(&mut self, dir: u32, node: u32, p: &mut Packet) {
        if self.agents.any() && self.agents.on_arrivals(dir) {
            self.agents.arrival(self.now, dir, p);
        }
        self.at_node(node, p);
    }

    fn at_node(&mut self, node: u32, p: &mut Packet) {
        if p.dst_node == node && p.kind == Kind::Udp {
            if let Some(u) = self.apps[p.to_ep as usize].udp() {
                u.received(p.ip_bytes);
            }
        } else if p.dst_node == node {
            debug_assert!(p.kind.is_tcp(), "{:?} delivered to a node", p.kind);
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
            self.eps[p.to_ep as usize].on_segment(&mut ctx, p);
            #[cfg(debug_assertions)]
            self.eps[p.to_ep as usize].check_invariants();
            self.settle();
        } else {
            self.forward(node, p);
        }
    }

    /// Send `p` from `node` towards its destination: TTL, routing, the
    /// node's agents, then the link's transmitter. The common case (a FIFO
    /// link that accepts the packet) stays in this function; everything
    /// rarer is out of line.
    fn forward(&mut self, node: u32, p: &mut Packet) {
        if self.routes_dirty {
            self.recompute_routes();
        }
        if node != p.src_node {
            if p.ttl <= 1 {
                return self.drop_at_node(node, p, false);
            }
            p.ttl -= 1;
        }
        let d = self.routes.next_dir(node, p.dst_node);
        if d == routing::NO_ROUTE {
            return self.drop_at_node(node, p, true);
        }
        if self.agents.any() && self.agents.on(d) {
            if self.agents.wants_backlog(d) {
                let n = self.dirs[d as usize].tcp_queue_packets(self.now);
                self.agents.backlog(d, n);
            }
            self.agents.forward(self.now, d, p);
        }
        let dir = &mut self.dirs[d as usize];
        if dir.holds_packets() {
            return if dir.arq_state().is_some() { self.arq_offer(d, *p) } else { self.offer_held(d, *p) };
        }
        let fate = dir.enqueue(self.now, p.ip_bytes);
        if p.kind.low_priority() {
            count_low_priority(dir, &fate);
        }
        if let Some(c) = self.capture.as_deref_mut() {
            if !matches!(fate, Enqueued::DroppedQueue | Enqueued::DroppedRed | Enqueued::Down { sent: false } | Enqueued::LostAtHead) {
                c.on_accept(d, self.now, dir.last_tx_start(), p);
            }
        }
        if let Enqueued::Arrives(at) = fate {
            if self.cut_to.get(d as usize).is_some_and(|&e| e != cut_through::NO_CUT) && self.try_cut(d, at, p) {
                return;
            }
            let id = self.pkts.insert(*p);
            if self.dirs[d as usize].push_in_flight(at, id) {
                self.schedule_arrival(at, d, id);
            }
        } else {
            self.not_arriving(d, *p, fate);
        }
    }

    #[cold]
    #[inline(never)]
    fn recompute_routes(&mut self) {
        self.routes.update(&edges_of(&self.dirs), &self.relay);
        self.routes_dirty = false;
    }

    /// `node` cannot send `p` on: no route, or its TTL ran out.
    #[cold]
    #[inline(never)]
    fn drop_at_node(&mut self, node: u32, p: &Packet, no_route: bool) {
        let n = &mut self.nodes[node as usize];
        if no_route {
            n.drops_no_route += 1;
        } else {
            n.drops_ttl += 1;
        }
        self.lose(p);
    }

    /// The FIFO of direction `d` gave `p` any fate but an intact, in-order
    /// arrival.
    #[inline(never)]
    fn not_arriving(&mut self, d: u32, p: Packet, fate: Enqueued) {
        match fate {
            Enqueued::Arrives(_) | Enqueued::ArrivesLate(_) | Enqueued::CorruptedArrives(_) => {
                let id = self.pkts.insert(p);
                self.on_wire(d, id, fate);
            }
            Enqueued::DroppedQueue | Enqueued::DroppedRed => {
                self.agents.queue_drop(self.now, d, &p);
                self.lose(&p);
            }
            Enqueued::Corrupted | Enqueued::Down { .. } | Enqueued::LostAtHead => self.lose(&p),
        }
    }

    /// Packet `id` (in the pool) has been sent on direction `d` with this
    /// fate: schedule its arrival, or free it.
    fn on_wire(&mut self, d: u32, id: u32, fate: Enqueued) {
        let dir = &mut self.dirs[d as usize];
        match fate {
            Enqueued::Arrives(at) => {
                if dir.push_in_flight(at, id) {
                    self.schedule_arrival(at, d, id);
                }
            }
            Enqueued::CorruptedArrives(at) => {
                self.pkts.get_mut(id).corrupted = true;
                if dir.push_in_flight(at, id) {
                    self.schedule_arrival(at, d, id);
                }
            }
            Enqueued::ArrivesLate(at) => {
                dir.push_late(at, id);
                self.q.push(at, Event::ArriveLate { dir: d });
            }
            Enqueued::Corrupted | Enqueued::Down { .. } | Enqueued::DroppedQueue | Enqueued::DroppedRed | Enqueued::LostAtHead => {
                let p = self.pkts.remove(id);
                self.lose(&p);
            }
        }
    }

    /// Offer `p` to direction `d`'s holding transmitter.
    #[inline(never)]
    fn offer_held(&mut self, d: u32, p: Packet) {
        let id = self.pkts.insert(p);
        let dir = &mut self.dirs[d as usize];
        match dir.offer(self.now, id, &p) {
            Offered::Queued => {
                dir.take_pushed_out(&mut self.lost);
                dir.stats.low_priority_dropped += self.lost.len() as u64;
                for k in 0..self.lost.len() {
                    let v = self.pkts.remove(self.lost[k]);
                    self.agents.queue_drop(self.now, d, &v);
                    self.lose(&v);
                }
                self.lost.clear();
                self.start_tx(d);
            }
            Offered::DroppedQueue => {
                self.pkts.remove(id);
                if p.kind.low_priority() {
                    dir.stats.low_priority_dropped += 1;
                }
                self.agents.queue_drop(self.now, d, &p);
                self.lose(&p);
            }
            Offered::DroppedDown => {
                self.pkts.remove(id);
                self.lose(&p);
            }
        }
    }

    /// Start the next transmission of a holding transmitter, if it is idle
    /// and a packet waits. Captures record it now: a queued packet may
    /// still be pushed out, so acceptance is not transmission.
    fn start_tx(&mut self, d: u32) {
        let dir = &mut self.dirs[d as usize];
        if let Some(s) = dir.start_next(self.now) {
            if self.pkts.get(s.id).kind.low_priority() {
                dir.stats.low_priority_tx += 1;
            }
            self.q.push(s.end, Event::TxDone { dir: d });
            if let Some(c) = self.capture.as_deref_mut() {
                c.on_accept(d, self.now, s.start, self.pkts.get(s.id));
            }
        }
    }

    // ----- the link-layer ARQ (net/link/arq/mod.rs) ------------------------------

    /// Offer `p` to ARQ direction `d`'s IP queue.
    #[inline(never)]
    fn arq_offer(&mut self, d: u32, p: Packet) {
        match self.dirs[d as usize].arq_offer(self.now, p) {
            Offered::Queued => self.arq_kick(d),
            Offered::DroppedQueue => {
                self.agents.queue_drop(self.now, d, &p);
                self.lose(&p);
            }
            Offered::DroppedDown => self.lose(&p),
        }
    }

    /// Start ARQ direction `d`'s next transmission if it is idle, and keep
    /// its timer armed.
    fn arq_kick(&mut self, d: u32) {
        let dir = &mut self.dirs[d as usize];
        if let Some((end, ip)) = dir.arq_start(self.now) {
            self.q.push(end, Event::TxDone { dir: d });
            if let (Some(c), Some(p)) = (self.capture.as_deref_mut(), ip) {
                c.on_accept(d, self.now, self.now, &p);
            }
        }
        self.dirs[d as usize].arq_arm(&mut self.q, Event::ArqTimer { dir: d });
    }

    fn arq_tx_done(&mut self, d: u32) {
        let dir = &mut self.dirs[d as usize];
        match dir.arq_finish(self.now) {
            Some(AirFate::Arrives { first: true }) => {
                let at = dir.arq_wire_head().expect("just put on the wire");
                self.q.push(at, Event::ArqArrive { dir: d });
            }
            Some(AirFate::Lost(Some(p))) => self.lose(&p),
            _ => {}
        }
        self.arq_kick(d);
    }

    /// The first item on ARQ direction `d`'s air arrives; the end of the
    /// link there (direction `d ^ 1`'s state) takes it.
    fn arq_arrive(&mut self, d: u32) {
        let (item, next) = self.dirs[d as usize].arq_pop_wire();
        if let Some(at) = next {
            self.q.push(at, Event::ArqArrive { dir: d });
        }
        let back = d ^ 1;
        let mut out = std::mem::take(&mut self.arq_out);
        let mut gone = std::mem::take(&mut self.arq_gone);
        self.dirs[back as usize].arq_receive(self.now, item, &mut out, &mut gone);
        self.arq_kick(back);
        self.arq_hand_over(back, &mut out, &mut gone);
    }

    fn arq_timer(&mut self, d: u32) {
        if !self.dirs[d as usize].arq_timer_fires(self.now, &mut self.q, Event::ArqTimer { dir: d }) {
            return;
        }
        let mut out = std::mem::take(&mut self.arq_out);
        let mut gone = std::mem::take(&mut self.arq_gone);
        self.dirs[d as usize].arq_timer(self.now, &mut out, &mut gone);
        self.arq_kick(d);
        self.arq_hand_over(d, &mut out, &mut gone);
    }

    /// Packets the ARQ end at direction `d`'s sending node delivered to IP
    /// there (`out`) or gave up (`gone`); the buffers are reused.
    fn arq_hand_over(&mut self, d: u32, out: &mut Vec<Packet>, gone: &mut Vec<Packet>) {
        for p in gone.drain(..) {
            self.lose(&p);
        }
        let node = self.dirs[d as usize].from;
        for mut p in out.drain(..) {
            // the data came over the opposite direction of the link
            self.arrive(d ^ 1, node, &mut p);
        }
        self.arq_out = std::mem::take(out);
        self.arq_gone = std::mem::take(gone);
    }

    /// Link `link`'s next scheduled change happens now.
    fn link_change(&mut self, link: usize) {
        let ch = self.scn.links[link].changes[self.next_change[link]];
        self.next_change[link] += 1;
        for d in [2 * link, 2 * link + 1] {
            let dir = &mut self.dirs[d];
            dir.on_change(self.now);
            if ch.up == Some(false) {
                if dir.arq_state().is_some() {
                    let mut gone = std::mem::take(&mut self.arq_gone);
                    dir.arq_go_down(self.now, &mut gone);
                    for p in gone.drain(..) {
                        self.lose(&p);
                    }
                    self.arq_gone = gone;
                } else {
                    dir.go_down(self.now, &mut self.lost);
                }
            }
        }
        if ch.up == Some(true) {
            for d in [2 * link, 2 * link + 1] {
                if self.dirs[d].arq_state().is_some() {
                    self.arq_kick(d as u32);
                }
            }
        }
        for k in 0..self.lost.len() {
            let p = self.pkts.remove(self.lost[k]);
            self.lose(&p);
        }
        self.lost.clear();
        if ch.up.is_some() || ch.dirs.iter().any(|c| c.delay_ns.is_some()) {
            self.routes_dirty = true;
        }
    }

    /// A packet is lost (dropped, corrupted, no route): UDP sources count it.
    fn lose(&mut self, p: &Packet) {
        if p.kind == Kind::Udp {
            if let Some(u) = self.apps[p.to_ep as usize].udp() {
                u.packets_lost += 1;
            }
        }
    }

    /// Route what endpoints sent and hand notes to applications until
    /// nothing more happens at this instant.
    fn settle(&mut self) {
        loop {
            for i in 0..self.out.len() {
                let mut p = self.out[i];
                self.forward(p.src_node, &mut p);
            }
            self.out.clear();
            if self.notes.is_empty() {
                return;
            }
            std::mem::swap(&mut self.notes, &mut self.notes_spare);
            for i in 0..self.notes_spare.len() {
                let n = self.notes_spare[i];
                self.on_note(n);
            }
            self.notes_spare.clear();
        }
    }

    fn on_note(&mut self, n: Note) {
        let (ep, note) = match n {
            Note::Delivered { ep, total } => {
                if total < self.apps[(ep / 2) as usize].delivery_mark(side_of(ep)) {
                    return; // the application would do nothing with it
                }
                (ep, AppNote::Delivered(side_of(ep), total))
            }
            Note::PeerClosed { ep } => (ep, AppNote::PeerClosed(side_of(ep))),
            Note::AllAcked { ep } => (ep, AppNote::AllAcked(side_of(ep))),
            Note::Finished { ep } => {
                let fr = &mut self.flows[(ep / 2) as usize];
                fr.finished_eps += 1;
                if fr.finished_eps < 2 {
                    return;
                }
                fr.fin_done_at = Some(self.now);
                (ep, AppNote::ConnectionFinished)
            }
            Note::Aborted { ep } => {
                self.flows[(ep / 2) as usize].aborted = true;
                (ep, AppNote::Aborted)
            }
        };
        let f = (ep / 2) as usize;
        self.apps[f].on_note(self.now, note, &mut self.actions);
        self.apply_actions(f);
    }

    fn apply_actions(&mut self, f: usize) {
        let mut i = 0;
        while i < self.actions.len() {
            let a = self.actions[i];
            i += 1;
            let ep_of = |s: Side| 2 * f + (s == Side::Client) as usize;
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
            match a {
                Action::Listen(s) => self.eps[ep_of(s)].listen(),
                Action::Connect(s) => self.eps[ep_of(s)].connect(&mut ctx),
                Action::Write(s, n) => self.eps[ep_of(s)].write(&mut ctx, n),
                Action::Close(s) => self.eps[ep_of(s)].close(&mut ctx),
                Action::StopWriting(s) => self.eps[ep_of(s)].stop_writing(&mut ctx),
                Action::WakeAt(t) => self.q.push(t, Event::App { app: f as u32 }),
                Action::Datagram(bytes) => {
                    let fc = &self.scn.flows[f];
                    ctx.out.push(Packet::udp(fc.src as u32, fc.dst as u32, f as u32, bytes));
                }
            }
        }
        self.actions.clear();
        let fr = &mut self.flows[f];
        if !fr.done && (self.apps[f].completed_at().is_some() || fr.aborted) {
            fr.done = true;
            if self.apps[f].is_finite() {
                self.finite_left -= 1;
            }
        }
    }

    fn sample(&mut self) {
        let t = secs(self.now);
        for f in 0..self.flows.len() {
            if self.apps[f].udp_stats().is_some() {
                continue; // UDP cross traffic has no TCP state to sample
            }
            let s = &self.eps[2 * f];
            let c = &self.eps[2 * f + 1];
            let fs = &mut self.flow_series;
            fs.time_s.push(t);
            fs.flow.push(f as u32);
            fs.cwnd_bytes.push(s.snd.w.cwnd as f64);
            let ss = s.snd.w.ssthresh;
            fs.ssthresh_bytes.push(if ss >= SSTHRESH_INFINITE { f64::NAN } else { ss as f64 });
            fs.eff_window_bytes.push(s.snd.w.cwnd.min(s.snd.peer_wnd) as f64);
            fs.flight_bytes.push(s.snd.flight() as f64);
            fs.srtt_s.push(s.snd.rtt.srtt.map_or(f64::NAN, |v| v / 1e9));
            fs.rto_s.push(secs(s.snd.rtt.rto()));
            fs.rcv_high_bytes.push(c.rcv.high.saturating_sub(1) as f64);
            fs.delivered_bytes.push(c.rcv.bytes_delivered as f64);
            fs.snd_max_bytes.push(s.snd.max.saturating_sub(1) as f64);
        }
        for (i, d) in self.dirs.iter_mut().enumerate() {
            let ls = &mut self.link_series;
            ls.time_s.push(t);
            ls.link.push(i as u32);
            ls.queue_packets.push(d.queue_packets(self.now) as f64);
            ls.queue_bytes.push(d.queue_bytes(self.now) as f64);
            ls.rate_bps.push(if d.up { d.rate_bps as f64 } else { 0.0 });
            ls.bytes_tx.push(d.stats.bytes_tx as f64);
            ls.red_avg_packets.push(d.red_avg().unwrap_or(f64::NAN));
        }
    }

    pub fn into_output(mut self) -> RunOutput {
        let end = self.now;
        // every packet of the pool is on some link (or in a holding queue)
        debug_assert_eq!(self.pkts.live(), self.dirs.iter().map(LinkDir::pool_packets).sum::<usize>(), "packets lost track of");
        let (paths, ground_stations, path_series, routing_ns) = match self.leo.as_deref_mut() {
            Some(l) => (l.path_summaries(), std::mem::take(&mut l.stations_out), std::mem::take(&mut l.series), l.routing_ns),
            None => Default::default(),
        };
        let scn = &self.scn;
        let node = |i: usize| scn.nodes[i].name.clone();
        let mut flows = Vec::with_capacity(scn.flows.len());
        let mut pages = PageTable::default();
        for (f, fc) in scn.flows.iter().enumerate() {
            let (s, c) = (&self.eps[2 * f], &self.eps[2 * f + 1]);
            let app = &self.apps[f];
            let start = app.start_time();
            let last = app.last_byte_at();
            let active = last.unwrap_or(end).saturating_sub(start);
            let rate = |bytes: u64| if active == 0 { 0.0 } else { bytes as f64 * 8.0 / secs(active) };
            let delivered = c.rcv.bytes_delivered;
            let received = c.rcv.bytes_arrived;
            let (mut pages_done, mut page_sum) = (0u64, 0.0);
            if let App::Http(h) = app {
                for (k, &(ps, pe)) in h.pages.iter().enumerate() {
                    pages.flow.push(f as u32);
                    pages.page.push(k as u32);
                    pages.start_s.push(secs(ps));
                    pages.end_s.push(secs(pe));
                    pages.response_s.push(secs(pe - ps));
                    pages_done += 1;
                    page_sum += secs(pe - ps);
                }
            }
            let st = |e: &Endpoint| e.stats;
            let udp = app.udp_stats();
            flows.push(FlowSummary {
                name: fc.name.clone(),
                src: node(fc.src),
                dst: node(fc.dst),
                variant: if udp.is_some() { "udp".to_string() } else { fc.tcp.variant.clone() },
                app: app.kind().to_string(),
                completed: app.completed_at().is_some(),
                start_s: secs(start),
                stop_s: match &fc.app {
                    AppCfg::Ftp(a) => a.stop_ns.map(secs),
                    _ => None,
                },
                completion_s: app.completed_at().map(|t| secs(t - start)),
                last_byte_at_s: last.filter(|_| matches!(fc.app, AppCfg::Ftp(_))).map(secs),
                fin_done_at_s: self.flows[f].fin_done_at.map(secs),
                bytes_delivered: delivered,
                bytes_received: received,
                goodput_bps: rate(delivered),
                throughput_bps: rate(received),
                segments_sent: st(s).segments_sent + st(c).segments_sent,
                retransmissions: st(s).retransmissions + st(c).retransmissions,
                timeouts: st(s).timeouts + st(c).timeouts,
                fast_recoveries: st(s).fast_recoveries + st(c).fast_recoveries,
                loss_probes: st(s).loss_probes + st(c).loss_probes,
                spurious_rtos: st(s).spurious_rtos + st(c).spurious_rtos,
                dummy_segments_sent: st(s).dummy_segments_sent + st(c).dummy_segments_sent,
                dummy_acks_sent: st(s).dummy_acks_sent + st(c).dummy_acks_sent,
                dummy_acks_received: st(s).dummy_acks_received + st(c).dummy_acks_received,
                integrity_errors: st(s).integrity_errors + st(c).integrity_errors,
                aborted: self.flows[f].aborted,
                abort_reason: self.flows[f].aborted.then(|| {
                    let n = fc.tcp.max_retransmissions.unwrap_or(0);
                    format!("no progress after {n} retransmission timeouts in a row (tcp.max_retransmissions = {n}; 0 never gives up)")
                }),
                pages_completed: pages_done,
                mean_page_response_s: (pages_done > 0).then(|| page_sum / pages_done as f64),
                final_cwnd_bytes: if udp.is_some() { 0 } else { s.snd.w.cwnd },
                final_srtt_s: s.snd.rtt.srtt.map(|v| v / 1e9),
                profile: udp.is_none().then(|| fc.tcp.profile.name().to_string()),
                limited: udp.is_none().then(|| {
                    let mut l = s.snd.limits.clone();
                    l.finish(end);
                    let [cwnd, rwnd, app, pacing] = l.shares();
                    Limited { cwnd, rwnd, app, pacing }
                }),
                udp,
            });
        }
        let mut links = Vec::with_capacity(self.dirs.len());
        // a constellation's links from here on: listed when they carried or
        // dropped something (thousands of directions otherwise)
        let first_moving = scn.leo.as_ref().map_or(usize::MAX, |l| l.shells.iter().map(|s| s.first_link).min().unwrap_or(usize::MAX));
        for (i, d) in self.dirs.iter().enumerate() {
            let l = &scn.links[i / 2];
            if i / 2 >= first_moving && d.stats.packets_tx == 0 && d.stats.drops_queue + d.stats.drops_down + d.stats.drops_errors == 0 {
                continue;
            }
            let used = d.stats.bytes_ok as f64 * 8.0;
            links.push(LinkSummary {
                index: i / 2,
                a: node(l.a),
                b: node(l.b),
                direction: if i % 2 == 0 { "ab" } else { "ba" }.to_string(),
                from: node(d.from as usize),
                to: node(d.to as usize),
                rate_bps: l.dirs[i % 2].rate_bps,
                delay_s: secs(l.dirs[i % 2].delay_ns),
                packets_tx: d.stats.packets_tx,
                bytes_tx: d.stats.bytes_tx,
                bytes_ok: d.stats.bytes_ok,
                utilization: d.utilization(end),
                utilization_ok: if end == 0 { 0.0 } else { used / d.capacity_bits(end) },
                drops: Drops {
                    queue: d.stats.drops_queue,
                    errors: d.stats.drops_errors,
                    red_early: d.stats.drops_red_early,
                    red_forced: d.stats.drops_red_forced,
                    down: d.stats.drops_down,
                    pushed_out: d.stats.drops_pushed_out,
                },
                low_priority_tx: d.stats.low_priority_tx,
                low_priority_dropped: d.stats.low_priority_dropped,
                reordered: d.stats.reordered,
                burst_delayed: d.stats.burst_delayed,
                max_queue_packets: d.stats.max_queue_packets,
                mean_queue_packets: (!d.holds_packets() && end > 0).then(|| d.stats.queue_wait_ns as f64 / end as f64),
                arq: arq_summary(d, &self.dirs[i ^ 1]),
            });
        }
        let nodes = scn
            .nodes
            .iter()
            .zip(&self.nodes)
            .map(|(n, s)| NodeSummary { name: n.name.clone(), drops_no_route: s.drops_no_route, drops_ttl: s.drops_ttl })
            .collect();
        let agents = scn
            .agents
            .iter()
            .zip(&self.agents.list)
            .map(|(c, a)| AgentSummary {
                node: node(c.node),
                link: c.link,
                kind: c.kind.name().to_string(),
                counters: a.counters(),
            })
            .collect();
        RunOutput {
            summary: Summary {
                satcp_version: crate::VERSION.to_string(),
                seed: scn.run.seed,
                sim_time_s: secs(end),
                ended_by: self.ended_by.to_string(),
                events: self.q.popped(),
                wall_s: 0.0,
                flows,
                links,
                nodes,
                agents,
                paths,
                ground_stations,
            },
            flow_series: self.flow_series,
            link_series: self.link_series,
            pages,
            path_series,
            routing_wall_s: routing_ns as f64 / 1e9,
        }
    }
}

/// The routing graph: (from, to, delay now, up) of every link direction.
fn edges_of(dirs: &[LinkDir]) -> Vec<(u32, u32, u64, bool)> {
    dirs.iter().map(|d| (d.from, d.to, d.delay_ns, d.up)).collect()
}

/// The ARQ account of direction `d`'s frames (`back` holds their
/// receiver).
fn arq_summary(d: &LinkDir, back: &LinkDir) -> Option<ArqSummary> {
    let (a, r) = (d.arq_state()?, &back.arq_state()?.rx.stats);
    let s = &a.snd.stats;
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

fn side_of(ep: u32) -> Side {
    if ep.is_multiple_of(2) {
        Side::Server
    } else {
        Side::Client
    }
}

/// A dummy segment or dummy ACK offered to a FIFO direction: counted as
/// sent unless its queue dropped it (or it never got on: head loss, outage).
#[cold]
#[inline(never)]
fn count_low_priority(dir: &mut LinkDir, fate: &Enqueued) {
    match fate {
        Enqueued::DroppedQueue | Enqueued::DroppedRed => dir.stats.low_priority_dropped += 1,
        Enqueued::LostAtHead | Enqueued::Down { sent: false } => {}
        _ => dir.stats.low_priority_tx += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Endpoints of flows configured alike read one configuration (both
    /// halves of a flow, and the next flows with the same `tcp`); a flow
    /// configured otherwise gets its own, with its own values.
    #[test]
    fn flows_configured_alike_share_one_tcp_configuration() {
        let mut text = String::from(
            "[nodes]\na = {}\nb = {}\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n",
        );
        for mss in [1460, 1460, 1000, 1460] {
            text += &format!("[[flows]]\nsrc = \"a\"\ndst = \"b\"\ntcp = {{ mss = {mss} }}\napp = {{ kind = \"ftp\", size = \"10kB\" }}\n");
        }
        let scn = crate::scenario::parse_toml(&text, &[]).unwrap();
        let w = World::build(&scn);
        let same = |a: usize, b: usize| Arc::ptr_eq(&w.eps[a].cfg, &w.eps[b].cfg);
        assert!(same(0, 1) && same(0, 2) && same(0, 3) && same(0, 6) && same(0, 7));
        assert!(same(4, 5) && !same(0, 4));
        assert_eq!((w.eps[0].cfg.mss, w.eps[4].cfg.mss), (1460, 1000));
        for (i, ep) in w.eps.iter().enumerate() {
            assert_eq!(*ep.cfg, scn.flows[i / 2].tcp);
        }
    }
}
