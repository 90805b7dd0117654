//! Router agents: models that sit on a node's forwarding path and read or
//! rewrite the packets it sends, forwards, drops or receives corrupted
//! (XFWA's window rewriting, CETEN-R's corruption estimates, monitors).
//!
//! Hooks, each called for the agents attached to the node (on every
//! interface, or on one link's interface only):
//! * `on_forward`: every packet the node sends or forwards over an
//!   interface, including packets leaving their source, after routing and
//!   before the link's queue and any capture (so a capture shows the
//!   rewritten packet). The agent may rewrite it.
//! * `on_queue_drop`: the interface's queue dropped a packet the node
//!   offered (full drop-tail queue, RED, a priority queue's refusal).
//! * `on_corrupted`: a packet arrived at the node over an interface with bit
//!   errors, before the node discards it. Links deliver corrupted packets
//!   (one event each) only towards nodes with an agent that asks for them.
//! * `on_arrival`: a packet arrived intact at the node over an interface,
//!   before the node delivers or forwards it (asked only of agents that
//!   want it: CETEN-R's estimator multiplies its arrival interface's
//!   estimate into the packet). The agent may rewrite it.
//! * `on_backlog`: how many packets wait on an interface as a packet is
//!   offered to it, before `on_forward` (asked only of agents that want it
//!   there: XFWA dates transmissions and reads free buffer with it).
//!
//! An agent is one file and one line. Its file (`router/<name>.rs`) holds
//! its parameters (keys, defaults and parsing: `AgentParams`), its state
//! and hooks (`RouterAgent`) and how it is built from its environment
//! (`AgentPlugin::new`: its node, the interface it watches with that
//! interface's rate and queue, the run's flow count, a random stream). Its
//! `registry!` line below declares the file's module and gives its `kind`
//! name; from it come `AgentKind` (the scenario's form), `Agent` (the
//! closed enum dispatched by `match`, as window controllers are: no virtual
//! call), the parser's kinds and keys, and the summary's names. A node
//! without agents costs one empty-list test per packet.

pub mod window_field;

use std::collections::BTreeMap;

use crate::ids::DirId;
use crate::net::Packet;
use crate::scenario::reader::{Res, Tbl};
use crate::scenario::{AgentCfg, FlowCfg, QueueLimit, Scenario};
use crate::sim::{Rng, Time};

/// Random streams of agents start here (apart from flows' and links').
const AGENT_STREAM: u64 = 4 << 32;

/// The hooks an agent may implement; every one defaults to doing nothing.
pub trait RouterAgent {
    /// `p` leaves the node over link direction `dir`.
    fn on_forward(&mut self, _now: Time, _dir: u32, _p: &mut Packet) {}
    /// The queue of link direction `dir` dropped `p`.
    fn on_queue_drop(&mut self, _now: Time, _dir: u32, _p: &Packet) {}
    /// `p` arrived corrupted over link direction `dir`.
    fn on_corrupted(&mut self, _now: Time, _dir: u32, _p: &Packet) {}
    /// Whether the agent wants `on_corrupted` calls.
    fn wants_corrupted(&self) -> bool {
        false
    }
    /// `p` arrived intact over link direction `dir`.
    fn on_arrival(&mut self, _now: Time, _dir: u32, _p: &mut Packet) {}
    /// Whether the agent wants `on_arrival` calls.
    fn wants_arrivals(&self) -> bool {
        false
    }
    /// `packets` wait on link direction `dir` as a packet is offered to it
    /// (asked before `on_forward`, only of agents that want it there).
    fn on_backlog(&mut self, _dir: u32, _packets: usize) {}
    /// Whether the agent wants `on_backlog` calls for `dir`.
    fn wants_backlog(&self, _dir: u32) -> bool {
        false
    }
    /// What it counted, for the run summary.
    fn counters(&self) -> BTreeMap<String, u64>;
}

/// An agent's parameters as a scenario gives them: its own keys (beside
/// `node`, `kind` and `link`) and how they are read, defaults included.
pub(crate) trait AgentParams: Sized {
    const KEYS: &'static [&'static str];
    /// Read the parameters from the agent's table; `site` says where the
    /// agent sits (checked before: the node and the link exist).
    fn parse(t: &Tbl, site: &AgentSite) -> Res<Self>;
}

/// What the parser knows of an agent's place when it reads its keys.
pub(crate) struct AgentSite<'a> {
    /// The link whose interface the agent watches (`link`), if given.
    pub link: Option<usize>,
    /// The scenario's flows (a window clamp checks their MSS).
    pub flows: &'a [FlowCfg],
}

/// An agent's state, built from its parameters and its environment.
pub(crate) trait AgentPlugin: RouterAgent + Sized {
    type Params: AgentParams;
    fn new(p: &Self::Params, env: AgentEnv) -> Self;
}

/// What an agent is built with besides its parameters.
pub struct AgentEnv {
    /// The node it sits on.
    pub node: u32,
    /// The interface it watches when the scenario names a `link`.
    pub interface: Option<Interface>,
    /// Flows in the run (per-flow tables are indexed by flow).
    pub flows: usize,
    /// The agent's own random stream of the run.
    pub rng: Rng,
}

/// One interface of a node: the link direction that leaves it over `link`
/// and the one that arrives over it, and what the leaving one offers.
#[derive(Clone, Copy, Debug)]
pub struct Interface {
    pub link: usize,
    /// The direction packets leave the node by.
    pub out: u32,
    /// The direction packets arrive by.
    pub back: u32,
    pub rate_bps: u64,
    /// The TCP class's share of the rate (1 but with a class queue).
    pub tcp_share: f64,
    pub limit: QueueLimit,
}

/// One registered agent, as the scenario parser sees it.
pub(crate) struct Entry {
    /// Its `kind` name.
    pub name: &'static str,
    /// Its own keys.
    pub keys: &'static [&'static str],
    /// Read its parameters.
    pub parse: fn(&Tbl, &AgentSite) -> Res<AgentKind>,
}

/// The registry: from one line per agent (`kind` name => variant(its
/// file's module: state type, parameter type)), the agent's module
/// (`router/<module>.rs`), `AgentKind`, `Agent`, `REGISTRY` and the
/// forwarding `match`es.
macro_rules! registry {
    ($(
        $(#[doc = $doc:expr])*
        $name:literal => $V:ident($m:ident: $T:ident, $P:ident);
    )*) => {
        $( pub mod $m; )*

        /// A router agent's kind and parameters (each agent's own type,
        /// from its file in `router/`), as `[[agents]]` gives them.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum AgentKind {
            $( $(#[doc = $doc])* $V($m::$P), )*
        }

        /// Every kind of agent: a closed set dispatched by `match`.
        pub enum Agent {
            $( $V($m::$T), )*
        }

        /// Every agent in registry order (the order of the parser's
        /// lists and messages).
        pub(crate) static REGISTRY: &[Entry] = &[
            $( Entry {
                name: $name,
                keys: <$m::$P as AgentParams>::KEYS,
                parse: |t, site| Ok(AgentKind::$V(<$m::$P as AgentParams>::parse(t, site)?)),
            }, )*
        ];

        impl AgentKind {
            /// Its `kind` name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( AgentKind::$V(_) => $name, )*
                }
            }
        }

        impl Agent {
            pub fn new(kind: &AgentKind, env: AgentEnv) -> Self {
                match kind {
                    $( AgentKind::$V(p) => Agent::$V(<$m::$T as AgentPlugin>::new(p, env)), )*
                }
            }
        }

        macro_rules! dispatch {
            ($self_:ident, $a:ident => $e:expr) => {
                match $self_ {
                    $( Agent::$V($a) => $e, )*
                }
            };
        }
    };
}

registry! {
    /// Lowers the receive window advertised in passing TCP segments
    /// (`router/rwnd_clamp.rs`).
    "rwnd_clamp" => RwndClamp(rwnd_clamp: RwndClamp, RwndClampCfg);
    /// Counts what passes, by kind, and what arrives corrupted
    /// (`router/monitor.rs`).
    "monitor" => Monitor(monitor: Monitor, MonitorCfg);
    /// CETEN-R's corruption and congestion estimates (`router/ceten.rs`).
    "ceten" => Ceten(ceten: CetenRouter, CetenRouterCfg);
    /// XFWA's window adjustment on one interface (`router/xfwa.rs`).
    "xfwa" => Xfwa(xfwa: Xfwa, XfwaCfg);
}

/// The registered agent called `name`.
pub(crate) fn entry(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.name == name)
}

impl RouterAgent for Agent {
    #[inline]
    fn on_forward(&mut self, now: Time, dir: u32, p: &mut Packet) {
        dispatch!(self, a => a.on_forward(now, dir, p))
    }
    fn on_queue_drop(&mut self, now: Time, dir: u32, p: &Packet) {
        dispatch!(self, a => a.on_queue_drop(now, dir, p))
    }
    fn on_corrupted(&mut self, now: Time, dir: u32, p: &Packet) {
        dispatch!(self, a => a.on_corrupted(now, dir, p))
    }
    fn wants_corrupted(&self) -> bool {
        dispatch!(self, a => a.wants_corrupted())
    }
    fn on_arrival(&mut self, now: Time, dir: u32, p: &mut Packet) {
        dispatch!(self, a => a.on_arrival(now, dir, p))
    }
    fn wants_arrivals(&self) -> bool {
        dispatch!(self, a => a.wants_arrivals())
    }
    fn on_backlog(&mut self, dir: u32, packets: usize) {
        dispatch!(self, a => a.on_backlog(dir, packets))
    }
    fn wants_backlog(&self, dir: u32) -> bool {
        dispatch!(self, a => a.wants_backlog(dir))
    }
    fn counters(&self) -> BTreeMap<String, u64> {
        dispatch!(self, a => a.counters())
    }
}

/// The agents of a run and which link directions they watch.
pub struct Agents {
    pub list: Vec<Agent>,
    pub cfgs: Vec<AgentCfg>,
    /// For each link direction, the agents of its sending node that watch
    /// it (forwarding and queue drops).
    out: Vec<Vec<u32>>,
    /// For each link direction, the agents of its receiving node that watch
    /// it and want corrupted packets.
    corrupted_in: Vec<Vec<u32>>,
    /// For each link direction, the agents of its receiving node that watch
    /// it and want intact arrivals.
    arrivals_in: Vec<Vec<u32>>,
    /// For each link direction, the agents that read its backlog before a
    /// packet is offered (XFWA's free buffer).
    backlog_of: Vec<Vec<u32>>,
}

impl Agents {
    /// `ends[d]` = (from, to) node of link direction d (`DirId` d).
    pub fn build(scn: &Scenario, ends: &[(u32, u32)]) -> Self {
        let mut list = Vec::with_capacity(scn.agents.len());
        let out = vec![Vec::new(); ends.len()];
        let corrupted_in = vec![Vec::new(); ends.len()];
        let arrivals_in = vec![Vec::new(); ends.len()];
        let backlog_of = vec![Vec::new(); ends.len()];
        for (k, cfg) in scn.agents.iter().enumerate() {
            let interface = cfg.link.map(|l| {
                // the direction that leaves the node over the link
                let out = DirId::new(l, usize::from(scn.links[l].a != cfg.node));
                let d = &scn.links[l].dirs[out.side()];
                Interface {
                    link: l,
                    out: out.0,
                    back: out.reverse().0,
                    rate_bps: d.rate_bps,
                    tcp_share: d.queue.tcp_share(),
                    limit: d.queue.limit(),
                }
            });
            let rng = Rng::new(scn.run.seed, AGENT_STREAM + k as u64);
            list.push(Agent::new(&cfg.kind, AgentEnv { node: cfg.node as u32, interface, flows: scn.flows.len(), rng }));
        }
        let mut agents = Agents { list, cfgs: scn.agents.clone(), out, corrupted_in, arrivals_in, backlog_of };
        for (d, &(from, to)) in ends.iter().enumerate() {
            agents.watch(d, from, to);
        }
        agents
    }

    /// Link direction `d` (from, to) joins the run after it began (a
    /// constellation's ground-to-satellite link): the agents of its nodes
    /// that watch every interface watch it too.
    pub fn add_dir(&mut self, from: u32, to: u32) {
        let d = self.out.len();
        for v in [&mut self.out, &mut self.corrupted_in, &mut self.arrivals_in, &mut self.backlog_of] {
            v.push(Vec::new());
        }
        self.watch(d, from, to);
    }

    /// Which agents watch direction `d`.
    fn watch(&mut self, d: usize, from: u32, to: u32) {
        for (k, (cfg, agent)) in self.cfgs.iter().zip(&self.list).enumerate() {
            let on_link = cfg.link.is_none_or(|l| l == DirId(d as u32).link());
            if on_link && from as usize == cfg.node {
                self.out[d].push(k as u32);
                if agent.wants_backlog(d as u32) {
                    self.backlog_of[d].push(k as u32);
                }
            }
            if on_link && to as usize == cfg.node && agent.wants_corrupted() {
                self.corrupted_in[d].push(k as u32);
            }
            if on_link && to as usize == cfg.node && agent.wants_arrivals() {
                self.arrivals_in[d].push(k as u32);
            }
        }
    }

    /// Whether the run has any agent (else forwarding skips the lookup).
    #[inline]
    pub fn any(&self) -> bool {
        !self.list.is_empty()
    }

    /// Whether some agent watches packets leaving over `dir`.
    #[inline]
    pub fn on(&self, dir: u32) -> bool {
        !self.out[dir as usize].is_empty()
    }

    /// Whether corrupted packets arriving over `dir` must be delivered.
    pub fn wants_corrupted(&self, dir: u32) -> bool {
        !self.corrupted_in[dir as usize].is_empty()
    }

    pub fn forward(&mut self, now: Time, dir: u32, p: &mut Packet) {
        for &k in &self.out[dir as usize] {
            self.list[k as usize].on_forward(now, dir, p);
        }
    }

    pub fn queue_drop(&mut self, now: Time, dir: u32, p: &Packet) {
        for &k in &self.out[dir as usize] {
            self.list[k as usize].on_queue_drop(now, dir, p);
        }
    }

    /// Whether some agent watches intact arrivals over `dir`.
    #[inline]
    pub fn on_arrivals(&self, dir: u32) -> bool {
        !self.arrivals_in[dir as usize].is_empty()
    }

    pub fn arrival(&mut self, now: Time, dir: u32, p: &mut Packet) {
        for &k in &self.arrivals_in[dir as usize] {
            self.list[k as usize].on_arrival(now, dir, p);
        }
    }

    /// Whether some agent reads the backlog of `dir`.
    #[inline]
    pub fn wants_backlog(&self, dir: u32) -> bool {
        !self.backlog_of[dir as usize].is_empty()
    }

    /// Tell the agents that read it the backlog of `dir` (packets waiting).
    pub fn backlog(&mut self, dir: u32, packets: usize) {
        for &k in &self.backlog_of[dir as usize] {
            self.list[k as usize].on_backlog(dir, packets);
        }
    }

    pub fn corrupted(&mut self, now: Time, dir: u32, p: &Packet) {
        for &k in &self.corrupted_in[dir as usize] {
            self.list[k as usize].on_corrupted(now, dir, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind has its own name, and none of its keys is one every agent
    /// has (the parser lists them together): what the registry promises a
    /// new line.
    #[test]
    fn registered_kinds_have_distinct_names_and_their_own_keys() {
        for (i, e) in REGISTRY.iter().enumerate() {
            assert!(REGISTRY[..i].iter().all(|o| o.name != e.name), "{} twice", e.name);
            for k in e.keys {
                assert!(!["node", "kind", "link"].contains(k), "{}: {k} is a common key", e.name);
            }
            assert!(std::ptr::eq(entry(e.name).unwrap(), e));
        }
        assert_eq!(REGISTRY.iter().map(|e| e.name).collect::<Vec<_>>(), ["rwnd_clamp", "monitor", "ceten", "xfwa"]);
    }
}
