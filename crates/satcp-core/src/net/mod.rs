//! Network models: packets, link directions with their queues and error
//! models, and static routing.

pub mod capture;
pub mod dsn_burst;
pub mod error_model;
pub mod error_trace;
pub mod gilbert_elliott;
pub mod link;
pub mod packet;
pub mod pcap;
pub mod red;
pub mod routing;

pub use link::{Enqueued, LinkDir};
pub use packet::{Kind, Packet, PacketPool, TcpHeader};
