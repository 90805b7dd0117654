//! Network models: packets, link directions with their transmitters, queues,
//! error models and schedules of changes, and routing.

pub mod arq;
pub mod arq_link;
pub mod capture;
pub mod class_queue;
pub mod ceten_option;
pub mod dsn_burst;
pub mod error_model;
pub mod error_trace;
pub mod fec;
pub mod gilbert_elliott;
pub mod link;
pub mod packet;
pub mod pcap;
pub mod priority;
pub mod red;
pub mod routing;
pub mod schedule;

pub use link::{Enqueued, LinkDir, Offered, Sending};
pub use packet::{Kind, Packet, PacketPool, TcpHeader};
