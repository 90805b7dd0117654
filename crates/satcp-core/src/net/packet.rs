//! Packets: small `Copy` structs with real header fields and no payload bytes.
//!
//! A TCP segment carries the 32-bit wire sequence and acknowledgement numbers,
//! the 16-bit window, flags and options (MSS, window scale, SACK-permitted,
//! up to four SACK blocks) exactly as on the wire, so endpoints must unwrap
//! sequence numbers like a real stack. `stream_off` is simulator metadata (the
//! absolute sequence offset the sender meant) used only to audit the receiver.

pub const IPV4_HEADER: u32 = 20;
pub const TCP_HEADER: u32 = 20;

pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_SYN: u8 = 0x02;
pub const FLAG_ACK: u8 = 0x10;

/// Maximum SACK blocks in one segment (40 bytes of option space, no
/// timestamps: 2 NOPs + kind/len + 4 x 8).
pub const MAX_SACK_BLOCKS: usize = 4;

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
    pub nsack: u8,
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
}

impl TcpHeader {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    /// Bytes of TCP options, padded to a multiple of 4 as real stacks do.
    pub fn options_len(&self) -> u32 {
        let mut n = 0;
        if self.opt_mss != 0 {
            n += 4;
        }
        if self.opt_wscale.is_some() {
            n += 4; // NOP + 3-byte option
        }
        if self.opt_sack_perm {
            n += 4; // NOP NOP + 2-byte option
        }
        if self.nsack > 0 {
            n += 4 + 8 * self.nsack as u32; // NOP NOP kind len + blocks
        }
        n
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub src_node: u32,
    pub dst_node: u32,
    /// The TCP endpoint (arena index) this segment is for.
    pub to_ep: u32,
    /// IPv4 total length in bytes.
    pub ip_bytes: u32,
    pub payload: u32,
    pub tcp: TcpHeader,
    /// Audit metadata: the sender's absolute offset of `tcp.seq`.
    pub stream_off: u64,
    /// The payload was sent before (for statistics and pcap only).
    pub retx: bool,
    /// A UDP datagram of cross traffic: `to_ep` is then the flow index and
    /// `tcp` is unused.
    pub udp: bool,
}

impl Packet {
    pub fn tcp(src_node: u32, dst_node: u32, to_ep: u32, tcp: TcpHeader, payload: u32, stream_off: u64, retx: bool) -> Self {
        let ip_bytes = IPV4_HEADER + TCP_HEADER + tcp.options_len() + payload;
        Packet { src_node, dst_node, to_ep, ip_bytes, payload, tcp, stream_off, retx, udp: false }
    }

    /// A UDP datagram of `ip_bytes` (IPv4 + UDP headers + payload) of flow
    /// `flow`.
    pub fn udp(src_node: u32, dst_node: u32, flow: u32, ip_bytes: u32) -> Self {
        let payload = ip_bytes - crate::app::udp::UDP_IP_HEADERS;
        Packet { src_node, dst_node, to_ep: flow, ip_bytes, payload, tcp: TcpHeader::default(), stream_off: 0, retx: false, udp: true }
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
        let mut ack = TcpHeader { flags: FLAG_ACK, nsack: 3, ..Default::default() };
        assert_eq!(Packet::tcp(0, 1, 0, ack, 0, 0, false).ip_bytes, 40 + 28);
        ack.nsack = 4;
        assert_eq!(ack.options_len(), 36);
    }

    /// The design keeps packets small and `Copy`; a header field added
    /// carelessly (a payload buffer, a Vec of options) would show here.
    #[test]
    fn packets_stay_small() {
        assert!(std::mem::size_of::<Packet>() <= 96, "{}", std::mem::size_of::<Packet>());
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
