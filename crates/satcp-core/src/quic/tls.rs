//! `quic.crypto = "tls"` (cargo feature `tls`): real TLS 1.3 through
//! quinn's rustls provider on ring (`quinn_proto::crypto::rustls`), so a
//! run can be compared with the null crypto's (docs/models/quic.md).
//!
//! * The server presents a self-signed Ed25519 certificate for "satcp"
//!   (`tls/cert.der`, 285 bytes, and its PKCS#8 key `tls/key.der`),
//!   generated once with rcgen 0.13 and kept as files, so every run uses the
//!   same one; the client trusts exactly it. ALPN "h3", TLS 1.3 only,
//!   rustls's default cipher suites (AES-256-GCM first) and session tickets.
//! * Reproducibility: rustls draws its client random, key shares and
//!   tickets from ring's system random generator, which cannot be seeded
//!   through quinn, so the bytes of a `tls` run differ from run to run.
//!   Their sizes do not: the X25519 share, the Ed25519 signature
//!   (deterministic, always 64 bytes; an ECDSA signature's DER length
//!   varies by a byte or two, which is why the certificate is Ed25519) and
//!   the tickets are of fixed size, and AEAD nonces come from packet
//!   numbers; so the summaries of two runs are the same bits
//!   (`tls_runs_give_the_same_summaries`). What varies is only content
//!   nobody in the simulator reads.
//! * The certificate check reads a fixed wall time (2026-01-01) instead of
//!   the clock: no system time reaches a run's results.
//! * 0-RTT (`quic.zero_rtt = true`): the client enables early data and
//!   keeps its session tickets in a store that says when one has arrived
//!   (`TicketStore`), the server accepts early data (QUIC allows only
//!   `max_early_data_size` = 2^32 - 1) and issues rustls's default two
//!   TLS 1.3 tickets from its in-memory session cache (stateful tickets:
//!   32 random bytes, so of fixed size). The earlier connection the ticket
//!   comes from runs in memory before the run (`resumption.rs`). Both
//!   sides read the same fixed time, so the ticket's age is 0 and the
//!   server's age check always passes (the simulated delay between the two
//!   connections is not modelled; a real client resuming within the
//!   ticket's lifetime sees the same outcome). The resumed handshake
//!   carries no certificate: its sizes are rustls's, as measured in
//!   `tls_zero_rtt_sends_the_request_with_the_first_flight`.

use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::crypto::{ClientConfig, ServerConfig};
use quinn_proto::rustls;
use rustls::client::{ClientSessionMemoryCache, ClientSessionStore, Resumption, Tls12ClientSessionValue, Tls13ClientSessionValue};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::NamedGroup;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const CERT: &[u8] = include_bytes!("tls/cert.der");
const KEY: &[u8] = include_bytes!("tls/key.der");

#[derive(Debug)]
struct FixedTime;

impl rustls::time_provider::TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(Duration::from_secs(1_767_225_600)))
    }
}

/// A client's session store that counts the TLS 1.3 tickets it was given
/// (rustls's in-memory cache does the storing).
#[derive(Debug)]
pub struct TicketStore {
    cache: ClientSessionMemoryCache,
    tickets: AtomicU64,
}

impl TicketStore {
    fn new() -> Self {
        Self { cache: ClientSessionMemoryCache::new(4), tickets: AtomicU64::new(0) }
    }

    /// Whether a ticket has arrived.
    pub fn has_ticket(&self) -> bool {
        self.tickets.load(Ordering::Relaxed) > 0
    }
}

impl ClientSessionStore for TicketStore {
    fn set_kx_hint(&self, server_name: ServerName<'static>, group: NamedGroup) {
        self.cache.set_kx_hint(server_name, group);
    }
    fn kx_hint(&self, server_name: &ServerName<'_>) -> Option<NamedGroup> {
        self.cache.kx_hint(server_name)
    }
    fn set_tls12_session(&self, server_name: ServerName<'static>, value: Tls12ClientSessionValue) {
        self.cache.set_tls12_session(server_name, value);
    }
    fn tls12_session(&self, server_name: &ServerName<'_>) -> Option<Tls12ClientSessionValue> {
        self.cache.tls12_session(server_name)
    }
    fn remove_tls12_session(&self, server_name: &ServerName<'static>) {
        self.cache.remove_tls12_session(server_name);
    }
    fn insert_tls13_ticket(&self, server_name: ServerName<'static>, value: Tls13ClientSessionValue) {
        self.tickets.fetch_add(1, Ordering::Relaxed);
        self.cache.insert_tls13_ticket(server_name, value);
    }
    fn take_tls13_ticket(&self, server_name: &ServerName<'static>) -> Option<Tls13ClientSessionValue> {
        self.cache.take_tls13_ticket(server_name)
    }
}

/// The client's and the server's configurations; with `zero_rtt`, early
/// data enabled on both and the client's ticket store.
pub fn configs(zero_rtt: bool) -> (Arc<dyn ClientConfig>, Arc<dyn ServerConfig>, Option<Arc<TicketStore>>) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cert = CertificateDer::from(CERT.to_vec());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY.to_vec()));
    let mut server = rustls::ServerConfig::builder_with_details(provider.clone(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![cert.clone()], key)
        .expect("the stored key signs the stored certificate");
    server.alpn_protocols = vec![b"h3".to_vec()];
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).expect("the stored certificate parses");
    let mut client = rustls::ClientConfig::builder_with_details(provider, Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring supports TLS 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    client.alpn_protocols = vec![b"h3".to_vec()];
    let store = zero_rtt.then(|| Arc::new(TicketStore::new()));
    if let Some(store) = &store {
        client.resumption = Resumption::store(store.clone());
        client.enable_early_data = true;
        server.max_early_data_size = u32::MAX;
    }
    let client = QuicClientConfig::try_from(client).expect("a TLS 1.3 configuration with an initial suite");
    let server = QuicServerConfig::try_from(server).expect("a TLS 1.3 configuration with an initial suite");
    (Arc::new(client), Arc::new(server), store)
}
