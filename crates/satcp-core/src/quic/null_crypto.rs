//! The null crypto of QUIC flows (`quic.crypto = "null"`, the default): a
//! `quinn_proto::crypto::Session` that runs TLS 1.3's handshake *shape*
//! (RFC 9001 section 4, RFC 8446 section 2) with none of its arithmetic.
//!
//! * Flights: the client's Initial carries a ClientHello; the server answers
//!   with a ServerHello in its Initial and EncryptedExtensions, Certificate,
//!   CertificateVerify and Finished in its Handshake packets, then has 1-RTT
//!   keys (0.5-RTT data may follow); the client, on the server's Finished,
//!   sends its own Finished in a Handshake packet and has 1-RTT keys. The
//!   keys are handed to quinn at the same calls as quinn's rustls session
//!   hands them (`write_handshake` returns Handshake keys with the bytes of
//!   the ServerHello, 1-RTT keys with the server's Finished, and the
//!   client's with its Finished), so quinn's packet spaces, coalescing and
//!   acknowledgements are those of a TLS run.
//! * Sizes: each message is a 4-byte header (type, 24-bit length, as a TLS
//!   handshake message) and a body padded to the sizes in `HandshakeSizes`
//!   (the defaults are in `docs/models/quic.md`: what they stand for and
//!   where they come from). The QUIC transport parameters ride inside the
//!   ClientHello and EncryptedExtensions as they do in TLS, encoded by
//!   quinn itself, so their real size counts; a body shorter than them
//!   grows to hold them.
//! * Packet protection: no cipher. `encrypt` leaves the payload as it is
//!   and the 16 bytes quinn reserves for the AEAD tag (AES-128-GCM's and
//!   ChaCha20-Poly1305's length) stay on the wire as zeros; `decrypt` drops
//!   them. Header protection is a no-op with AES's 16-byte sample, so quinn
//!   pads short packets exactly as with real keys. Packet sizes are
//!   therefore those of real QUIC byte for byte.
//! * Nothing here draws randomness: a run is reproducible from its seed.
//!   Stateless-reset tokens and address-validation tokens (unused: no
//!   Retry, no NEW_TOKEN, `quic/mod.rs`) get a keyed non-cryptographic hash
//!   and a null AEAD of the same lengths as quinn's ring-backed ones.
//!
//! * Resumption with 0-RTT (`quic.zero_rtt`, `NullConfig::zero_rtt`):
//!   the server's NewSessionTicket carries its transport parameters (as a
//!   TLS ticket lets a client remember them, RFC 9000 section 7.4.1); the
//!   client keeps the last one in its configuration. A client session
//!   started with a ticket sends the resumed ClientHello (its padding's
//!   first byte 1: "a PSK and early data", standing in for TLS's
//!   pre_shared_key and early_data extensions), hands quinn 0-RTT keys at
//!   once and the remembered parameters, so quinn sends application data in
//!   0-RTT packets with its first flight; the server accepts (a TLS server
//!   with `max_early_data_size` set, as quinn configures it, holding the
//!   ticket's key), says so in its flight (the same byte), and hands quinn
//!   0-RTT keys after the ClientHello. A resumed handshake has no
//!   Certificate or CertificateVerify and larger hellos: `RESUMED`.
//!
//! Ambiguity: a real TLS stack may split its server flight differently
//! across packets (quinn fills each packet to its budget either way, so only
//! the total counts) and a certificate's size varies; the sizes are
//! parameters, not guesses baked in.

use bytes::BytesMut;
use quinn_proto::crypto::{
    self, CryptoError, ExportKeyingMaterialError, HeaderKey, KeyPair, Keys, PacketKey, UnsupportedVersion,
};
use quinn_proto::transport_parameters::TransportParameters;
use quinn_proto::{ConnectError, ConnectionId, Side, TransportError, TransportErrorCode};
use std::any::Any;
use std::sync::{Arc, Mutex};

/// AEAD tag length of TLS 1.3's QUIC cipher suites (RFC 9001 section 5.3).
pub const TAG_LEN: usize = 16;
/// Header-protection sample length (RFC 9001 section 5.4.2).
const SAMPLE_LEN: usize = 16;

/// Message types (TLS 1.3's handshake type codes where one exists).
const CLIENT_HELLO: u8 = 1;
const SERVER_HELLO: u8 = 2;
/// The server's NewSessionTickets after the handshake, as one message.
const NEW_SESSION_TICKET: u8 = 4;
/// EncryptedExtensions, Certificate, CertificateVerify and Finished as one
/// message of their summed size (they always travel together).
const SERVER_FLIGHT: u8 = 8;
const FINISHED: u8 = 20;

/// The sizes of the handshake messages, each with its 4-byte header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandshakeSizes {
    pub client_hello: u32,
    pub server_hello: u32,
    /// EncryptedExtensions + Certificate + CertificateVerify + Finished.
    pub server_flight: u32,
    pub client_finished: u32,
    /// The NewSessionTicket messages the server sends in 1-RTT packets once
    /// it has the client's Finished (0: none).
    pub session_tickets: u32,
}

impl HandshakeSizes {
    /// What quinn-proto 0.11.19 with rustls 0.23 (ring) writes, measured
    /// by wrapping its sessions (docs/models/quic.md): ALPN "h3", server
    /// name "localhost", an X25519 key share, quinn's transport parameters,
    /// TLS_AES_256_GCM_SHA384 (rustls's first choice: a 48-byte Finished),
    /// a 354-byte self-signed ECDSA P-256 certificate from rcgen 0.13, and
    /// rustls's default two session tickets.
    pub const DEFAULT: HandshakeSizes =
        HandshakeSizes { client_hello: 292, server_hello: 90, server_flight: 656, client_finished: 52, session_tickets: 162 };

    /// A handshake resumed from a ticket with 0-RTT, measured as `DEFAULT`
    /// (`scripts/quic_handshake_sizes` runs a full handshake and then one
    /// resumed with 0-RTT, rustls 0.23.46) and applied to `DEFAULT` as the
    /// differences it found: the ClientHello + 101 bytes (the
    /// pre_shared_key extension with the ticket's identity and a 48-byte
    /// binder, early_data, psk_key_exchange_modes), the ServerHello + 6
    /// (pre_shared_key), the server's flight without Certificate and
    /// CertificateVerify (- 451 bytes; EncryptedExtensions with
    /// early_data), the same Finished and tickets.
    pub const RESUMED: HandshakeSizes =
        HandshakeSizes { client_hello: 393, server_hello: 96, server_flight: 205, client_finished: 52, session_tickets: 162 };
}

/// One side's configuration (client and server share the type).
pub struct NullConfig {
    /// A full handshake's sizes.
    pub sizes: HandshakeSizes,
    /// Resumption with 0-RTT: the server puts its transport parameters in
    /// its ticket, a client keeps the last ticket it got and resumes from
    /// it (`RESUMED` sizes). Off: tickets carry nothing, no resumption.
    pub zero_rtt: bool,
    /// The client's last ticket: the server's encoded transport parameters.
    pub ticket: Mutex<Option<Vec<u8>>>,
}

impl NullConfig {
    pub fn new(sizes: HandshakeSizes, zero_rtt: bool) -> Self {
        NullConfig { sizes, zero_rtt, ticket: Mutex::new(None) }
    }

    /// Whether a client has a ticket to resume from.
    pub fn has_ticket(&self) -> bool {
        self.ticket.lock().expect("not poisoned").is_some()
    }
}

/// The byte after a message's transport parameters: 1 in a ClientHello
/// that resumes with early data, and in a server flight accepting it.
const EARLY_DATA: u8 = 1;

impl crypto::ClientConfig for NullConfig {
    fn start_session(
        self: Arc<Self>,
        _version: u32,
        _server_name: &str,
        params: &TransportParameters,
    ) -> Result<Box<dyn crypto::Session>, ConnectError> {
        let mut session = NullSession::new(Side::Client, self.sizes, params, self.clone());
        let ticket = if self.zero_rtt { self.ticket.lock().expect("not poisoned").clone() } else { None };
        if let Some(t) = ticket {
            // the server's parameters as the ticket remembers them
            let p = TransportParameters::read(Side::Client, &mut &t[..]).map_err(|_| ConnectError::EndpointStopping)?;
            session.peer_params = Some(p);
            session.resuming = true;
            session.sizes = HandshakeSizes::RESUMED;
        }
        Ok(Box::new(session))
    }
}

impl crypto::ServerConfig for NullConfig {
    fn initial_keys(&self, _version: u32, _dst_cid: &ConnectionId) -> Result<Keys, UnsupportedVersion> {
        Ok(keys())
    }

    fn retry_tag(&self, _version: u32, _orig_dst_cid: &ConnectionId, _packet: &[u8]) -> [u8; 16] {
        [0; 16]
    }

    fn start_session(self: Arc<Self>, _version: u32, params: &TransportParameters) -> Box<dyn crypto::Session> {
        Box::new(NullSession::new(Side::Server, self.sizes, params, self.clone()))
    }
}

/// Where a session is in the handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Client: ClientHello to write. Server: waiting for it.
    Start,
    /// Client: ClientHello written, waiting for the ServerHello.
    /// Server: ClientHello read, ServerHello (and Handshake keys) to write.
    Hello,
    /// Client: ServerHello read, Handshake keys to hand over.
    /// Server: ServerHello written, server flight (and 1-RTT keys) to write.
    Keys,
    /// Client: Handshake keys handed over, waiting for the server flight.
    /// Server: flight written, waiting for the client's Finished.
    Flight,
    /// Client: server flight read, Finished (and 1-RTT keys) to write.
    Finish,
    /// Server: the client's Finished read, session tickets to write.
    Tickets,
    Done,
}

pub struct NullSession {
    side: Side,
    sizes: HandshakeSizes,
    /// Our transport parameters, encoded by quinn.
    local_params: Vec<u8>,
    peer_params: Option<TransportParameters>,
    step: Step,
    /// Bytes of the peer's messages not yet parsed (a message may span
    /// several CRYPTO frames).
    inbox: Vec<u8>,
    handshake_data_ready: bool,
    config: Arc<NullConfig>,
    /// Client: started from a ticket, sending 0-RTT data. Server: the
    /// ClientHello resumes with early data (accepted).
    resuming: bool,
    /// Client: the server's flight accepted the early data.
    early_accepted: bool,
}

impl NullSession {
    fn new(side: Side, sizes: HandshakeSizes, params: &TransportParameters, config: Arc<NullConfig>) -> Self {
        let mut local_params = Vec::new();
        params.write(&mut local_params);
        NullSession {
            side,
            sizes,
            local_params,
            peer_params: None,
            step: Step::Start,
            inbox: Vec::new(),
            handshake_data_ready: false,
            config,
            resuming: false,
            early_accepted: false,
        }
    }

    /// One message: type, 24-bit length, the transport parameters if
    /// `params`, zero padding up to `size` bytes in all, its first byte
    /// `EARLY_DATA` if `early`.
    fn message(&self, kind: u8, size: u32, params: bool, early: bool, buf: &mut Vec<u8>) {
        let tp: &[u8] = if params { &self.local_params } else { &[] };
        // the body: 2-byte length of the parameters, them, padding
        let body = (size.saturating_sub(4) as usize).max(2 + tp.len() + early as usize);
        buf.push(kind);
        buf.extend_from_slice(&(body as u32).to_be_bytes()[1..]);
        buf.extend_from_slice(&(tp.len() as u16).to_be_bytes());
        buf.extend_from_slice(tp);
        let start = buf.len();
        buf.resize(start + body - 2 - tp.len(), 0);
        if early {
            buf[start] = EARLY_DATA;
        }
    }

    fn read_message(&mut self, kind: u8, body: &[u8]) -> Result<bool, TransportError> {
        if body.len() < 2 {
            return Err(TransportError {
                code: TransportErrorCode::PROTOCOL_VIOLATION,
                frame: None,
                reason: "null crypto: a message too short".to_string(),
            });
        }
        let bad = |what: &str| {
            Err(TransportError {
                code: TransportErrorCode::PROTOCOL_VIOLATION,
                frame: None,
                reason: format!("null crypto: {what}"),
            })
        };
        let tp_len = u16::from_be_bytes([body[0], body[1]]) as usize;
        if body.len() < 2 + tp_len {
            return bad("a message shorter than its transport parameters");
        }
        let early = body.get(2 + tp_len) == Some(&EARLY_DATA);
        // the messages TLS carries them in, even when they encode to nothing
        if kind == CLIENT_HELLO || kind == SERVER_FLIGHT {
            let mut tp = &body[2..2 + tp_len];
            // `read` takes the reading side (as quinn's rustls session passes it)
            match TransportParameters::read(self.side, &mut tp) {
                Ok(p) => self.peer_params = Some(p),
                Err(_) => return bad("unreadable transport parameters"),
            }
        }
        match (self.side, self.step, kind) {
            (Side::Server, Step::Start, CLIENT_HELLO) => {
                if early {
                    self.resuming = true;
                    self.sizes = HandshakeSizes::RESUMED;
                }
                self.step = Step::Hello;
                self.handshake_data_ready = true;
                Ok(true)
            }
            (Side::Client, Step::Hello, SERVER_HELLO) => {
                self.step = Step::Keys;
                Ok(false)
            }
            (Side::Client, Step::Flight, SERVER_FLIGHT) => {
                self.early_accepted = early;
                self.step = Step::Finish;
                self.handshake_data_ready = true;
                Ok(true)
            }
            (Side::Server, Step::Flight, FINISHED) => {
                self.step = Step::Tickets;
                Ok(false)
            }
            (Side::Client, Step::Done, NEW_SESSION_TICKET) => {
                if self.config.zero_rtt {
                    *self.config.ticket.lock().expect("not poisoned") = Some(body[2..2 + tp_len].to_vec());
                }
                Ok(false)
            }
            _ => bad("unexpected handshake message"),
        }
    }
}

impl crypto::Session for NullSession {
    fn initial_keys(&self, _dst_cid: &ConnectionId, _side: Side) -> Keys {
        keys()
    }

    fn handshake_data(&self) -> Option<Box<dyn Any>> {
        self.handshake_data_ready.then(|| Box::new(()) as Box<dyn Any>)
    }

    fn peer_identity(&self) -> Option<Box<dyn Any>> {
        None
    }

    fn early_crypto(&self) -> Option<(Box<dyn HeaderKey>, Box<dyn PacketKey>)> {
        self.resuming.then(|| (Box::new(NullHeaderKey) as Box<dyn HeaderKey>, Box::new(NullPacketKey) as Box<dyn PacketKey>))
    }

    fn early_data_accepted(&self) -> Option<bool> {
        match self.side {
            Side::Client => Some(self.resuming && self.early_accepted),
            Side::Server => None,
        }
    }

    fn is_handshaking(&self) -> bool {
        !matches!(self.step, Step::Tickets | Step::Done)
    }

    fn read_handshake(&mut self, buf: &[u8]) -> Result<bool, TransportError> {
        self.inbox.extend_from_slice(buf);
        let mut ready = false;
        while self.inbox.len() >= 4 {
            let len = u32::from_be_bytes([0, self.inbox[1], self.inbox[2], self.inbox[3]]) as usize;
            if self.inbox.len() < 4 + len {
                break;
            }
            let kind = self.inbox[0];
            let body: Vec<u8> = self.inbox[4..4 + len].to_vec();
            self.inbox.drain(..4 + len);
            ready |= self.read_message(kind, &body)?;
        }
        Ok(ready)
    }

    fn transport_parameters(&self) -> Result<Option<TransportParameters>, TransportError> {
        Ok(self.peer_params)
    }

    fn write_handshake(&mut self, buf: &mut Vec<u8>) -> Option<Keys> {
        let s = self.sizes;
        match (self.side, self.step) {
            (Side::Client, Step::Start) => {
                self.message(CLIENT_HELLO, s.client_hello, true, self.resuming, buf);
                self.step = Step::Hello;
                None
            }
            (Side::Client, Step::Keys) => {
                self.step = Step::Flight;
                Some(keys())
            }
            (Side::Client, Step::Finish) => {
                self.message(FINISHED, s.client_finished, false, false, buf);
                self.step = Step::Done;
                Some(keys())
            }
            (Side::Server, Step::Hello) => {
                self.message(SERVER_HELLO, s.server_hello, false, false, buf);
                self.step = Step::Keys;
                Some(keys())
            }
            (Side::Server, Step::Keys) => {
                self.message(SERVER_FLIGHT, s.server_flight, true, self.resuming, buf);
                self.step = Step::Flight;
                Some(keys())
            }
            (Side::Server, Step::Tickets) => {
                if s.session_tickets > 0 {
                    // with resumption, the ticket remembers the parameters
                    self.message(NEW_SESSION_TICKET, s.session_tickets, self.config.zero_rtt, false, buf);
                }
                self.step = Step::Done;
                None
            }
            _ => None,
        }
    }

    fn next_1rtt_keys(&mut self) -> Option<KeyPair<Box<dyn PacketKey>>> {
        Some(KeyPair { local: Box::new(NullPacketKey), remote: Box::new(NullPacketKey) })
    }

    fn is_valid_retry(&self, _orig_dst_cid: &ConnectionId, _header: &[u8], payload: &[u8]) -> bool {
        payload.len() >= TAG_LEN
    }

    fn export_keying_material(
        &self,
        output: &mut [u8],
        _label: &[u8],
        _context: &[u8],
    ) -> Result<(), ExportKeyingMaterialError> {
        output.fill(0);
        Ok(())
    }
}

fn keys() -> Keys {
    Keys {
        header: KeyPair { local: Box::new(NullHeaderKey), remote: Box::new(NullHeaderKey) },
        packet: KeyPair { local: Box::new(NullPacketKey), remote: Box::new(NullPacketKey) },
    }
}

/// Packet protection without a cipher, with a real AEAD's tag length.
struct NullPacketKey;

impl PacketKey for NullPacketKey {
    fn encrypt(&self, _packet: u64, buf: &mut [u8], _header_len: usize) {
        // the last TAG_LEN bytes are the tag quinn reserved: zeros
        let n = buf.len();
        buf[n - TAG_LEN..].fill(0);
    }

    fn decrypt(&self, _packet: u64, _header: &[u8], payload: &mut BytesMut) -> Result<(), CryptoError> {
        if payload.len() < TAG_LEN {
            return Err(CryptoError);
        }
        payload.truncate(payload.len() - TAG_LEN);
        Ok(())
    }

    fn tag_len(&self) -> usize {
        TAG_LEN
    }

    /// AES-128-GCM's limits (RFC 9001 section 6.6): key updates happen
    /// where they would with real keys.
    fn confidentiality_limit(&self) -> u64 {
        1 << 23
    }

    fn integrity_limit(&self) -> u64 {
        1 << 52
    }
}

struct NullHeaderKey;

impl HeaderKey for NullHeaderKey {
    fn decrypt(&self, _pn_offset: usize, _packet: &mut [u8]) {}
    fn encrypt(&self, _pn_offset: usize, _packet: &mut [u8]) {}
    fn sample_size(&self) -> usize {
        SAMPLE_LEN
    }
}

/// A keyed hash (SplitMix64 steps over the key and the data) standing in
/// for HMAC-SHA256 where quinn needs one (stateless-reset tokens): the same
/// 32-byte output, no cryptographic strength, no randomness.
pub struct NullHmac {
    pub key: u64,
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl crypto::HmacKey for NullHmac {
    fn sign(&self, data: &[u8], out: &mut [u8]) {
        let mut h = mix(self.key);
        for &b in data {
            h = mix(h ^ b as u64);
        }
        for (i, chunk) in out.chunks_mut(8).enumerate() {
            let v = mix(h ^ i as u64).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    fn signature_len(&self) -> usize {
        32
    }

    fn verify(&self, data: &[u8], signature: &[u8]) -> Result<(), CryptoError> {
        let mut want = [0u8; 32];
        self.sign(data, &mut want);
        if signature == want {
            Ok(())
        } else {
            Err(CryptoError)
        }
    }
}

/// The address-validation token key quinn's server configuration needs:
/// tokens are neither sent (no NEW_TOKEN) nor asked for (no Retry), so it
/// only has to exist; it seals with a zero tag of AES-GCM's length.
pub struct NullTokenKey;

impl crypto::HandshakeTokenKey for NullTokenKey {
    fn aead_from_hkdf(&self, _random_bytes: &[u8]) -> Box<dyn crypto::AeadKey> {
        Box::new(NullAead)
    }
}

struct NullAead;

impl crypto::AeadKey for NullAead {
    fn seal(&self, data: &mut Vec<u8>, _additional_data: &[u8]) -> Result<(), CryptoError> {
        data.extend_from_slice(&[0; TAG_LEN]);
        Ok(())
    }

    fn open<'a>(&self, data: &'a mut [u8], _additional_data: &[u8]) -> Result<&'a mut [u8], CryptoError> {
        let n = data.len().checked_sub(TAG_LEN).ok_or(CryptoError)?;
        Ok(&mut data[..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quinn_proto::crypto::Session;

    /// The handshake by hand: the client's ClientHello is exactly its
    /// size; the server reads it (handshake data ready), writes a
    /// ServerHello with Handshake keys then its flight with 1-RTT keys; the
    /// client gets Handshake keys with no bytes, then writes a Finished of
    /// its size with 1-RTT keys; both end not handshaking, with each
    /// other's transport parameters.
    #[test]
    fn the_handshake_runs_in_tls_flights_and_sizes() {
        let sizes = HandshakeSizes::DEFAULT;
        // quinn's defaults (an empty encoding reads as them)
        let tp = TransportParameters::read(Side::Client, &mut &[][..]).unwrap();
        let config = Arc::new(NullConfig::new(sizes, false));
        let mut c = NullSession::new(Side::Client, sizes, &tp, config.clone());
        let mut s = NullSession::new(Side::Server, sizes, &tp, config.clone());
        let mut ch = Vec::new();
        assert!(c.write_handshake(&mut ch).is_none());
        assert_eq!(ch.len(), sizes.client_hello as usize);
        // split across two CRYPTO frames
        assert!(!s.read_handshake(&ch[..100]).unwrap());
        assert!(s.read_handshake(&ch[100..]).unwrap());
        assert!(s.transport_parameters().unwrap().is_some());
        let (mut sh, mut fl) = (Vec::new(), Vec::new());
        assert!(s.write_handshake(&mut sh).is_some());
        assert_eq!(sh.len(), sizes.server_hello as usize);
        assert!(s.write_handshake(&mut fl).is_some());
        assert_eq!(fl.len(), sizes.server_flight as usize);
        assert!(s.write_handshake(&mut Vec::new()).is_none());
        assert!(!c.read_handshake(&sh).unwrap());
        let mut none = Vec::new();
        assert!(c.write_handshake(&mut none).is_some() && none.is_empty());
        assert!(c.read_handshake(&fl).unwrap());
        let mut fin = Vec::new();
        assert!(c.write_handshake(&mut fin).is_some());
        assert_eq!(fin.len(), sizes.client_finished as usize);
        assert!(!c.is_handshaking() && s.is_handshaking());
        s.read_handshake(&fin).unwrap();
        assert!(!s.is_handshaking());
        let mut tickets = Vec::new();
        assert!(s.write_handshake(&mut tickets).is_none());
        assert_eq!(tickets.len(), sizes.session_tickets as usize);
        assert!(!c.read_handshake(&tickets).unwrap());
        assert!(c.transport_parameters().unwrap().is_some());
        // a message out of turn is a protocol violation
        assert!(s.read_handshake(&ch).is_err());
        // no resumption without zero_rtt: no ticket kept, no early keys
        assert!(!config.has_ticket() && c.early_crypto().is_none() && c.early_data_accepted() == Some(false));
    }

    /// Run a handshake between client and server sessions of `config`,
    /// returning the sizes of the messages written (ClientHello,
    /// ServerHello, server flight, Finished, tickets) and the sessions.
    fn handshake(config: &Arc<NullConfig>) -> ([usize; 5], Box<dyn Session>, Box<dyn Session>) {
        let tp = TransportParameters::read(Side::Client, &mut &[][..]).unwrap();
        let mut c = crypto::ClientConfig::start_session(config.clone(), 1, "satcp", &tp).unwrap();
        let mut s = crypto::ServerConfig::start_session(config.clone(), 1, &tp);
        let mut m: [Vec<u8>; 5] = Default::default();
        c.write_handshake(&mut m[0]);
        s.read_handshake(&m[0]).unwrap();
        s.write_handshake(&mut m[1]);
        s.write_handshake(&mut m[2]);
        c.read_handshake(&m[1]).unwrap();
        c.write_handshake(&mut Vec::new());
        c.read_handshake(&m[2]).unwrap();
        c.write_handshake(&mut m[3]);
        s.read_handshake(&m[3]).unwrap();
        s.write_handshake(&mut m[4]);
        c.read_handshake(&m[4]).unwrap();
        (m.map(|v| v.len()), c, s)
    }

    /// With zero_rtt, the first handshake is a full one and leaves the
    /// client a ticket holding the server's parameters; the next client
    /// session starts from it: early keys and the remembered parameters
    /// before anything is sent, the resumed sizes; the server reads the
    /// early-data ClientHello, has early keys, answers with the resumed
    /// flight and accepts; the ticket is renewed.
    #[test]
    fn a_ticket_resumes_the_next_handshake_with_early_data() {
        let config = Arc::new(NullConfig::new(HandshakeSizes::DEFAULT, true));
        let d = HandshakeSizes::DEFAULT;
        let (sizes, c, _) = handshake(&config);
        assert_eq!(sizes, [d.client_hello, d.server_hello, d.server_flight, d.client_finished, d.session_tickets].map(|x| x as usize));
        assert!(c.early_crypto().is_none() && c.early_data_accepted() == Some(false));
        assert!(config.has_ticket());
        let tp = TransportParameters::read(Side::Client, &mut &[][..]).unwrap();
        let fresh = crypto::ClientConfig::start_session(config.clone(), 1, "satcp", &tp).unwrap();
        assert!(fresh.early_crypto().is_some() && fresh.transport_parameters().unwrap().is_some());
        let (sizes, c, s) = handshake(&config);
        let r = HandshakeSizes::RESUMED;
        assert_eq!(sizes, [r.client_hello, r.server_hello, r.server_flight, r.client_finished, r.session_tickets].map(|x| x as usize));
        assert!(s.early_crypto().is_some() && s.early_data_accepted().is_none());
        assert_eq!(c.early_data_accepted(), Some(true));
        assert!(!c.is_handshaking() && !s.is_handshaking() && config.has_ticket());
    }

    #[test]
    fn packets_keep_the_aead_tag_length() {
        let k = NullPacketKey;
        let mut buf = vec![7u8; 40];
        k.encrypt(0, &mut buf, 10);
        assert_eq!(&buf[24..], &[0; 16]);
        let mut p = BytesMut::from(&buf[10..]);
        k.decrypt(0, &buf[..10], &mut p).unwrap();
        assert_eq!(p.len(), 40 - 10 - TAG_LEN);
        assert!(k.decrypt(0, &[], &mut BytesMut::from(&[0u8; 5][..])).is_err());
    }
}
