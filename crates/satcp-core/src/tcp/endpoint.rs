//! One TCP endpoint: the connection state machine and the glue between its
//! receiving half (`receiver`) and sending half (`sender`, `recovery`, `cc`).
//!
//! Follows RFC 793/9293 for the handshake and FIN exchange, RFC 1122 and 5681
//! for ACK generation and congestion control, RFC 6298 for the retransmission
//! timer, RFC 7323 for window scaling, RFC 2018 for SACK.
//!
//! Choices made where the RFCs leave room (each documented in
//! docs/models/tcp.md):
//! * Both endpoints of a connection use the same configuration. The SYN
//!   carries MSS, window scale (if enabled) and SACK-permitted (if enabled);
//!   an option is used only when both sides offered it.
//! * The handshake RTT is sampled (RFC 6298 allows it) unless the SYN or
//!   SYN-ACK was retransmitted; after a retransmitted SYN the RTO restarts at
//!   3 s (RFC 6298 5.7) and the initial window is one segment (RFC 5681 3.1).
//! * The sender only sends full-size segments, or the last piece of the data
//!   the application has written (sender-side SWS avoidance, RFC 1122
//!   4.2.3.4); it never splits a segment to fit a window.
//! * The FIN rides on the last data segment when the application has already
//!   closed; it needs no window space.
//! * On an RTO, ssthresh is reduced only on the first expiry for a given
//!   segment (RFC 5681 Eq. 4), cwnd drops to one segment, and sending goes
//!   back to snd_una (go-back-N), skipping SACKed data.
//! * The retransmission timer restarts on ACKs of new data only (RFC 6298
//!   5.3); `rearm_rto_on_retransmit` also restarts it whenever the segment
//!   at snd_una is resent, as Linux does.
//! * A connection can be aborted after `max_retransmissions` consecutive
//!   expiries (OPNET's "retransmission threshold").
//! * Pacing (when the controller sets a rate, see docs/models/pacing.md):
//!   every data segment, retransmissions included, pushes the earliest time
//!   of the next one to max(that time, now) + IP bytes / rate; new data and
//!   SACK-recovery sends wait for it on the pacing timer, while fast
//!   retransmissions and RTO retransmissions leave at once (and are charged
//!   to the pacing budget).
//! * What the window controller does beyond the window (`tcp/cc/mod.rs`):
//!   - Loss verdicts: each duplicate ACK in the recovery scheme's sense is
//!     put to the controller before the scheme sees it. On "corruption" the
//!     segment at snd_una is resent once (with SACK only if pipe < cwnd),
//!     and cwnd, ssthresh, snd_nxt and the recovery state (the duplicate
//!     ACK is not even counted) are left alone; the scheme never sees that
//!     ACK. On "ignore" the duplicate ACK is dropped the same way, nothing
//!     resent.
//!   - Dummy segments (`Action::Dummy`): `Kind::Dummy`, a copy of data
//!     already sent (at most one SMSS, only while established): no sequence
//!     space, no cwnd, no RTT sample, no RTO restart, no pacing charge, not
//!     a retransmission, and no SACK blocks (the receiver reads nothing in
//!     it but its arrival). They count in `dummy_segments_sent` only.
//!   - The receiver never delivers a dummy's bytes and changes neither its
//!     reassembly nor its SACK state nor its ACK timers for one; it answers
//!     each at once with a `Kind::DummyAck`, a pure ACK header (ack =
//!     rcv_nxt, no SACK blocks). The sender hands a DummyAck to the
//!     controller's `on_dummy_ack` only (no duplicate ACK, no snd_una, no
//!     RTT sample, no window update) and sends only if the controller opened
//!     cwnd. Dummies and DummyAcks reaching an endpoint that is not
//!     established are ignored.
//!   - The controller's timer (`Action::WakeAt`, `TimerKind::Cc`) is lazy
//!     like the others; a wake-up in the past fires now.
//!   - The research option: every segment sent after the handshake (data,
//!     pure ACKs, dummies, DummyAcks; not SYNs) carries the one the
//!     controller gives for its kind, set before the SACK blocks, which get
//!     what is left of the 40-byte budget; every arriving segment's option
//!     goes to `on_research_option` before anything else.

use super::cc::{AckCtx, Action, DupAck, SendCtx, Verdict};
use super::ecn::EcnState;
use super::limits::Limit;
use super::receive_buffer::{ts_clock, LinuxWindow};
use super::receiver::Receiver;
use super::recovery::Phase;
use super::sender::{Sender, SSTHRESH_INFINITE};
use super::seq;
use crate::net::packet::{
    Ecn, Kind, Packet, ResearchOption, TcpHeader, FLAG_ACK, FLAG_CWR, FLAG_ECE, FLAG_FIN, FLAG_RST, FLAG_SYN, MAX_RESEARCH_WORDS, MAX_SACK_BLOCKS,
};
use crate::scenario::{CwndValidation, InitialWindow, Recovery, RwndGrowth, SsthreshBasis, TcpCfg};
use crate::sim::queue::TimerKind;
use crate::sim::{Event, EventQueue, Rng, Time, Timer};
use std::sync::Arc;

/// What an endpoint needs from the world while it handles one event.
pub struct Ctx<'a> {
    pub now: Time,
    pub q: &'a mut EventQueue,
    /// Segments to send from this endpoint's node, in order.
    pub out: &'a mut Vec<Packet>,
    pub notes: &'a mut Vec<Note>,
}

/// Things applications and the world need to hear about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// In-order data reached the application; `total` = all bytes so far.
    Delivered { ep: u32, total: u64 },
    /// The peer's FIN arrived in order: no more data will come.
    PeerClosed { ep: u32 },
    /// Our FIN is acknowledged and the peer's FIN has arrived.
    Finished { ep: u32 },
    /// Every byte the application has written so far is acknowledged.
    AllAcked { ep: u32 },
    Aborted { ep: u32 },
    /// The peer acknowledged more of what the application wrote: `total`
    /// data bytes so far (only from an endpoint that asked for these
    /// notes, `Endpoint::note_acks`).
    Acked { ep: u32, total: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Idle,
    Listen,
    SynSent,
    SynRcvd,
    Established,
    Aborted,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct EndpointStats {
    /// Data segments sent (payload or FIN), retransmissions included.
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Tail loss probes sent (`tlp`).
    pub loss_probes: u64,
    pub integrity_errors: u64,
    /// Retransmission timeouts F-RTO found spurious.
    pub spurious_rtos: u64,
    /// Dummy segments sent at the controller's request.
    pub dummy_segments_sent: u64,
    /// DummyAcks sent in answer to the peer's dummy segments.
    pub dummy_acks_sent: u64,
    /// DummyAcks received (handed to the controller only).
    pub dummy_acks_received: u64,
    /// Window reductions for ECE (RFC 3168 6.1.2).
    pub ecn_reductions: u64,
}

/// What the world reads of an endpoint for time series and summaries: its
/// sending half's window and timers, its receiving half's progress, and
/// its counters (sequence numbers are absolute offsets: the SYN is 0).
#[derive(Clone, Copy, Debug)]
pub struct FlowCounters {
    /// The sender's segment size and its oldest unacknowledged byte.
    pub smss: u64,
    pub snd_una: u64,
    pub cwnd: u64,
    /// None while no loss has set it (RFC 5681's "arbitrarily high").
    pub ssthresh: Option<u64>,
    /// The peer's latest advertised window (bytes).
    pub peer_wnd: u64,
    pub flight: u64,
    pub srtt_ns: Option<f64>,
    pub rto_ns: Time,
    /// One past the highest byte sent.
    pub snd_max: u64,
    /// One past the highest byte received, in order or not.
    pub rcv_high: u64,
    /// Data bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Data bytes that arrived, duplicates included.
    pub bytes_arrived: u64,
    pub stats: EndpointStats,
}

/// The receiving half's buffer (absolute offsets).
#[derive(Clone, Copy, Debug)]
pub struct ReceiveState {
    /// The next byte expected in order, and the right edge of the window
    /// offered.
    pub nxt: u64,
    pub right_edge: u64,
    /// Bytes held (in order and not yet read, or out of order), and the
    /// buffer they may fill.
    pub held: u64,
    pub buffer: u64,
    pub fin_received: bool,
    pub bytes_delivered: u64,
}

pub struct Endpoint {
    pub id: u32,
    pub peer: u32,
    pub node: u32,
    pub peer_node: u32,
    /// Shared by the endpoints built from one configuration (never changed
    /// after build): at 10,000 flows a copy each was 240 of an endpoint's
    /// 1,976 bytes, cold at every segment.
    pub cfg: Arc<TcpCfg>,
    pub state: State,
    pub(in crate::tcp) iss: u32,
    pub(in crate::tcp) irs: u32,
    /// Shift applied to the peer's advertised windows.
    snd_shift: u8,
    /// Shift we apply to our own advertisements.
    rcv_shift: u8,
    /// Both sides offered window scaling.
    ws_ok: bool,
    pub sack_ok: bool,
    pub(in crate::tcp) snd: Sender,
    pub(in crate::tcp) rcv: Receiver,
    pub(crate) rto_timer: Timer,
    pub(in crate::tcp) delack: Timer,
    pub(in crate::tcp) pace_timer: Timer,
    /// The window controller's own timer.
    pub(in crate::tcp) cc_timer: Timer,
    /// RACK's reordering timer or the tail loss probe (`recovery/tlp.rs`).
    pub(crate) rack_tlp_timer: Timer,
    /// `rack_tlp_timer` holds the probe (else the reordering timeout).
    pub(crate) rack_tlp_probe: bool,
    ack_needed: bool,
    /// The application closed under `fin = false`: no FIN goes out, and the
    /// transfer is over once everything written is acknowledged.
    closed_without_fin: bool,
    syn_sent_at: Time,
    syn_retx: bool,
    finished: bool,
    /// RFC 7323: the peer's timestamp to echo (TS.Recent) and the sequence
    /// number our last ACK carried (Last.ACK.sent).
    ts_recent: u32,
    last_ack_sent: u64,
    /// The highest right edge a segment of ours has offered: data up to it
    /// is accepted even if the window has shrunk since (`offer_window`).
    offered_edge: u64,
    /// ECN (RFC 3168, `tcp/ecn.rs`).
    pub(in crate::tcp) ecn: EcnState,
    /// The application reads delivered data when it chooses
    /// (`tcp/deferred_read.rs`); false: at once.
    pub(in crate::tcp) deferred_read: bool,
    /// Leave a `Note::Acked` at every ACK of new data.
    pub(in crate::tcp) notes_acked: bool,
    /// The connection ended by a reset, sent or received (`tcp/reset.rs`).
    pub(in crate::tcp) reset: Option<super::reset::ResetSide>,
    pub stats: EndpointStats,
}

impl Endpoint {
    /// An endpoint with a configuration of its own and its controller's
    /// random stream taken from seed 0 (stream `id`): for tests.
    pub fn new(id: u32, peer: u32, node: u32, peer_node: u32, cfg: &TcpCfg) -> Self {
        Self::with_shared_cfg(id, peer, node, peer_node, Arc::new(cfg.clone()), Rng::new(0, id as u64))
    }

    /// An endpoint reading a configuration it shares with others; `cc_rng`
    /// is its window controller's random stream (BBR draws its first
    /// ProbeBW phase from it, CETEN-R its coins).
    pub fn with_shared_cfg(id: u32, peer: u32, node: u32, peer_node: u32, cfg: Arc<TcpCfg>, cc_rng: Rng) -> Self {
        let snd = Sender::new(&cfg, cc_rng);
        Endpoint {
            id,
            peer,
            node,
            peer_node,
            state: State::Idle,
            iss: cfg.iss,
            irs: 0,
            snd_shift: 0,
            rcv_shift: 0,
            ws_ok: false,
            sack_ok: false,
            snd,
            rcv: match cfg.rwnd_growth {
                RwndGrowth::Fixed => Receiver::new(cfg.rwnd_bytes),
                RwndGrowth::LinuxAutotuned => Receiver::linux(LinuxWindow::autotuned(cfg.rwnd_bytes, cfg.mss as u64)),
                RwndGrowth::LinuxLocked => Receiver::linux(LinuxWindow::locked(cfg.rwnd_bytes, cfg.mss as u64)),
            }
            .taking_buffer_for_ooo(cfg.ooo_takes_buffer),
            rto_timer: Timer::default(),
            delack: Timer::default(),
            pace_timer: Timer::default(),
            cc_timer: Timer::default(),
            rack_tlp_timer: Timer::default(),
            rack_tlp_probe: false,
            ack_needed: false,
            closed_without_fin: false,
            syn_sent_at: 0,
            syn_retx: false,
            finished: false,
            ts_recent: 0,
            last_ack_sent: 0,
            offered_edge: 0,
            ecn: EcnState::default(),
            deferred_read: false,
            notes_acked: false,
            reset: None,
            stats: EndpointStats::default(),
            cfg,
        }
    }

    /// The endpoint's state as time series and summaries read it.
    pub fn flow_counters(&self) -> FlowCounters {
        let (s, r) = (&self.snd, &self.rcv);
        FlowCounters {
            smss: s.smss(),
            snd_una: s.una,
            cwnd: s.w.cwnd,
            ssthresh: (s.w.ssthresh < SSTHRESH_INFINITE).then_some(s.w.ssthresh),
            peer_wnd: s.peer_wnd,
            flight: s.flight(),
            srtt_ns: s.rtt.srtt,
            rto_ns: s.rtt.rto(),
            snd_max: s.max,
            rcv_high: r.high,
            bytes_delivered: r.bytes_delivered,
            bytes_arrived: r.bytes_arrived,
            stats: self.stats,
        }
    }

    /// Its window controller attaches a research option to its segments.
    pub fn carries_research_option(&self) -> bool {
        self.snd.caps.research_option
    }

    /// The shares of the time up to `end` that the sender was limited by
    /// cwnd, by the peer's window, by the application and by pacing.
    pub fn limited_shares(&self, end: Time) -> [f64; 4] {
        let mut l = self.snd.limits.clone();
        l.finish(end);
        l.shares()
    }

    /// The receiving half's buffer as the receiver fuzzer checks it.
    pub fn receive_state(&self) -> ReceiveState {
        let r = &self.rcv;
        ReceiveState { nxt: r.nxt, right_edge: r.right_edge(), held: r.held(), buffer: r.buffer, fin_received: r.fin_received, bytes_delivered: r.bytes_delivered }
    }

    /// Restart the retransmission timer from now.
    pub(crate) fn restart_rto(&mut self, ctx: &mut Ctx) {
        let rto = self.snd.rtt.rto();
        self.rto_timer.set(self.rto_deadline(ctx.now + rto), ctx.q, self.rto_event());
    }

    /// When a retransmission timer due at `due` fires: then, or under
    /// `rto_timer = "ticks"` at the first tick of the TCP clock at or after
    /// it (the clock's ticks fall on multiples of `clock_granularity`).
    fn rto_deadline(&self, due: Time) -> Time {
        if self.cfg.rto_on_ticks {
            let g = self.cfg.clock_granularity_ns.max(1);
            due.div_ceil(g) * g
        } else {
            due
        }
    }

    fn rto_event(&self) -> Event {
        Event::Timer { ep: self.id, kind: TimerKind::Rto }
    }

    fn delack_event(&self) -> Event {
        Event::Timer { ep: self.id, kind: TimerKind::DelayedAck }
    }

    /// Draw the phase of the TCP clock (used by ns-2's RTT estimator only).
    pub fn seed_clock(&mut self, mut rng: Rng) {
        let phase = (rng.uniform() * self.cfg.clock_granularity_ns as f64) as u64;
        self.snd.rtt.set_clock_phase(phase);
    }

    /// The window-scale shift we offer: the smallest that fits our buffer.
    fn wanted_shift(&self) -> u8 {
        let mut s = 0u8;
        while s < 14 && (self.cfg.rwnd_bytes >> s) > 65_535 {
            s += 1;
        }
        s
    }

    /// The window field for a non-SYN segment.
    fn adv_field(&self) -> u16 {
        let w = self.rcv.window();
        // an edge held by out-of-order data, or by data the application
        // has not read (`tcp/deferred_read.rs`), is offered rounded up, so
        // that the scaled field never takes back what an earlier ACK
        // offered (Linux's `tcp_select_window` aligns up rather than
        // shrink): rounded down, the edge would move back by up to a
        // scaling unit as in-order data fills the buffer, and a segment
        // sent up to the edge offered would be trimmed
        let units = if self.rcv.ooo_takes_buffer || self.deferred_read { w.div_ceil(1 << self.rcv_shift) } else { w >> self.rcv_shift };
        units.min(65_535) as u16
    }

    /// The window field of a segment going out, remembering the right edge
    /// it offers. A window computed later may end short of an edge offered
    /// before (a receiver that keeps what its application has not read, on
    /// Linux's autotuned window: the clamp less what is unread can fall
    /// below the free buffer offered while nothing was unread); data the
    /// sender sent up to the old edge is still accepted, as RFC 9293
    /// section 3.8.6.2.2 asks of a receiver whose window shrank. Without it
    /// such a segment was trimmed and the sender waited for its
    /// retransmission timeout. Linux does not shrink the window at all
    /// (`tcp_select_window`); satcp still may here, a difference
    /// docs/models/tcp.md names (it would merge with `Receiver::edge`).
    fn offer_window(&mut self) -> u16 {
        let f = self.adv_field();
        self.offered_edge = self.offered_edge.max(self.rcv.nxt + ((f as u64) << self.rcv_shift));
        f
    }

    /// The right edge we have advertised.
    pub(in crate::tcp) fn adv_right_edge(&self) -> u64 {
        self.rcv.nxt + ((self.adv_field() as u64) << self.rcv_shift)
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    // ----- application interface -------------------------------------------

    /// Passive open at `now`.
    pub fn listen(&mut self, now: Time) {
        if self.cfg.handshake {
            self.state = State::Listen;
        } else {
            self.open_at_once(now);
        }
    }

    /// Active open: send the SYN.
    pub fn connect(&mut self, ctx: &mut Ctx) {
        if !self.cfg.handshake {
            self.open_at_once(ctx.now);
            return self.send_data(ctx);
        }
        self.state = State::SynSent;
        self.syn_sent_at = ctx.now;
        self.snd.max = 1;
        self.snd.nxt = 1;
        self.send_syn(ctx, false);
    }

    /// The application hands `bytes` more to send.
    pub fn write(&mut self, ctx: &mut Ctx, bytes: u64) {
        debug_assert!(!self.snd.fin_queued, "write after close");
        if self.cfg.app_limited_on_write && self.snd.data_end.saturating_sub(self.snd.nxt) < self.snd.smss() {
            // Linux's tcp_rate_check_app_limited: a write finds nothing
            // unsent
            self.note_app_limited();
        }
        self.snd.data_end += bytes;
        self.send_data(ctx);
        self.flush_ack(ctx);
    }

    /// The application takes back what it wrote beyond what has been sent,
    /// and closes (`app.stop`).
    pub fn stop_writing(&mut self, ctx: &mut Ctx) {
        if self.snd.fin_queued {
            return;
        }
        self.snd.data_end = self.snd.data_end.min(self.snd.max.max(self.snd.una));
        self.close(ctx);
    }

    /// The application will send nothing more: queue the FIN (with `fin =
    /// false`, ns-2's one-way agents, nothing: the peer never learns of the
    /// close).
    pub fn close(&mut self, ctx: &mut Ctx) {
        if !self.cfg.fin {
            self.closed_without_fin = true;
            if self.snd.una >= self.snd.data_end {
                self.snd.limits.finish(ctx.now);
            }
        } else if !self.snd.fin_queued {
            self.snd.fin_queued = true;
            self.send_data(ctx);
            self.flush_ack(ctx);
        }
    }

    /// `handshake = false` (ns-2's one-way agents): both ends start
    /// established, with what the SYNs would have told them taken from the
    /// flow's own settings (both ends share them): the peer's ISS, window
    /// scaling and SACK as configured, the peer's window its receive
    /// buffer. No RTT sample until data is acknowledged.
    fn open_at_once(&mut self, now: Time) {
        self.irs = self.cfg.iss;
        self.rcv.nxt = 1;
        self.snd.una = 1;
        self.snd.nxt = 1;
        self.snd.max = 1;
        if self.cfg.window_scaling {
            self.snd_shift = self.wanted_shift();
            self.rcv_shift = self.snd_shift;
            self.ws_ok = true;
        }
        self.sack_ok = self.cfg.sack;
        // both ends share the flow's setting: in use iff the initiator asks
        self.ecn.ok = self.cfg.ecn.asks();
        self.establish(now, self.rcv.buffer);
    }

    // ----- segment output ---------------------------------------------------

    fn send_syn(&mut self, ctx: &mut Ctx, is_synack: bool) {
        let mut h = TcpHeader {
            seq: self.iss,
            flags: FLAG_SYN,
            wnd: self.rcv.buffer.min(65_535) as u16,
            opt_mss: self.cfg.mss.min(65_535) as u16,
            ..Default::default()
        };
        if is_synack {
            h.flags |= FLAG_ACK;
            h.ack = seq::wire(self.irs, self.rcv.nxt);
            if self.ws_ok {
                h.opt_wscale = Some(self.rcv_shift);
            }
            h.opt_sack_perm = self.sack_ok;
            if self.ecn.ok {
                h.flags |= FLAG_ECE; // ECN-setup SYN-ACK (RFC 3168 6.1.1)
            }
        } else {
            if self.cfg.window_scaling {
                h.opt_wscale = Some(self.wanted_shift());
            }
            h.opt_sack_perm = self.cfg.sack;
            if self.cfg.ecn.asks() {
                h.flags |= FLAG_ECE | FLAG_CWR; // ECN-setup SYN
            }
        }
        ctx.out.push(self.tcp_packet(ctx.now, h, 0, 0, self.syn_retx));
        let rto = self.snd.rtt.rto();
        self.rto_timer.set(self.rto_deadline(ctx.now + rto), ctx.q, self.rto_event());
    }

    /// A segment of this connection sent at `now`, with the timestamp
    /// option if the profile uses it; without `options_on_wire` (ns-2's
    /// agents) its options take no bytes on the wire.
    pub(in crate::tcp) fn tcp_packet(&self, now: Time, mut h: TcpHeader, payload: u32, start: u64, retx: bool) -> Packet {
        if self.ecn.echo && !h.has(FLAG_SYN) {
            h.flags |= FLAG_ECE; // RFC 3168 6.1.3: until CWR arrives
        }
        if self.cfg.timestamps {
            h.opt_ts = Some((ts_clock(now), self.ts_recent));
        }
        let mut p = Packet::tcp(self.node, self.peer_node, self.peer, h, payload, start, retx);
        if !self.cfg.options_on_wire {
            p.ip_bytes -= h.options_len();
        }
        p
    }

    /// Build and queue one segment carrying [start, start + len) and, if
    /// `fin`, the FIN after it. Every segment carries the current ACK.
    pub(crate) fn emit(&mut self, ctx: &mut Ctx, start: u64, len: u64, fin: bool) {
        self.emit_segment(ctx, start, len, fin, false);
    }

    /// [`Endpoint::emit`]; `probe`: a window probe (never ECN-capable,
    /// RFC 3168 6.1.6).
    pub(crate) fn emit_segment(&mut self, ctx: &mut Ctx, start: u64, len: u64, fin: bool, probe: bool) {
        let end = start + len + fin as u64;
        let retx = start < self.snd.max;
        // nothing outstanding: the timer slot holds at most the window
        // probe's timer (`window_probe.rs`), which the first data sent once
        // the window opens replaces with a retransmission timer from now
        // (Linux's `tcp_event_new_data_sent` re-arms when no packet was
        // out). Left as it was, the probe's deadline could fall a fraction
        // of a round trip after the data left: a spurious timeout, or a
        // tail loss probe capped by it
        let none_out = self.snd.una >= self.snd.max;
        // RFC 3168 6.1.2, 6.1.4, 6.1.5: new data is ECT(0) and the first
        // after a reduction carries CWR; retransmissions, probes and
        // segments without payload are Not-ECT
        let ect = self.ecn.ok && len > 0 && !retx && !probe;
        let mut h = TcpHeader {
            seq: seq::wire(self.iss, start),
            ack: seq::wire(self.irs, self.rcv.nxt),
            wnd: self.offer_window(),
            flags: FLAG_ACK | if fin { FLAG_FIN } else { 0 },
            ..Default::default()
        };
        if self.snd.caps.research_option {
            self.attach_research(&mut h, Kind::Data);
        }
        if self.sack_ok && self.rcv.has_ooo() {
            self.fill_sack(&mut h);
        }
        if ect && std::mem::take(&mut self.ecn.cwr_owed) {
            h.flags |= FLAG_CWR;
        }
        let mut pkt = self.tcp_packet(ctx.now, h, len as u32, start, retx);
        if ect {
            pkt.set_ecn(Ecn::Ect0);
        }
        if len > 0 {
            self.snd.last_data = Some((start, len));
        }
        ctx.out.push(pkt);
        if self.snd.caps.sees_sends {
            self.cc_data_sent(ctx, start, len, retx);
        }
        if self.snd.w.pacing_bps > 0 {
            let gap = (pkt.ip_bytes as u128 * 8_000_000_000 / self.snd.w.pacing_bps as u128) as u64;
            self.snd.next_send_at = self.snd.next_send_at.max(ctx.now) + gap;
        }
        if self.snd.rate.is_some() {
            let inflight = self.snd.outstanding_below(self.snd.max);
            let lost = self.snd.lost;
            if let Some(r) = &mut self.snd.rate {
                r.on_send(start, end, ctx.now, inflight, lost);
            }
        }
        self.stats.segments_sent += 1;
        if retx {
            self.stats.retransmissions += 1;
        }
        self.snd.record_send(start, end, ctx.now, retx);
        if self.snd.nxt < end && start <= self.snd.nxt {
            self.snd.nxt = end;
        }
        self.snd.max = self.snd.max.max(end);
        // RFC 6298 (5.1); optionally Linux's re-arm on resending the head
        let fast_rearm = retx && std::mem::take(&mut self.snd.rearm_pending);
        if !self.rto_timer.is_running() || none_out || fast_rearm || (retx && start == self.snd.una && self.cfg.rearm_rto_on_retransmit) {
            let rto = self.snd.rtt.rto();
            self.rto_timer.set(self.rto_deadline(ctx.now + rto), ctx.q, self.rto_event());
        }
        self.acked_now();
    }

    /// The controller's research option for a segment of this kind, if any
    /// (set before the SACK blocks: it counts in their budget).
    #[inline(never)]
    fn attach_research(&mut self, h: &mut TcpHeader, kind: Kind) {
        if let Some(r) = self.snd.cc.research_option(kind) {
            let n = ResearchOption::capacity(r.wire_len).min(MAX_RESEARCH_WORDS);
            assert!(h.set_research(r.exid, r.wire_len, &r.words[..n]), "research option {r:?} does not fit");
        }
    }

    /// SACK blocks for the out-of-order data held (callers check that SACK
    /// is on and such data exists: the common case stays inline).
    #[inline(never)]
    fn fill_sack(&self, h: &mut TcpHeader) {
        let (blocks, n) = self.rcv.sack_blocks(h.sack_room());
        let mut wire = [(0u32, 0u32); MAX_SACK_BLOCKS];
        for (w, &(s, e)) in wire.iter_mut().zip(&blocks[..n]) {
            *w = (seq::wire(self.irs, s), seq::wire(self.irs, e));
        }
        h.set_sack(&wire[..n]);
    }

    /// The header of a segment of `kind` without SYN or FIN starting at
    /// `start`: the current ACK and window, and the controller's research
    /// option if it uses one.
    #[inline(always)]
    fn ack_header(&mut self, start: u64, kind: Kind) -> TcpHeader {
        let mut h = TcpHeader {
            seq: seq::wire(self.iss, start),
            ack: seq::wire(self.irs, self.rcv.nxt),
            wnd: self.offer_window(),
            flags: FLAG_ACK,
            ..Default::default()
        };
        if self.snd.caps.research_option {
            self.attach_research(&mut h, kind);
        }
        h
    }

    pub(in crate::tcp) fn send_pure_ack(&mut self, ctx: &mut Ctx) {
        let mut h = self.ack_header(self.snd.nxt.max(self.snd.una), Kind::Ack);
        if self.sack_ok && self.rcv.has_ooo() {
            self.fill_sack(&mut h);
        }
        ctx.out.push(self.tcp_packet(ctx.now, h, 0, 0, false));
        self.acked_now();
    }

    /// A dummy segment (`Action::Dummy`): a copy of `range`, or of the last
    /// data segment sent, trimmed to data already sent, to one SMSS and to
    /// `max_len`.
    #[cold]
    fn send_dummy(&mut self, ctx: &mut Ctx, range: Option<(u64, u64)>, max_len: Option<u32>) {
        let s = &self.snd;
        let Some((start, len)) = range.or(s.last_data) else { return };
        let start = start.max(1);
        let len = len.min(s.smss()).min(max_len.map_or(u64::MAX, u64::from));
        let end = start.saturating_add(len).min(s.max).min(s.data_end);
        if self.state != State::Established || end <= start {
            return;
        }
        let h = self.ack_header(start, Kind::Dummy);
        let pkt = self.tcp_packet(ctx.now, h, (end - start) as u32, start, false);
        ctx.out.push(pkt.with_kind(Kind::Dummy));
        self.stats.dummy_segments_sent += 1;
    }

    /// Answer a dummy segment: a DummyAck acknowledging rcv_nxt, at once.
    #[cold]
    fn answer_dummy(&mut self, ctx: &mut Ctx) {
        let h = self.ack_header(self.snd.nxt.max(self.snd.una), Kind::DummyAck);
        ctx.out.push(self.tcp_packet(ctx.now, h, 0, 0, false).with_kind(Kind::DummyAck));
        self.stats.dummy_acks_sent += 1;
    }

    /// A DummyAck arrived: the controller's, and nothing else's.
    #[cold]
    fn on_dummy_ack(&mut self, ctx: &mut Ctx) {
        self.stats.dummy_acks_received += 1;
        let cwnd = self.snd.w.cwnd;
        let Sender { cc, w, acts, .. } = &mut self.snd;
        cc.on_dummy_ack(w, ctx.now, acts);
        self.after_cc_hook(ctx, cwnd);
    }

    /// After a controller hook outside ACK processing: carry out its
    /// actions, and send if it opened the window.
    fn after_cc_hook(&mut self, ctx: &mut Ctx, cwnd_before: u64) {
        self.run_cc_actions(ctx);
        if self.snd.w.cwnd > cwnd_before {
            self.send_data(ctx);
        }
    }

    /// Carry out the actions the controller pushed (the buffer is kept).
    #[cold]
    fn run_cc_actions(&mut self, ctx: &mut Ctx) {
        let mut acts = std::mem::take(&mut self.snd.acts);
        for a in acts.drain(..) {
            match a {
                Action::Dummy { range, max_len } => self.send_dummy(ctx, range, max_len),
                Action::WakeAt(t) => {
                    let ev = Event::Timer { ep: self.id, kind: TimerKind::Cc };
                    self.cc_timer.set(t.max(ctx.now), ctx.q, ev);
                }
            }
        }
        self.snd.acts = acts;
    }

    /// Tell a controller that asked (`sees_sends`) about a data segment just
    /// sent, and carry out what it asks.
    #[cold]
    fn cc_data_sent(&mut self, ctx: &mut Ctx, start: u64, len: u64, retx: bool) {
        let s = &mut self.snd;
        let sent = SendCtx { now: ctx.now, start, len, retx, srtt: s.rtt.srtt, peer_wnd: s.peer_wnd };
        let Sender { cc, w, acts, .. } = s;
        cc.on_data_sent(w, &sent, acts);
        if !self.snd.acts.is_empty() {
            self.run_cc_actions(ctx);
        }
    }

    /// A segment carrying the current ACK and window has been sent: it
    /// acknowledges everything received, and (`ooo_takes_buffer`) the right
    /// edge it offered is the one later windows may not take back.
    fn acked_now(&mut self) {
        if self.ack_needed || self.rcv.unacked_segments > 0 {
            self.rcv.ack_sent();
        }
        self.ack_needed = false;
        self.rcv.unacked_segments = 0;
        self.last_ack_sent = self.rcv.nxt;
        self.delack.stop();
        if self.rcv.ooo_takes_buffer {
            // the edge just offered: later windows never take it back
            let edge = self.adv_right_edge();
            self.rcv.offered(edge);
        }
    }

    fn flush_ack(&mut self, ctx: &mut Ctx) {
        if self.ack_needed {
            self.send_pure_ack(ctx);
        }
    }

    /// Send whatever the windows allow, at most `max_burst` segments, and
    /// note what stopped the sender.
    pub(crate) fn send_data(&mut self, ctx: &mut Ctx) {
        if self.state != State::Established || (super::fast_paths() && self.snd.idle_and_noted()) {
            return;
        }
        let max_before = self.snd.max;
        self.fill_windows(ctx);
        if self.snd.max > max_before {
            self.tlp_schedule(ctx, false);
        }
        let why = self.limit_now(ctx.now);
        let s = &mut self.snd;
        s.limits.note(ctx.now, why, s.max - s.una, s.una, s.nxt.max(s.max));
        self.arm_window_probe(ctx, why);
    }

    /// What stops the sender now (see `tcp::limits`).
    fn limit_now(&self, now: Time) -> Limit {
        let s = &self.snd;
        let repairing = s.phase.in_recovery() || matches!(s.phase, Phase::Loss(_));
        if s.nxt >= s.seq_end() && !(repairing && s.una < s.max) {
            return Limit::App;
        }
        if self.pace_timer.is_running() && s.next_send_at > now {
            return Limit::Pacing;
        }
        let next = s.smss().min(s.seq_end().saturating_sub(s.nxt)).max(1);
        if (s.una + s.send_window()).saturating_sub(s.nxt) < next {
            return Limit::Rwnd;
        }
        Limit::Cwnd
    }

    fn fill_windows(&mut self, ctx: &mut Ctx) {
        if self.frto_holds_sending() {
            return;
        }
        let mut budget = self.cfg.max_burst.unwrap_or(u32::MAX);
        let mut retx_left = self.snd.retx_limit();
        if self.snd.phase.in_recovery() {
            match self.cfg.recovery {
                Recovery::Sack => return self.sack_send(ctx, &mut budget, &mut retx_left),
                Recovery::Fack => return self.fack_send(ctx, &mut budget),
                _ => {}
            }
        } else if self.fack_ns2_holds() {
            return;
        }
        while budget > 0 {
            if matches!(self.snd.phase, Phase::Loss(_)) {
                match self.resend_relost_in_loss(ctx, retx_left) {
                    Some(true) => {
                        budget -= 1;
                        retx_left -= 1;
                        continue;
                    }
                    Some(false) => break,
                    None => {}
                }
            }
            let lt_room = self.limited_transmit_room();
            let s = &self.snd;
            let nxt = if s.nxt < s.max { s.board.first_unsacked_from(s.nxt).min(s.max) } else { s.nxt };
            if nxt != s.nxt {
                self.snd.nxt = nxt;
                continue;
            }
            if nxt >= s.seq_end() {
                if !self.cfg.app_limited_on_write {
                    self.note_app_limited();
                }
                break;
            }
            match self.next_len_at(nxt) {
                Some((len, fin)) => {
                    // SACKed data has left the network only for the SACK-based
                    // schemes; the others count duplicate ACKs instead (window
                    // inflation), and subtracting both would count it twice
                    // (ns-2's Sack1 counts sequence numbers outside recovery)
                    let outstanding = match self.cfg.recovery {
                        Recovery::Sack if s.scheme.sack_pipe_ns2() => nxt - s.una,
                        Recovery::Sack | Recovery::Fack => s.outstanding_below(nxt),
                        _ => nxt - s.una,
                    };
                    let room_cwnd = s.w.cwnd.saturating_sub(outstanding);
                    // Limited Transmit only sends new data (RFC 3042); ns-2's
                    // send_one() whatever is next, a go-back-N's resend too
                    let room_lt = if nxt >= s.max || self.cfg.lt_resends {
                        (s.w.cwnd + lt_room).saturating_sub(outstanding)
                    } else {
                        0
                    };
                    let room_rwnd = (s.una + s.send_window()).saturating_sub(nxt);
                    let retx = nxt < s.max;
                    // a resend is held only when it starts at or beyond the
                    // window's edge, and not by a closed window, where it is
                    // the probe (Linux's __tcp_retransmit_skb): data sent once
                    // fitted a window, and a window shrunk below a segment
                    // (a router agent's rewrite) must not stall the repair
                    let rwnd_holds = if retx { room_rwnd == 0 && s.send_window() > 0 } else { len > room_rwnd };
                    if len > 0 && ((len > room_cwnd && len > room_lt) || rwnd_holds) {
                        break;
                    }
                    if retx && retx_left == 0 {
                        break;
                    }
                    if !self.pacing_allows(ctx) {
                        break;
                    }
                    if len > room_cwnd {
                        self.snd.lt_bytes += len;
                    }
                    self.emit(ctx, nxt, len, fin);
                    budget -= 1;
                    retx_left -= retx as u32;
                }
                None => break,
            }
        }
    }

    /// In the go-back-N after a timeout, a retransmission RACK found lost
    /// again is resent before the go-back-N goes on, as Linux does in
    /// CA_Loss (`tcp_rack_mark_lost` marks it lost, taking it out of
    /// flight, and `tcp_xmit_retransmit_queue` resends from the head).
    /// Without this a lost resend of snd_una waited for the next, backed-off
    /// timeout while new data flowed. Some(true): a segment left;
    /// Some(false): one is owed but the window or pacing holds it; None:
    /// nothing to resend.
    fn resend_relost_in_loss(&mut self, ctx: &mut Ctx, retx_left: u32) -> Option<bool> {
        let s = &self.snd;
        let Some((h, len, fin)) = self.relost_segment(s.rack_relost, s.nxt) else {
            self.snd.rack_relost = None;
            return None;
        };
        let to = s.rack_relost.map_or(h, |r| r.1).min(s.nxt);
        let relost = (to - h) - s.board.sacked_in(h, to);
        let room = s.w.cwnd.saturating_sub(s.outstanding_below(s.nxt).saturating_sub(relost));
        if len > room || retx_left == 0 || !self.pacing_allows(ctx) {
            return Some(false);
        }
        self.emit(ctx, h, len, fin);
        let end = h + len + fin as u64;
        self.snd.rack_relost = (end < to).then_some((end, to));
        Some(true)
    }

    /// The next segment of RACK's range of retransmissions lost again
    /// (`relost`, below `limit`): its start, length and whether it carries
    /// the FIN. A segment cut short by the range's end does not carry the
    /// FIN; the FIN alone (no data left) is a segment of length 0 with it,
    /// so every resend moves the range on (a FIN lost again once made SACK
    /// recovery send empty segments without end).
    pub(crate) fn relost_segment(&self, relost: Option<(u64, u64)>, limit: u64) -> Option<(u64, u64, bool)> {
        let s = &self.snd;
        let (from, to) = relost?;
        let to = to.min(limit);
        let h = s.board.first_unsacked_from(from.max(s.una));
        if h >= to {
            return None;
        }
        let (len, fin) = self.next_len_at(h)?;
        let cut = len.min(to - h);
        Some((h, cut, fin && cut == len))
    }

    /// With pacing on, whether a segment may leave now; if not, the pacing
    /// timer is set for when it may.
    pub(crate) fn pacing_allows(&mut self, ctx: &mut Ctx) -> bool {
        if self.snd.w.pacing_bps == 0 || ctx.now >= self.snd.next_send_at {
            return true;
        }
        let ev = Event::Timer { ep: self.id, kind: TimerKind::Pace };
        self.pace_timer.set(self.snd.next_send_at, ctx.q, ev);
        false
    }

    /// Delivery-rate sampling: the application has nothing more to send
    /// while the window has room (checked when the sender runs dry, or
    /// with `app_limited_on_write` when the application writes).
    fn note_app_limited(&mut self) {
        let s = &mut self.snd;
        if let Some(r) = &mut s.rate {
            let inflight = (s.max - s.una) - s.board.sacked_in(s.una, s.max);
            if inflight < s.w.cwnd {
                r.mark_app_limited(inflight);
            }
        }
    }

    /// Length of the segment to send at `at` (and whether it carries the
    /// FIN), or None if nothing may be sent there now.
    pub(crate) fn next_len_at(&self, at: u64) -> Option<(u64, bool)> {
        let s = &self.snd;
        if at >= s.data_end {
            // only the FIN is left
            return (s.fin_queued && at == s.data_end).then_some((0, true));
        }
        let mut len = s.smss().min(s.data_end - at);
        if at < s.max {
            // resending: never overlap data the receiver holds
            if let Some(b) = s.board.next_sacked_after(at) {
                len = len.min(b - at);
            }
        }
        let fin = s.fin_queued && at + len == s.data_end;
        Some((len, fin))
    }

    // ----- segment input ----------------------------------------------------

    pub fn on_segment(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let h = &pkt.tcp;
        if h.has(FLAG_RST) {
            return self.on_reset(ctx, h);
        }
        if let Some((val, _)) = h.opt_ts {
            self.note_timestamp(h, val);
        }
        if let Some(r) = h.research() {
            self.snd.cc.on_research_option(&r, pkt.kind);
        }
        if matches!(pkt.kind, Kind::Dummy | Kind::DummyAck) {
            if self.state == State::Established {
                if pkt.kind == Kind::Dummy {
                    self.answer_dummy(ctx);
                } else {
                    self.on_dummy_ack(ctx);
                }
            }
            return;
        }
        match self.state {
            State::Idle | State::Aborted => {}
            State::Listen => {
                if h.has(FLAG_SYN) && !h.has(FLAG_ACK) {
                    self.accept_syn(ctx, &h);
                }
            }
            State::SynSent => {
                if h.has(FLAG_SYN) && h.has(FLAG_ACK) && seq::unwrap(self.iss, 0, h.ack) == 1 {
                    self.irs = h.seq;
                    self.rcv.nxt = 1;
                    self.negotiate(&h);
                    // ECN-setup SYN-ACK: ECE without CWR (RFC 3168 6.1.1)
                    self.ecn.ok = self.cfg.ecn.asks() && h.has(FLAG_ECE) && !h.has(FLAG_CWR);
                    self.snd.una = 1;
                    if !self.syn_retx {
                        self.snd.rtt.sample(ctx.now - self.syn_sent_at, ctx.now, self.snd.una, self.snd.nxt);
                    }
                    self.establish(ctx.now, h.wnd as u64);
                    self.ack_needed = true;
                    self.send_data(ctx);
                    self.flush_ack(ctx);
                }
            }
            State::SynRcvd => {
                if h.has(FLAG_SYN) && !h.has(FLAG_ACK) {
                    // our SYN-ACK was lost: send it again
                    self.syn_retx = true;
                    self.send_syn(ctx, true);
                } else if h.has(FLAG_ACK) && seq::unwrap(self.iss, 1, h.ack) >= 1 {
                    self.snd.una = 1;
                    if !self.syn_retx {
                        self.snd.rtt.sample(ctx.now - self.syn_sent_at, ctx.now, self.snd.una, self.snd.nxt);
                    }
                    self.establish(ctx.now, (h.wnd as u64) << self.snd_shift);
                    self.established_segment(ctx, pkt);
                }
            }
            State::Established => {
                if h.has(FLAG_SYN) {
                    // a retransmitted SYN-ACK: our ACK was lost
                    self.send_pure_ack(ctx);
                } else {
                    self.established_segment(ctx, pkt);
                }
            }
        }
    }

    fn negotiate(&mut self, h: &TcpHeader) {
        if let (Some(peer_shift), true) = (h.opt_wscale, self.cfg.window_scaling) {
            self.snd_shift = peer_shift.min(14);
            self.rcv_shift = self.wanted_shift();
            self.ws_ok = true;
        }
        self.sack_ok = self.cfg.sack && h.opt_sack_perm;
        if h.opt_mss != 0 {
            self.snd.w.smss = (self.cfg.mss as u64).min(h.opt_mss as u64);
        }
    }

    fn accept_syn(&mut self, ctx: &mut Ctx, h: &TcpHeader) {
        self.irs = h.seq;
        self.rcv.nxt = 1;
        self.negotiate(h);
        // an ECN-setup SYN (ECE and CWR) to an endpoint that accepts ECN
        self.ecn.ok = self.cfg.ecn.accepts() && h.has(FLAG_ECE) && h.has(FLAG_CWR);
        self.snd.peer_wnd = h.wnd as u64;
        self.state = State::SynRcvd;
        self.syn_sent_at = ctx.now;
        self.snd.max = 1;
        self.snd.nxt = 1;
        self.send_syn(ctx, true);
    }

    fn establish(&mut self, now: Time, peer_wnd: u64) {
        self.state = State::Established;
        self.rcv.established(now);
        self.last_ack_sent = self.rcv.nxt;
        self.rto_timer.stop();
        self.snd.peer_wnd = peer_wnd;
        let smss = self.snd.smss();
        self.snd.w.cwnd = if self.syn_retx {
            self.snd.rtt.reset_after_syn_loss();
            smss
        } else {
            let iw = match self.cfg.initial_window {
                InitialWindow::Segments(n) => n as u64 * smss,
                InitialWindow::Rfc3390 => (4 * smss).min((2 * smss).max(4380)),
            };
            self.snd.cc.initial_cwnd(iw, smss)
        };
        let s = &mut self.snd;
        let rtt = s.rtt.min_rtt;
        s.cc.on_open(&mut s.w, now, rtt);
    }

    /// RFC 7323 (4.3): a segment's TSval becomes TS.Recent if it is not
    /// older and the segment starts at or before what our last ACK
    /// acknowledged (a SYN's always).
    fn note_timestamp(&mut self, h: &TcpHeader, val: u32) {
        let newer = val.wrapping_sub(self.ts_recent) as i32 >= 0;
        let in_order = h.has(FLAG_SYN) || seq::unwrap(self.irs, self.rcv.nxt, h.seq) <= self.last_ack_sent;
        if (newer && in_order) || h.has(FLAG_SYN) {
            self.ts_recent = val;
        }
    }

    fn established_segment(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let h = &pkt.tcp;
        let carries = pkt.payload > 0 || h.has(FLAG_FIN);
        if h.has(FLAG_ACK) {
            self.on_ack(ctx, &h, carries);
        }
        if carries {
            self.on_data(ctx, pkt);
        }
        self.send_data(ctx);
        if self.ack_needed {
            self.send_pure_ack(ctx);
        }
        self.check_finished(ctx);
    }

    fn on_data(&mut self, ctx: &mut Ctx, pkt: &Packet) {
        let h = &pkt.tcp;
        let start = seq::unwrap(self.irs, self.rcv.nxt, h.seq);
        if pkt.payload > 0 && start != pkt.stream_off {
            self.stats.integrity_errors += 1;
        }
        let ecn_ack_now = self.ecn.ok && self.ecn.on_data(h.has(FLAG_CWR), pkt.ecn() == Ecn::Ce, pkt.payload > 0);
        let fin = h.has(FLAG_FIN);
        let limit = if self.cfg.accept_beyond_window { u64::MAX } else { self.adv_right_edge().max(self.offered_edge) };
        if pkt.payload > 0 {
            // Linux's receiver: its round trip from the echo, quick ACKs
            let ts = h.opt_ts.map(|(_, ecr)| (ts_clock(ctx.now), ecr));
            self.rcv.data_arrived(ctx.now, pkt.payload as u64, ts, self.snd.rtt.rto());
        }
        let a = self.rcv.on_segment(start, pkt.payload as u64, fin, limit);
        if a.delivered > 0 {
            if self.deferred_read {
                self.rcv.unread += a.delivered;
            }
            // the application reads at once (Linux's Right-Sizing)
            self.rcv.app_read(ctx.now);
            ctx.notes.push(Note::Delivered { ep: self.id, total: self.rcv.bytes_delivered });
        }
        if a.fin_now_in_order {
            ctx.notes.push(Note::PeerClosed { ep: self.id });
        }
        let daass = self.cfg.daass_segments.is_some_and(|n| self.rcv.data_segments <= n as u64);
        let duplicate = a.duplicate && !(self.cfg.delay_duplicate_ack && a.duplicate_of_last);
        // out of order: new data above a hole (RFC 5681 4.2: ACK at once)
        let ooo_now = a.out_of_order && !self.cfg.delay_out_of_order_ack;
        let immediate = !self.cfg.delayed_ack
            || daass
            || ooo_now
            || a.filled_hole
            || duplicate
            || fin
            || (a.delivered == 0 && !a.duplicate && !a.out_of_order)
            || ecn_ack_now
            || self.rcv.quickack();
        if immediate {
            self.ack_needed = true;
        } else {
            self.rcv.unacked_segments += 1;
            if self.rcv.unacked_segments >= self.cfg.delayed_ack_segments {
                self.ack_needed = true;
            } else if !self.delack.is_running() {
                let at = ctx.now + self.cfg.delayed_ack_timeout_ns;
                self.delack.set(at, ctx.q, self.delack_event());
            }
        }
    }

    fn on_ack(&mut self, ctx: &mut Ctx, h: &TcpHeader, carries_data: bool) {
        let ack = seq::unwrap(self.iss, self.snd.una, h.ack);
        if ack > self.snd.max {
            return; // acknowledges something never sent
        }
        // an ACK below one already taken (reordered on the way): its SACK
        // blocks are kept, as Linux keeps them, and nothing else is read
        // from it (not a duplicate ACK, RFC 5681; not a window update, RFC
        // 793's SND.WL2 rule)
        let old = ack < self.snd.una;
        let wnd = (h.wnd as u64) << self.snd_shift;
        if super::fast_paths() && ack == self.snd.una && ack == self.snd.max && h.sack().is_empty() && self.quiet_sender() {
            // nothing outstanding, nothing acknowledged, nothing SACKed (the
            // receiving half of a transfer, on every data segment): of all
            // below only the window update, the Open state's resets and
            // PRR's note of an empty ACK apply
            self.snd.peer_wnd = wnd;
            self.snd.reno_sacked = 0;
            self.snd.head_rtx_owed = false;
            self.prr_note_quiet_ack();
            return;
        }
        let window_changed = !old && wnd != self.snd.peer_wnd;
        if !old {
            self.snd.peer_wnd = wnd;
        }
        let frto_sacked_before = self.frto_sacked_below_recover();
        let prr_before = self.prr_before_ack();
        if self.cfg.recovery == Recovery::Sack {
            self.sack_ns2_count_ack(ack);
        }
        let mut newly_sacked = 0;
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let mut nblocks = 0;
        if self.sack_ok && self.snd.records_sack() {
            for &(s, e) in h.sack() {
                let s = seq::unwrap(self.iss, self.snd.una, s);
                let e = seq::unwrap(self.iss, self.snd.una, e);
                let new = self.snd.board.insert(ack.max(self.snd.una), self.snd.max, s, e);
                if new > 0 {
                    self.snd.note_sacked(s, e, ctx.now);
                }
                newly_sacked += new;
                blocks[nblocks] = (s, e);
                nblocks += 1;
            }
        }
        if old {
            return;
        }
        if self.snd.zero_window_probe.is_some() {
            self.take_back_refused_probe(ctx, ack);
        }
        let old_una = self.snd.una;
        // ns-2's FACK takes an RTT sample from the timestamp echo on every
        // ACK its `oldack()` handles (any in recovery, any with SACK blocks
        // outside it), and none by the timed segment on those. The sink
        // echoes TS.Recent (`ts_echo_bugfix_`, RFC 7323): the timestamp of
        // the segment that last moved its window, i.e. of the segment at
        // snd.una when an ACK advances, and of the one that advanced it last
        // for a duplicate.
        let fack_ns2 = self.cfg.fack_ns2 && self.cfg.recovery == Recovery::Fack;
        let fack_echo_path = fack_ns2 && ack >= old_una && (self.snd.phase.in_recovery() || nblocks > 0);
        let fack_echo = match (fack_echo_path, ack > old_una) {
            (false, _) => None,
            (true, true) => self.snd.head_last_sent(),
            (true, false) => self.snd.una_moved_by_sent_at,
        };
        if fack_ns2 && ack > old_una {
            self.snd.una_moved_by_sent_at = self.snd.head_last_sent();
        }
        let dupack = ack == old_una && self.snd.max > old_una && !carries_data && !window_changed;
        if dupack && !self.sack_ok {
            self.snd.reno_sack_dupack(ctx.now);
        }
        let mut reno_counted = 0;
        let mut rtt = None;
        if ack > old_una {
            // the written data is all acknowledged (data_end is 1 before any write)
            if old_una < self.snd.data_end && ack >= self.snd.data_end && self.snd.data_end > 1 {
                ctx.notes.push(Note::AllAcked { ep: self.id });
                // without a FIN the transfer ends here: stop the limit clock
                // (with one, `check_finished` does at the FIN exchange)
                if self.closed_without_fin {
                    self.snd.limits.finish(ctx.now);
                }
            }
            self.snd.una = ack;
            if self.notes_acked {
                let total = ack.min(self.snd.data_end).saturating_sub(1);
                ctx.notes.push(Note::Acked { ep: self.id, total });
            }
            if self.snd.nxt < ack {
                self.snd.nxt = ack;
            }
            self.snd.board.advance(ack);
            let (for_rto, for_cc) = self.snd.rtt_sample_on_ack(ack, ctx.now);
            if let (Some(r), false) = (for_rto, fack_echo_path) {
                self.snd.rtt.sample(r, ctx.now, self.snd.una, self.snd.nxt);
            }
            rtt = for_cc;
            self.snd.rto_streak = 0;
            self.snd.lt_bytes = 0;
            if !self.sack_ok {
                reno_counted = self.snd.reno_sack_acked(ack - old_una);
            }
            if matches!(self.snd.phase, Phase::Loss(_)) && ack >= self.snd.recover {
                self.snd.phase = Phase::Open; // the repair after a timeout is over
            }
        }
        if let Some(at) = fack_echo {
            self.snd.rtt.sample(ctx.now - at, ctx.now, self.snd.una, self.snd.nxt);
        }
        let mut reo_armed = false;
        if self.snd.rack.is_some() && (ack > old_una || newly_sacked > 0) {
            let in_recovery = self.snd.phase.in_recovery();
            self.snd.rack_detect(ctx.now, in_recovery, self.cfg.dupthresh);
            reo_armed = self.rack_reo_arm(ctx);
        }
        if self.snd.rate.is_some() && self.sack_ok && self.cfg.recovery == Recovery::Sack {
            let b = self.snd.lost_boundary(self.cfg.dupthresh);
            self.snd.mark_lost_to(b, ctx.now);
        }
        if self.snd.tlp_high.is_some() {
            let pure_dup = ack == old_una && !carries_data && !window_changed && newly_sacked == 0;
            self.tlp_on_ack(ack, pure_dup);
        }
        if let Some(b) = prr_before {
            self.prr_note_ack(old_una, b);
        }
        if ack > old_una || dupack || newly_sacked > 0 {
            let ece = self.ecn.ok && h.has(FLAG_ECE);
            self.cc_on_ack(ctx.now, ack - old_una, dupack, rtt, &blocks[..nblocks], reno_counted, ece, newly_sacked);
        }
        let was_in_recovery = self.snd.phase.in_recovery();
        // a duplicate ACK in the scheme's sense (for SACK and FACK one that
        // SACKs new data, RFC 6675 section 2)
        let scheme_dup = dupack
            && (newly_sacked > 0 || !self.sack_ok || !matches!(self.cfg.recovery, Recovery::Sack | Recovery::Fack));
        if ack > old_una {
            let acked = ack - old_una;
            let restart = match self.cfg.recovery {
                Recovery::NewReno => self.newreno_new_ack(ctx, acked),
                Recovery::Sack => self.sack_new_ack(ctx, acked),
                Recovery::Tahoe => self.tahoe_new_ack(acked),
                Recovery::Reno => self.reno_new_ack(acked),
                Recovery::Fack => self.fack_new_ack(ctx, acked),
            };
            if self.snd.una >= self.snd.max {
                self.rto_timer.stop();
            } else if restart {
                let rto = self.snd.rtt.rto();
                self.rto_timer.set(self.rto_deadline(ctx.now + rto), ctx.q, self.rto_event());
            }
        } else if scheme_dup {
            // the controller judges the loss before the scheme acts
            let verdict = self.loss_verdict();
            if verdict == Verdict::Corruption {
                // counted as the printed CETEN-R code counts it (dup_ack_cnt
                // rises before the check), so a fast retransmit that
                // needs exactly DupThresh duplicates skips this loss event
                self.snd.phase.count_dupack();
                self.retransmit_corrupted(ctx);
            } else if verdict == Verdict::Ignore {
                // already repaired as corruption: not even counted
            } else {
                if verdict == Verdict::RetransmitNow && matches!(self.snd.phase, Phase::Open | Phase::Disorder(_)) {
                    // count this duplicate as the DupThresh-th
                    self.snd.phase = Phase::Disorder(self.cfg.dupthresh - 1);
                }
                self.snd.phase.count_dupack();
                match self.cfg.recovery {
                    Recovery::NewReno | Recovery::Reno => self.newreno_dupack(ctx),
                    Recovery::Tahoe => self.tahoe_dupack(ctx),
                    Recovery::Sack => self.sack_dupack(ctx),
                    Recovery::Fack => self.fack_dupack(ctx),
                }
            }
        }
        if self.snd.frto.active() {
            let sacked_low = self.frto_sacked_below_recover().saturating_sub(frto_sacked_before);
            self.frto_on_ack(ctx, old_una, dupack, sacked_low);
        }
        if was_in_recovery && !self.snd.phase.in_recovery() {
            let Sender { cc, w, .. } = &mut self.snd;
            cc.on_recovery_exit(w);
        } else if was_in_recovery && prr_before.is_some() {
            self.prr_reduce();
        }
        if self.snd.phase == Phase::Open {
            self.snd.reno_sacked = 0;
            self.snd.head_rtx_owed = false;
        }
        if self.ecn.ok && h.has(FLAG_ECE) {
            self.ecn_response();
        }
        if ack > old_una && !reo_armed {
            self.tlp_after_ack(ctx);
        }
        if self.cfg.pacing && !self.snd.caps.paces {
            self.window_pacing_rate();
        }
        if !self.snd.acts.is_empty() {
            self.run_cc_actions(ctx);
        }
    }

    /// An ACK with ECE (RFC 3168 6.1.2): reduce as a fast retransmit would
    /// (the controller's `ssthresh_after_loss`, cwnd at most ssthresh), at
    /// most once per window and not during loss recovery, without
    /// retransmitting; the next new data segment carries CWR.
    fn ecn_response(&mut self) {
        let s = &self.snd;
        let repairing = !matches!(s.phase, Phase::Open | Phase::Disorder(_));
        if !self.ecn.may_reduce(s.una, s.recover, repairing) {
            return;
        }
        let s = &mut self.snd;
        let t = s.loss_ssthresh();
        s.w.ssthresh = t;
        s.w.cwnd = s.w.cwnd.min(t);
        self.ecn.reduced(s.max);
        self.stats.ecn_reductions += 1;
    }

    /// A sender in the Open state with no F-RTO, tail-loss probe, rate
    /// sampling, pacing or controller action under way: an ACK that moves
    /// nothing and SACKs nothing can change no more than its window.
    #[inline]
    fn quiet_sender(&self) -> bool {
        let s = &self.snd;
        s.phase == Phase::Open
            && !s.frto.active()
            && s.tlp_high.is_none()
            && s.rate.is_none()
            && !self.cfg.pacing
            && s.acts.is_empty()
    }

    /// The controller's verdict on the duplicate ACK being processed (its
    /// `AckCtx` is already built).
    fn loss_verdict(&mut self) -> Verdict {
        let head_sent_at = self.snd.head_sent_at();
        let Sender { cc, w, ack, phase, .. } = &mut self.snd;
        let count = phase.dupacks() + 1;
        let in_recovery = phase.in_recovery();
        let d = DupAck { count, at_dupthresh: !in_recovery && count == self.cfg.dupthresh, in_recovery, head_sent_at };
        cc.loss_verdict(w, ack, d)
    }

    /// A loss the controller reads as corruption: resend the segment at
    /// snd_una (with SACK only while pipe < cwnd), nothing else.
    #[cold]
    fn retransmit_corrupted(&mut self, ctx: &mut Ctx) {
        let s = &self.snd;
        if self.sack_ok && s.pipe(self.cfg.dupthresh) >= s.w.cwnd {
            return;
        }
        let nxt = s.nxt;
        self.retransmit_head(ctx);
        self.snd.nxt = nxt;
    }

    /// `pacing = true` for a window-based controller: ratio x min(cwnd,
    /// peer window) / SRTT, ratio 2 in slow start and 1.2 in congestion
    /// avoidance (Linux's tcp_pacing_ss_ratio and tcp_pacing_ca_ratio; Linux
    /// uses cwnd alone, which a receiver-limited sender never fills).
    fn window_pacing_rate(&mut self) {
        let s = &mut self.snd;
        if let Some(srtt) = s.rtt.srtt.filter(|&r| r > 0.0) {
            let ratio = if s.w.cwnd < s.w.ssthresh { 2.0 } else { 1.2 };
            let window = s.w.cwnd.min(s.peer_wnd).max(s.smss());
            s.w.pacing_bps = ((ratio * window as f64 * 8e9 / srtt) as u64).max(1);
        }
    }

    /// Tell the controller about this ACK (before recovery handles it).
    /// `reno_counted`: bytes of this cumulative ACK that duplicate ACKs
    /// counted delivered already (no SACK).
    /// `ece`: the ACK carries ECE (ECN in use); `newly_sacked`: bytes it
    /// SACKed for the first time.
    #[allow(clippy::too_many_arguments)]
    fn cc_on_ack(&mut self, now: Time, acked: u64, dupack: bool, rtt: Option<Time>, blocks: &[(u64, u64)], reno_counted: u64, ece: bool, newly_sacked: u64) {
        let dupthresh = self.cfg.dupthresh;
        let s = &mut self.snd;
        if ece {
            // Linux's tcp_count_delivered: all an ECE ACK delivers is CE
            if let Some(r) = &mut s.rate {
                r.on_ce_delivered(acked + newly_sacked);
            }
        }
        let min_rtt = s.rtt.min_rtt;
        let una = s.una;
        let (rate, delivered) = match &mut s.rate {
            Some(r) => (r.on_ack(una, blocks, now, min_rtt, reno_counted, s.lost), r.delivered),
            None => (None, 0),
        };
        s.ack = AckCtx {
            now,
            acked,
            dupack,
            rtt,
            srtt: s.rtt.srtt,
            min_rtt,
            una,
            snd_max: s.max,
            flight: s.flight(),
            pipe: if s.caps.reads_pipe || super::always_pipe() { s.pipe(dupthresh) } else { 0 },
            recovering: s.phase.in_recovery() || una < s.recover,
            recover: s.recover,
            peer_wnd: s.peer_wnd,
            rto: s.rtt.rto(),
            delivered,
            rate,
            lost: s.lost,
            delivered_ce: s.rate.as_ref().map_or(0, |r| r.delivered_ce),
            ece,
        };
        let Sender { cc, w, ack, acts, .. } = s;
        cc.on_ack(w, ack, acts);
    }

    /// The recovery scheme lets the window grow by this ACK of `acked` bytes.
    pub(crate) fn grow_window(&mut self, acked: u64) {
        if self.cfg.cwnd_validation == CwndValidation::Linux {
            let s = &self.snd;
            if !s.limits.cwnd_may_grow(s.w.cwnd, s.w.cwnd < s.w.ssthresh) {
                return;
            }
        }
        let Sender { cc, w, ack, .. } = &mut self.snd;
        // the ACK's context with the bytes the scheme lets count, changed in
        // place and put back: a copy of the whole context (a few hundred
        // bytes) was 1% of a 50-flow run
        let full = std::mem::replace(&mut ack.acked, acked);
        cc.grow(w, ack);
        ack.acked = full;
    }

    fn check_finished(&mut self, ctx: &mut Ctx) {
        if !self.finished && self.snd.fin_acked() && self.rcv.fin_received {
            self.finished = true;
            self.snd.limits.finish(ctx.now);
            self.rto_timer.stop();
            ctx.notes.push(Note::Finished { ep: self.id });
        }
    }

    // ----- timers -----------------------------------------------------------

    /// What must hold between events (debug builds; `make test` builds
    /// its tests with debug assertions): una <= nxt <= max; once
    /// established, cwnd of at least one segment and ssthresh of at least
    /// two (BBR keeps its conservation window there, no threshold); the
    /// receiver holds no more out of order than its window allows.
    pub fn check_invariants(&self) {
        let s = &self.snd;
        debug_assert!(s.una <= s.nxt && s.nxt <= s.max, "una {} nxt {} max {}", s.una, s.nxt, s.max);
        if self.state == State::Established {
            debug_assert!(s.w.cwnd >= s.smss(), "cwnd {} below one segment (ssthresh {} una {} max {} phase {:?} smss {})", s.w.cwnd, s.w.ssthresh, s.una, s.max, s.phase, s.smss());
            // (a scenario may start it lower: `initial_ssthresh`)
            let floor = (2 * s.smss()).min(self.cfg.initial_ssthresh_bytes.unwrap_or(u64::MAX));
            debug_assert!(
                matches!(s.cc, crate::tcp::cc::Cc::Bbr(_) | crate::tcp::cc::Cc::Bbr3(_)) || s.w.ssthresh >= floor,
                "ssthresh {} below two segments",
                s.w.ssthresh
            );
        }
        debug_assert!(self.cfg.accept_beyond_window || self.rcv.held() <= self.rcv.buffer + (1 << 14), "holds {} beyond its window", self.rcv.held());
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, kind: TimerKind) {
        let ev = Event::Timer { ep: self.id, kind };
        match kind {
            TimerKind::DelayedAck => {
                if self.delack.on_pop(ctx.now, ctx.q, ev) && self.rcv.unacked_segments > 0 {
                    self.send_pure_ack(ctx);
                }
            }
            TimerKind::Rto => {
                if self.rto_timer.on_pop(ctx.now, ctx.q, ev) {
                    // the same slot holds the window probe (`window_probe.rs`)
                    if self.snd.zero_window_probe_out() || self.stalled_by_window(self.limit_now(ctx.now)) {
                        return self.window_probe(ctx);
                    }
                    // Linux's one timer slot would hold the probe
                    if self.tlp_due(ctx.now) && self.tlp_fire(ctx) {
                        return;
                    }
                    self.on_rto(ctx);
                }
            }
            TimerKind::RackTlp => {
                if self.rack_tlp_timer.on_pop(ctx.now, ctx.q, ev) {
                    self.on_rack_tlp_timer(ctx);
                }
            }
            TimerKind::Pace => {
                if self.pace_timer.on_pop(ctx.now, ctx.q, ev) {
                    self.send_data(ctx);
                }
            }
            TimerKind::Cc => {
                if self.cc_timer.on_pop(ctx.now, ctx.q, ev) {
                    let cwnd = self.snd.w.cwnd;
                    let Sender { cc, w, acts, .. } = &mut self.snd;
                    cc.on_timer(w, ctx.now, acts);
                    self.after_cc_hook(ctx, cwnd);
                }
            }
        }
    }

    fn on_rto(&mut self, ctx: &mut Ctx) {
        self.stats.timeouts += 1;
        // tcp_enter_loss: no probe or reordering wait survives a timeout
        self.rack_tlp_timer.stop();
        self.snd.tlp_high = None;
        self.snd.rto_streak += 1;
        if let Some(limit) = self.cfg.max_retransmissions {
            if self.snd.rto_streak > limit {
                self.state = State::Aborted;
                self.delack.stop();
                ctx.notes.push(Note::Aborted { ep: self.id });
                return;
            }
        }
        self.snd.rtt.backoff();
        match self.state {
            State::SynSent => {
                self.syn_retx = true;
                self.send_syn(ctx, false);
            }
            State::SynRcvd => {
                self.syn_retx = true;
                self.send_syn(ctx, true);
            }
            State::Established => {
                let s = &mut self.snd;
                if s.una >= s.max {
                    return;
                }
                let was_in_recovery = s.phase.in_recovery();
                let fack_keeps = was_in_recovery && self.cfg.fack_ns2 && self.cfg.recovery == Recovery::Fack;
                let recover_before = s.recover;
                self.frto_on_rto(was_in_recovery);
                let s = &mut self.snd;
                // RFC 5681: FlightSize, ssthresh kept on a repeated expiry;
                // ns-3: the pipe; ns-2: window() at every expiry
                let (flight, first) = match s.ssthresh_basis {
                    SsthreshBasis::Flight => (s.flight(), s.rto_streak == 1),
                    SsthreshBasis::Pipe => (s.pipe(self.cfg.dupthresh), s.rto_streak == 1),
                    SsthreshBasis::Cwnd => (s.flight_for_ssthresh(), s.rto_streak == 1),
                    SsthreshBasis::Window => (s.flight_for_ssthresh(), true),
                };
                s.mark_lost_at_rto(ctx.now);
                let last = AckCtx { lost: s.lost, ..s.ack };
                s.cc.on_rto(&mut s.w, flight, first, &last, &mut s.acts);
                s.w.ssthresh = s.whole_segments(s.w.ssthresh);
                s.lt_bytes = 0;
                s.phase = Phase::Loss(0);
                s.recover = s.max;
                s.scheme.set_high_rxt(s.una);
                if s.rto_clears_sack {
                    s.board.clear();
                }
                s.rtx_log.clear();
                s.rtx_lost_stall = false;
                s.reno_sacked = 0;
                s.head_rtx_owed = false;
                s.nxt = s.una;
                s.clear_timing();
                if fack_keeps {
                    self.fack_keep_recovery_at_rto(recover_before);
                }
                self.send_data(ctx);
                // the controller may add to the re-armed timer (TCP-ADaLR
                // waits out a delayed ACK too)
                let offset = self.snd.cc.rto_offset();
                if !self.rto_timer.is_running() || offset > 0 {
                    let rto = self.snd.rtt.rto();
                    self.rto_timer.set(self.rto_deadline(ctx.now + rto + offset), ctx.q, self.rto_event());
                }
                if !self.snd.acts.is_empty() {
                    self.run_cc_actions(ctx);
                }
            }
            _ => {}
        }
    }
}
