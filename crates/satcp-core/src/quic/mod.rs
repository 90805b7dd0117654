//! QUIC flows (`[[flows]] transport = "quic"`): the real QUIC protocol core
//! of quinn (`quinn-proto` 0.11.19, MIT OR Apache-2.0, pinned exactly in
//! Cargo.toml) run inside the event loop on simulated time. Nothing of
//! QUIC is written here: this file only feeds quinn its inputs and carries
//! its outputs (docs/models/quic.md).
//!
//! * One `quinn_proto::Endpoint` and one `Connection` per side of a flow.
//!   The QUIC client sits at the flow's `dst` (the satcp "client", the
//!   receiver of the bulk data) and the QUIC server at `src`, so the data
//!   flows server -> client as in TCP flows. The applications are TCP's,
//!   unchanged; their actions map onto streams (`QuicFlow::write`): a
//!   client's write is a request on a new bidirectional stream, a server's
//!   write answers the oldest unanswered request on its stream, or, with
//!   none waiting, goes to a unidirectional push stream the server opens
//!   as soon as it has accepted the connection (0.5-RTT data, as HTTP/3
//!   servers may). FTP pushes or answers its file; HTTP pages ask for each
//!   object on its own stream.
//! * Driven by world events: a datagram arriving at a side's node goes to
//!   `Endpoint::handle` (and to the connection it names); the connection's
//!   `poll_timeout` becomes an `Event::Quic` timer (lazy: an earlier
//!   deadline queues a new entry, an entry that pops early or late only
//!   makes quinn look at its timers, which is harmless); the application's
//!   writes go to the stream. After each input, the side is "drained":
//!   endpoint events, application events (stream opened, readable,
//!   writable, finished), writes, then `poll_transmit` until it returns
//!   nothing (one datagram per call: no segmentation offload).
//! * Time: quinn takes `std::time::Instant`. Simulated ns are mapped onto a
//!   base `Instant` taken once per flow when the run is built
//!   (`instant = base + ns`, `ns = instant - base`); quinn only ever
//!   subtracts and compares instants, so results do not depend on the base
//!   (each run takes its own, so the test that runs a scenario twice and
//!   compares the summaries byte for byte runs it on two bases).
//! * On the wire: each datagram is a `Kind::Quic` packet of quinn's UDP
//!   payload + 8 (UDP) + 20 (IPv4) bytes, crossing links, queues, error
//!   models, ARQ and constellations as any packet does. The packet struct
//!   carries no bytes: the datagram's bytes wait in the flow's `wire`
//!   table under the id the packet carries (`stream_off`), and the arrival
//!   takes them out. A datagram that never arrives (dropped, corrupted)
//!   leaves its bytes behind; entries older than `WIRE_FORGET_NS` are
//!   forgotten when new ones are added (a memory bound only: no datagram
//!   spends minutes in a network a run models).
//! * Determinism: everything quinn randomises is seeded from the run seed
//!   and the endpoint's index: the endpoint's rng (which seeds each
//!   connection's: spin bit, packet-number skipping, key-update phase,
//!   greased bits), the connection-ID generator, the client's initial
//!   destination CID, the stateless-reset key; address-validation tokens
//!   are neither issued nor asked for; the null crypto draws nothing.
//!   quinn's own BBR seeds its pacing-gain cycle from the OS, so
//!   `quic.cc = "quinn-bbr"` is refused until that can be seeded.
//! * Knobs (`QuicCfg`): ACK delay and frequency through quinn's
//!   ACK-frequency extension (`transport`); 0-RTT from a ticket of an
//!   in-memory earlier connection (`resumption.rs`); PTO expiries counted
//!   from quinn's tracing event (`pto_count.rs`).
//! * The response's end (FTP's `response_end`, docs/models/quic.md):
//!   `last_byte` = the client's application has read the file's last byte;
//!   `fin` = the client has read the response stream to its end (quinn's
//!   `Chunks::next` returned `Ok(None)`: the STREAM frame with the FIN bit
//!   has arrived and every byte before the final size has been read); the
//!   client's first such stream end is noted as both ends' `Finished` at
//!   once (QUIC has no teardown handshake a transfer waits for: the
//!   stream's FIN is the response's end, and a CONNECTION_CLOSE is never
//!   acknowledged); `last_ack` = the server has heard that the client
//!   acknowledged all the response stream's data and its FIN (quinn's
//!   `StreamEvent::Finished` on the sending side), noted `AllAcked` when
//!   every stream the side wrote and finished is so acknowledged. quinn
//!   sets the FIN bit on the last STREAM frame when the stream is finished
//!   before its last byte leaves, which FTP's file always is (written and
//!   closed at once), so `fin` = `last_byte` to the nanosecond for FTP on
//!   QUIC, where TCP's `fin` (the FIN exchange) is a round trip later.
//! * Stream data is a fixed pattern (byte i of the stream = i mod 251); the
//!   client checks every byte it reads against it and its offset against
//!   what it has read so far (`integrity_errors`, 0 unless broken).

pub mod careful_resume;
pub mod cc_adapter;
#[cfg(test)]
mod cc_tests;
pub mod flight;
pub mod null_crypto;
mod pto_count;
pub mod rate_sampler;
mod resumption;
mod wire;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(test)]
mod tests;

use crate::ids::{EpId, FlowId, Side};
use crate::net::Packet;
use crate::scenario::{QuicCc, QuicCfg, QuicCrypto};
use crate::sim::{Event, Rng, Time};
use crate::tcp::{Ctx, Note};
use bytes::BytesMut;
use flight::FlightWatchFactory;
use null_crypto::{HandshakeSizes, NullConfig, NullHmac, NullTokenKey};
use quinn_proto::congestion::{CubicConfig, NewRenoConfig};
use quinn_proto::{
    AckFrequencyConfig, ClientConfig, Connection, ConnectionHandle, ConnectionId, ConnectionIdGenerator, DatagramEvent, Dir, Endpoint,
    EndpointConfig, Event as QEvent, ServerConfig, StreamEvent, StreamId, TransportConfig, ValidationTokenConfig,
    VarInt,
};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// UDP (8) + IPv4 (20) header bytes around quinn's datagram.
pub const UDP_IP_HEADERS: u32 = 28;
/// The stream's byte pattern repeats every this many bytes.
const PATTERN_PERIOD: usize = 251;
/// Bytes handed to quinn's `write` per call at most.
const WRITE_CHUNK: usize = 64 * 1024;

/// A connection-ID generator drawing from a seeded stream (quinn's
/// `RandomConnectionIdGenerator` draws from the OS), 8-byte IDs as quinn's
/// default.
struct SeededCids {
    rng: Rng,
}

impl ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> ConnectionId {
        ConnectionId::new(&self.rng.next_u64().to_le_bytes())
    }

    fn cid_len(&self) -> usize {
        8
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// A fixed wall clock for quinn's server (it dates address-validation
/// tokens, which are not used): no system time reaches a run.
struct FixedClock;

impl quinn_proto::TimeSource for FixedClock {
    fn now(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
    }
}

/// What a side's application asked of its stream.
#[derive(Default)]
struct Writer {
    /// Bytes the application has written (quinn has taken `written`).
    asked: u64,
    written: u64,
    /// Finish the stream once everything asked is written.
    close: bool,
    finished: bool,
    /// The peer acknowledged the whole finished stream.
    all_acked: bool,
    stream: Option<StreamId>,
}

/// One stream being read.
struct Reading {
    id: StreamId,
    read: u64,
    /// The server's unidirectional push stream (its end is the peer's
    /// close, as a TCP FIN).
    push: bool,
}

#[derive(Default)]
struct Reader {
    streams: Vec<Reading>,
    /// Bytes read on all streams.
    delivered: u64,
    integrity_errors: u64,
    peer_closed: bool,
}

/// A request (the client's, on a bidirectional stream it opens) or the
/// answer to one (the server's, on the request's stream): `len` bytes, then
/// the stream's end.
struct Job {
    stream: Option<StreamId>,
    written: u64,
    len: u64,
}

struct QuicSide {
    ep: EpId,
    node: u32,
    peer_node: u32,
    peer_addr: SocketAddr,
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    /// The earliest `Event::Quic` queued for this side.
    timer_at: Option<Time>,
    writer: Writer,
    reader: Reader,
    /// Requests and answers to write, in order.
    jobs: std::collections::VecDeque<Job>,
    /// The server: the client's request streams not answered yet, in order.
    unanswered: std::collections::VecDeque<StreamId>,
    /// Request and answer streams this side has finished whose data and
    /// FIN the peer has not acknowledged all of yet (quinn's
    /// `StreamEvent::Finished` takes them out).
    unacked: Vec<StreamId>,
    /// The client has noted the response's end (`Note::Finished` for both
    /// ends, once: the first stream it read to its end).
    fin_noted: bool,
    first_sent_at: Option<Time>,
    connected_at: Option<Time>,
    lost: bool,
    /// quinn's PTO expiries on this side (`pto_count.rs`).
    ptos: u64,
}

/// The counters a QUIC flow hands out for the summary and the series.
#[derive(Clone, Copy, Debug, Default)]
pub struct QuicCounters {
    pub bytes_delivered: u64,
    /// UDP payload bytes the client received (all datagrams).
    pub bytes_received: u64,
    pub datagrams_sent: u64,
    pub lost_packets: u64,
    pub lost_bytes: u64,
    pub congestion_events: u64,
    /// PTO expiries (both connections).
    pub ptos: u64,
    /// ACK frames the client sent.
    pub client_acks: u64,
    pub cwnd: u64,
    /// The server's bytes in flight (UDP payload), as its controller's
    /// hooks show quinn's count (`flight.rs`); None before it connects.
    pub flight: Option<u64>,
    pub srtt_ns: Option<f64>,
    /// From the client's first datagram to its `Connected` event.
    pub handshake_ns: Option<Time>,
    pub integrity_errors: u64,
    pub aborted: bool,
}

pub struct QuicFlow {
    base: Instant,
    /// Server (index 0) and client (1), as `Side`.
    sides: [QuicSide; 2],
    client_cfg: ClientConfig,
    wire: wire::Wire,
    buf: Vec<u8>,
    pattern: Vec<u8>,
}

fn addr(node: u32, port: u16) -> SocketAddr {
    let n = node + 1;
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, (n >> 16) as u8, (n >> 8) as u8, n as u8)), port)
}

fn transport(cfg: &QuicCfg, base: Instant, cc_rng: Rng) -> TransportConfig {
    let mut t = TransportConfig::default();
    if let Some(rtt) = cfg.initial_rtt_ns {
        t.initial_rtt(Duration::from_nanos(rtt));
    }
    if let Some(w) = cfg.stream_window {
        t.stream_receive_window(VarInt::from_u64(w).expect("checked by the parser"));
    }
    if let Some(w) = cfg.connection_window {
        t.receive_window(VarInt::from_u64(w).expect("checked by the parser"));
        // quinn's send buffer must hold a window's worth to fill it
        t.send_window(w.max(10_000_000));
    }
    if let Some(a) = cfg.ack_frequency {
        // each side asks its peer (the same settings on both: the flow's
        // ACK policy); quinn sends the frame once the handshake is done
        let mut f = AckFrequencyConfig::default();
        f.ack_eliciting_threshold(VarInt::from_u64(a.threshold).expect("checked by the parser"));
        f.reordering_threshold(VarInt::from_u64(a.reordering).expect("checked by the parser"));
        f.max_ack_delay(a.max_ack_delay_ns.map(Duration::from_nanos));
        t.ack_frequency_config(Some(f));
    }
    match cfg.cc {
        QuicCc::QuinnNewReno => {
            let mut c = NewRenoConfig::default();
            if let Some(iw) = cfg.initial_window {
                c.initial_window(iw);
            }
            t.congestion_controller_factory(Arc::new(FlightWatchFactory { inner: Arc::new(c) }));
        }
        QuicCc::QuinnCubic => {
            let mut c = CubicConfig::default();
            if let Some(iw) = cfg.initial_window {
                c.initial_window(iw);
            }
            t.congestion_controller_factory(Arc::new(FlightWatchFactory { inner: Arc::new(c) }));
        }
        QuicCc::Satcp(_, controller) => {
            let initial_window = cfg.initial_window;
            let c = cc_adapter::SatcpCcFactory { controller, initial_window, base, rng: cc_rng, careful_resume: cfg.careful_resume };
            t.congestion_controller_factory(Arc::new(FlightWatchFactory { inner: Arc::new(c) }));
        }
    }
    t
}

/// The client's crypto configuration, the server's, and with `zero_rtt`
/// whether the client holds a ticket to resume from (asked while the
/// earlier connection runs, `resumption.rs`).
type Crypto = (Arc<dyn quinn_proto::crypto::ClientConfig>, Arc<dyn quinn_proto::crypto::ServerConfig>, Option<Box<dyn Fn() -> bool>>);

fn crypto(c: QuicCrypto, zero_rtt: bool) -> Crypto {
    match c {
        QuicCrypto::Null => {
            let null = Arc::new(NullConfig::new(HandshakeSizes::DEFAULT, zero_rtt));
            let ticket = zero_rtt.then(|| {
                let n = null.clone();
                Box::new(move || n.has_ticket()) as Box<dyn Fn() -> bool>
            });
            (null.clone(), null, ticket)
        }
        #[cfg(feature = "tls")]
        QuicCrypto::Tls => {
            let (c, s, store) = tls::configs(zero_rtt);
            (c, s, store.map(|st| Box::new(move || st.has_ticket()) as Box<dyn Fn() -> bool>))
        }
        #[cfg(not(feature = "tls"))]
        QuicCrypto::Tls => unreachable!("the parser refuses crypto = \"tls\" without the tls feature"),
    }
}

impl QuicFlow {
    /// Flow `flow` from `src` (the QUIC server, sending the data) to `dst`
    /// (the QUIC client); `streams` are the run's seeded random streams for
    /// the server's and the client's endpoint.
    pub fn new(cfg: &QuicCfg, flow: FlowId, src: u32, dst: u32, mut streams: [Rng; 2]) -> Self {
        let base = Instant::now();
        // the controller's random stream: a third draw from the server's
        let cc_rng = Rng::new(streams[0].next_u64(), 0);
        let transport = Arc::new(transport(cfg, base, cc_rng));
        let (client_crypto, server_crypto, resumable) = crypto(cfg.crypto, cfg.zero_rtt);
        let mut server_cfg = ServerConfig::new(server_crypto, Arc::new(NullTokenKey));
        server_cfg.transport_config(transport.clone());
        let mut tokens = ValidationTokenConfig::default();
        tokens.sent(0);
        server_cfg.validation_token_config(tokens);
        server_cfg.time_source(Arc::new(FixedClock));
        let server_cfg = Arc::new(server_cfg);
        if let Some(has_ticket) = resumable {
            resumption::obtain_ticket(client_crypto.clone(), &*has_ticket, transport.clone(), server_cfg.clone(), base);
        }
        let mut client_cfg = ClientConfig::new(client_crypto);
        client_cfg.transport_config(transport);
        let dcid_seed = AtomicU64::new(streams[1].next_u64());
        client_cfg.initial_dst_cid_provider(Arc::new(move || {
            // SplitMix64-style steps: distinct, deterministic, 8 bytes as
            // RFC 9000 section 7.2 asks at least
            let z = dcid_seed.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
            let mut id = [0u8; 16];
            id[..8].copy_from_slice(&z.to_le_bytes());
            id[8..].copy_from_slice(&(z.rotate_left(29) ^ 0xa5a5_5a5a_a5a5_5a5a).to_le_bytes());
            ConnectionId::new(&id)
        }));
        let side = |i: usize, rng: &mut Rng, server: Option<Arc<ServerConfig>>| {
            let (node, peer_node) = if i == 0 { (src, dst) } else { (dst, src) };
            let mut ec = EndpointConfig::new(Arc::new(NullHmac { key: rng.next_u64() }));
            let cid_seed = rng.next_u64();
            ec.cid_generator(move || Box::new(SeededCids { rng: Rng::new(cid_seed, 0) }));
            let mut seed = [0u8; 32];
            for c in seed.chunks_mut(8) {
                c.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            ec.rng_seed(Some(seed));
            let peer_port = if i == 0 { 50_000 } else { 443 };
            QuicSide {
                ep: flow.endpoint(if i == 0 { Side::Server } else { Side::Client }),
                node,
                peer_node,
                peer_addr: addr(peer_node, peer_port),
                endpoint: Endpoint::new(Arc::new(ec), server, true, None),
                conn: None,
                timer_at: None,
                writer: Writer::default(),
                reader: Reader::default(),
                jobs: Default::default(),
                unanswered: Default::default(),
                unacked: Vec::new(),
                fin_noted: false,
                first_sent_at: None,
                connected_at: None,
                lost: false,
                ptos: 0,
            }
        };
        let [s0, s1] = &mut streams;
        let sides = [side(0, s0, Some(server_cfg)), side(1, s1, None)];
        let pattern = (0..PATTERN_PERIOD + WRITE_CHUNK).map(|i| (i % PATTERN_PERIOD) as u8).collect();
        QuicFlow {
            base,
            sides,
            client_cfg,
            wire: wire::Wire::default(),
            buf: Vec::with_capacity(1500),
            pattern,
        }
    }

    fn instant(&self, t: Time) -> Instant {
        self.base + Duration::from_nanos(t)
    }

    fn ns(&self, i: Instant) -> Time {
        i.saturating_duration_since(self.base).as_nanos() as Time
    }

    /// The application's `Connect`: the QUIC client opens the connection
    /// (whichever side the application names: in QUIC the client always
    /// opens, and the server's data rides a stream it opens itself).
    pub fn connect(&mut self, ctx: &mut Ctx) {
        let c = &mut self.sides[1];
        if c.conn.is_some() {
            return;
        }
        let now = self.base + Duration::from_nanos(ctx.now);
        let res = c.endpoint.connect(now, self.client_cfg.clone(), c.peer_addr, "satcp");
        c.conn = Some(res.expect("a fresh client endpoint connects"));
        self.drive(1, ctx);
    }

    /// `Write`: the client's write is a request on a new bidirectional
    /// stream; the server's answers the oldest request not answered yet on
    /// its stream, and with none waiting goes to the server's push stream
    /// (FTP's file when the client asked for nothing).
    pub fn write(&mut self, ctx: &mut Ctx, side: Side, bytes: u64) {
        let i = side as usize;
        let s = &mut self.sides[i];
        match side {
            Side::Client => s.jobs.push_back(Job { stream: None, written: 0, len: bytes }),
            Side::Server => match s.unanswered.pop_front() {
                Some(id) => s.jobs.push_back(Job { stream: Some(id), written: 0, len: bytes }),
                None => s.writer.asked = s.writer.asked.saturating_add(bytes),
            },
        }
        self.drive(i, ctx);
    }

    /// `Close`: the server finishes its push stream once what was written
    /// is sent (an answer's stream ends with the answer); the client closes
    /// the connection (CONNECTION_CLOSE, application code 0: after the push
    /// stream's end or its last page), so neither side waits for its idle
    /// timeout.
    pub fn close(&mut self, ctx: &mut Ctx, side: Side) {
        let i = side as usize;
        if side == Side::Server {
            if self.sides[i].writer.asked > 0 {
                self.sides[i].writer.close = true;
            }
        } else {
            let now = self.instant(ctx.now);
            if let Some((_, c)) = self.sides[i].conn.as_mut() {
                c.close(now, VarInt::from_u32(0), bytes::Bytes::new());
            }
        }
        self.drive(i, ctx);
    }

    /// `StopWriting`: nothing beyond what quinn has taken, then finish.
    pub fn stop_writing(&mut self, ctx: &mut Ctx, side: Side) {
        let i = side as usize;
        let w = &mut self.sides[i].writer;
        w.asked = w.written;
        w.close = w.asked > 0;
        self.drive(i, ctx);
    }

    /// A datagram of this flow arrived at its destination endpoint.
    pub fn on_datagram(&mut self, ctx: &mut Ctx, p: &Packet) {
        let i = p.endpoint().side() as usize;
        let Some(data) = self.wire.take(p.stream_off) else {
            debug_assert!(false, "a QUIC datagram arrived twice or was forgotten");
            return;
        };
        let now = self.instant(ctx.now);
        let s = &mut self.sides[i];
        self.buf.clear();
        match s.endpoint.handle(now, s.peer_addr, None, None, data, &mut self.buf) {
            Some(DatagramEvent::NewConnection(incoming)) => {
                if s.conn.is_none() {
                    self.buf.clear();
                    match s.endpoint.accept(incoming, now, &mut self.buf, None) {
                        Ok(c) => s.conn = Some(c),
                        Err(e) => {
                            if let Some(t) = e.response {
                                self.send(i, ctx, t.size);
                            }
                        }
                    }
                } else {
                    s.endpoint.ignore(incoming);
                }
            }
            Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                if let Some((h, c)) = s.conn.as_mut() {
                    debug_assert_eq!(*h, ch);
                    c.handle_event(ev);
                }
            }
            Some(DatagramEvent::Response(t)) => self.send(i, ctx, t.size),
            None => {}
        }
        self.drive(i, ctx);
    }

    /// A side's `Event::Quic` popped.
    pub fn on_timer(&mut self, ctx: &mut Ctx, ep: EpId) {
        let i = ep.side() as usize;
        if self.sides[i].timer_at == Some(ctx.now) {
            self.sides[i].timer_at = None;
        }
        let now = self.instant(ctx.now);
        let s = &mut self.sides[i];
        if let Some((_, c)) = s.conn.as_mut() {
            s.ptos += pto_count::counted(|| c.handle_timeout(now)).1;
        }
        self.drive(i, ctx);
    }

    /// Send the datagram of `size` bytes at the start of `self.buf` from
    /// side `i`.
    fn send(&mut self, i: usize, ctx: &mut Ctx, size: usize) {
        let s = &mut self.sides[i];
        s.first_sent_at.get_or_insert(ctx.now);
        let id = self.wire.put(ctx.now, BytesMut::from(&self.buf[..size]));
        ctx.out.push(Packet::quic(s.node, s.peer_node, s.ep.peer().0, size as u32 + UDP_IP_HEADERS, id));
    }

    /// Let side `i`'s connection act on everything it has been given:
    /// endpoint events, application events, writes, datagrams to send, and
    /// its next timer.
    fn drive(&mut self, i: usize, ctx: &mut Ctx) {
        let now = self.instant(ctx.now);
        loop {
            let s = &mut self.sides[i];
            let Some((ch, conn)) = s.conn.as_mut() else { return };
            while let Some(ev) = conn.poll_endpoint_events() {
                if let Some(ce) = s.endpoint.handle_event(*ch, ev) {
                    conn.handle_event(ce);
                }
            }
            let mut any = false;
            while let Some(ev) = conn.poll() {
                any = true;
                match ev {
                    QEvent::Connected => {
                        s.connected_at = Some(ctx.now);
                    }
                    QEvent::ConnectionLost { reason } => {
                        // an abort unless closed by the application (the
                        // client's close after its last response) or this
                        // side's work was done (its push stream acknowledged,
                        // or the peer's read to its end): the idle timeout
                        // when that CONNECTION_CLOSE was lost
                        use quinn_proto::ConnectionError as E;
                        let closed = matches!(reason, E::ApplicationClosed(_) | E::LocallyClosed);
                        let idle = s.jobs.is_empty() && s.unanswered.is_empty() && s.reader.streams.is_empty();
                        let pushed = s.writer.asked == 0 || s.writer.all_acked;
                        let done = closed || s.reader.peer_closed || (idle && pushed);
                        if !s.lost && !done {
                            s.lost = true;
                            ctx.notes.push(Note::Aborted { ep: s.ep.0 });
                        }
                    }
                    QEvent::Stream(StreamEvent::Opened { dir }) => {
                        while let Some(id) = conn.streams().accept(dir) {
                            s.reader.streams.push(Reading { id, read: 0, push: dir == Dir::Uni });
                            if dir == Dir::Bi {
                                s.unanswered.push_back(id);
                            }
                        }
                    }
                    QEvent::Stream(StreamEvent::Finished { id }) => {
                        // every byte and the FIN of a stream this side
                        // finished are acknowledged: with nothing else of
                        // this side's unacknowledged, all it wrote is
                        if Some(id) == s.writer.stream {
                            s.writer.all_acked = true;
                        } else if let Some(k) = s.unacked.iter().position(|&u| u == id) {
                            s.unacked.swap_remove(k);
                        } else {
                            continue;
                        }
                        let pushed = s.writer.asked == 0 || s.writer.all_acked;
                        if pushed && s.unacked.is_empty() && s.jobs.is_empty() {
                            ctx.notes.push(Note::AllAcked { ep: s.ep.0 });
                        }
                    }
                    _ => {}
                }
            }
            let ended = read(&mut s.reader, s.ep, conn, ctx, &self.pattern);
            if ended && s.ep.side() == Side::Client && !s.fin_noted {
                // the response read to its end: the flow's fin (both ends
                // at once, see the header)
                s.fin_noted = true;
                ctx.notes.push(Note::Finished { ep: s.ep.0 });
                ctx.notes.push(Note::Finished { ep: s.ep.peer().0 });
            }
            write(&mut s.writer, conn, &self.pattern);
            write_jobs(&mut s.jobs, &mut s.reader, &mut s.unacked, conn, &self.pattern);
            let mut sent = false;
            loop {
                self.buf.clear();
                let Some((_, conn)) = self.sides[i].conn.as_mut() else { return };
                match conn.poll_transmit(now, 1, &mut self.buf) {
                    Some(t) => {
                        self.send(i, ctx, t.size);
                        sent = true;
                    }
                    None => break,
                }
            }
            if !any && !sent {
                break;
            }
        }
        let Some((_, conn)) = self.sides[i].conn.as_mut() else { return };
        if let Some(at) = conn.poll_timeout() {
            let at = self.ns(at).max(ctx.now);
            let s = &mut self.sides[i];
            if s.timer_at.is_none_or(|t| at < t) {
                s.timer_at = Some(at);
                ctx.q.push(at, Event::Quic { ep: s.ep.0 });
            }
        }
    }

    /// A copy of the server's controller, as the adapter runs it (tests).
    #[cfg(test)]
    pub(crate) fn server_controller(&self) -> Option<cc_adapter::SatcpCc> {
        let (_, conn) = self.sides[0].conn.as_ref()?;
        let watch = conn.congestion_state().clone_box().into_any().downcast::<flight::FlightWatch>().ok()?;
        watch.inner.into_any().downcast::<cc_adapter::SatcpCc>().ok().map(|b| *b)
    }

    pub fn counters(&self) -> QuicCounters {
        let (srv, cli) = (&self.sides[0], &self.sides[1]);
        let mut c = QuicCounters {
            bytes_delivered: cli.reader.delivered,
            integrity_errors: cli.reader.integrity_errors,
            aborted: srv.lost || cli.lost,
            ptos: srv.ptos + cli.ptos,
            // with 0-RTT accepted, the client's data left with its first
            // flight: it waited for no handshake
            handshake_ns: match (cli.first_sent_at, cli.connected_at, &cli.conn) {
                (Some(_), Some(_), Some((_, c))) if c.accepted_0rtt() => Some(0),
                (Some(a), Some(b), _) => Some(b - a),
                _ => None,
            },
            ..QuicCounters::default()
        };
        if let Some((_, conn)) = &srv.conn {
            let st = conn.stats();
            c.datagrams_sent += st.udp_tx.datagrams;
            c.lost_packets += st.path.lost_packets;
            c.lost_bytes += st.path.lost_bytes;
            c.congestion_events += st.path.congestion_events;
            c.cwnd = conn.congestion_state().window();
            // a closed connection sends nothing but CONNECTION_CLOSE and
            // expects no acknowledgement: nothing is in flight
            c.flight = if conn.is_closed() { Some(0) } else { flight::flight_of(conn.congestion_state()) };
            c.srtt_ns = Some(conn.rtt().as_nanos() as f64);
        }
        if let Some((_, conn)) = &cli.conn {
            let st = conn.stats();
            c.datagrams_sent += st.udp_tx.datagrams;
            c.bytes_received = st.udp_rx.bytes;
            c.client_acks = st.frame_tx.acks;
            c.lost_packets += st.path.lost_packets;
            c.lost_bytes += st.path.lost_bytes;
        }
        c
    }
}

/// Whether `bytes` at stream offset `offset` are the pattern's (byte i is
/// i mod 251), compared a slice of `pattern` at a time (a memcmp: checking
/// byte by byte with a division each was a fifth of a QUIC run's time).
fn follows_pattern(bytes: &[u8], offset: u64, pattern: &[u8]) -> bool {
    let mut start = (offset % PATTERN_PERIOD as u64) as usize;
    bytes.chunks(WRITE_CHUNK).all(|piece| {
        let ok = piece == &pattern[start..start + piece.len()];
        start = (start + piece.len()) % PATTERN_PERIOD;
        ok
    })
}

/// Read what the streams being read hold, checking each byte against the
/// pattern (each stream starts it at 0) and each chunk's offset against
/// what came before on its stream; note the bytes read on all streams
/// together, and the push stream's end as the peer's close. Whether some
/// stream was read to its end (its FIN arrived and every byte before it
/// has been read).
fn read(r: &mut Reader, ep: EpId, conn: &mut Connection, ctx: &mut Ctx, pattern: &[u8]) -> bool {
    let before = r.delivered;
    let mut ended_push = false;
    let mut ended_any = false;
    r.streams.retain_mut(|st| {
        let mut stream = conn.recv_stream(st.id);
        let Ok(mut chunks) = stream.read(true) else { return true };
        let mut ended = false;
        loop {
            match chunks.next(usize::MAX) {
                Ok(Some(chunk)) => {
                    if chunk.offset != st.read {
                        r.integrity_errors += 1;
                    }
                    r.integrity_errors += !follows_pattern(&chunk.bytes, chunk.offset, pattern) as u64;
                    st.read = chunk.offset + chunk.bytes.len() as u64;
                    r.delivered += chunk.bytes.len() as u64;
                }
                Ok(None) => {
                    ended = true;
                    break;
                }
                Err(_) => break,
            }
        }
        let _ = chunks.finalize();
        ended_push |= ended && st.push;
        ended_any |= ended;
        !ended
    });
    if r.delivered > before {
        ctx.notes.push(Note::Delivered { ep: ep.0, total: r.delivered });
    }
    if ended_push {
        r.peer_closed = true;
        ctx.notes.push(Note::PeerClosed { ep: ep.0 });
    }
    ended_any
}

/// Write the requests and answers in order: a request opens its stream
/// when the peer's limits allow one (the client learns them in the
/// handshake) and is read back for its answer; each ends its stream, which
/// then waits in `unacked` for the peer's acknowledgement of all of it.
fn write_jobs(jobs: &mut std::collections::VecDeque<Job>, r: &mut Reader, unacked: &mut Vec<StreamId>, conn: &mut Connection, pattern: &[u8]) {
    while let Some(j) = jobs.front_mut() {
        if j.stream.is_none() {
            let Some(id) = conn.streams().open(Dir::Bi) else { return };
            j.stream = Some(id);
            r.streams.push(Reading { id, read: 0, push: false });
        }
        let id = j.stream.expect("opened");
        while j.written < j.len {
            let start = (j.written % PATTERN_PERIOD as u64) as usize;
            let n = (j.len - j.written).min(WRITE_CHUNK as u64) as usize;
            match conn.send_stream(id).write(&pattern[start..start + n]) {
                Ok(k) if k > 0 => j.written += k as u64,
                _ => return,
            }
        }
        if conn.send_stream(id).finish().is_ok() {
            unacked.push(id);
        }
        jobs.pop_front();
    }
}

/// Hand quinn what the application has written and it will take; finish
/// the stream when all is taken and the application closed.
fn write(w: &mut Writer, conn: &mut Connection, pattern: &[u8]) {
    if w.finished || (w.asked == 0 && !w.close) {
        return;
    }
    if w.stream.is_none() {
        // once the peer's transport parameters allow a stream
        w.stream = conn.streams().open(Dir::Uni);
    }
    let Some(id) = w.stream else { return };
    while w.written < w.asked {
        let start = (w.written % PATTERN_PERIOD as u64) as usize;
        let n = (w.asked - w.written).min(WRITE_CHUNK as u64) as usize;
        match conn.send_stream(id).write(&pattern[start..start + n]) {
            Ok(k) if k > 0 => w.written += k as u64,
            _ => break,
        }
    }
    if w.written == w.asked && w.close && conn.send_stream(id).finish().is_ok() {
        w.finished = true;
    }
}
