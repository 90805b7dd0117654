// Measures the TLS 1.3 handshake messages quinn-proto 0.11.19 + rustls (ring)
// write, by wrapping quinn's rustls sessions and recording what each
// write_handshake call appends (docs/models/quic.md, the null crypto's sizes).
use bytes::BytesMut;
use quinn_proto::crypto::{self, rustls::{QuicClientConfig, QuicServerConfig}};
use quinn_proto::{ClientConfig, ConnectionHandle, DatagramEvent, Endpoint, EndpointConfig, ServerConfig, transport_parameters::TransportParameters, ConnectionId, Side, TransportError, ConnectError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use std::any::Any;

type Log = Arc<Mutex<Vec<(String, usize, bool)>>>;

struct W { inner: Box<dyn crypto::Session>, side: &'static str, log: Log }
impl crypto::Session for W {
    fn initial_keys(&self, d: &ConnectionId, s: Side) -> crypto::Keys { self.inner.initial_keys(d, s) }
    fn handshake_data(&self) -> Option<Box<dyn Any>> { self.inner.handshake_data() }
    fn peer_identity(&self) -> Option<Box<dyn Any>> { self.inner.peer_identity() }
    fn early_crypto(&self) -> Option<(Box<dyn crypto::HeaderKey>, Box<dyn crypto::PacketKey>)> { self.inner.early_crypto() }
    fn early_data_accepted(&self) -> Option<bool> { self.inner.early_data_accepted() }
    fn is_handshaking(&self) -> bool { self.inner.is_handshaking() }
    fn read_handshake(&mut self, b: &[u8]) -> Result<bool, TransportError> { self.inner.read_handshake(b) }
    fn transport_parameters(&self) -> Result<Option<TransportParameters>, TransportError> { self.inner.transport_parameters() }
    fn write_handshake(&mut self, buf: &mut Vec<u8>) -> Option<crypto::Keys> {
        let n = buf.len();
        let k = self.inner.write_handshake(buf);
        if buf.len() > n || k.is_some() { self.log.lock().unwrap().push((self.side.to_string(), buf.len() - n, k.is_some())); }
        k
    }
    fn next_1rtt_keys(&mut self) -> Option<crypto::KeyPair<Box<dyn crypto::PacketKey>>> { self.inner.next_1rtt_keys() }
    fn is_valid_retry(&self, a: &ConnectionId, h: &[u8], p: &[u8]) -> bool { self.inner.is_valid_retry(a, h, p) }
    fn export_keying_material(&self, o: &mut [u8], l: &[u8], c: &[u8]) -> Result<(), crypto::ExportKeyingMaterialError> { self.inner.export_keying_material(o, l, c) }
}
struct CC(Arc<QuicClientConfig>, Log);
impl crypto::ClientConfig for CC {
    fn start_session(self: Arc<Self>, v: u32, n: &str, p: &TransportParameters) -> Result<Box<dyn crypto::Session>, ConnectError> {
        Ok(Box::new(W { inner: self.0.clone().start_session(v, n, p)?, side: "client", log: self.1.clone() }))
    }
}
struct SC(Arc<QuicServerConfig>, Log);
impl crypto::ServerConfig for SC {
    fn initial_keys(&self, v: u32, d: &ConnectionId) -> Result<crypto::Keys, crypto::UnsupportedVersion> { self.0.initial_keys(v, d) }
    fn retry_tag(&self, v: u32, o: &ConnectionId, p: &[u8]) -> [u8; 16] { self.0.retry_tag(v, o, p) }
    fn start_session(self: Arc<Self>, v: u32, p: &TransportParameters) -> Box<dyn crypto::Session> {
        Box::new(W { inner: self.0.clone().start_session(v, p), side: "server", log: self.1.clone() })
    }
}

fn main() {
    let log: Log = Default::default();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let cert_der = cert.cert.der().clone();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.key_pair.serialize_der().into());
    eprintln!("certificate DER: {} bytes", cert_der.len());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut sc = rustls::ServerConfig::builder_with_provider(provider.clone()).with_protocol_versions(&[&rustls::version::TLS13]).unwrap()
        .with_no_client_auth().with_single_cert(vec![cert_der.clone()], key).unwrap();
    sc.alpn_protocols = vec![b"h3".to_vec()];
    // 0-RTT on (quinn takes 0 or u32::MAX); the second connection resumes
    sc.max_early_data_size = u32::MAX;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert_der).unwrap();
    let mut cc = rustls::ClientConfig::builder_with_provider(provider).with_protocol_versions(&[&rustls::version::TLS13]).unwrap()
        .with_root_certificates(roots).with_no_client_auth();
    cc.alpn_protocols = vec![b"h3".to_vec()];
    cc.enable_early_data = true;
    let qsc = Arc::new(QuicServerConfig::try_from(sc).unwrap());
    let qcc = Arc::new(QuicClientConfig::try_from(cc).unwrap());
    let server_cfg = Arc::new(ServerConfig::with_crypto(Arc::new(SC(qsc, log.clone()))));
    let client_cfg = ClientConfig::new(Arc::new(CC(qcc, log.clone())));
    let mut se = Endpoint::new(Arc::new(EndpointConfig::default()), Some(server_cfg), true, None);
    let mut ce = Endpoint::new(Arc::new(EndpointConfig::default()), None, true, None);
    // a full handshake, then one resumed from its ticket with 0-RTT
    for conn in ["full", "resumed"] {
    println!("{conn} handshake:");
    log.lock().unwrap().clear();
    let client_cfg = client_cfg.clone();
    let sa = "10.0.0.1:443".parse().unwrap();
    let ca = "10.0.0.2:50000".parse().unwrap();
    let mut now = Instant::now();
    let (_cch, mut cc) = ce.connect(now, client_cfg, sa, "localhost").unwrap();
    if conn == "resumed" {
        // a request in 0-RTT, as the resumed client sends it
        let id = cc.streams().open(quinn_proto::Dir::Bi).expect("0-RTT: the ticket's limits");
        cc.send_stream(id).write(&[0u8; 300]).unwrap();
        eprintln!("0-RTT enabled: {}", cc.has_0rtt());
    }
    let mut sconn: Option<(ConnectionHandle, quinn_proto::Connection)> = None;
    let mut buf = Vec::new();
    for round in 0..6 {
        // client -> server
        let mut dgs = vec![];
        loop { buf.clear(); match cc.poll_transmit(now, 1, &mut buf) { Some(t) => dgs.push(buf[..t.size].to_vec()), None => break } }
        eprintln!("round {round}: client sends {:?}", dgs.iter().map(|d| d.len()).collect::<Vec<_>>());
        now += Duration::from_millis(50);
        for d in dgs {
            let mut resp = Vec::new();
            match se.handle(now, ca, None, None, BytesMut::from(&d[..]), &mut resp) {
                Some(DatagramEvent::NewConnection(inc)) => { sconn = Some(se.accept(inc, now, &mut resp, None).unwrap()); }
                Some(DatagramEvent::ConnectionEvent(_, ev)) => sconn.as_mut().unwrap().1.handle_event(ev),
                _ => {}
            }
        }
        let (sch, sc) = sconn.as_mut().unwrap();
        while let Some(ev) = sc.poll_endpoint_events() { if let Some(e) = se.handle_event(*sch, ev) { sc.handle_event(e) } }
        while sc.poll().is_some() {}
        let mut dgs = vec![];
        loop { buf.clear(); match sc.poll_transmit(now, 1, &mut buf) { Some(t) => dgs.push(buf[..t.size].to_vec()), None => break } }
        eprintln!("round {round}: server sends {:?}", dgs.iter().map(|d| d.len()).collect::<Vec<_>>());
        now += Duration::from_millis(50);
        for d in dgs {
            let mut resp = Vec::new();
            if let Some(DatagramEvent::ConnectionEvent(_, ev)) = ce.handle(now, sa, None, None, BytesMut::from(&d[..]), &mut resp) { cc.handle_event(ev) }
        }
        while let Some(ev) = cc.poll() { eprintln!("client event {ev:?}"); }
    }
    eprintln!("0-RTT accepted: {}", cc.accepted_0rtt());
    for (side, n, keys) in log.lock().unwrap().iter() { println!("{side}: wrote {n} bytes, keys changed: {keys}"); }
    drop(sconn);
    }
}
