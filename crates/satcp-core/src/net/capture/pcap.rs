//! Classic pcap files (libpcap format, nanosecond variant) holding real
//! Ethernet II / IPv4 / TCP frames built from satcp's packets.
//!
//! Sources: the libpcap file format (draft-ietf-opsawg-pcap: magic
//! 0xA1B23C4D = nanosecond timestamps, version 2.4, LINKTYPE_ETHERNET = 1),
//! IEEE 802.3 Ethernet II framing, RFC 791 (IPv4 header and checksum),
//! RFC 9293 (TCP header, pseudo-header checksum), RFC 7323 (window scale),
//! RFC 2018 (SACK options), RFC 1071 (Internet checksum), RFC 6864 (IPv4 ID).
//!
//! Every header field that satcp models is written as the model sent it:
//! sequence and acknowledgement numbers, window, SYN/FIN/ACK flags, MSS,
//! window scale, SACK-permitted and SACK blocks. Lengths (IP total length,
//! TCP data offset) follow from the packet, so tshark's byte counts equal
//! satcp's `ip_bytes` + 14. Choices where the model has nothing to say:
//! * Addresses: node n is IPv4 10.(n >> 8).(n & 255).1 (= 10.0.n.1 for the
//!   first 256 nodes) and MAC 02:00:(n as 4 bytes), a locally administered
//!   unicast address. The Ethernet addresses are the link's two ends (hop by
//!   hop), the IP addresses the packet's endpoints' nodes.
//! * Ports: a flow's server (the node that sends the bulk data) uses
//!   [`SERVER_PORT`], its client `CLIENT_PORT_BASE + flow % 16384`, so
//!   connections are distinct for up to 16384 flows between one node pair.
//! * IPv4: DF set, identification 0 (RFC 6864 allows any value in atomic
//!   datagrams), the packet's TTL (64 at the source, one less per router),
//!   DSCP 0, except for low-priority dummy segments and their ACKs (TCP
//!   Peach's probes), which carry DSCP 1, "Lower Effort" (RFC 8622), so a
//!   capture tells them apart (`ip.dsfield.dscp == 1` in Wireshark); ECN 0.
//! * TCP: no PSH, no urgent data, no timestamps option (the TCP model does
//!   not use timestamps, so none are invented). Payload bytes are zeros,
//!   which leaves the checksum as if the payload were absent, but the
//!   pseudo-header counts its length.
//! * UDP cross traffic: source port [`UDP_PORT_BASE`] + flow index (mod
//!   16384), destination port 9 (discard, RFC 863: the sink only counts),
//!   checksum computed over the zero payload.
//! * Options are laid out in the order and padding
//!   [`TcpHeader::options_len`] counts: MSS; NOP, window scale; NOP, NOP,
//!   SACK-permitted; a research option as an RFC 6994 shared experimental
//!   option (kind 253, length, 16-bit experiment id, the data words
//!   big-endian, zeros up to its length); NOP, NOP, SACK blocks.
//! * Link-layer frames and link-layer ACKs (a link protocol's own packets)
//!   are written as Ethernet frames of EtherType 0x88B5 (IEEE 802 local
//!   experimental): one byte of type (1 frame, 2 ACK), three zero bytes, the
//!   link sequence number and the acknowledged link sequence number (32
//!   bits each, from `tcp.seq` and `tcp.ack`), zeros up to the packet's
//!   length.

use std::io::{self, Write};

use crate::ids::{EpId, Side};
use crate::net::packet::{Packet, TcpHeader, IPV4_HEADER, TCP_HEADER};

/// Ethernet II header bytes.
pub const ETHERNET_HEADER: u32 = 14;
/// pcap snapshot lengths are at most this (libpcap's MAXIMUM_SNAPLEN).
pub const MAX_SNAPLEN: u32 = 262_144;
/// Port of every flow's server.
pub const SERVER_PORT: u16 = 5001;
/// First client port (the IANA dynamic range).
pub const CLIENT_PORT_BASE: u16 = 49152;
/// Source port of UDP flow 0; flow f uses this + f (mod 16384).
pub const UDP_PORT_BASE: u16 = 20000;
/// UDP destination port (discard).
pub const UDP_SINK_PORT: u16 = 9;

/// TCP option kind of the research option (RFC 6994 shared experimental).
pub const OPT_EXPERIMENTAL: u8 = 253;
/// The IPv4 TOS byte of low-priority packets: DSCP 1, Lower Effort (RFC 8622).
pub const TOS_LOWER_EFFORT: u8 = 1 << 2;

const MAGIC_NS: u32 = 0xA1B2_3C4D;
const LINKTYPE_ETHERNET: u32 = 1;

/// The IPv4 address satcp gives node `n`.
pub fn node_ip(n: u32) -> [u8; 4] {
    [10, (n >> 8) as u8, n as u8, 1]
}

/// The MAC address satcp gives node `n`.
pub fn node_mac(n: u32) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// (source port, destination port) of a segment for endpoint `to`: the
/// server listens on `SERVER_PORT`, each flow's client has its own port.
pub fn ports(to: EpId) -> (u16, u16) {
    let client = CLIENT_PORT_BASE + (to.flow().0 % 16384) as u16;
    match to.side() {
        Side::Server => (client, SERVER_PORT),
        Side::Client => (SERVER_PORT, client),
    }
}

/// One's-complement sum of 16-bit big-endian words (RFC 1071), not folded.
fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        acc += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

/// Fold a one's-complement sum to 16 bits and complement it.
fn checksum(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

fn put_options(b: &mut Vec<u8>, t: &TcpHeader) {
    const NOP: u8 = 1;
    if t.opt_mss != 0 {
        b.extend_from_slice(&[2, 4]);
        b.extend_from_slice(&t.opt_mss.to_be_bytes());
    }
    if let Some(shift) = t.opt_wscale {
        b.extend_from_slice(&[NOP, 3, 3, shift]);
    }
    match (t.opt_sack_perm, t.opt_ts) {
        // as Linux lays them out: SACK-permitted in the timestamps' NOPs
        (true, Some((val, ecr))) => {
            b.extend_from_slice(&[4, 2, 8, 10]);
            b.extend_from_slice(&val.to_be_bytes());
            b.extend_from_slice(&ecr.to_be_bytes());
        }
        (false, Some((val, ecr))) => {
            b.extend_from_slice(&[NOP, NOP, 8, 10]);
            b.extend_from_slice(&val.to_be_bytes());
            b.extend_from_slice(&ecr.to_be_bytes());
        }
        (true, None) => b.extend_from_slice(&[NOP, NOP, 4, 2]),
        (false, None) => {}
    }
    if let Some(r) = t.research() {
        let at = b.len();
        b.extend_from_slice(&[OPT_EXPERIMENTAL, r.wire_len]);
        b.extend_from_slice(&r.exid.to_be_bytes());
        for w in &r.words[..crate::net::packet::ResearchOption::capacity(r.wire_len)] {
            b.extend_from_slice(&w.to_be_bytes());
        }
        b.resize(at + r.wire_len as usize, 0);
    }
    let sack = t.sack();
    if !sack.is_empty() {
        b.extend_from_slice(&[NOP, NOP, 5, 2 + 8 * sack.len() as u8]);
        for &(left, right) in sack {
            b.extend_from_slice(&left.to_be_bytes());
            b.extend_from_slice(&right.to_be_bytes());
        }
    }
}

/// Append the Ethernet, IPv4 and TCP headers of `p`, sent over a link from
/// node `hop_from` to node `hop_to`, to `b` (payload not included). Returns
/// the length of the whole frame on the wire (headers + payload).
pub fn encode_headers(b: &mut Vec<u8>, p: &Packet, hop_from: u32, hop_to: u32) -> u32 {
    // Ethernet II
    b.extend_from_slice(&node_mac(hop_to));
    b.extend_from_slice(&node_mac(hop_from));
    b.extend_from_slice(&0x0800u16.to_be_bytes());
    // IPv4
    let ip_at = b.len();
    let (src, dst) = (node_ip(p.src_node), node_ip(p.dst_node));
    let tos = if p.kind.low_priority() { TOS_LOWER_EFFORT } else { 0 };
    b.extend_from_slice(&[0x45, tos]);
    b.extend_from_slice(&(p.ip_bytes as u16).to_be_bytes());
    let udp = p.kind.is_udp();
    let proto = if udp { 17 } else { 6 };
    b.extend_from_slice(&[0, 0, 0x40, 0, p.ttl, proto, 0, 0]); // id 0, DF, TTL, protocol, checksum
    b.extend_from_slice(&src);
    b.extend_from_slice(&dst);
    let ip_sum = checksum(sum16(&b[ip_at..ip_at + IPV4_HEADER as usize], 0));
    b[ip_at + 10..ip_at + 12].copy_from_slice(&ip_sum.to_be_bytes());
    if udp {
        let udp_at = b.len();
        let udp_len = p.ip_bytes - IPV4_HEADER;
        b.extend_from_slice(&(UDP_PORT_BASE + (p.flow().0 % 16384) as u16).to_be_bytes());
        b.extend_from_slice(&UDP_SINK_PORT.to_be_bytes());
        b.extend_from_slice(&(udp_len as u16).to_be_bytes());
        b.extend_from_slice(&[0, 0]);
        let mut acc = sum16(&src, 0);
        acc = sum16(&dst, acc);
        acc += 17 + udp_len;
        let sum = match checksum(sum16(&b[udp_at..], acc)) {
            0 => 0xffff, // RFC 768: a computed zero is sent as all ones
            x => x,
        };
        b[udp_at + 6..udp_at + 8].copy_from_slice(&sum.to_be_bytes());
        return ETHERNET_HEADER + p.ip_bytes;
    }
    // TCP
    let tcp_at = b.len();
    let t = &p.tcp;
    let hdr_len = TCP_HEADER + t.options_len();
    let (sport, dport) = ports(p.endpoint());
    b.extend_from_slice(&sport.to_be_bytes());
    b.extend_from_slice(&dport.to_be_bytes());
    b.extend_from_slice(&t.seq.to_be_bytes());
    b.extend_from_slice(&t.ack.to_be_bytes());
    b.extend_from_slice(&[((hdr_len / 4) as u8) << 4, t.flags]);
    b.extend_from_slice(&t.wnd.to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    put_options(b, t);
    debug_assert_eq!(b.len() - tcp_at, hdr_len as usize);
    let tcp_len = hdr_len + p.payload;
    debug_assert_eq!(IPV4_HEADER + tcp_len, p.ip_bytes);
    // Pseudo-header: addresses, zero, protocol, TCP length. Zero payload
    // bytes add nothing to the sum.
    let mut acc = sum16(&src, 0);
    acc = sum16(&dst, acc);
    acc += 6 + tcp_len;
    let tcp_sum = checksum(sum16(&b[tcp_at..], acc));
    b[tcp_at + 16..tcp_at + 18].copy_from_slice(&tcp_sum.to_be_bytes());
    ETHERNET_HEADER + p.ip_bytes
}

/// A pcap file being written: the global header at creation, then one
/// record per frame, truncated to `snaplen` bytes.
pub struct PcapWriter<W: Write> {
    out: W,
    snaplen: u32,
    frame: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W, snaplen: u32) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&snaplen.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, snaplen, frame: Vec::with_capacity(128) })
    }

    /// Write `p` as seen at time `t_ns` on a link from `hop_from` to `hop_to`.
    pub fn write(&mut self, t_ns: u64, p: &Packet, hop_from: u32, hop_to: u32) -> io::Result<()> {
        self.frame.clear();
        let orig = encode_headers(&mut self.frame, p, hop_from, hop_to);
        let incl = orig.min(self.snaplen);
        self.frame.resize(incl as usize, 0); // zero payload, or truncate
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((t_ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&incl.to_le_bytes());
        rec[12..16].copy_from_slice(&orig.to_le_bytes());
        self.out.write_all(&rec)?;
        self.out.write_all(&self.frame)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Kind, FLAG_ACK, FLAG_SYN};

    fn syn() -> Packet {
        let h = TcpHeader {
            seq: 0x0102_0304,
            flags: FLAG_SYN,
            wnd: 65535,
            opt_mss: 1460,
            opt_wscale: Some(7),
            opt_sack_perm: true,
            ..Default::default()
        };
        // server (ep 0) on node 0 -> client (ep 1) on node 2
        Packet::tcp(0, 2, 1, h, 0, 0, false)
    }

    /// A SYN from node 0 to node 2 over the hop 1 -> 2, laid out by hand:
    /// 14 B Ethernet, 20 B IPv4 (total length 52), 32 B TCP (data offset 8).
    #[test]
    fn syn_frame_layout() {
        let mut b = Vec::new();
        let len = encode_headers(&mut b, &syn(), 1, 2);
        assert_eq!(len, 66);
        assert_eq!(b.len(), 66);
        assert_eq!(&b[0..6], &[2, 0, 0, 0, 0, 2]); // dst MAC: node 2
        assert_eq!(&b[6..12], &[2, 0, 0, 0, 0, 1]); // src MAC: node 1
        assert_eq!(&b[12..14], &[0x08, 0x00]);
        let ip = &b[14..34];
        assert_eq!(ip[0], 0x45);
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 52);
        assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
        assert_eq!(&ip[16..20], &[10, 0, 2, 1]);
        let tcp = &b[34..];
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), SERVER_PORT);
        assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), CLIENT_PORT_BASE);
        assert_eq!(&tcp[4..8], &[1, 2, 3, 4]);
        assert_eq!(tcp[12], 8 << 4);
        assert_eq!(tcp[13], FLAG_SYN);
        assert_eq!(&tcp[14..16], &[0xFF, 0xFF]);
        assert_eq!(&tcp[20..32], &[2, 4, 0x05, 0xB4, 1, 3, 3, 7, 1, 1, 4, 2]);
    }

    /// RFC 1071: summing a header including its correct checksum gives
    /// 0xFFFF. The IPv4 checksum of the SYN above, by hand: words 4500 0034
    /// 0000 4000 4006 0000 0a00 0001 0a00 0201 sum to 0xDB3C (no carry)
    /// -> complement 0x24C3.
    #[test]
    fn udp_datagram_header_and_checksum() {
        let p = Packet::udp(3, 4, 2, 1000);
        let mut b = Vec::new();
        assert_eq!(encode_headers(&mut b, &p, 3, 9), 1014);
        assert_eq!(b.len(), 14 + 20 + 8);
        assert_eq!(b[14 + 9], 17, "protocol UDP");
        let u = &b[34..];
        assert_eq!(u16::from_be_bytes([u[0], u[1]]), UDP_PORT_BASE + 2);
        assert_eq!(u16::from_be_bytes([u[2], u[3]]), UDP_SINK_PORT);
        assert_eq!(u16::from_be_bytes([u[4], u[5]]), 980);
        // the checksum over pseudo-header + header (zero payload) verifies
        let mut acc = sum16(&node_ip(3), 0);
        acc = sum16(&node_ip(4), acc);
        acc += 17 + 980;
        assert_eq!(checksum(sum16(u, acc)), 0);
        assert_eq!(checksum(sum16(&b[14..34], 0)), 0, "IP header checksum");
    }

    #[test]
    fn checksums_verify() {
        let mut b = Vec::new();
        encode_headers(&mut b, &syn(), 1, 2);
        assert_eq!(&b[24..26], &[0x24, 0xC3]);
        assert_eq!(checksum(sum16(&b[14..34], 0)), 0);
        let mut acc = sum16(&b[26..34], 0) + 6 + 32;
        acc = sum16(&b[34..], acc);
        assert_eq!(checksum(acc), 0);
    }

    #[test]
    fn sack_blocks_and_payload_lengths() {
        let mut h = TcpHeader { seq: 7, ack: 1000, flags: FLAG_ACK, wnd: 512, ..Default::default() };
        h.set_sack(&[(2000, 3000), (4000, 5000)]);
        let p = Packet::tcp(2, 0, 0, h, 0, 0, false);
        let mut b = Vec::new();
        assert_eq!(encode_headers(&mut b, &p, 2, 1), 14 + 20 + 20 + 20);
        let tcp = &b[34..];
        assert_eq!(tcp[12], 10 << 4);
        assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
        assert_eq!(&tcp[24..28], &2000u32.to_be_bytes());
        assert_eq!(&tcp[36..40], &5000u32.to_be_bytes());
        // a data segment: the frame counts the payload, the headers do not
        let d = Packet::tcp(0, 2, 1, TcpHeader { flags: FLAG_ACK, ..Default::default() }, 1460, 0, false);
        b.clear();
        assert_eq!(encode_headers(&mut b, &d, 0, 1), 1514);
        assert_eq!(b.len(), 54);
    }

    /// Timestamps as Linux lays them out: NOP NOP TS on data and ACKs
    /// (three SACK blocks fit beside them), SACK-permitted in the NOPs'
    /// place on a SYN.
    #[test]
    fn timestamps_with_sack_blocks_and_on_a_syn() {
        let mut h = TcpHeader { flags: FLAG_ACK, opt_ts: Some((0x0102_0304, 9)), ..Default::default() };
        assert_eq!(h.set_sack(&[(1, 2), (3, 4), (5, 6), (7, 8)]), 3, "40 - 12 bytes leave room for three");
        let p = Packet::tcp(2, 0, 0, h, 0, 0, false);
        assert_eq!(p.ip_bytes, 40 + 12 + 28);
        let mut b = Vec::new();
        assert_eq!(encode_headers(&mut b, &p, 2, 1), 14 + 80);
        let opts = &b[54..];
        assert_eq!(&opts[0..4], &[1, 1, 8, 10]);
        assert_eq!(&opts[4..12], &[1, 2, 3, 4, 0, 0, 0, 9]);
        assert_eq!(&opts[12..16], &[1, 1, 5, 26]);
        let s = Packet::tcp(0, 2, 1, TcpHeader { opt_ts: Some((5, 0)), ..syn().tcp }, 0, 0, false);
        b.clear();
        // MSS 4 + NOP WS 4 + SACK-permitted TS 12: Linux's 20-byte SYN options
        assert_eq!(encode_headers(&mut b, &s, 1, 2), 14 + 20 + 40);
        assert_eq!(&b[54..74], &[2, 4, 0x05, 0xB4, 1, 3, 3, 7, 4, 2, 8, 10, 0, 0, 0, 5, 0, 0, 0, 0]);
    }

    #[test]
    fn research_option_dummy_marking_and_ttl() {
        let mut h = TcpHeader { flags: FLAG_ACK, ..Default::default() };
        assert!(h.set_research(0xCE7E, 24, &[0x0A0B_0C0D, 7]));
        h.set_sack(&[(2000, 3000)]);
        let mut p = Packet::tcp(0, 2, 1, h, 100, 0, false).with_kind(Kind::Dummy);
        p.ttl = 61;
        let mut b = Vec::new();
        assert_eq!(encode_headers(&mut b, &p, 1, 2), 14 + 20 + 20 + 24 + 12 + 100);
        assert_eq!(b[15], TOS_LOWER_EFFORT, "dummies carry DSCP 1 (Lower Effort)");
        assert_eq!(b[14 + 8], 61, "the packet's TTL");
        let opts = &b[54..54 + 36];
        assert_eq!(&opts[0..4], &[OPT_EXPERIMENTAL, 24, 0xCE, 0x7E]);
        assert_eq!(&opts[4..12], &[0x0A, 0x0B, 0x0C, 0x0D, 0, 0, 0, 7]);
        assert!(opts[12..24].iter().all(|&x| x == 0), "padded with zeros to its length");
        assert_eq!(&opts[24..28], &[1, 1, 5, 10], "then the SACK block that fits");
        assert_eq!(checksum(sum16(&b[14..34], 0)), 0, "IP header checksum with the TOS byte");
    }

    #[test]
    fn file_header_and_truncated_record() {
        let mut w = PcapWriter::new(Vec::new(), 60).unwrap();
        let d = Packet::tcp(0, 2, 1, TcpHeader { flags: FLAG_ACK, ..Default::default() }, 1460, 0, false);
        w.write(2_500_000_001, &d, 0, 1).unwrap();
        let b = w.out;
        assert_eq!(&b[0..4], &[0x4D, 0x3C, 0xB2, 0xA1]);
        assert_eq!(u32::from_le_bytes(b[16..20].try_into().unwrap()), 60);
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1);
        let rec = &b[24..40];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 500_000_001);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 60);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 1514);
        assert_eq!(b.len(), 40 + 60);
    }
}
