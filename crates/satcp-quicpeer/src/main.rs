//! satcp-quicpeer: quinn on real UDP sockets and the real clock, the peer
//! of satcp's QUIC cross-check (`python -m satcp.crosscheck_quic`, `make
//! crosscheck-quic`, docs/validation-quic.md). The same quinn-proto as
//! satcp's simulated QUIC flows (0.11.19) under quinn's tokio runtime, with
//! the settings a satcp `quic` table gives it, so the simulator's handling
//! of time (timers, pacing, the event loop) is what the comparison checks,
//! not the protocol.
//!
//!   satcp-quicpeer server listen=10.77.0.1:4433 size=10000000 cert=/tmp/c.der
//!       [cc=cubic|newreno] [initial_window=BYTES]
//!   satcp-quicpeer client connect=10.77.0.1:4433 cert=/tmp/c.der
//!       [cc=...] [initial_window=...]
//!
//! As in satcp's FTP over QUIC (`request = 0`): the server pushes `size`
//! bytes (byte i is i mod 251) on a unidirectional stream as soon as it has
//! accepted the connection (0.5-RTT data: `Connecting::into_0rtt`) and ends it; the client reads it, checks every
//! byte, closes the connection (code 0) and prints one JSON line: the
//! handshake (from connect() to the connection being established), the
//! completion (connect() to the last byte read), bytes and integrity
//! errors, and quinn's path statistics (lost packets, congestion events).
//! The server writes a self-signed certificate (rcgen) to `cert=` and
//! prints `ready`; the client trusts that certificate alone. TLS 1.3 with
//! rustls on ring, quinn's defaults otherwise (initial RTT 333 ms, pacing,
//! path-MTU discovery from 1,200 bytes, flow-control windows).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use quinn::congestion::{CubicConfig, NewRenoConfig};
use quinn::{ClientConfig, Endpoint, ServerConfig, TransportConfig, VarInt};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

struct Args(Vec<(String, String)>);

impl Args {
    fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str())
    }
    fn need(&self, k: &str) -> &str {
        self.get(k).unwrap_or_else(|| fail(&format!("{k}=... is required")))
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

fn transport(a: &Args) -> Arc<TransportConfig> {
    let mut t = TransportConfig::default();
    let iw = a.get("initial_window").map(|v| v.parse::<u64>().unwrap_or_else(|_| fail(&format!("initial_window={v}: bytes, an integer"))));
    match a.get("cc").unwrap_or("cubic") {
        "cubic" => {
            let mut c = CubicConfig::default();
            if let Some(w) = iw {
                c.initial_window(w);
            }
            t.congestion_controller_factory(Arc::new(c));
        }
        "newreno" => {
            let mut c = NewRenoConfig::default();
            if let Some(w) = iw {
                c.initial_window(w);
            }
            t.congestion_controller_factory(Arc::new(c));
        }
        other => fail(&format!("cc={other}: cubic or newreno (quinn's own controllers)")),
    }
    Arc::new(t)
}

fn addr(a: &Args, k: &str) -> SocketAddr {
    let v = a.need(k);
    v.parse().unwrap_or_else(|_| fail(&format!("{k}={v}: an address ip:port")))
}

async fn server(a: Args) {
    let size: u64 = a.need("size").parse().unwrap_or_else(|_| fail("size: bytes, an integer"));
    let cert = rcgen::generate_simple_self_signed(vec!["satcp".into()]).expect("a certificate");
    let der = CertificateDer::from(cert.cert.der().to_vec());
    std::fs::write(a.need("cert"), der.as_ref()).unwrap_or_else(|e| fail(&format!("cert: {e}")));
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der()));
    let mut cfg = ServerConfig::with_single_cert(vec![der], key).expect("a server configuration");
    cfg.transport_config(transport(&a));
    let ep = Endpoint::server(cfg, addr(&a, "listen")).unwrap_or_else(|e| fail(&format!("listen: {e}")));
    println!("ready");
    // as satcp's server: it writes as soon as it has accepted the
    // connection (0.5-RTT data), not once the handshake is confirmed
    let connecting = ep.accept().await.expect("a connection").accept().expect("the connection accepted");
    let conn = match connecting.into_0rtt() {
        Ok((c, _)) => c,
        Err(c) => c.await.expect("the handshake"),
    };
    let mut s = conn.open_uni().await.expect("a stream");
    let pattern: Vec<u8> = (0..251u32 * 256).map(|i| (i % 251) as u8).collect();
    let mut off = 0u64;
    while off < size {
        // chunks of a multiple of 251 bytes keep the pattern aligned
        let n = (size - off).min(pattern.len() as u64) as usize;
        s.write_all(&pattern[..n]).await.expect("the stream");
        off += n as u64;
    }
    s.finish().expect("the stream's end");
    conn.closed().await;
    let st = conn.stats();
    println!(
        "{}",
        serde_json::json!({"side": "server", "lost_packets": st.path.lost_packets, "lost_bytes": st.path.lost_bytes,
            "congestion_events": st.path.congestion_events, "sent_packets": st.path.sent_packets,
            "cwnd": st.path.cwnd, "rtt_ms": st.path.rtt.as_secs_f64() * 1e3})
    );
}

async fn client(a: Args) {
    let der = std::fs::read(a.need("cert")).unwrap_or_else(|e| fail(&format!("cert: {e}")));
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(der)).expect("the server's certificate");
    let mut cfg = ClientConfig::with_root_certificates(Arc::new(roots)).expect("a client configuration");
    cfg.transport_config(transport(&a));
    let mut ep = Endpoint::client("0.0.0.0:0".parse().unwrap()).expect("a socket");
    ep.set_default_client_config(cfg);
    let t0 = Instant::now();
    let conn = ep.connect(addr(&a, "connect"), "satcp").expect("connect").await.expect("the handshake");
    let handshake = t0.elapsed();
    let mut r = conn.accept_uni().await.expect("the server's stream");
    let mut buf = vec![0u8; 1 << 16];
    let (mut got, mut bad) = (0u64, 0u64);
    while let Some(n) = r.read(&mut buf).await.expect("the stream") {
        for (i, b) in buf[..n].iter().enumerate() {
            bad += (*b != ((got + i as u64) % 251) as u8) as u64;
        }
        got += n as u64;
    }
    let completion = t0.elapsed();
    conn.close(VarInt::from_u32(0), b"done");
    let st = conn.stats();
    ep.wait_idle().await;
    println!(
        "{}",
        serde_json::json!({"side": "client", "handshake_s": handshake.as_secs_f64(), "completion_s": completion.as_secs_f64(),
            "bytes": got, "integrity_errors": bad, "rtt_ms": st.path.rtt.as_secs_f64() * 1e3})
    );
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let role = argv.next().unwrap_or_default();
    let args = Args(
        argv.map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => fail(&format!("{kv}: expected key=value")),
        })
        .collect(),
    );
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    match role.as_str() {
        "server" => rt.block_on(server(args)),
        "client" => rt.block_on(client(args)),
        _ => fail("usage: satcp-quicpeer server|client key=value ..."),
    }
}
