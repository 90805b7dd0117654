//! Packets: small `Copy` structs with real header fields and no payload bytes.
//!
//! A TCP segment carries the 32-bit wire sequence and acknowledgement numbers,
//! the 16-bit window, flags and options (MSS, window scale, SACK-permitted,
//! SACK blocks, a research option) exactly as on the wire and within its
//! 40-byte option budget, so endpoints must unwrap sequence numbers like a
//! real stack. `stream_off` is simulator metadata (the absolute sequence
//! offset the sender meant) used only to audit the receiver. Every packet has
//! a [`Kind`] and an IP TTL (64 at its source; routers decrement it).

pub mod ceten_option;


pub const IPV4_HEADER: u32 = 20;
pub const TCP_HEADER: u32 = 20;

pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_SYN: u8 = 0x02;
/// Reset (RFC 9293 3.10.7.4): the connection is refused or torn down.
pub const FLAG_RST: u8 = 0x04;
pub const FLAG_ACK: u8 = 0x10;
/// ECN-Echo (RFC 3168 section 6.1): on a SYN, ECN-setup; otherwise the
/// receiver saw a CE mark.
pub const FLAG_ECE: u8 = 0x40;
/// Congestion Window Reduced (RFC 3168 section 6.1): on a SYN, ECN-setup;
/// otherwise the sender reduced its window for an ECE.
pub const FLAG_CWR: u8 = 0x80;

/// The ECN field of the IP header (RFC 3168 section 5). ECT(1) is not
/// used: satcp's ECN-capable senders send ECT(0), as Linux does without
/// L4S.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// Not-ECT (00): the transport is not ECN-capable; a queue drops it.
    #[default]
    NotEct,
    /// ECT(0) (10): ECN-capable; a marking queue sets CE instead of a drop.
    Ect0,
    /// CE (11): congestion experienced.
    Ce,
}

impl Ecn {
    /// ECN-capable (ECT or already CE): a marking queue may mark it.
    #[inline]
    pub fn capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// Bytes of TCP option space in a segment (data offset at most 15 words).
pub const MAX_OPTION_BYTES: u32 = 40;

/// Most SACK blocks one segment can carry (2 NOPs + kind/len + 4 x 8 = 36
/// bytes, the budget without other options).
pub const MAX_SACK_BLOCKS: usize = 4;

/// Longest research option on the wire (bytes), its kind, length and 16-bit
/// experiment id (RFC 6994) included.
pub const MAX_RESEARCH_BYTES: u8 = 32;

/// Most 32-bit data words a research option carries (its 32 bytes less 4).
pub const MAX_RESEARCH_WORDS: usize = 7;

/// Initial IP TTL of every packet (Linux's default, 64).
pub const INITIAL_TTL: u8 = 64;

/// What a packet is. The network tells packets apart by it (a priority queue
/// puts `Dummy` and `DummyAck` last), the world dispatches on it (UDP to the
/// sink, TCP kinds to an endpoint), and statistics and pcap record it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// A TCP segment that occupies sequence space: payload, SYN or FIN.
    #[default]
    Data,
    /// A TCP segment with no payload, SYN or FIN (a pure ACK).
    Ack,
    /// A low-priority dummy segment: a copy of data already sent, carrying
    /// no new data (TCP Peach's probes). The receiver acknowledges it with
    /// a `DummyAck` and never delivers it.
    Dummy,
    /// A receiver's acknowledgement of a `Dummy`, marked so that the sender
    /// never counts it as a duplicate ACK.
    DummyAck,
    /// A UDP datagram of cross traffic (`to_ep` is the flow index).
    Udp,
    /// A UDP datagram of a QUIC flow (`quic/`): `to_ep` is the endpoint it
    /// is for, `stream_off` the id its bytes wait under in the flow's table.
    Quic,
}

impl Kind {
    /// Low-priority packets: what a priority queue serves last and drops
    /// first. Dummy ACKs are low priority too (a choice: they carry nothing
    /// reliability needs, and Peach's routers favour real traffic).
    #[inline]
    pub fn low_priority(self) -> bool {
        matches!(self, Kind::Dummy | Kind::DummyAck)
    }

    /// A UDP datagram on the wire (cross traffic or QUIC): what link
    /// protocols, captures and monitors see of it.
    #[inline]
    pub fn is_udp(self) -> bool {
        matches!(self, Kind::Udp | Kind::Quic)
    }

    /// A TCP segment of some kind (an endpoint handles it).
    #[inline]
    pub fn is_tcp(self) -> bool {
        matches!(self, Kind::Data | Kind::Ack | Kind::Dummy | Kind::DummyAck)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Data => "data",
            Kind::Ack => "ack",
            Kind::Dummy => "dummy",
            Kind::DummyAck => "dummy_ack",
            Kind::Udp => "udp",
            Kind::Quic => "quic",
        }
    }
}

/// A TCP header as on the wire: 32-bit sequence numbers, the 16-bit window,
/// flags and options within the 40-byte option budget.
///
/// Option storage: SACK blocks and a research option share the budget on
/// the wire, so they share storage here: SACK blocks fill `sack` from the
/// front, the research option's data words are kept from the back. The
/// budget guarantees they never overlap (a 32-byte research option leaves
/// no room for a SACK block, a 24-byte one room for one, and so on), and
/// the packet stays small.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub seq: u32,
    pub ack: u32,
    pub wnd: u16,
    pub flags: u8,
    /// MSS option (SYN only); 0 = absent.
    pub opt_mss: u16,
    /// Window-scale option shift (SYN only); None = absent.
    pub opt_wscale: Option<u8>,
    pub opt_sack_perm: bool,
    /// RFC 7323 timestamps (TSval, TSecr) in ticks of the sender's TCP
    /// clock (1 ms, Linux's `TCP_TS_HZ`); None = the option is absent.
    pub opt_ts: Option<(u32, u32)>,
    /// SACK blocks and the research option (see [`OptionSpace`]); set them
    /// through [`TcpHeader::set_research`] and [`TcpHeader::set_sack`],
    /// which keep the budget.
    pub space: OptionSpace,
}

/// The storage SACK blocks and a research option share: blocks from the
/// front, research words from the back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OptionSpace {
    nsack: u8,
    /// Research option (RFC 6994 shared experimental option, kind 253):
    /// wire length in bytes including kind, length and experiment id; 0 =
    /// absent.
    research_len: u8,
    research_exid: u16,
    sack: [(u32, u32); MAX_SACK_BLOCKS],
}

/// A research option as carried: its experiment id, its length on the wire
/// and up to [`MAX_RESEARCH_WORDS`] data words (their meaning belongs to the
/// model that attaches the option).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResearchOption {
    pub exid: u16,
    /// Bytes on the wire: 4 (kind, length, experiment id) + data, padded by
    /// the sender to the length it wants counted; a multiple of 4 in 8..=32.
    pub wire_len: u8,
    pub words: [u32; MAX_RESEARCH_WORDS],
}

impl ResearchOption {
    /// Data words that fit in `wire_len` bytes.
    pub fn capacity(wire_len: u8) -> usize {
        (wire_len as usize).saturating_sub(4) / 4
    }
}

/// Padded bytes of the NOP, NOP, kind, length header and `n` SACK blocks.
#[inline]
fn sack_bytes(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        4 + 8 * n as u32
    }
}

impl TcpHeader {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    /// The SACK blocks carried.
    #[inline]
    pub fn sack(&self) -> &[(u32, u32)] {
        &self.space.sack[..self.space.nsack as usize]
    }

    /// Bytes of every option but the SACK blocks, padded as real stacks pad.
    fn fixed_options_len(&self) -> u32 {
        let mut n = 0;
        if self.opt_mss != 0 {
            n += 4;
        }
        if self.opt_wscale.is_some() {
            n += 4; // NOP + 3-byte option
        }
        if self.opt_ts.is_some() {
            // NOP NOP + 10-byte option; SACK-permitted takes the NOPs' place
            n += 12;
        } else if self.opt_sack_perm {
            n += 4; // NOP NOP + 2-byte option
        }
        n + self.space.research_len as u32
    }

    /// Bytes of TCP options, padded to a multiple of 4 as real stacks do.
    #[inline]
    pub fn options_len(&self) -> u32 {
        self.fixed_options_len() + sack_bytes(self.space.nsack as usize)
    }

    /// SACK blocks that fit beside the other options in the budget.
    pub fn sack_room(&self) -> usize {
        let left = MAX_OPTION_BYTES.saturating_sub(self.fixed_options_len());
        (0..=MAX_SACK_BLOCKS).rev().find(|&n| sack_bytes(n) <= left).unwrap_or(0)
    }

    /// Carry `blocks` (most important first), as many as the option budget
    /// leaves room for; returns how many were kept. Set any research option
    /// first: it is counted in the budget.
    pub fn set_sack(&mut self, blocks: &[(u32, u32)]) -> usize {
        let n = blocks.len().min(self.sack_room());
        self.space.sack[..n].copy_from_slice(&blocks[..n]);
        self.space.nsack = n as u8;
        n
    }

    /// Attach a research option. Returns false (and attaches nothing) if
    /// its length is not a multiple of 4 in 8..=32, its words do not fit
    /// that length, or the other options leave no room for it (a SYN
    /// carries MSS, window scale and SACK-permitted: 12 bytes).
    pub fn set_research(&mut self, exid: u16, wire_len: u8, words: &[u32]) -> bool {
        let ok_len = wire_len.is_multiple_of(4) && (8..=MAX_RESEARCH_BYTES).contains(&wire_len);
        if !ok_len || words.len() > ResearchOption::capacity(wire_len) || self.space.nsack > 0 {
            return false;
        }
        if self.fixed_options_len() - self.space.research_len as u32 + wire_len as u32 > MAX_OPTION_BYTES {
            return false;
        }
        self.space.research_len = wire_len;
        self.space.research_exid = exid;
        for k in 0..ResearchOption::capacity(wire_len) {
            let w = words.get(k).copied().unwrap_or(0);
            let slot = &mut self.space.sack[MAX_SACK_BLOCKS - 1 - k / 2];
            if k % 2 == 0 {
                slot.1 = w;
            } else {
                slot.0 = w;
            }
        }
        true
    }

    /// The research option carried, if any.
    pub fn research(&self) -> Option<ResearchOption> {
        if self.space.research_len == 0 {
            return None;
        }
        let mut words = [0u32; MAX_RESEARCH_WORDS];
        for (k, w) in words.iter_mut().enumerate().take(ResearchOption::capacity(self.space.research_len)) {
            let slot = self.space.sack[MAX_SACK_BLOCKS - 1 - k / 2];
            *w = if k % 2 == 0 { slot.1 } else { slot.0 };
        }
        Some(ResearchOption { exid: self.space.research_exid, wire_len: self.space.research_len, words })
    }

    /// Overwrite the data words of the research option carried (a router
    /// updating an estimate in passing). The length on the wire is kept;
    /// returns false if there is no research option or the words do not fit.
    pub fn update_research(&mut self, words: &[u32]) -> bool {
        match self.research() {
            Some(r) if words.len() <= ResearchOption::capacity(r.wire_len) => {
                let nsack = self.space.nsack;
                self.space.nsack = 0;
                let ok = self.set_research(r.exid, r.wire_len, words);
                self.space.nsack = nsack;
                ok
            }
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub src_node: u32,
    pub dst_node: u32,
    /// The TCP endpoint (arena index) this segment is for; for `Kind::Udp`
    /// the flow index.
    pub to_ep: u32,
    /// IPv4 total length in bytes.
    pub ip_bytes: u32,
    pub payload: u32,
    pub tcp: TcpHeader,
    /// Audit metadata: the sender's absolute offset of `tcp.seq`.
    pub stream_off: u64,
    pub kind: Kind,
    /// The payload was sent before (for statistics and pcap only).
    pub retx: bool,
    /// IP time to live: every router that forwards the packet decrements
    /// it; a router that would send it on with 0 drops it.
    pub ttl: u8,
    /// The IP header's ECN codepoint (bits 0-1, [`Ecn`]) and whether the
    /// link's error model corrupted the packet (bit 2): one byte, so the
    /// packet stays 96 bytes. Read and set through [`Packet::ecn`],
    /// [`Packet::set_ecn`], [`Packet::corrupted`], [`Packet::set_corrupted`].
    ip_bits: u8,
}

const IP_BITS_ECN: u8 = 0b011;
const IP_BITS_CORRUPTED: u8 = 0b100;

impl Packet {
    /// The IP header's ECN codepoint.
    #[inline]
    pub fn ecn(&self) -> Ecn {
        match self.ip_bits & IP_BITS_ECN {
            0 => Ecn::NotEct,
            1 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    #[inline]
    pub fn set_ecn(&mut self, e: Ecn) {
        self.ip_bits = (self.ip_bits & !IP_BITS_ECN) | e as u8;
    }

    /// The link's error model corrupted it: the next node sees it (a router
    /// agent may count it) and discards it.
    #[inline]
    pub fn corrupted(&self) -> bool {
        self.ip_bits & IP_BITS_CORRUPTED != 0
    }

    #[inline]
    pub fn set_corrupted(&mut self, c: bool) {
        self.ip_bits = (self.ip_bits & !IP_BITS_CORRUPTED) | if c { IP_BITS_CORRUPTED } else { 0 };
    }

    /// A TCP segment; its kind (data or pure ACK) follows from the payload
    /// and the SYN/FIN flags.
    /// The endpoint a TCP segment is for.
    #[inline]
    pub fn endpoint(&self) -> crate::ids::EpId {
        crate::ids::EpId(self.to_ep)
    }

    /// The flow the packet belongs to (a UDP datagram's `to_ep` is its
    /// flow; a segment's, its endpoint).
    #[inline]
    pub fn flow(&self) -> crate::ids::FlowId {
        if self.kind == Kind::Udp {
            crate::ids::FlowId(self.to_ep)
        } else {
            self.endpoint().flow()
        }
    }

    #[inline]
    pub fn tcp(src_node: u32, dst_node: u32, to_ep: u32, tcp: TcpHeader, payload: u32, stream_off: u64, retx: bool) -> Self {
        let ip_bytes = IPV4_HEADER + TCP_HEADER + tcp.options_len() + payload;
        let kind = if payload > 0 || tcp.has(FLAG_SYN | FLAG_FIN) { Kind::Data } else { Kind::Ack };
        Packet { src_node, dst_node, to_ep, ip_bytes, payload, tcp, stream_off, kind, retx, ttl: INITIAL_TTL, ip_bits: 0 }
    }

    /// A UDP datagram of `ip_bytes` (IPv4 + UDP headers + payload) of flow
    /// `flow`.
    pub fn udp(src_node: u32, dst_node: u32, flow: u32, ip_bytes: u32) -> Self {
        let payload = ip_bytes - crate::app::udp::UDP_IP_HEADERS;
        Packet {
            src_node,
            dst_node,
            to_ep: flow,
            ip_bytes,
            payload,
            tcp: TcpHeader::default(),
            stream_off: 0,
            kind: Kind::Udp,
            retx: false,
            ttl: INITIAL_TTL,
            ip_bits: 0,
        }
    }

    /// A QUIC flow's UDP datagram of `ip_bytes` (quinn's payload + UDP and
    /// IPv4 headers) for endpoint `to_ep`; `id` names its bytes.
    pub fn quic(src_node: u32, dst_node: u32, to_ep: u32, ip_bytes: u32, id: u64) -> Self {
        Packet {
            src_node,
            dst_node,
            to_ep,
            ip_bytes,
            payload: ip_bytes - crate::quic::UDP_IP_HEADERS,
            tcp: TcpHeader::default(),
            stream_off: id,
            kind: Kind::Quic,
            retx: false,
            ip_bits: 0,
            ttl: INITIAL_TTL,
        }
    }

    /// The same packet marked as another kind (a dummy segment, its ACK).
    pub fn with_kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }
}

/// Packets in flight live here; events refer to them by index. Freed slots
/// are reused, so a steady-state run allocates nothing per packet.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    pub fn insert(&mut self, p: Packet) -> u32 {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }

    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }

    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }

    /// Ask the CPU to bring packet `i` into cache (`sim::prefetch`): a
    /// packet on a long link was written a round trip of traffic ago.
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        if let Some(p) = self.slots.get(i as usize) {
            crate::sim::prefetch::prefetch(p);
        }
    }

    pub fn remove(&mut self, i: u32) -> Packet {
        self.free.push(i);
        self.slots[i as usize]
    }

    /// Packets currently held (in queues or on the wire).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_header_and_option_lengths() {
        let data = Packet::tcp(0, 1, 0, TcpHeader { flags: FLAG_ACK, ..Default::default() }, 1460, 1, false);
        assert_eq!(data.ip_bytes, 1500);
        let syn = TcpHeader { flags: FLAG_SYN, opt_mss: 1460, opt_wscale: Some(7), opt_sack_perm: true, ..Default::default() };
        assert_eq!(Packet::tcp(0, 1, 0, syn, 0, 0, false).ip_bytes, 52);
        let mut ack = TcpHeader { flags: FLAG_ACK, ..Default::default() };
        assert_eq!(ack.set_sack(&[(1, 2); 3]), 3);
        assert_eq!(Packet::tcp(0, 1, 0, ack, 0, 0, false).ip_bytes, 40 + 28);
        assert_eq!(ack.set_sack(&[(1, 2); 5]), 4, "at most four blocks fit");
        assert_eq!(ack.options_len(), 36);
    }

    #[test]
    fn research_option_and_sack_blocks_share_the_option_budget() {
        let words = [1, 2, 3, 4, 5, 6, 7];
        for (wire_len, blocks) in [(32u8, 0usize), (24, 1), (16, 2), (8, 3)] {
            let mut h = TcpHeader { flags: FLAG_ACK, ..Default::default() };
            let n = ResearchOption::capacity(wire_len);
            assert!(h.set_research(0xCE7E, wire_len, &words[..n]));
            let sack: Vec<(u32, u32)> = (0..4).map(|i| (100 * i + 11, 100 * i + 22)).collect();
            assert_eq!(h.set_sack(&sack), blocks, "room beside a {wire_len}-byte option");
            assert!(h.options_len() <= MAX_OPTION_BYTES);
            assert_eq!(h.sack(), &sack[..blocks], "the blocks survive");
            let r = h.research().unwrap();
            assert_eq!((r.exid, r.wire_len), (0xCE7E, wire_len));
            assert_eq!(&r.words[..n], &words[..n], "the words survive the blocks");
            // a router rewrites the words in passing; the blocks stay
            let new: Vec<u32> = words[..n].iter().map(|w| w * 10).collect();
            assert!(h.update_research(&new));
            assert_eq!(&h.research().unwrap().words[..n], &new[..]);
            assert_eq!(h.sack(), &sack[..blocks]);
            let p = Packet::tcp(0, 1, 0, h, 0, 0, false);
            assert_eq!(p.ip_bytes, 40 + wire_len as u32 + if blocks > 0 { 4 + 8 * blocks as u32 } else { 0 });
        }
        // a SYN's 12 bytes of options leave 28 for research
        let mut syn = TcpHeader { flags: FLAG_SYN, opt_mss: 1460, opt_wscale: Some(7), opt_sack_perm: true, ..Default::default() };
        assert!(!syn.set_research(1, 32, &[]), "32 + 12 > 40");
        assert!(syn.set_research(1, 28, &[9; 6]));
        assert_eq!(syn.options_len(), 40);
        // lengths that are not a multiple of 4 in 8..=32, or too many words
        let mut h = TcpHeader::default();
        assert!(!h.set_research(1, 30, &[]));
        assert!(!h.set_research(1, 36, &[]));
        assert!(!h.set_research(1, 8, &[1, 2]));
        assert!(h.research().is_none());
    }

    #[test]
    fn kinds_follow_payload_and_flags() {
        let ack = TcpHeader { flags: FLAG_ACK, ..Default::default() };
        assert_eq!(Packet::tcp(0, 1, 0, ack, 0, 0, false).kind, Kind::Ack);
        assert_eq!(Packet::tcp(0, 1, 0, ack, 10, 0, false).kind, Kind::Data);
        let fin = TcpHeader { flags: FLAG_ACK | FLAG_FIN, ..Default::default() };
        assert_eq!(Packet::tcp(0, 1, 0, fin, 0, 0, false).kind, Kind::Data);
        let d = Packet::tcp(0, 1, 0, ack, 10, 0, false).with_kind(Kind::Dummy);
        assert!(d.kind.low_priority() && d.kind.is_tcp());
        assert!(!Packet::udp(0, 1, 0, 100).kind.is_tcp());
    }

    /// The design keeps packets small and `Copy`; a header field added
    /// carelessly (a payload buffer, a Vec of options) would show here.
    #[test]
    fn packets_stay_small() {
        assert!(std::mem::size_of::<Packet>() <= 96, "{}", std::mem::size_of::<Packet>());
        // the ECN codepoint shares a byte with the corrupted flag
        assert_eq!(std::mem::size_of::<Packet>(), 96);
    }

    #[test]
    fn ecn_codepoint_and_corrupted_flag_share_a_byte_independently() {
        let mut p = Packet::udp(0, 1, 0, 100);
        assert_eq!((p.ecn(), p.corrupted()), (Ecn::NotEct, false));
        for e in [Ecn::Ect0, Ecn::Ce, Ecn::NotEct, Ecn::Ce] {
            for c in [true, false, true] {
                p.set_corrupted(c);
                p.set_ecn(e);
                assert_eq!((p.ecn(), p.corrupted()), (e, c));
            }
        }
    }

    #[test]
    fn pool_reuses_slots() {
        let mut pool = PacketPool::default();
        let p = Packet::tcp(0, 1, 0, TcpHeader::default(), 0, 0, false);
        let a = pool.insert(p);
        let b = pool.insert(p);
        assert_ne!(a, b);
        pool.remove(a);
        assert_eq!(pool.insert(p), a);
        assert_eq!(pool.live(), 2);
    }
}
