//! The UDP side of a cross-traffic flow: the counters a UDP source and its
//! sink keep. There is no UDP protocol state (no connection, no
//! acknowledgement, no retransmission): the source hands datagrams to the
//! network and the sink counts what arrives.
//!
//! Packet sizes: `packet_size` in a scenario is the IP packet size, 20 B IPv4
//! header + 8 B UDP header + payload, because ns-2's CBR `packetSize_` (and
//! the rate it implies) is what occupies the link.

/// IPv4 + UDP header bytes.
pub const UDP_IP_HEADERS: u32 = 28;

/// Per-flow UDP counters (IP bytes, so sent and link bytes agree).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UdpStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
    /// Dropped by a queue (drop-tail, RED) or lost to a link's error model.
    pub packets_lost: u64,
}

impl UdpStats {
    pub fn sent(&mut self, ip_bytes: u32) {
        self.packets_sent += 1;
        self.bytes_sent += ip_bytes as u64;
    }

    pub fn received(&mut self, ip_bytes: u32) {
        self.packets_received += 1;
        self.bytes_received += ip_bytes as u64;
    }

    /// Packets neither received nor lost (still in the network).
    pub fn in_flight(&self) -> u64 {
        self.packets_sent - self.packets_received - self.packets_lost
    }
}
