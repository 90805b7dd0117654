//! The earlier connection a 0-RTT flow resumes from (`quic.zero_rtt`,
//! docs/models/quic.md): before the run starts, a client and a server
//! with the flow's own configurations complete one handshake in memory
//! (no network, no simulated time), so that the client's crypto
//! configuration holds the server's session ticket (with the null crypto:
//! its transport parameters, `null_crypto.rs`; with TLS: rustls's ticket
//! in the client's session store, `tls.rs`). The flow's own connection
//! then resumes from it and sends its first data in 0-RTT packets.
//!
//! * What the ticket stands for: the client talked to this server before
//!   (an earlier page load, an earlier session), with the same settings;
//!   nothing of that connection's timing or window is kept (that is
//!   Careful Resume's business, not 0-RTT's).
//! * Determinism: the two endpoints are seeded with constants (their
//!   connection IDs and random bits never reach the flow's connection),
//!   and the flow's own random streams are not drawn from, so a flow with
//!   `zero_rtt` differs from one without only by the resumption.

use super::null_crypto::NullHmac;
use super::{addr, SeededCids};
use crate::sim::Rng;
use bytes::BytesMut;
use quinn_proto::{ClientConfig, DatagramEvent, Endpoint, EndpointConfig, ServerConfig, TransportConfig};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Round trips the handshake takes at most before the client has its
/// ticket (the null crypto's and TLS 1.3's take 2: the ticket follows the
/// client's Finished).
const ROUNDS: usize = 8;

/// Complete one handshake between a client of crypto configuration
/// `client` (which keeps the ticket; `has_ticket` says when it has one)
/// and a server of `server`, both with `transport`, at instant `now`.
pub fn obtain_ticket(
    client: Arc<dyn quinn_proto::crypto::ClientConfig>,
    has_ticket: &dyn Fn() -> bool,
    transport: Arc<TransportConfig>,
    server: Arc<ServerConfig>,
    mut now: Instant,
) {
    let endpoint = |seed: u64, server: Option<Arc<ServerConfig>>| {
        let mut ec = EndpointConfig::new(Arc::new(NullHmac { key: seed }));
        ec.cid_generator(move || Box::new(SeededCids { rng: Rng::new(seed, 1) }));
        ec.rng_seed(Some([seed as u8; 32]));
        Endpoint::new(Arc::new(ec), server, true, None)
    };
    let mut se = endpoint(1, Some(server));
    let mut ce = endpoint(2, None);
    let (sa, ca) = (addr(0, 443), addr(1, 50_000));
    let mut cfg = ClientConfig::new(client);
    cfg.transport_config(transport);
    let (_, mut cc) = ce.connect(now, cfg, sa, "satcp").expect("a fresh client endpoint connects");
    let mut sc = None;
    let mut buf = Vec::new();
    for _ in 0..ROUNDS {
        let mut datagrams = Vec::new();
        while let Some(t) = cc.poll_transmit(now, 1, &mut buf) {
            datagrams.push(BytesMut::from(&buf[..t.size]));
            buf.clear();
        }
        now += Duration::from_millis(10);
        for d in datagrams {
            let mut response = Vec::new();
            match se.handle(now, ca, None, None, d, &mut response) {
                Some(DatagramEvent::NewConnection(incoming)) => {
                    sc = Some(se.accept(incoming, now, &mut response, None).expect("the server accepts"));
                }
                Some(DatagramEvent::ConnectionEvent(_, ev)) => {
                    sc.as_mut().expect("accepted").1.handle_event(ev);
                }
                _ => {}
            }
        }
        let (sh, s) = sc.as_mut().expect("the client's Initial arrived");
        while let Some(ev) = s.poll_endpoint_events() {
            if let Some(e) = se.handle_event(*sh, ev) {
                s.handle_event(e);
            }
        }
        while s.poll().is_some() {}
        let mut datagrams = Vec::new();
        while let Some(t) = s.poll_transmit(now, 1, &mut buf) {
            datagrams.push(BytesMut::from(&buf[..t.size]));
            buf.clear();
        }
        now += Duration::from_millis(10);
        for d in datagrams {
            let mut response = Vec::new();
            if let Some(DatagramEvent::ConnectionEvent(_, ev)) = ce.handle(now, sa, None, None, d, &mut response) {
                cc.handle_event(ev);
            }
        }
        while cc.poll().is_some() {}
        if has_ticket() {
            return;
        }
    }
    panic!("no session ticket after {ROUNDS} round trips of an in-memory handshake");
}
