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

/// Which endpoint of the flow: the server sends the bulk data, the client
/// receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

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
