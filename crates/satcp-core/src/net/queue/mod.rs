//! Queue disciplines of a link direction. Drop-tail and RED decide on
//! arrival, so they sit in front of the FIFO transmitter (`link/`); the
//! priority queue (which pushes dummy segments out after accepting them),
//! the class queue (TCP and other traffic with shares of the link),
//! drop-front (which drops a packet it accepted earlier), CoDel (which
//! decides at dequeue) and FQ-CoDel hold their packets, on the holding transmitter.

pub mod classes;
pub mod codel;
pub mod drop_front;
pub mod fq_codel;
pub mod priority;
pub mod red;
pub mod sojourn;
