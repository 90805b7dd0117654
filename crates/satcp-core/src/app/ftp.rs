//! FTP-like bulk transfer: one file of a given size (or unlimited) from the
//! server to the client over one connection.
//!
//! * `request = 0` (default): the server opens the connection at `start`,
//!   writes the whole file and closes (ns-2/ns-3 bulk-send style).
//! * `request > 0`: the client opens the connection at `start` and sends a
//!   request of that many bytes; the server writes the file once the whole
//!   request has arrived (the ADaLR thesis' "from sending the FTP request").
//! * The client closes its side when the server's FIN arrives.
//! * `stop`: at that time the server stops writing: what it has sent
//!   completes, nothing new is sent, and it closes (a flow that leaves the
//!   path at a handover, XFWA's scenarios B-D).
//! * Response time runs from `start` (the first SYN) to the last byte
//!   delivered (`response_end = "last_byte"`, default), to the completed FIN
//!   exchange (`"fin"`, as the ADaLR thesis counts it), or to the server's
//!   receipt of the ACK of the file's last byte (`"last_ack"`, what an ns-2
//!   sender trace shows; the TRANSAT paper's elapsed time). On a QUIC
//!   flow the transport gives these notes their QUIC meaning (`quic/mod.rs`:
//!   `fin` is the client's read of the response stream to its end,
//!   `last_ack` the server's news that all of it, FIN included, is
//!   acknowledged).

use super::{Action, AppNote, Side, UNLIMITED_BYTES};
use crate::scenario::{FtpCfg, ResponseEnd};
use crate::sim::Time;

pub struct Ftp {
    pub cfg: FtpCfg,
    pub last_byte_at: Option<Time>,
    pub completed_at: Option<Time>,
    file_sent: bool,
    started: bool,
}

impl Ftp {
    pub fn new(cfg: FtpCfg) -> Self {
        Ftp { cfg, last_byte_at: None, completed_at: None, file_sent: false, started: false }
    }

    fn send_file(&mut self, out: &mut Vec<Action>) {
        self.file_sent = true;
        match self.cfg.size_bytes {
            Some(n) => {
                out.push(Action::Write(Side::Server, n));
                out.push(Action::Close(Side::Server));
            }
            None => out.push(Action::Write(Side::Server, UNLIMITED_BYTES)),
        }
    }

    pub fn on_wakeup(&mut self, _now: Time, out: &mut Vec<Action>) {
        if self.started {
            out.push(Action::StopWriting(Side::Server));
            return;
        }
        self.started = true;
        if let Some(t) = self.cfg.stop_ns {
            out.push(Action::WakeAt(t));
        }
        if self.cfg.request_bytes == 0 {
            out.push(Action::Listen(Side::Client));
            out.push(Action::Connect(Side::Server));
            self.send_file(out);
        } else {
            out.push(Action::Listen(Side::Server));
            out.push(Action::Connect(Side::Client));
            out.push(Action::Write(Side::Client, self.cfg.request_bytes));
        }
    }

    /// See `App::delivery_mark`: the server acts on the whole request (once),
    /// the client on the file's last byte.
    pub fn delivery_mark(&self, side: Side) -> u64 {
        match side {
            Side::Server if !self.file_sent => self.cfg.request_bytes,
            Side::Server => u64::MAX,
            Side::Client => self.cfg.size_bytes.unwrap_or(u64::MAX),
        }
    }

    pub fn on_note(&mut self, now: Time, note: AppNote, out: &mut Vec<Action>) {
        match note {
            AppNote::Delivered(Side::Server, total) => {
                if !self.file_sent && total >= self.cfg.request_bytes {
                    self.send_file(out);
                }
            }
            AppNote::Delivered(Side::Client, total) => {
                if Some(total) == self.cfg.size_bytes {
                    self.last_byte_at = Some(now);
                    if self.cfg.response_end == ResponseEnd::LastByte {
                        self.completed_at = Some(now);
                    }
                }
            }
            AppNote::AllAcked(Side::Server) => {
                if self.cfg.response_end == ResponseEnd::LastAck && self.file_sent && self.cfg.size_bytes.is_some() {
                    self.completed_at = Some(now);
                }
            }
            AppNote::AllAcked(Side::Client) => {}
            AppNote::PeerClosed(side) => out.push(Action::Close(side)),
            AppNote::ConnectionFinished => {
                if self.cfg.response_end == ResponseEnd::Fin && self.last_byte_at.is_some() {
                    self.completed_at = Some(now);
                }
            }
            AppNote::Aborted => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(request: u64, end: ResponseEnd) -> FtpCfg {
        FtpCfg { start_ns: 0, stop_ns: None, size_bytes: Some(1000), request_bytes: request, response_end: end }
    }

    #[test]
    fn push_mode_server_opens_writes_and_closes() {
        let mut f = Ftp::new(cfg(0, ResponseEnd::LastByte));
        let mut out = vec![];
        f.on_wakeup(0, &mut out);
        assert_eq!(out, vec![Action::Listen(Side::Client), Action::Connect(Side::Server), Action::Write(Side::Server, 1000), Action::Close(Side::Server)]);
        out.clear();
        f.on_note(5, AppNote::Delivered(Side::Client, 999), &mut out);
        assert_eq!(f.completed_at, None);
        f.on_note(7, AppNote::Delivered(Side::Client, 1000), &mut out);
        assert_eq!(f.completed_at, Some(7));
    }

    /// `last_ack`: the server's news that everything is acknowledged ends
    /// it, not the client's delivery nor the client's own acknowledgements.
    #[test]
    fn last_ack_end_waits_for_the_servers_ack() {
        let mut f = Ftp::new(cfg(0, ResponseEnd::LastAck));
        let mut out = vec![];
        f.on_wakeup(0, &mut out);
        f.on_note(7, AppNote::Delivered(Side::Client, 1000), &mut out);
        f.on_note(8, AppNote::AllAcked(Side::Client), &mut out);
        assert_eq!((f.last_byte_at, f.completed_at), (Some(7), None));
        f.on_note(9, AppNote::AllAcked(Side::Server), &mut out);
        assert_eq!(f.completed_at, Some(9));
    }

    #[test]
    fn request_mode_waits_for_the_whole_request_and_fin_end() {
        let mut f = Ftp::new(cfg(100, ResponseEnd::Fin));
        let mut out = vec![];
        f.on_wakeup(0, &mut out);
        assert_eq!(out, vec![Action::Listen(Side::Server), Action::Connect(Side::Client), Action::Write(Side::Client, 100)]);
        out.clear();
        f.on_note(1, AppNote::Delivered(Side::Server, 50), &mut out);
        assert!(out.is_empty());
        f.on_note(2, AppNote::Delivered(Side::Server, 100), &mut out);
        assert_eq!(out, vec![Action::Write(Side::Server, 1000), Action::Close(Side::Server)]);
        f.on_note(3, AppNote::Delivered(Side::Client, 1000), &mut out);
        assert_eq!(f.completed_at, None, "fin end waits for the FIN exchange");
        f.on_note(4, AppNote::ConnectionFinished, &mut out);
        assert_eq!(f.completed_at, Some(4));
        assert_eq!(f.last_byte_at, Some(3));
    }
}
