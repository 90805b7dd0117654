//! Loss recovery: how duplicate and partial ACKs are read and which segments
//! are resent. Each scheme is an `impl Endpoint` block in its own file; the
//! endpoint dispatches on `TcpCfg::recovery`.
//!
//! Options that change recovery for every scheme have their own files too:
//! Limited Transmit (`limited_transmit`) and F-RTO (`frto`).
//!
//! The schemes return from their new-ACK hook whether the retransmission
//! timer should be restarted (RFC 6298 5.3), because NewReno's "impatient"
//! rule restarts it only on the first partial ACK (RFC 6582 3.2 step 3).

mod fack;
pub mod frto;
mod limited_transmit;
mod newreno;
mod reno;
mod sack;
mod tahoe;
