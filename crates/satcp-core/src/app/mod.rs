//! Applications: what each flow's two endpoints are asked to do, and when a
//! flow counts as complete. An application never touches an endpoint
//! directly; it returns `Action`s that the world carries out, so applications
//! stay plain state machines that are easy to test.

pub mod cbr;
pub mod ftp;
pub mod http;
pub mod onoff;
pub mod udp;

use crate::scenario::AppCfg;
use crate::sim::{Rng, Time};

pub use crate::ids::Side;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Listen(Side),
    Connect(Side),
    Write(Side, u64),
    Close(Side),
    /// Write nothing beyond what has been sent, and close.
    StopWriting(Side),
    /// Call `on_wakeup` at this time.
    WakeAt(Time),
    /// Send one UDP datagram of this many IP bytes from the flow's source
    /// to its destination (cross traffic).
    Datagram(u32),
}

/// What the application hears from its endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppNote {
    Delivered(Side, u64),
    PeerClosed(Side),
    /// Every byte this side has written is acknowledged by the peer.
    AllAcked(Side),
    /// Both FINs of the connection are acknowledged.
    ConnectionFinished,
    Aborted,
}

/// Bytes the server writes for an unlimited transfer (far beyond any run).
pub const UNLIMITED_BYTES: u64 = 1 << 60;

pub enum App {
    Ftp(ftp::Ftp),
    Http(http::Http),
    Cbr(cbr::Cbr),
    OnOff(onoff::OnOff),
}

impl App {
    /// `rng` is the application's own stream (used by random sources only).
    pub fn new(cfg: &AppCfg, rng: Rng) -> Self {
        match cfg {
            AppCfg::Ftp(c) => App::Ftp(ftp::Ftp::new(c.clone())),
            AppCfg::Http(c) => App::Http(http::Http::new(c.clone())),
            AppCfg::Cbr(c) => App::Cbr(cbr::Cbr::new(c.clone(), rng)),
            AppCfg::OnOff(c) => App::OnOff(onoff::OnOff::new(c.clone(), rng)),
        }
    }

    pub fn start_time(&self) -> Time {
        match self {
            App::Ftp(a) => a.cfg.start_ns,
            App::Http(a) => a.cfg.start_ns,
            App::Cbr(a) => a.cfg.start_ns,
            App::OnOff(a) => a.cfg.start_ns,
        }
    }

    /// Whether the flow can ever complete. UDP sources never do: they run
    /// beside the flows whose completion ends the run.
    pub fn is_finite(&self) -> bool {
        match self {
            App::Ftp(a) => a.cfg.size_bytes.is_some(),
            App::Http(a) => a.cfg.pages.is_some(),
            App::Cbr(_) | App::OnOff(_) => false,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            App::Ftp(_) => "ftp",
            App::Http(_) => "http",
            App::Cbr(_) => "cbr",
            App::OnOff(_) => "onoff",
        }
    }

    pub fn on_wakeup(&mut self, now: Time, out: &mut Vec<Action>) {
        match self {
            App::Ftp(a) => a.on_wakeup(now, out),
            App::Http(a) => a.on_wakeup(now, out),
            App::Cbr(a) => a.on_wakeup(now, out),
            App::OnOff(a) => a.on_wakeup(now, out),
        }
    }

    pub fn on_note(&mut self, now: Time, note: AppNote, out: &mut Vec<Action>) {
        match self {
            App::Ftp(a) => a.on_note(now, note, out),
            App::Http(a) => a.on_note(now, note, out),
            // an on/off source over TCP: the receiver closes when the sender has
            App::OnOff(a) if a.cfg.tcp => {
                if let AppNote::PeerClosed(side) = note {
                    out.push(Action::Close(side));
                }
            }
            App::Cbr(_) | App::OnOff(_) => {}
        }
    }

    /// The least number of bytes delivered to `side` at which a
    /// `Delivered` note could make this application act: a note below it
    /// changes nothing, so the world does not hand it over (every data
    /// segment delivers one, and most ask for nothing).
    pub fn delivery_mark(&self, side: Side) -> u64 {
        match self {
            App::Ftp(a) => a.delivery_mark(side),
            App::Http(a) => a.delivery_mark(side),
            App::Cbr(_) | App::OnOff(_) => u64::MAX,
        }
    }

    /// The time the flow's work was done, if it is.
    pub fn completed_at(&self) -> Option<Time> {
        match self {
            App::Ftp(a) => a.completed_at,
            App::Http(a) => a.completed_at,
            App::Cbr(_) | App::OnOff(_) => None,
        }
    }

    pub fn last_byte_at(&self) -> Option<Time> {
        match self {
            App::Ftp(a) => a.last_byte_at,
            App::Http(a) => a.completed_at,
            App::Cbr(_) | App::OnOff(_) => None,
        }
    }

    /// A copy of the UDP counters, for reports (None for TCP flows, an
    /// on/off source over TCP included).
    pub fn udp_stats(&self) -> Option<udp::UdpStats> {
        match self {
            App::Cbr(a) => Some(a.stats),
            App::OnOff(a) if !a.cfg.tcp => Some(a.stats),
            _ => None,
        }
    }

    /// The UDP counters of a cross-traffic source.
    pub fn udp(&mut self) -> Option<&mut udp::UdpStats> {
        match self {
            App::Cbr(a) => Some(&mut a.stats),
            App::OnOff(a) if !a.cfg.tcp => Some(&mut a.stats),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FtpCfg, HttpCfg, ResponseEnd};

    /// Drive `cfg`'s application over a toy connection that delivers what
    /// each side writes in random chunks, with every `Delivered` note or,
    /// `filtered`, only those at or above the delivery mark (as the world
    /// hands them over); the actions taken, with their times, and the
    /// completion time.
    fn drive(cfg: &AppCfg, filtered: bool, seed: u64) -> (Vec<(Time, Action)>, Option<Time>) {
        let mut app = App::new(cfg, Rng::new(seed, 0));
        let mut rng = Rng::new(seed, 1);
        let (mut pending, mut total) = ([0u64; 2], [0u64; 2]); // [server, client]
        let mut wakes: Vec<Time> = vec![app.start_time()];
        let mut log = vec![];
        let mut out = vec![];
        for now in 0..3000u64 {
            if let Some(i) = wakes.iter().position(|&w| w <= now) {
                wakes.swap_remove(i);
                app.on_wakeup(now, &mut out);
            } else {
                let side = rng.next_u64() as usize % 2;
                if pending[side] > 0 {
                    let chunk = (1 + rng.next_u64() % 37).min(pending[side]);
                    pending[side] -= chunk;
                    total[side] += chunk;
                    let s = if side == 0 { Side::Server } else { Side::Client };
                    if !filtered || total[side] >= app.delivery_mark(s) {
                        app.on_note(now, AppNote::Delivered(s, total[side]), &mut out);
                    }
                }
            }
            for a in out.drain(..) {
                match a {
                    // what one side writes the other receives
                    Action::Write(Side::Server, n) => pending[1] += n.min(1 << 20),
                    Action::Write(Side::Client, n) => pending[0] += n.min(1 << 20),
                    Action::WakeAt(t) => wakes.push(t),
                    _ => {}
                }
                log.push((now, a));
            }
        }
        (log, app.completed_at())
    }

    /// Notes below the mark change nothing: the filtered drive takes the
    /// same actions at the same times and completes at the same time, for
    /// FTP (pushed, requested, unlimited) and HTTP pages (sequential and
    /// pipelined), over random chunkings.
    #[test]
    fn notes_below_the_delivery_mark_change_nothing() {
        let ftp = |size, request| {
            AppCfg::Ftp(FtpCfg { start_ns: 3, stop_ns: None, size_bytes: size, request_bytes: request, response_end: ResponseEnd::LastByte })
        };
        let http = |pipelining| {
            AppCfg::Http(HttpCfg {
                start_ns: 0, page_interval_ns: 400, pages: Some(4), main_object_bytes: 500, embedded_objects: 3,
                embedded_object_bytes: 120, request_bytes: 35, pipelining, first_page_ns: 0,
            })
        };
        // (configuration, whether the drive completes it)
        let cfgs = [(ftp(Some(5000), 0), true), (ftp(Some(5000), 350), true), (ftp(None, 0), false), (ftp(None, 40), false),
                    (http(false), true), (http(true), true)];
        for (cfg, completes) in &cfgs {
            for seed in 1..=20 {
                let (all, done) = drive(cfg, false, seed);
                assert_eq!(done.is_some(), *completes, "seed {seed}");
                assert_eq!(drive(cfg, true, seed), (all, done), "seed {seed}");
            }
        }
        // and the drive is sharp enough to see a mark set too high
        let (all, _) = drive(&http(false), false, 1);
        assert!(all.iter().filter(|(_, a)| matches!(a, Action::Write(Side::Client, _))).count() > 4);
    }
}
