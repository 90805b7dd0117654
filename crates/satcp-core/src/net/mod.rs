//! Network models, grouped by what they are:
//! * `packet/`: packets (kinds, TCP header and options, the CETEN option)
//!   and the pool they live in;
//! * `link/`: one direction of a link: its transmitters (the FIFO fast
//!   path, the holding transmitter of the priority and class queues, the
//!   link-layer ARQ behind one link-protocol interface), its schedule of
//!   changes;
//! * `queue/`: queue disciplines (RED; priority with push-out; TCP and
//!   other traffic in classes);
//! * `errors/`: error models (uniform, bit, burst, Gilbert-Elliott,
//!   trace-driven);
//! * `capture/`: packet capture to pcap files;
//! * `routing.rs`: shortest paths on propagation delay.

pub mod capture;
pub mod errors;
pub mod link;
pub mod packet;
pub mod queue;
pub mod routing;

pub use link::{Enqueued, LinkDir, Offered, Sending};
pub use packet::{Kind, Packet, PacketPool, TcpHeader};
