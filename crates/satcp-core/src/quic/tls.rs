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

use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::crypto::{ClientConfig, ServerConfig};
use quinn_proto::rustls;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
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

/// The client's and the server's configurations.
pub fn configs() -> (Arc<dyn ClientConfig>, Arc<dyn ServerConfig>) {
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
    let client = QuicClientConfig::try_from(client).expect("a TLS 1.3 configuration with an initial suite");
    let server = QuicServerConfig::try_from(server).expect("a TLS 1.3 configuration with an initial suite");
    (Arc::new(client), Arc::new(server))
}
