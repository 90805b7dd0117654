//! Split-TCP performance-enhancing proxies (RFC 3135 section 2.1.1 and
//! 2.4: "split connections"; RFC 3449; PEPsal, Caini et al., IJSCN 2006):
//! the state of every PEP of a run, its rules and its counters. The world
//! (`world/pep.rs`) hands a PEP the TCP segments that reach its node, hosts
//! the PEP's endpoints in its arena and relays between them; this file
//! decides and keeps account, and touches neither packets on links nor
//! endpoints' internals.
//!
//! The shape (docs/models/pep.md says why):
//! * A PEP sits on a node. `[[peps]] node = "gw"` is one PEP; with
//!   `peer = "term"` a pair, one at each end of the satellite hop.
//! * At a connection's SYN (a segment with SYN and no ACK, seen by the
//!   first PEP of the set-up it reaches) the PEP decides: split, pass (end
//!   to end, never looked at again) or, with the pool full and `pool_full =
//!   "wait"`, hold the SYN until a split connection ends. A connection
//!   whose opening the PEP did not see (handshake = false flows) passes.
//! * A split connection at a PEP is two TCP endpoints hosted at its node:
//!   end 0 faces the connection's opener and answers its SYN itself (the
//!   spoofed handshake: the opener is established one access round trip
//!   after its SYN), end 1 opens a connection towards the acceptor, which
//!   a peer PEP on the path takes over in turn (its end 0 answers, its end
//!   1 opens towards the acceptor). Segments are addressed as the ends'
//!   own are (the flow's endpoint ids and nodes), so a PEP takes a segment
//!   by the endpoint it is addressed to: to the acceptor -> end 0, to the
//!   opener -> end 1. Both directions' routes must cross the PEP's node
//!   (checked before the run: `scenario/parse/peps.rs`).
//! * Configurations: an end facing a real end (opener or acceptor) runs
//!   the flow's own `tcp`; an end of the connection the PEP opens, and the
//!   peer PEP's end that answers it, run `leg` (default the flow's). Every
//!   hosted end has Linux's autotuned receive and send buffers of half of
//!   `buffer` each (`receive_window = "autotune"`, the default: socat's
//!   and PEPsal's sockets; `world/pep.rs`'s `pep_move`), or a receive
//!   buffer of `buffer` offered whole (`"fixed"`), and none takes
//!   data beyond its window (TCP-ADaLR's `accept_beyond_window` is off at
//!   a PEP: the buffer is its memory).
//! * The relay: bytes an end delivers are written at once to the other
//!   end; the receiving end's application (the relay) reads them only as
//!   the other end's peer acknowledges them (`tcp/deferred_read.rs`). So
//!   each direction holds at most `buffer` bytes (received and not yet
//!   acknowledged downstream), the PEP acknowledges what the next leg has
//!   not delivered, and the window it offers closes as the buffer fills.
//! * A FIN that arrives (in order, after all data) closes the other end
//!   after what it holds; a reset or an abort of one end resets the other.
//! * Pool: each split connection reserves two buffers (one per direction)
//!   of its PEP's `pool` for its life (at both PEPs of a pair, decided at
//!   the first: a pair that would find either pool full does not split).
//! * A PEP goes down when every link of its node is down (scheduled
//!   `changes`): its split connections are lost with what their buffers
//!   held, their ends stop without a word, waiting SYNs are forgotten and
//!   the pool is empty. When the node is back, a segment of a lost
//!   connection gets a reset in reply (RFC 9293 3.10.7.1, addressed as
//!   the segment's sender would expect its peer's): an end learns of the
//!   loss at its first segment to reach the PEP after the outage (a
//!   retransmission, or new data), and aborts; an end with nothing to send
//!   (a receiver waiting for data) hears nothing, as with a real proxy
//!   without keepalives. Through a pair, the surviving PEP's end gets the
//!   reset and resets its other leg, so the far end sees one too.
//! * Not split: non-TCP packets (UDP, QUIC) are never looked at; flows
//!   with `split = false` (IPsec-like); ports outside `split = { ports }`;
//!   with `unknown_options = "forward"`, flows whose controller carries a
//!   research option (a real PEP would see the option in the SYN; satcp's
//!   senders attach it after the handshake, so the world tells the PEP
//!   from the flow's configuration); with `"strip"` (default) they are
//!   split and the option ends at the PEP.

use crate::net::Packet;
use crate::scenario::{PepCfg, PepSplit};
use std::collections::{BTreeMap, VecDeque};

/// No PEP on a node.
pub const NONE: u32 = u32::MAX;

/// What a PEP knows of a flow's connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Not seen yet.
    Unseen,
    /// End to end: forwarded untouched.
    Pass,
    /// Its SYN waits for room in the pool.
    Waiting,
    /// The first PEP of the pair split it: this one takes it over at the
    /// first segment from that PEP.
    ExpectPeer,
    /// Split: the relay's index.
    Split(u32),
    /// Split, and lost when the PEP went down: its segments get resets.
    Lost,
}

/// One PEP (a node).
pub struct Pep {
    /// Its `[[peps]]` entry.
    pub cfg: usize,
    pub node: u32,
    /// The other PEP of its pair (index into `Peps::list`).
    pub peer: Option<u32>,
    /// Per flow.
    pub flows: Vec<Slot>,
    /// Bytes of the pool reserved by split connections.
    pub pool_used: u64,
    pub pool_peak: u64,
    /// SYNs waiting for room (`pool_full = "wait"`), in arrival order.
    pub waiting: VecDeque<(u32, Packet)>,
    /// Every link of its node is down (an outage): it lost its state.
    pub down: bool,
    pub counters: PepCounters,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct PepCounters {
    /// Connections split here (end 0 answered, end 1 opened).
    pub split: u64,
    /// Connections passed end to end: `split = false`, a port not listed,
    /// an unknown option forwarded, the pool full under `"pass"`.
    pub passed_opt_out: u64,
    pub passed_port: u64,
    pub passed_option: u64,
    pub passed_pool_full: u64,
    /// SYNs held for room in the pool, and those later split.
    pub waited: u64,
    /// Resets this PEP sent on a leg because the other failed.
    pub resets_sent: u64,
    /// Outages (every link of its node down) and the split connections
    /// they lost, and resets answering segments of lost connections.
    pub outages: u64,
    pub connections_lost: u64,
    pub lost_answered: u64,
}

/// A split connection at one PEP: two hosted endpoints and the relay
/// between them.
pub struct Relay {
    pub pep: u32,
    pub flow: u32,
    /// The endpoint id the opener's SYN was addressed to.
    pub acceptor: u32,
    /// Hosted endpoint ids: [facing the opener, facing the acceptor].
    pub ends: [u32; 2],
    /// Per end: bytes it delivered.
    pub delivered: [u64; 2],
    /// Per end: bytes of what it delivered that the relay read and wrote
    /// to the other end (with `receive_window = "fixed"` all of them, at
    /// once; with `"autotune"` as the other end's send buffer has room).
    pub moved: [u64; 2],
    /// Per end: it received the FIN; the other end closes once everything
    /// it delivered was moved.
    pub peer_closed: [bool; 2],
    /// Per end: bytes of what was written to it that its peer acknowledged.
    pub acked: [u64; 2],
    pub finished: [bool; 2],
    /// The pool reservation was given back.
    pub released: bool,
    pub opened_at: u64,
    /// Per end: when its FIN exchange completed.
    pub finished_at: [Option<u64>; 2],
    /// Per end: its send buffer with `receive_window = "autotune"`
    /// (Linux's, grown with its congestion window, never shrunk, at most
    /// half of `buffer`); unused with `"fixed"`.
    pub send_buffer: [u64; 2],
    /// Largest bytes held, per direction (index: the end that received).
    pub peak: [u64; 2],
    /// It ended by a reset (sent or received at one of its ends).
    pub reset: bool,
    /// The PEP went down with it.
    pub lost: bool,
}

impl Relay {
    /// The hosted end a segment addressed to endpoint `to_ep` goes to.
    #[inline]
    pub fn end_for(&self, to_ep: u32) -> u32 {
        if to_ep == self.acceptor {
            self.ends[0]
        } else {
            self.ends[1]
        }
    }

    /// Bytes held in the direction end `i` receives: delivered by it and
    /// not yet acknowledged to the other end by its peer.
    #[inline]
    pub fn held(&self, i: usize) -> u64 {
        self.delivered[i] - self.acked[1 - i]
    }

    /// Which end (0 or 1) `ep` is.
    pub fn side_of(&self, ep: u32) -> usize {
        (self.ends[1] == ep) as usize
    }
}

/// Every PEP of the run.
pub struct Peps {
    pub list: Vec<Pep>,
    /// Per node: the PEP there, or `NONE`.
    pub at_node: Vec<u32>,
    pub relays: Vec<Relay>,
    /// The first hosted endpoint's id (endpoints below are flows').
    pub ep_base: u32,
    /// Per hosted endpoint (id - ep_base): its relay.
    pub relay_of: Vec<u32>,
    /// Per flow: its controller carries a research option.
    pub research: Vec<bool>,
    /// Per flow: when its receiving side got its first byte.
    pub first_byte: Vec<Option<u64>>,
}

/// Why a connection is not split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassReason {
    OptOut,
    Port,
    Option,
}

impl Peps {
    /// The PEPs of `cfgs` on a network of `nodes` nodes with `flows` flows.
    pub fn new(cfgs: &[PepCfg], nodes: usize, flows: usize, research: Vec<bool>) -> Self {
        let mut list = Vec::new();
        let mut at_node = vec![NONE; nodes];
        for (i, c) in cfgs.iter().enumerate() {
            let k = list.len() as u32;
            let pep = |node: usize, peer| Pep {
                cfg: i,
                node: node as u32,
                peer,
                flows: vec![Slot::Unseen; flows],
                pool_used: 0,
                pool_peak: 0,
                waiting: VecDeque::new(),
                down: false,
                counters: PepCounters::default(),
            };
            at_node[c.node] = k;
            match c.peer {
                Some(n) => {
                    list.push(pep(c.node, Some(k + 1)));
                    list.push(pep(n, Some(k)));
                    at_node[n] = k + 1;
                }
                None => list.push(pep(c.node, None)),
            }
        }
        Peps { list, at_node, relays: Vec::new(), ep_base: 2 * flows as u32, relay_of: Vec::new(), research, first_byte: vec![None; flows] }
    }

    /// Whether the PEP at `k` (config `c`) lets flow `f` (port, split flag)
    /// be split, or why not.
    pub fn admits(&self, c: &PepCfg, f: usize, port: u16, split: bool) -> Result<(), PassReason> {
        if !split {
            return Err(PassReason::OptOut);
        }
        if let PepSplit::Ports(ports) = &c.split {
            if !ports.contains(&port) {
                return Err(PassReason::Port);
            }
        }
        if c.unknown_options == crate::scenario::UnknownOptions::Forward && self.research[f] {
            return Err(PassReason::Option);
        }
        Ok(())
    }

    /// Whether PEP `k` and its peer have room for one more connection of
    /// `need` bytes.
    pub fn room(&self, k: usize, need: u64, pool: u64) -> bool {
        let ok = |j: usize| self.list[j].pool_used + need <= pool;
        ok(k) && self.list[k].peer.is_none_or(|j| ok(j as usize))
    }

    pub fn reserve(&mut self, k: usize, need: u64) {
        let p = &mut self.list[k];
        p.pool_used += need;
        p.pool_peak = p.pool_peak.max(p.pool_used);
    }

    /// Set flow `f`'s slot at PEP `k` and at its peer.
    pub fn set_both(&mut self, k: usize, f: usize, s: Slot) {
        self.list[k].flows[f] = s;
        if let Some(j) = self.list[k].peer {
            self.list[j as usize].flows[f] = s;
        }
    }

    /// Counters of PEP `k` by name, for the summary.
    pub fn counters(&self, k: usize) -> BTreeMap<String, u64> {
        let c = &self.list[k].counters;
        let relays = self.relays.iter().filter(|r| r.pep as usize == k);
        let resets = relays.filter(|r| r.reset).count() as u64;
        BTreeMap::from([
            ("split".to_string(), c.split),
            ("passed_opt_out".to_string(), c.passed_opt_out),
            ("passed_port".to_string(), c.passed_port),
            ("passed_option".to_string(), c.passed_option),
            ("passed_pool_full".to_string(), c.passed_pool_full),
            ("waited".to_string(), c.waited),
            ("resets_sent".to_string(), c.resets_sent),
            ("outages".to_string(), c.outages),
            ("connections_lost".to_string(), c.connections_lost),
            ("lost_answered".to_string(), c.lost_answered),
            ("connections_reset".to_string(), resets),
            ("pool_peak_bytes".to_string(), self.list[k].pool_peak),
        ])
    }
}
