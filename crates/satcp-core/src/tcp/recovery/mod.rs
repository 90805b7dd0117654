//! Loss recovery: how duplicate and partial ACKs are read and which segments
//! are resent. Each scheme is an `impl Endpoint` block in its own file; the
//! endpoint dispatches on `TcpCfg::recovery`.
//!
//! Both schemes return from their new-ACK hook whether the retransmission
//! timer should be restarted (RFC 6298 5.3), because NewReno's "impatient"
//! rule restarts it only on the first partial ACK (RFC 6582 3.2 step 3).

mod newreno;
mod sack;
