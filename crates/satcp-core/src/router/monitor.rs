//! A monitor (`kind = "monitor"`): counts what the node sends or forwards
//! over the interfaces it watches, by packet kind, and what arrives there
//! corrupted or is dropped by the interface's queue. It changes nothing;
//! it is the simplest user of every router hook, and shows per node what
//! link totals cannot (which traffic crosses a router, how much of it
//! arrives corrupted before the router discards it).

use std::collections::BTreeMap;

use super::{AgentEnv, AgentParams, AgentPlugin, AgentSite, RouterAgent};
use crate::net::{Kind, Packet};
use crate::scenario::reader::{Res, Tbl};
use crate::sim::Time;

/// A monitor has no parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonitorCfg;

impl AgentParams for MonitorCfg {
    const KEYS: &'static [&'static str] = &[];

    fn parse(_t: &Tbl, _site: &AgentSite) -> Res<Self> {
        Ok(MonitorCfg)
    }
}

impl AgentPlugin for Monitor {
    type Params = MonitorCfg;

    fn new(_p: &MonitorCfg, _env: AgentEnv) -> Self {
        Monitor::default()
    }
}

const KINDS: [Kind; 5] = [Kind::Data, Kind::Ack, Kind::Dummy, Kind::DummyAck, Kind::Udp];

#[derive(Default)]
pub struct Monitor {
    packets: [u64; KINDS.len()],
    bytes: [u64; KINDS.len()],
    queue_drops: u64,
    corrupted: u64,
    corrupted_bytes: u64,
}

impl RouterAgent for Monitor {
    fn on_forward(&mut self, _now: Time, _dir: u32, p: &mut Packet) {
        // a QUIC datagram is a UDP datagram on the wire
        let k = if p.kind == Kind::Quic { Kind::Udp } else { p.kind } as usize;
        self.packets[k] += 1;
        self.bytes[k] += p.ip_bytes as u64;
    }

    fn on_queue_drop(&mut self, _now: Time, _dir: u32, _p: &Packet) {
        self.queue_drops += 1;
    }

    fn on_corrupted(&mut self, _now: Time, _dir: u32, p: &Packet) {
        self.corrupted += 1;
        self.corrupted_bytes += p.ip_bytes as u64;
    }

    fn wants_corrupted(&self) -> bool {
        true
    }

    fn counters(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for (k, kind) in KINDS.iter().enumerate() {
            if self.packets[k] > 0 {
                m.insert(format!("packets_{}", kind.name()), self.packets[k]);
                m.insert(format!("bytes_{}", kind.name()), self.bytes[k]);
            }
        }
        m.insert("queue_drops".to_string(), self.queue_drops);
        m.insert("corrupted_arrivals".to_string(), self.corrupted);
        m.insert("corrupted_bytes".to_string(), self.corrupted_bytes);
        m
    }
}
