//! Packet capture: the `[[captures]]` of a scenario, each a pcap file of the
//! packets one or both directions of a link accept for transmission.
//!
//! Capture point (a choice): a packet is recorded when a link direction
//! accepts it, i.e. once it has passed the queue's admission test. So
//! * a packet the queue drops is not in the file (a sniffer on the wire
//!   would never see it);
//! * a packet the error model corrupts is in the file: it was transmitted,
//!   and the far end discards it. Loss on the link is therefore visible in a
//!   capture of the receiving side's next hop, not in this one.
//!
//! Timestamp (a parameter, `timestamp`): "transmit" (default) is the instant
//! the first bit leaves the transmitter, `max(now, busy_until)`, so the
//! queueing delay at this hop is before the stamp; "accept" is the instant
//! the node handed the packet to the link. With "transmit" the stamps of
//! packets accepted later can be earlier than those of packets already
//! waiting on the other direction of the same file, so records are held in a
//! small heap and written once simulated time has passed their stamp; the
//! file is in timestamp order (ties in acceptance order), as readers expect.
//!
//! Cost: the world holds `Option<Box<Capture>>`; without captures the hot
//! path pays one `None` test per packet hop.

pub mod pcap;


use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufWriter};

use crate::net::Packet;
use pcap::PcapWriter;
use crate::scenario::{CaptureTime, Scenario};
use crate::sim::Time;

/// A record waiting for simulated time to pass its stamp.
struct Held {
    at: Time,
    order: u64,
    pkt: Packet,
    dir: u32,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.order) == (o.at, o.order)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(o.at, o.order))
    }
}

struct CaptureFile {
    path: String,
    out: PcapWriter<BufWriter<File>>,
    timestamp: CaptureTime,
    held: BinaryHeap<Reverse<Held>>,
}

pub struct Capture {
    files: Vec<CaptureFile>,
    /// For each link direction, the files that record it.
    by_dir: Vec<Vec<u32>>,
    /// For each link direction, (from node, to node).
    ends: Vec<(u32, u32)>,
    order: u64,
    /// The first write error, reported by [`Capture::finish`].
    error: Option<io::Error>,
}

fn with_path(path: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("capture file {}: {}", path, e))
}

impl Capture {
    /// Create (truncate) every capture file of `scn`. None if it asks for
    /// no capture.
    pub fn create(scn: &Scenario) -> io::Result<Option<Box<Capture>>> {
        if scn.captures.is_empty() {
            return Ok(None);
        }
        let mut by_dir = vec![Vec::new(); 2 * scn.links.len()];
        let mut ends = Vec::with_capacity(2 * scn.links.len());
        for l in &scn.links {
            ends.push((l.a as u32, l.b as u32));
            ends.push((l.b as u32, l.a as u32));
        }
        let mut files = Vec::with_capacity(scn.captures.len());
        for (i, c) in scn.captures.iter().enumerate() {
            let f = File::create(&c.file).map_err(|e| with_path(&c.file, e))?;
            let out = PcapWriter::new(BufWriter::with_capacity(1 << 16, f), c.snaplen).map_err(|e| with_path(&c.file, e))?;
            files.push(CaptureFile { path: c.file.clone(), out, timestamp: c.timestamp, held: BinaryHeap::new() });
            for (d, on) in c.dirs.iter().enumerate() {
                if *on {
                    by_dir[2 * c.link + d].push(i as u32);
                }
            }
        }
        Ok(Some(Box::new(Capture { files, by_dir, ends, order: 0, error: None })))
    }

    /// A link direction joins the run after it began (a constellation's
    /// ground-to-satellite link); no capture names it.
    pub fn add_dir(&mut self, from: u32, to: u32) {
        self.by_dir.push(Vec::new());
        self.ends.push((from, to));
    }

    /// Direction `dir` accepted `p` at `now`; its transmission starts at
    /// `tx_start`.
    pub fn on_accept(&mut self, dir: u32, now: Time, tx_start: Time, p: &Packet) {
        if self.by_dir[dir as usize].is_empty() {
            return;
        }
        let (from, to) = self.ends[dir as usize];
        for k in 0..self.by_dir[dir as usize].len() {
            let f = &mut self.files[self.by_dir[dir as usize][k] as usize];
            let r = match f.timestamp {
                CaptureTime::Accept => f.out.write(now, p, from, to),
                CaptureTime::Transmit => {
                    self.order += 1;
                    f.held.push(Reverse(Held { at: tx_start, order: self.order, pkt: *p, dir }));
                    release(f, &self.ends, now)
                }
            };
            if let Err(e) = r {
                let path = f.path.clone();
                self.error.get_or_insert(with_path(&path, e));
            }
        }
    }

    /// Write everything still held and flush the files.
    pub fn finish(mut self) -> io::Result<()> {
        for f in &mut self.files {
            let r = release(f, &self.ends, Time::MAX).and_then(|_| f.out.flush());
            if let Err(e) = r {
                self.error.get_or_insert(with_path(&f.path, e));
            }
        }
        self.error.map_or(Ok(()), Err)
    }
}

/// Write the held records stamped at or before `now`: every later
/// acceptance is stamped at or after `now`, so they come first.
fn release(f: &mut CaptureFile, ends: &[(u32, u32)], now: Time) -> io::Result<()> {
    while let Some(Reverse(h)) = f.held.peek() {
        if h.at > now {
            break;
        }
        let Reverse(h) = f.held.pop().expect("peeked");
        let (from, to) = ends[h.dir as usize];
        f.out.write(h.at, &h.pkt, from, to)?;
    }
    Ok(())
}
