//! The world: every model of one run in arenas, assembled from the
//! scenario, and the event loop that drives them. Split by phase:
//! * this file: the arenas and how a scenario becomes them (`build`);
//! * `run.rs`: the event loop and its dispatch;
//! * `forward.rs`: a packet at a node (delivered, or routed on through the
//!   node's agents to a link direction's transmitter);
//! * `links.rs`: what link directions hand back (the link-protocol
//!   interface of `net/link/protocol.rs`) and scheduled link changes;
//! * `flows.rs`: endpoints and applications talking through notes and
//!   actions;
//! * `output.rs`: time series samples and the run's summary, from what the
//!   models hand out (`Endpoint::flow_counters`, `LinkDir::summary`);
//! * `cut_through.rs`: relays cut through; `leo.rs`: a constellation's
//!   topology steps.
//!
//! One event per packet per hop: a packet accepted by a FIFO link direction
//! is scheduled straight to its arrival at the far end (a transmitter that
//! holds packets adds events of its own), or, where its far end only relays
//! it and nothing can tell, offered to the next hop at once. A node that is
//! not the packet's destination decrements its TTL and forwards it on the
//! next-hop link of the routing table, through the node's router agents.
//! Scheduled link changes (rate, delay, down, up) are events; a change of
//! delay or state marks the routes for recomputation before the next packet
//! is routed. Endpoints and applications talk through small buffers (`out`,
//! `notes`, `actions`) that are reused for the whole run.

/// A link protocol's context made of the world's fields (a macro, so that
/// a borrow of `self.dirs` beside it stays visible to the borrow checker).
macro_rules! link_ctx {
    ($w:ident) => {
        crate::net::link::LinkCtx {
            now: $w.now,
            q: &mut $w.q,
            pkts: &mut $w.pkts,
            heads: &mut $w.head_ids,
            captures: $w.capture.is_some(),
            out: &mut $w.link_out,
            devices: &mut $w.devices,
        }
    };
}

mod cut_through;
mod flows;
mod forward;
mod leo;
mod links;
mod output;
mod pep;
#[cfg(test)]
mod pep_tests;
mod routes_ahead;
mod run;

use crate::app::{Action, App};
use crate::ids::{DirId, FlowId};
use crate::net::capture::Capture;
use crate::net::link::arq;
use crate::net::link::schedule::DirSchedule;
use crate::net::link::{Devices, LinkOut};
use crate::net::routing::{self, Routes};
use crate::net::{LinkDir, Packet, PacketPool};
use crate::quic::QuicFlow;
use crate::router::Agents;
use crate::scenario::{Scenario, TcpCfg};
use crate::sim::{Event, EventQueue, Rng, Time};
use crate::stats::output::{FlowSeries, LinkSeries};
use crate::tcp::{Endpoint, Note};
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
    /// Link directions (`DirId`: link l's a->b is 2l, b->a 2l + 1).
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
    /// What link protocols hand back (reused buffers, `world/links.rs`).
    link_out: LinkOut,
    /// Transmitters several link directions share (a constellation's
    /// ground-link devices under `gsl.device = "shared"`).
    devices: Devices,
    /// Endpoints (`EpId`: flow f's server is 2f, its client 2f + 1).
    eps: Vec<Endpoint>,
    /// Per flow: its QUIC connection pair (`transport = "quic"`, `quic/`);
    /// None for TCP and UDP flows (their TCP endpoints above stay idle
    /// for a QUIC flow, so endpoint ids stay 2f and 2f + 1).
    quic: Vec<Option<Box<QuicFlow>>>,
    apps: Vec<App>,
    /// The PEPs (`[[peps]]`, `pep/`, `world/pep.rs`); None without them.
    peps: Option<Box<crate::pep::Peps>>,
    flows: Vec<FlowRun>,
    finite_left: usize,
    ended_by: &'static str,
    out: Vec<Packet>,
    notes: Vec<Note>,
    notes_spare: Vec<Note>,
    actions: Vec<Action>,
    flow_series: FlowSeries,
    link_series: LinkSeries,
    pep_series: crate::stats::output::PepSeries,
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
/// + endpoint index: each QUIC endpoint's seeds (its rng, connection IDs,
/// reset key; the client's initial destination CID).
const STREAM_QUIC: u64 = 9 << 40;

impl World {
    /// Flow `f`'s QUIC connection pair, if it is a QUIC flow (tests).
    #[cfg(test)]
    pub(crate) fn quic_flow(&self, f: usize) -> Option<&QuicFlow> {
        self.quic.get(f)?.as_deref()
    }

    pub fn build(scn: &Scenario) -> Self {
        let mut q = EventQueue::new();
        if let Some(stop) = scn.run.stop_ns {
            q.push(stop, Event::Stop);
        }
        let mut dirs = build_links(scn, &mut q);
        let ends: Vec<(u32, u32)> = dirs.iter().map(|d| (d.from, d.to)).collect();
        let agents = Agents::build(scn, &ends);
        for (i, d) in dirs.iter_mut().enumerate() {
            d.deliver_corrupted = agents.wants_corrupted(i as u32);
        }
        let (routes, relay) = build_routes(scn, &dirs);
        let (eps, apps, flows) = build_flows(scn, &mut q);
        let quic = build_quic(scn);
        if scn.run.sample_interval_ns.is_some() {
            q.push(0, Event::Sample);
        }
        let finite_left = apps.iter().filter(|a| a.is_finite()).count();
        let head_ids = vec![0; dirs.len()];
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
            link_out: LinkOut::default(),
            devices: Devices::default(),
            eps,
            quic,
            apps,
            peps: World::build_peps(scn),
            flows,
            finite_left,
            ended_by: "idle",
            out: Vec::new(),
            notes: Vec::new(),
            notes_spare: Vec::new(),
            actions: Vec::new(),
            flow_series: FlowSeries::default(),
            link_series: LinkSeries::default(),
            pep_series: Default::default(),
            capture: None,
            cut_through: true,
            cut_to: Vec::new(),
            cut_before: 0,
            head_ids,
            cut_log: Default::default(),
            cut_rewindable: false,
        };
        w.leo_start();
        w
    }

    /// Give every hop its own arrival event (no cut-through of relay
    /// nodes): the same results, more events; to compare.
    pub fn without_cut_through(&mut self) {
        self.cut_through = false;
    }
}

/// Every link's two directions with their schedules of changes (each
/// change queued as an event now, so that at any instant it comes before
/// the packets that meet it) and, on an ARQ link, the ARQ.
fn build_links(scn: &Scenario, q: &mut EventQueue) -> Vec<LinkDir> {
    let mut dirs = Vec::with_capacity(2 * scn.links.len());
    for (i, l) in scn.links.iter().enumerate() {
        let (a, b) = (l.a as u32, l.b as u32);
        for (d, (from, to)) in DirId::both(i).into_iter().zip([(a, b), (b, a)]) {
            let c = &l.dirs[d.side()];
            let changes: Vec<_> = l.changes.iter().map(|ch| (ch.at_ns, ch.dirs[d.side()], ch.up)).collect();
            let schedule = DirSchedule::new(c.rate_bps, c.delay_ns, &changes);
            dirs.push(LinkDir::with_schedule(from, to, c, schedule, Rng::new(scn.run.seed, STREAM_LINK_ERRORS + d.0 as u64)));
        }
        if let Some(cfg) = &l.arq {
            for d in DirId::both(i) {
                let p = arq::resolve(cfg, &l.dirs[d.side()], &l.dirs[d.reverse().side()]);
                dirs[d.index()].enable_arq(p, cfg);
            }
        }
        for ch in &l.changes {
            q.push(ch.at_ns, Event::LinkChange { link: i as u32 });
        }
    }
    dirs
}

/// Routes towards the nodes packets are addressed to (the ends of flows
/// and of traced paths), and which nodes may relay (empty: all).
fn build_routes(scn: &Scenario, dirs: &[LinkDir]) -> (Routes, Vec<bool>) {
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
    let routes = routing::compute(scn.nodes.len(), &forward::edges_of(dirs), &dsts, &relay);
    (routes, relay)
}

/// Each flow's two endpoints, each with its controller's and its clock's
/// random streams, and its application (its start queued).
fn build_flows(scn: &Scenario, q: &mut EventQueue) -> (Vec<Endpoint>, Vec<App>, Vec<FlowRun>) {
    let seed = scn.run.seed;
    let mut eps = Vec::with_capacity(2 * scn.flows.len());
    let mut apps = Vec::with_capacity(scn.flows.len());
    let mut flows = Vec::with_capacity(scn.flows.len());
    // endpoints share a configuration with those of the last few flows
    // configured alike (a many-flow scenario has a handful at most)
    let mut shared: Vec<Arc<TcpCfg>> = Vec::new();
    for (f, fc) in scn.flows.iter().enumerate() {
        let flow = FlowId::new(f);
        let cfg = match shared.iter().rev().take(8).find(|c| ***c == fc.tcp) {
            Some(c) => c.clone(),
            None => {
                shared.push(Arc::new(fc.tcp.clone()));
                shared[shared.len() - 1].clone()
            }
        };
        for (me, node, peer_node) in [(flow.server(), fc.src, fc.dst), (flow.client(), fc.dst, fc.src)] {
            let cc_rng = Rng::new(seed, STREAM_TCP_CC + me.0 as u64);
            let mut ep = Endpoint::with_shared_cfg(me.0, me.peer().0, node as u32, peer_node as u32, cfg.clone(), cc_rng);
            ep.seed_clock(Rng::new(seed, STREAM_TCP_CLOCK + me.0 as u64));
            eps.push(ep);
        }
        let app = App::new(&fc.app, Rng::new(seed, STREAM_APPS + f as u64));
        q.push(app.start_time(), Event::App { app: flow.0 });
        apps.push(app);
        flows.push(FlowRun { finished_eps: 0, fin_done_at: None, aborted: false, done: false });
    }
    (eps, apps, flows)
}

/// Each QUIC flow's connection pair, seeded from the run seed.
fn build_quic(scn: &Scenario) -> Vec<Option<Box<QuicFlow>>> {
    let seed = scn.run.seed;
    scn.flows
        .iter()
        .enumerate()
        .map(|(f, fc)| {
            let flow = FlowId::new(f);
            let rng = |ep: crate::ids::EpId| Rng::new(seed, STREAM_QUIC + ep.0 as u64);
            let cfg = fc.quic.as_ref()?;
            Some(Box::new(QuicFlow::new(cfg, flow, fc.src as u32, fc.dst as u32, [rng(flow.server()), rng(flow.client())])))
        })
        .collect()
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
            assert_eq!(*ep.cfg, scn.flows[crate::ids::EpId(i as u32).flow().index()].tcp);
        }
    }
}
