//! Test harness: two endpoints joined by one link direction each way, with a
//! per-segment drop rule, a log of every segment put on the wire and of the
//! sender's window after every event. Used for hand-worked traces.

use crate::net::{Enqueued, LinkDir, Packet, PacketPool};
use crate::scenario::{ErrorCfg, LinkDirCfg, QueueCfg, QueueLimit, TcpCfg};
use crate::sim::{Event, EventQueue, Rng, Time};
use crate::tcp::{Ctx, Endpoint, Note};

/// Decides whether a segment sent by the given endpoint is lost.
pub type DropRule = Box<dyn FnMut(&Packet, u32) -> bool>;

#[derive(Clone, Copy, Debug)]
pub struct Sent {
    pub t: Time,
    pub from: u32,
    pub pkt: Packet,
    pub dropped: bool,
}

#[derive(Clone, Copy, Debug)]
pub struct WindowLog {
    /// When the event ended.
    pub t: Time,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub in_recovery: bool,
    pub flight: u64,
}

pub struct Harness {
    pub now: Time,
    q: EventQueue,
    pub eps: Vec<Endpoint>,
    links: Vec<LinkDir>,
    pkts: PacketPool,
    pub log: Vec<Sent>,
    pub win: Vec<WindowLog>,
    /// Decide whether a segment sent by endpoint `from` is lost.
    pub drop: DropRule,
    /// Rewrite a segment sent by endpoint `from` on its way (a router in
    /// passing), after the drop rule.
    pub rewrite: Option<Box<dyn FnMut(&mut Packet, u32)>>,
    /// `(from, t0, t1)`: segments endpoint `from` sends in [t0, t1) are held
    /// and put on the link at t1, in order (a link outage with buffering, as
    /// a link-layer ARQ produces).
    pub hold: Option<(u32, Time, Time)>,
    held: Vec<Packet>,
}

pub fn tcp_cfg() -> TcpCfg {
    crate::scenario::parse_toml(
        r#"[nodes]
a = {}
b = {}
[[links]]
a = "a"
b = "b"
rate = "1Mbps"
delay = "1ms"
[[flows]]
src = "a"
dst = "b"
app = { kind = "ftp", size = 1 }"#,
        &[],
    )
    .unwrap()
    .flows[0]
    .tcp
    .clone()
}

impl Harness {
    pub fn new(cfg: &TcpCfg, rate_bps: u64, delay_ns: u64) -> Self {
        Harness::with_queue(cfg, rate_bps, delay_ns, QueueLimit::Unlimited)
    }

    /// As `new`, with drop-tail queues of this limit at both links' heads.
    pub fn with_queue(cfg: &TcpCfg, rate_bps: u64, delay_ns: u64, limit: QueueLimit) -> Self {
        let dir = LinkDirCfg { rate_bps, delay_ns, queue: QueueCfg::DropTail { limit }, errors: ErrorCfg::None, overhead_bytes: 0, reorder: None, loss_placement: Default::default(), traces: None };
        Harness {
            now: 0,
            q: EventQueue::new(),
            eps: vec![Endpoint::new(0, 1, 0, 1, cfg), Endpoint::new(1, 0, 1, 0, cfg)],
            links: vec![LinkDir::new(0, 1, &dir, Rng::new(1, 1)), LinkDir::new(1, 0, &dir, Rng::new(1, 2))],
            pkts: PacketPool::default(),
            log: vec![],
            win: vec![],
            drop: Box::new(|_, _| false),
            rewrite: None,
            hold: None,
            held: vec![],
        }
    }

    pub fn ctx_do(&mut self, ep: usize, f: &mut dyn FnMut(&mut Endpoint, &mut Ctx)) {
        let mut out = Vec::new();
        let mut notes = Vec::new();
        {
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut out, notes: &mut notes };
            f(&mut self.eps[ep], &mut ctx);
        }
        for mut p in out {
            let from = ep as u32;
            let dropped = (self.drop)(&p, from);
            if let Some(r) = self.rewrite.as_mut() {
                r(&mut p, from);
            }
            self.log.push(Sent { t: self.now, from, pkt: p, dropped });
            match self.hold {
                Some((f, t0, t1)) if f == from && (t0..t1).contains(&self.now) => {
                    if self.held.is_empty() {
                        self.q.push(t1, Event::App { app: from });
                    }
                    if !dropped {
                        self.held.push(p);
                    }
                }
                _ => self.put_on_link(ep, p, dropped),
            }
        }
        for n in notes {
            // the receiving application closes when the sender's FIN arrives
            if let Note::PeerClosed { ep } = n {
                self.ctx_do(ep as usize, &mut |e, c| e.close(c));
            }
        }
        let s = &self.eps[0].snd;
        self.win.push(WindowLog { t: self.now, cwnd: s.w.cwnd, ssthresh: s.w.ssthresh, in_recovery: s.phase.in_recovery(), flight: s.flight() });
    }

    /// A dropped segment still takes its time on the link.
    fn put_on_link(&mut self, ep: usize, p: Packet, dropped: bool) {
        let l = &mut self.links[ep];
        if let (Enqueued::Arrives(at), false) = (l.enqueue(self.now, p.ip_bytes), dropped) {
            let id = self.pkts.insert(p);
            if l.push_in_flight(at, id) {
                self.q.push(at, Event::Arrive { dir: ep as u32 });
            }
        }
    }

    /// Endpoint 0 connects and sends `bytes`, then closes.
    pub fn transfer(&mut self, bytes: u64) {
        self.eps[1].listen(self.now);
        self.ctx_do(0, &mut |e, c| {
            e.connect(c);
            e.write(c, bytes);
            e.close(c);
        });
    }

    /// Endpoint 0 connects and sends `bytes`, and keeps the connection open.
    pub fn transfer_open(&mut self, bytes: u64) {
        self.eps[1].listen(self.now);
        self.ctx_do(0, &mut |e, c| {
            e.connect(c);
            e.write(c, bytes);
        });
    }

    pub fn run_until(&mut self, end: Time) {
        while let Some(t) = self.q.peek_time() {
            if t > end {
                break;
            }
            let (t, ev) = self.q.pop().unwrap();
            self.now = t;
            match ev {
                Event::Arrive { dir } => {
                    let (pkt, next) = self.links[dir as usize].pop_arrival();
                    if let Some((at, _)) = next {
                        self.q.push(at, Event::Arrive { dir });
                    }
                    let p = self.pkts.remove(pkt);
                    self.ctx_do(1 - dir as usize, &mut |e, c| e.on_segment(c, &p));
                }
                Event::Timer { ep, kind } => self.ctx_do(ep as usize, &mut |e, c| e.on_timer(c, kind)),
                // the end of a hold: release what was held
                Event::App { app: from } => {
                    for p in std::mem::take(&mut self.held) {
                        self.put_on_link(from as usize, p, false);
                    }
                }
                _ => unreachable!(),
            }
        }
    }

    /// Data segments (payload > 0) sent by endpoint 0: (time, absolute
    /// offset, retransmission, dropped).
    pub fn data_sent(&self) -> Vec<(Time, u64, bool, bool)> {
        self.log.iter().filter(|s| s.from == 0 && s.pkt.payload > 0).map(|s| (s.t, s.pkt.stream_off, s.pkt.retx, s.dropped)).collect()
    }

    /// The sender's window after the last event at or before `t`.
    pub fn win_at(&self, t: Time) -> WindowLog {
        *self.win.iter().take_while(|w| w.t <= t).last().expect("an event at or before t")
    }

    /// The sender's window after each event from `t` on.
    pub fn win_log_from(&self, t: Time) -> impl Iterator<Item = &WindowLog> {
        self.win.iter().filter(move |w| w.t >= t)
    }

    pub fn delivered(&self) -> u64 {
        self.eps[1].rcv.bytes_delivered
    }
}
