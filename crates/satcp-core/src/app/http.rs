//! HTTP/1.1 page model of the ADaLR thesis (Table 7.3, after 3GPP2 1xEV-DV):
//! one persistent connection opened by the client at `start`; a page every
//! `page_interval`: a request for the main object, then, once the main
//! object has arrived, requests for `embedded_objects` embedded objects.
//!
//! Choices (the thesis leaves them open, spec 000 ambiguity 32):
//! * Requests are `request` bytes each (default 350).
//! * Embedded objects are requested one after another (a new request when
//!   the previous object has arrived), or all at once with `pipelining`.
//! * Page response time runs from the page's request (for the first page:
//!   from the SYN, since the request waits for the handshake) to the last
//!   byte of its last embedded object. A page that falls due while the
//!   previous one is still loading starts when that one finishes, and its
//!   response time counts from then.
//! * The server answers requests in order; which object a request asks for is
//!   shared state of this model, standing in for the request's content.
//! * After the last page (when `pages` is set) the client closes the
//!   connection; the flow is complete when the last page is.
//! * `first_page` delays the first page after the connection is opened at
//!   `start` (default 0: the request waits for the handshake). With the
//!   handshake done by then, the first page is timed from its request over
//!   an open connection whose window is still the initial one: the ADaLR
//!   thesis' page as OPNET times it when the HTTP 1.1 connection is closed
//!   between pages 30 s apart (scenarios/adalr/http.toml).

use std::collections::VecDeque;

use super::{Action, AppNote, Side};
use crate::scenario::HttpCfg;
use crate::sim::Time;

pub struct Http {
    pub cfg: HttpCfg,
    /// Object sizes requested and not yet answered by the server, in order.
    server_queue: VecDeque<u64>,
    /// Request bytes the server has taken so far (all requests equal size).
    server_requests_seen: u64,
    server_delivered: u64,
    /// Stream offsets at which each requested object ends at the client.
    client_expect: VecDeque<(u64, bool)>,
    client_requested_bytes: u64,
    embedded_left_to_request: u32,
    page_start: Option<Time>,
    pages_started: u32,
    pages_due: u32,
    /// (start, end) of each completed page.
    pub pages: Vec<(Time, Time)>,
    pub completed_at: Option<Time>,
    started: bool,
}

impl Http {
    pub fn new(cfg: HttpCfg) -> Self {
        Http {
            cfg,
            server_queue: VecDeque::new(),
            server_requests_seen: 0,
            server_delivered: 0,
            client_expect: VecDeque::new(),
            client_requested_bytes: 0,
            embedded_left_to_request: 0,
            page_start: None,
            pages_started: 0,
            pages_due: 0,
            pages: Vec::new(),
            completed_at: None,
            started: false,
        }
    }

    fn request(&mut self, size: u64, is_last: bool, out: &mut Vec<Action>) {
        self.server_queue.push_back(size);
        self.client_requested_bytes += size;
        self.client_expect.push_back((self.client_requested_bytes, is_last));
        out.push(Action::Write(Side::Client, self.cfg.request_bytes));
    }

    fn all_pages_due(&self) -> bool {
        self.cfg.pages.is_some_and(|n| self.pages_due >= n)
    }

    fn begin_page(&mut self, now: Time, out: &mut Vec<Action>) {
        self.page_start = Some(now);
        self.pages_started += 1;
        let only_main = self.cfg.embedded_objects == 0;
        self.request(self.cfg.main_object_bytes, only_main, out);
        self.embedded_left_to_request = self.cfg.embedded_objects;
    }

    pub fn on_wakeup(&mut self, now: Time, out: &mut Vec<Action>) {
        if !self.started {
            self.started = true;
            out.push(Action::Listen(Side::Server));
            out.push(Action::Connect(Side::Client));
            if self.cfg.first_page_ns > 0 {
                out.push(Action::WakeAt(now + self.cfg.first_page_ns));
                return;
            }
        }
        if self.all_pages_due() {
            return;
        }
        self.pages_due += 1;
        if self.page_start.is_none() {
            self.begin_page(now, out);
        }
        if !self.all_pages_due() {
            out.push(Action::WakeAt(now + self.cfg.page_interval_ns));
        }
    }

    /// See `App::delivery_mark`: the server acts when the next queued
    /// request has arrived whole, the client when the next object it
    /// expects has.
    pub fn delivery_mark(&self, side: Side) -> u64 {
        match side {
            Side::Server if self.server_queue.is_empty() => u64::MAX,
            Side::Server => (self.server_requests_seen + 1) * self.cfg.request_bytes,
            Side::Client => self.client_expect.front().map_or(u64::MAX, |&(end, _)| end),
        }
    }

    pub fn on_note(&mut self, now: Time, note: AppNote, out: &mut Vec<Action>) {
        match note {
            AppNote::Delivered(Side::Server, total) => {
                self.server_delivered = total;
                while let Some(&size) = self.server_queue.front() {
                    if self.server_delivered < (self.server_requests_seen + 1) * self.cfg.request_bytes {
                        break;
                    }
                    self.server_requests_seen += 1;
                    self.server_queue.pop_front();
                    out.push(Action::Write(Side::Server, size));
                }
            }
            AppNote::Delivered(Side::Client, total) => {
                while let Some(&(end, is_last)) = self.client_expect.front() {
                    if total < end {
                        break;
                    }
                    self.client_expect.pop_front();
                    if is_last {
                        self.finish_page(now, out);
                    } else {
                        self.request_embedded(out);
                    }
                }
            }
            AppNote::PeerClosed(side) => out.push(Action::Close(side)),
            AppNote::ConnectionFinished | AppNote::AllAcked(_) | AppNote::Aborted => {}
        }
    }

    fn request_embedded(&mut self, out: &mut Vec<Action>) {
        let n = if self.cfg.pipelining { self.embedded_left_to_request } else { self.embedded_left_to_request.min(1) };
        for _ in 0..n {
            // only a request just made for the main object leaves us here
            self.embedded_left_to_request -= 1;
            let last = self.embedded_left_to_request == 0;
            self.request(self.cfg.embedded_object_bytes, last, out);
        }
    }

    fn finish_page(&mut self, now: Time, out: &mut Vec<Action>) {
        let start = self.page_start.take().expect("a page was loading");
        self.pages.push((start, now));
        if self.cfg.pages.is_some_and(|n| self.pages.len() as u32 >= n) {
            self.completed_at = Some(now);
            out.push(Action::Close(Side::Client));
        } else if self.pages_started < self.pages_due {
            self.begin_page(now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(pipelining: bool) -> HttpCfg {
        HttpCfg { start_ns: 0, page_interval_ns: 30, pages: Some(2), main_object_bytes: 100, embedded_objects: 2, embedded_object_bytes: 10, request_bytes: 5, pipelining, first_page_ns: 0 }
    }

    #[test]
    fn sequential_page_fetch_hand_worked() {
        let mut h = Http::new(cfg(false));
        let mut out = vec![];
        h.on_wakeup(0, &mut out);
        assert_eq!(out, vec![Action::Listen(Side::Server), Action::Connect(Side::Client), Action::Write(Side::Client, 5), Action::WakeAt(30)]);
        out.clear();
        h.on_note(1, AppNote::Delivered(Side::Server, 5), &mut out);
        assert_eq!(out, vec![Action::Write(Side::Server, 100)]);
        out.clear();
        h.on_note(2, AppNote::Delivered(Side::Client, 100), &mut out);
        assert_eq!(out, vec![Action::Write(Side::Client, 5)], "one embedded request at a time");
        out.clear();
        h.on_note(3, AppNote::Delivered(Side::Server, 10), &mut out);
        assert_eq!(out, vec![Action::Write(Side::Server, 10)]);
        out.clear();
        h.on_note(4, AppNote::Delivered(Side::Client, 110), &mut out);
        h.on_note(5, AppNote::Delivered(Side::Server, 15), &mut out);
        h.on_note(6, AppNote::Delivered(Side::Client, 120), &mut out);
        assert_eq!(h.pages, vec![(0, 6)]);
        assert_eq!(h.completed_at, None);
        out.clear();
        h.on_wakeup(30, &mut out);
        assert_eq!(out, vec![Action::Write(Side::Client, 5)], "no wake-up after the last page is due");
    }

    #[test]
    fn pipelined_requests_go_out_together_and_late_page_waits() {
        let mut h = Http::new(cfg(true));
        let mut out = vec![];
        h.on_wakeup(0, &mut out);
        h.on_note(1, AppNote::Delivered(Side::Server, 5), &mut out);
        out.clear();
        h.on_note(2, AppNote::Delivered(Side::Client, 100), &mut out);
        assert_eq!(out, vec![Action::Write(Side::Client, 5), Action::Write(Side::Client, 5)]);
        out.clear();
        h.on_wakeup(30, &mut out); // page 2 due while page 1 loads
        assert!(out.is_empty());
        h.on_note(31, AppNote::Delivered(Side::Server, 15), &mut out);
        assert_eq!(out, vec![Action::Write(Side::Server, 10), Action::Write(Side::Server, 10)]);
        out.clear();
        h.on_note(40, AppNote::Delivered(Side::Client, 120), &mut out);
        assert_eq!(h.pages, vec![(0, 40)]);
        assert_eq!(out, vec![Action::Write(Side::Client, 5)], "the late page starts now");
        h.on_note(41, AppNote::Delivered(Side::Server, 20), &mut out);
        h.on_note(50, AppNote::Delivered(Side::Client, 220), &mut out);
        h.on_note(51, AppNote::Delivered(Side::Server, 30), &mut out);
        out.clear();
        h.on_note(60, AppNote::Delivered(Side::Client, 240), &mut out);
        assert_eq!(h.pages, vec![(0, 40), (40, 60)]);
        assert_eq!(h.completed_at, Some(60));
        assert_eq!(out, vec![Action::Close(Side::Client)]);
    }

    /// `first_page` = 7: the connection opens at 0 and nothing is requested
    /// until 7; page 1 runs from 7, page 2 is due 30 later, at 37.
    #[test]
    fn first_page_waits_after_the_connection_opens() {
        let mut h = Http::new(HttpCfg { first_page_ns: 7, ..cfg(false) });
        let mut out = vec![];
        h.on_wakeup(0, &mut out);
        assert_eq!(out, vec![Action::Listen(Side::Server), Action::Connect(Side::Client), Action::WakeAt(7)]);
        out.clear();
        h.on_wakeup(7, &mut out);
        assert_eq!(out, vec![Action::Write(Side::Client, 5), Action::WakeAt(37)]);
        out.clear();
        h.on_note(8, AppNote::Delivered(Side::Server, 5), &mut out);
        h.on_note(9, AppNote::Delivered(Side::Client, 100), &mut out);
        h.on_note(10, AppNote::Delivered(Side::Server, 10), &mut out);
        h.on_note(11, AppNote::Delivered(Side::Client, 110), &mut out);
        h.on_note(12, AppNote::Delivered(Side::Server, 15), &mut out);
        h.on_note(13, AppNote::Delivered(Side::Client, 120), &mut out);
        assert_eq!(h.pages, vec![(7, 13)], "timed from the request at 7, not from the SYN at 0");
    }
}
