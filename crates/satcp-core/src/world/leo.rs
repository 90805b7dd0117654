//! Constellations in the run: the topology step (`Event::Topology`).
//!
//! At t = 0 and then every `run.topology_step` (and at the reassignment
//! epochs of a "reassign-15s" shell and the edges of a station's
//! obstruction windows), for each shell:
//! * the satellites' positions at this step and the next are computed (the
//!   closed form or SGP4, `leo/positions.rs`);
//! * each inter-satellite link is up while its ends are in range and the
//!   beam passes above the grazing altitude; its delay ramps from the
//!   distance / c at this step to that at the next (`net/link/schedule.rs`);
//! * moving stations are placed where they are at this step and the next
//!   (`leo/motion.rs`);
//! * each ground station's satellites in view (elevation at least the
//!   minimum, or distance at most the range; not behind the station's
//!   obstruction mask, and none during one of its obstruction windows,
//!   `leo/obstruction.rs`) are found, and the
//!   attachment policy picks those it links to; a link to a satellite not
//!   linked before is made then (an ordinary link direction pair,
//!   appended; under `gsl.device = "shared"` its directions join the
//!   station's and the satellite's devices), one that is no longer picked
//!   goes down, losing or delivering what it holds (`gsl.handover`);
//! * routes are marked for recomputation (they are recomputed before the
//!   next packet is forwarded, and at once when paths are traced or
//!   handovers counted), and traced paths are recorded.
//!
//! Choices (`docs/models/constellations.md`):
//! * Positions are those of the step's instant; a packet's delay is the
//!   distance at the instant its last bit leaves, by the ramp (within 1.5
//!   ns of distance / c over a 100 ms step; tested).
//! * "nearest" is the smallest slant range. "longest-visible" keeps its
//!   satellite while in view and then takes the one in view that stays in
//!   view longest (found by stepping 1 s ahead, then bisecting to 1 ms).
//!   "reassign-15s" takes the nearest at 12, 27, 42 and 57 s past each
//!   minute (`reassign_offset` is the seconds past the minute at t = 0),
//!   or with `reassign_pick = "another"` the nearest other than the one it
//!   had, and the nearest at once if its satellite leaves view between
//!   epochs.
//! * An ISL out of range goes down and loses what is on it, as any link
//!   that disappears.
//! * When nothing but the topology steps is left to happen, they stop (the
//!   run then ends as idle, as it would without a constellation).

use super::forward::edges_of;
use super::routes_ahead::RoutesAhead;
use super::World;
use crate::ids::DirId;
use crate::leo::frames::{light_ns, Vec3};
use crate::leo::positions::ShellGeometry;
use crate::leo::visibility::{isl_possible, Station, Visibility};
use crate::net::routing::Edge;
use crate::net::LinkDir;
use crate::scenario::{Attach, GslDevice, HandoverLoss, LeoCfg, LinkCfg, OrbitsCfg, QueueCfg, ReassignPick, StationCfg};
use crate::sim::{secs, Event, Rng, Time, NS_PER_S};
use crate::stats::output::{PathSeries, PathSummary, StationSummary};
use std::collections::HashMap;

/// Reassignments fall 12 s past each quarter minute.
const REASSIGN_PERIOD: Time = 15 * NS_PER_S;
const REASSIGN_PHASE: Time = 12 * NS_PER_S;

/// One ground-to-satellite link the run has made (whether it is up is its
/// directions' `up`).
struct Gsl {
    link: u32,
    sat: u32,
}

/// A station's state towards one shell.
#[derive(Default)]
struct Attachment {
    /// Indices into `LeoRun::gsls` of the links up now.
    up: Vec<u32>,
    /// The satellite a single-attachment policy holds.
    held: Option<u32>,
}

/// A traced pair's state.
struct Trace {
    src: u32,
    dst: u32,
    last: Option<u32>,
    routes: Vec<String>,
    index: HashMap<String, u32>,
    summary: PathSummary,
}

pub(super) struct LeoRun {
    cfg: LeoCfg,
    shells: Vec<ShellGeometry>,
    /// Each station where it is at this step and at the next, and its
    /// heading at this step (`leo/motion.rs`; a fixed station's never
    /// change).
    stations: Vec<Station>,
    stations_next: Vec<Station>,
    headings: Vec<f64>,
    /// Positions at the current step and the next, per shell.
    now_pos: Vec<Vec<Vec3>>,
    next_pos: Vec<Vec<Vec3>>,
    t_next: Time,
    gsls: Vec<Gsl>,
    /// (station, shell, satellite) -> index into `gsls`.
    gsl_of: HashMap<(u32, u32, u32), u32>,
    /// [station * shells + shell].
    attach: Vec<Attachment>,
    /// Per station, the nodes it exchanges traffic with, and the first hops
    /// towards them at the last step (handovers under "shortest-path").
    peers: Vec<Vec<u32>>,
    first_hops: Vec<Vec<u32>>,
    traces: Vec<Trace>,
    pub(super) stations_out: Vec<StationSummary>,
    pub(super) series: PathSeries,
    /// Per shell, the cosine of its coverage cone's half-angle plus a 2
    /// degree margin (the ellipsoid, station heights): a satellite whose
    /// direction from the Earth's centre is further from a station's is
    /// not in view, found without the elevation's arcsine. None for TLE
    /// sets (their altitudes vary).
    cones: Vec<Option<f64>>,
    /// Per shell under `gsl.device = "shared"`, the index of its first
    /// device: station s's is first + s, satellite k's first + stations +
    /// k (`net/link/shared.rs`).
    devices: Vec<Option<u32>>,
    /// Wall time spent in route recomputation.
    pub(super) routing_ns: u128,
    /// Under `run.topology_threads = 2`, the worker computing the next
    /// step's routes (`world/routes_ahead.rs`).
    pub(super) ahead: Option<RoutesAhead>,
    /// The satellites each station was foreseen to see at the step
    /// `foreseen_at` (indexed as `attach`), found for the worker's
    /// prediction and taken by that step instead of searching again.
    foreseen: Vec<Vec<(u32, f64)>>,
    foreseen_at: Option<Time>,
}

impl LeoRun {
    pub(super) fn new(scn: &crate::scenario::Scenario, cfg: &LeoCfg) -> Self {
        let shells: Vec<ShellGeometry> = cfg
            .shells
            .iter()
            .map(|s| ShellGeometry::new(&s.orbits, cfg.epoch).expect("checked when the scenario was read"))
            .collect();
        let (stations, headings): (Vec<Station>, Vec<f64>) = cfg.stations.iter().map(|s| station_at(s, 0)).unzip();
        let station_of = |node: usize| cfg.stations.iter().position(|s| s.node == node);
        let mut peers = vec![Vec::new(); cfg.stations.len()];
        let pairs = scn.flows.iter().map(|f| (f.src, f.dst)).chain(cfg.paths.iter().copied());
        for (a, b) in pairs {
            for (me, other) in [(a, b), (b, a)] {
                if let Some(k) = station_of(me) {
                    if !peers[k].contains(&(other as u32)) {
                        peers[k].push(other as u32);
                    }
                }
            }
        }
        let name = |n: usize| scn.nodes[n].name.clone();
        LeoRun {
            now_pos: shells.iter().map(|g| vec![Vec3::new(0.0, 0.0, 0.0); g.len()]).collect(),
            next_pos: shells.iter().map(|g| g.positions(0.0)).collect(),
            shells,
            stations_next: stations.clone(),
            stations,
            headings,
            t_next: 0,
            gsls: Vec::new(),
            gsl_of: HashMap::new(),
            attach: (0..cfg.stations.len() * cfg.shells.len()).map(|_| Attachment::default()).collect(),
            first_hops: vec![Vec::new(); cfg.stations.len()],
            peers,
            traces: cfg
                .paths
                .iter()
                .map(|&(s, d)| Trace {
                    src: s as u32,
                    dst: d as u32,
                    last: None,
                    routes: Vec::new(),
                    index: HashMap::new(),
                    summary: PathSummary { src: name(s), dst: name(d), ..Default::default() },
                })
                .collect(),
            stations_out: cfg.stations.iter().map(|s| StationSummary { name: name(s.node), ..Default::default() }).collect(),
            series: PathSeries::default(),
            cones: cfg
                .shells
                .iter()
                .map(|s| match &s.orbits {
                    OrbitsCfg::Walker(w) => Some((s.visibility.coverage_angle_deg(w.altitude_km) + 2.0).min(180.0).to_radians().cos()),
                    OrbitsCfg::Tle(_) => None,
                })
                .collect(),
            devices: Vec::new(),
            routing_ns: 0,
            ahead: None,
            foreseen: vec![Vec::new(); cfg.stations.len() * cfg.shells.len()],
            foreseen_at: None,
            cfg: cfg.clone(),
        }
    }

    /// The step after `t`: the next multiple of the step, or a reassignment
    /// epoch before it.
    fn next_step(&self, t: Time) -> Time {
        let step = self.cfg.step_ns;
        let mut next = (t / step + 1) * step;
        for s in &self.cfg.shells {
            if s.attach == Attach::Reassign15s {
                next = next.min(next_epoch(t, s.reassign_offset_ns));
            }
        }
        // an obstruction window starts and ends on a step of its own
        for st in &self.cfg.stations {
            if let Some(e) = st.obstructions.next_edge(t) {
                next = next.min(e);
            }
        }
        next
    }

    /// The satellites of shell `h` at positions `pos` that station `s`,
    /// at `st` heading `heading`, may use (none when `hidden`: a window of
    /// its obstruction schedule), in index order with their slant ranges.
    #[allow(clippy::too_many_arguments)]
    fn in_view(&self, s: usize, h: usize, st: &Station, heading: f64, hidden: bool, pos: &[Vec3], out: &mut Vec<(u32, f64)>) {
        out.clear();
        if hidden {
            return;
        }
        let (sc, rule) = (&self.cfg.stations[s], self.cfg.shells[h].visibility);
        let cone = self.cones[h];
        let unit = st.pos.scale(1.0 / st.pos.norm());
        for (k, &p) in pos.iter().enumerate() {
            // outside the coverage cone (with its margin): not in view
            if cone.is_some_and(|c| p.dot(unit) < c * p.norm()) {
                continue;
            }
            if usable(sc, st, heading, rule, p) {
                out.push((k as u32, st.pos.dist(p)));
            }
        }
    }

    /// The pairs traced and the summaries they end with.
    pub(super) fn path_summaries(&mut self) -> Vec<PathSummary> {
        self.traces
            .iter_mut()
            .map(|t| {
                let mut s = std::mem::take(&mut t.summary);
                s.routes = std::mem::take(&mut t.routes);
                s
            })
            .collect()
    }
}

/// The first reassignment epoch after `t` with the minute's phase `offset`.
fn next_epoch(t: Time, offset: Time) -> Time {
    // epochs at e0 + 15 s j, with e0 = (12 s - offset) mod 15 s
    let e0 = (REASSIGN_PHASE + REASSIGN_PERIOD * 4 - offset) % REASSIGN_PERIOD;
    if t < e0 {
        return e0;
    }
    e0 + ((t - e0) / REASSIGN_PERIOD + 1) * REASSIGN_PERIOD
}

/// Whether `t` is a reassignment epoch.
fn is_epoch(t: Time, offset: Time) -> bool {
    let e0 = (REASSIGN_PHASE + REASSIGN_PERIOD * 4 - offset) % REASSIGN_PERIOD;
    t >= e0 && (t - e0) % REASSIGN_PERIOD == 0
}

/// Stream ids of ground-to-satellite links' error models: after every
/// scenario link's.
const STREAM_GSL: u64 = 5 << 40;

impl World {
    /// Build-time set-up: the ISLs follow the geometry; the first step.
    pub(super) fn leo_start(&mut self) {
        let Some(cfg) = self.scn.leo.clone() else { return };
        let mut run = LeoRun::new(&self.scn, &cfg);
        run.devices = cfg.shells.iter().map(|sh| (sh.device == GslDevice::Shared).then(|| self.add_devices(sh, cfg.stations.len()))).collect();
        for sh in &cfg.shells {
            for j in 0..sh.isls.len() {
                let l = sh.first_link + j;
                for d in DirId::both(l) {
                    let (from, to) = (self.dirs[d.index()].from, self.dirs[d.index()].to);
                    let cfgd = &self.scn.links[l].dirs[d.side()];
                    self.dirs[d.index()] = LinkDir::moving(from, to, cfgd, Rng::new(self.scn.run.seed, super::STREAM_LINK_ERRORS + d.0 as u64));
                }
            }
        }
        if cfg.threads >= 2 {
            run.ahead = Some(RoutesAhead::new(&self.routes, self.relay.clone()));
        }
        self.leo = Some(Box::new(run));
        self.topology_step();
    }

    /// `Event::Topology` (and the first step, at build).
    pub(super) fn topology_step(&mut self) {
        let mut leo = self.leo.take().expect("a constellation run");
        let t = self.now;
        let t1 = leo.next_step(t);
        let (ts, t1s) = (secs(t), secs(t1));
        // positions now (those computed as the next at the last step, if it
        // was for this instant) and at the next step
        for (h, g) in leo.shells.iter().enumerate() {
            if leo.t_next == t {
                std::mem::swap(&mut leo.now_pos[h], &mut leo.next_pos[h]);
            } else {
                g.positions_into(ts, &mut leo.now_pos[h]);
            }
            g.positions_into(t1s, &mut leo.next_pos[h]);
        }
        leo.t_next = t1;
        // moving stations where they are now and at the next step
        for (s, sc) in leo.cfg.stations.iter().enumerate() {
            if !sc.motion.is_fixed() {
                (leo.stations[s], leo.headings[s]) = station_at(sc, t);
                leo.stations_next[s] = station_at(sc, t1).0;
            }
        }
        self.step_isls(&mut leo, t, t1);
        self.step_gsls(&mut leo, t, t1);
        self.routes_dirty = true;
        // the routes the worker computed at the last step, if it foresaw
        // these links
        if let Some(ahead) = leo.ahead.as_mut() {
            if let Some(r) = ahead.take(&edges_of(&self.dirs)) {
                ahead.give_back(std::mem::replace(&mut self.routes, r));
                self.routes_dirty = false;
            }
        }
        if !leo.traces.is_empty() || leo.peers.iter().any(|p| !p.is_empty()) {
            let started = std::time::Instant::now();
            if self.routes_dirty {
                self.recompute_routes();
            }
            leo.routing_ns += started.elapsed().as_nanos();
            self.trace_paths(&mut leo, t);
            self.count_route_handovers(&mut leo, t);
        }
        // nothing else left to happen: the steps stop with the run
        if !self.q.is_empty() {
            self.q.push(t1, Event::Topology);
            if leo.ahead.is_some() {
                if let Some(predicted) = self.predict_edges(&mut leo, t1) {
                    leo.ahead.as_mut().expect("checked").start(predicted);
                }
            }
        }
        self.leo = Some(leo);
    }

    fn step_isls(&mut self, leo: &mut LeoRun, t: Time, t1: Time) {
        for (h, sh) in leo.cfg.shells.iter().enumerate() {
            let (now, next) = (&leo.now_pos[h], &leo.next_pos[h]);
            for (j, &(a, b)) in sh.isls.iter().enumerate() {
                let (pa, pb) = (now[a as usize], now[b as usize]);
                let possible = isl_possible(pa, pb, sh.isl_max_range_km, sh.isl_min_grazing_km);
                let l = sh.first_link + j;
                let [ab, ba] = DirId::both(l);
                if possible != self.dirs[ab.index()].up {
                    let mut ctx = link_ctx!(self);
                    for d in [ab, ba] {
                        if possible {
                            self.dirs[d.index()].come_up_now(t);
                        } else {
                            self.dirs[d.index()].go_down_now(d.0, &mut ctx);
                        }
                    }
                    self.flush_link_out();
                }
                if possible {
                    let (d0, d1) = (light_ns(pa.dist(pb)), light_ns(next[a as usize].dist(next[b as usize])));
                    self.dirs[ab.index()].set_ramp(t, d0, t1, d1);
                    self.dirs[ba.index()].set_ramp(t, d0, t1, d1);
                }
            }
        }
    }

    fn step_gsls(&mut self, leo: &mut LeoRun, t: Time, t1: Time) {
        let n_shells = leo.cfg.shells.len();
        let mut in_view: Vec<(u32, f64)> = Vec::new();
        let mut wanted: Vec<u32> = Vec::new();
        for s in 0..leo.stations.len() {
            let st = leo.stations[s];
            let (sc, heading) = (&leo.cfg.stations[s], leo.headings[s]);
            // a window of the obstruction schedule hides every satellite
            let hidden = sc.obstructions.hidden_at(t);
            let node = sc.node as u32;
            let mut sees_any = false;
            for h in 0..n_shells {
                let sh = &leo.cfg.shells[h];
                if leo.foreseen_at == Some(t) {
                    std::mem::swap(&mut in_view, &mut leo.foreseen[s * n_shells + h]);
                } else {
                    leo.in_view(s, h, &st, heading, hidden, &leo.now_pos[h], &mut in_view);
                }
                sees_any |= !in_view.is_empty();
                let nearest = in_view.iter().min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0))).map(|x| x.0);
                let a = &mut leo.attach[s * n_shells + h];
                let still = a.held.filter(|k| in_view.iter().any(|x| x.0 == *k));
                wanted.clear();
                let choice = match sh.attach {
                    Attach::ShortestPath => {
                        wanted.extend(in_view.iter().map(|x| x.0));
                        None
                    }
                    Attach::Nearest => nearest,
                    Attach::Reassign15s if is_epoch(t, sh.reassign_offset_ns) => match sh.reassign_pick {
                        ReassignPick::Nearest => nearest,
                        ReassignPick::Another => in_view
                            .iter()
                            .filter(|x| Some(x.0) != a.held)
                            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
                            .map(|x| x.0)
                            .or(nearest),
                    },
                    Attach::Reassign15s => still.or(nearest),
                    Attach::LongestVisible => still.or_else(|| {
                        let g = &leo.shells[h];
                        in_view
                            .iter()
                            .map(|&(k, _)| (visible_until(g, sc, &st, k as usize, t, sh.visibility), k))
                            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
                            .map(|x| x.1)
                    }),
                };
                if sh.attach != Attach::ShortestPath {
                    if choice != a.held {
                        if a.held.is_some() && choice.is_some() {
                            let out = &mut leo.stations_out[s];
                            out.handovers += 1;
                            out.handover_times_s.push(secs(t));
                        }
                        a.held = choice;
                    }
                    wanted.extend(choice);
                }
                // down: links up now and no longer wanted
                let mut k = 0;
                while k < leo.attach[s * n_shells + h].up.len() {
                    let gi = leo.attach[s * n_shells + h].up[k];
                    if wanted.contains(&leo.gsls[gi as usize].sat) {
                        k += 1;
                        continue;
                    }
                    leo.attach[s * n_shells + h].up.swap_remove(k);
                    leo.stations_out[s].links_down += 1;
                    let l = leo.gsls[gi as usize].link as usize;
                    let mut ctx = link_ctx!(self);
                    for d in DirId::both(l) {
                        match sh.handover {
                            HandoverLoss::Lost => self.dirs[d.index()].go_down_now(d.0, &mut ctx),
                            // no new packet; what it holds arrives
                            HandoverLoss::Delivered => self.dirs[d.index()].up = false,
                        }
                    }
                    self.flush_link_out();
                }
                // up: wanted links, made the first time
                for &sat in wanted.iter() {
                    let key = (s as u32, h as u32, sat);
                    let gi = match leo.gsl_of.get(&key) {
                        Some(&gi) => gi,
                        None => {
                            let gi = leo.gsls.len() as u32;
                            let link = self.add_gsl(node, (sh.first_node as u32) + sat, &sh.gsl_up, &sh.gsl_down);
                            if let Some(first) = leo.devices[h] {
                                let [ab, ba] = DirId::both(link as usize);
                                self.dirs[ab.index()].join_device(first + s as u32);
                                self.dirs[ba.index()].join_device(first + (leo.stations.len() + sat as usize) as u32);
                            }
                            leo.gsls.push(Gsl { link, sat });
                            leo.gsl_of.insert(key, gi);
                            gi
                        }
                    };
                    let l = leo.gsls[gi as usize].link as usize;
                    let [ab, ba] = DirId::both(l);
                    if !self.dirs[ab.index()].up {
                        leo.attach[s * n_shells + h].up.push(gi);
                        leo.stations_out[s].links_up += 1;
                        for d in [ab, ba] {
                            let dir = &mut self.dirs[d.index()];
                            if dir.schedule_down(t) {
                                dir.come_up_now(t);
                            }
                            dir.up = true;
                        }
                    }
                    let p0 = leo.now_pos[h][sat as usize];
                    let p1 = leo.next_pos[h][sat as usize];
                    let (d0, d1) = (light_ns(st.pos.dist(p0)), light_ns(leo.stations_next[s].pos.dist(p1)));
                    self.dirs[ab.index()].set_ramp(t, d0, t1, d1);
                    self.dirs[ba.index()].set_ramp(t, d0, t1, d1);
                }
            }
            if !sees_any {
                leo.stations_out[s].steps_without_satellite += 1;
            }
        }
        leo.foreseen_at = None;
    }

    /// Shell `sh`'s shared ground-link devices, one per station (its
    /// uplink queue) then one per satellite (its downlink queue); the
    /// first's index.
    fn add_devices(&mut self, sh: &crate::scenario::ShellCfg, stations: usize) -> u32 {
        let limit = |d: &crate::scenario::LinkDirCfg| match d.queue {
            QueueCfg::DropTail { limit } => limit,
            _ => unreachable!("a shared device's queue is drop-tail (checked by the scenario)"),
        };
        let (up, down) = (limit(&sh.gsl_up), limit(&sh.gsl_down));
        self.devices.add(std::iter::repeat_n(up, stations).chain(std::iter::repeat_n(down, sh.satellites as usize)))
    }

    /// Append a ground-to-satellite link (a = the station) to the run.
    fn add_gsl(&mut self, station: u32, sat: u32, up: &crate::scenario::LinkDirCfg, down: &crate::scenario::LinkDirCfg) -> u32 {
        let link = self.scn.links.len();
        self.scn.links.push(LinkCfg { a: station as usize, b: sat as usize, dirs: [up.clone(), down.clone()], changes: Vec::new(), arq: None });
        self.next_change.push(0);
        for (d, (from, to, cfg)) in DirId::both(link).into_iter().zip([(station, sat, up), (sat, station, down)]) {
            let mut dir = LinkDir::moving(from, to, cfg, Rng::new(self.scn.run.seed, STREAM_GSL + d.0 as u64));
            dir.up = false;
            self.dirs.push(dir);
            self.head_ids.push(0);
            self.agents.add_dir(from, to);
            if let Some(c) = self.capture.as_deref_mut() {
                c.add_dir(from, to);
            }
        }
        for d in DirId::both(link) {
            self.dirs[d.index()].deliver_corrupted = self.agents.wants_corrupted(d.0);
        }
        link as u32
    }

    /// The link directions (as routing reads them) the next step, at
    /// `t1`, will set, from the positions and stations computed for it
    /// now: what [`World::step_isls`] and [`World::step_gsls`] will do,
    /// with the ground links they will make appended in the order they
    /// will make them. None unless every shell attaches by
    /// "shortest-path" (`world/routes_ahead.rs`).
    fn predict_edges(&self, leo: &mut LeoRun, t1: Time) -> Option<Vec<Edge>> {
        if leo.cfg.shells.iter().any(|sh| sh.attach != Attach::ShortestPath) {
            return None;
        }
        let mut edges = edges_of(&self.dirs);
        for (h, sh) in leo.cfg.shells.iter().enumerate() {
            let next = &leo.next_pos[h];
            for (j, &(a, b)) in sh.isls.iter().enumerate() {
                let (pa, pb) = (next[a as usize], next[b as usize]);
                let possible = isl_possible(pa, pb, sh.isl_max_range_km, sh.isl_min_grazing_km);
                for d in DirId::both(sh.first_link + j) {
                    let e = &mut edges[d.index()];
                    e.3 = possible;
                    if possible {
                        e.2 = light_ns(pa.dist(pb));
                    }
                }
            }
        }
        let mut made = self.scn.links.len();
        let n_shells = leo.cfg.shells.len();
        for (s, sc) in leo.cfg.stations.iter().enumerate() {
            let (st, heading) = if sc.motion.is_fixed() { (leo.stations[s], leo.headings[s]) } else { station_at(sc, t1) };
            let hidden = sc.obstructions.hidden_at(t1);
            let node = sc.node as u32;
            for (h, sh) in leo.cfg.shells.iter().enumerate() {
                let mut in_view = std::mem::take(&mut leo.foreseen[s * n_shells + h]);
                leo.in_view(s, h, &st, heading, hidden, &leo.next_pos[h], &mut in_view);
                for &gi in &leo.attach[s * n_shells + h].up {
                    let g = &leo.gsls[gi as usize];
                    if !in_view.iter().any(|x| x.0 == g.sat) {
                        for d in DirId::both(g.link as usize) {
                            edges[d.index()].3 = false;
                        }
                    }
                }
                for &(sat, _) in &in_view {
                    let delay = light_ns(st.pos.dist(leo.next_pos[h][sat as usize]));
                    match leo.gsl_of.get(&(s as u32, h as u32, sat)) {
                        Some(&gi) => {
                            for d in DirId::both(leo.gsls[gi as usize].link as usize) {
                                edges[d.index()].2 = delay;
                                edges[d.index()].3 = true;
                            }
                        }
                        None => {
                            let sat_node = sh.first_node as u32 + sat;
                            let [ab, ba] = DirId::both(made);
                            debug_assert_eq!((ab.index(), ba.index()), (edges.len(), edges.len() + 1));
                            edges.push((node, sat_node, delay, true));
                            edges.push((sat_node, node, delay, true));
                            made += 1;
                        }
                    }
                }
                leo.foreseen[s * n_shells + h] = in_view;
            }
        }
        leo.foreseen_at = Some(t1);
        Some(edges)
    }

    /// Record each traced pair's path at this step.
    fn trace_paths(&mut self, leo: &mut LeoRun, t: Time) {
        let edges = self.routes.edges();
        for (i, tr) in leo.traces.iter_mut().enumerate() {
            let s = &mut leo.series;
            s.time_s.push(secs(t));
            s.pair.push(i as u32);
            let Some(path) = self.routes.path(tr.src, tr.dst) else {
                s.rtt_s.push(f64::NAN);
                s.hops.push(0);
                s.route.push(u32::MAX);
                tr.summary.steps_without_path += 1;
                if tr.last.is_some() {
                    tr.summary.changes_s.push(secs(t));
                }
                tr.last = None;
                continue;
            };
            let one_way: u64 = path.iter().map(|&d| edges[d as usize].2).sum();
            let rtt = 2.0 * secs(one_way);
            let mut text = self.scn.nodes[tr.src as usize].name.clone();
            for &d in &path {
                text.push(' ');
                text.push_str(&self.scn.nodes[edges[d as usize].1 as usize].name);
            }
            let next = tr.routes.len() as u32;
            let r = *tr.index.entry(text.clone()).or_insert_with(|| {
                tr.routes.push(text);
                next
            });
            if tr.last.is_some_and(|l| l != r) || (tr.last.is_none() && tr.summary.steps_without_path > 0) {
                tr.summary.changes_s.push(secs(t));
            }
            tr.last = Some(r);
            s.rtt_s.push(rtt);
            s.hops.push(path.len() as u32);
            s.route.push(r);
            tr.summary.min_rtt_s = Some(tr.summary.min_rtt_s.map_or(rtt, |m| m.min(rtt)));
            tr.summary.max_rtt_s = Some(tr.summary.max_rtt_s.map_or(rtt, |m| m.max(rtt)));
        }
    }

    /// Under "shortest-path", a station's handover is a change in the first
    /// hops of its routes towards the nodes it exchanges traffic with.
    fn count_route_handovers(&mut self, leo: &mut LeoRun, t: Time) {
        let n_shells = leo.cfg.shells.len();
        for s in 0..leo.stations.len() {
            let routed = (0..n_shells).any(|h| leo.cfg.shells[h].attach == Attach::ShortestPath);
            if !routed || leo.peers[s].is_empty() {
                continue;
            }
            let node = leo.cfg.stations[s].node as u32;
            let mut hops: Vec<u32> = leo.peers[s]
                .iter()
                .map(|&p| self.routes.next_dir(node, p))
                .filter(|&d| d != crate::net::routing::NO_ROUTE)
                .map(|d| self.dirs[d as usize].to)
                .collect();
            hops.sort_unstable();
            hops.dedup();
            if hops != leo.first_hops[s] {
                if !leo.first_hops[s].is_empty() && !hops.is_empty() {
                    leo.stations_out[s].handovers += 1;
                    leo.stations_out[s].handover_times_s.push(secs(t));
                }
                leo.first_hops[s] = hops;
            }
        }
    }
}

/// Station `sc` at run time `t`: where it is, and its heading.
fn station_at(sc: &StationCfg, t: Time) -> (Station, f64) {
    let p = sc.motion.at(t);
    (Station::new(p.lat_deg, p.lon_deg, p.alt_km), p.heading_deg)
}

/// Whether station `sc`, at `st` heading `heading`, may use a satellite at
/// `p` under `rule`: in view by the rule and not behind its mask (windows
/// are the caller's).
fn usable(sc: &StationCfg, st: &Station, heading: f64, rule: Visibility, p: Vec3) -> bool {
    if !st.sees(rule, p) {
        return false;
    }
    if sc.obstructions.mask.is_empty() {
        return true;
    }
    let (az, el) = st.azimuth_elevation_deg(p);
    !sc.obstructions.blocks(az, el, heading)
}

/// When satellite `k` of `g`, in view of station `sc` (at `st` now) at
/// `t`, leaves it under `rule`, its mask and its windows (ns; searched 1 s
/// at a time over at most an hour, then bisected to 1 ms).
fn visible_until(g: &ShellGeometry, sc: &StationCfg, st: &Station, k: usize, t: Time, rule: Visibility) -> Time {
    let seen = |at: Time| {
        if sc.obstructions.hidden_at(at) {
            return false;
        }
        let (here, heading) = if sc.motion.is_fixed() { (*st, 0.0) } else { station_at(sc, at) };
        usable(sc, &here, heading, rule, g.position(k, secs(at)))
    };
    let mut lo = t;
    let mut hi = t;
    for _ in 0..3600 {
        hi += NS_PER_S;
        if !seen(hi) {
            break;
        }
        lo = hi;
    }
    if seen(hi) {
        return hi;
    }
    while hi - lo > 1_000_000 {
        let mid = lo + (hi - lo) / 2;
        if seen(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leo::walker::{WalkerKind, WalkerShell};
    use crate::sim::Rng;

    const S: Time = NS_PER_S;

    const SMALL: &str = r#"
[run]
stop = "60s"
topology_step = "100ms"
[[constellations]]
name = "sat"
walker = { kind = "delta", planes = 6, per_plane = 10, altitude = "1000km", inclination = 60.0, phasing = 1 }
isl = { rate = "100Mbps" }
gsl = { rate = "50Mbps", min_elevation = 10 }
[[ground_stations]]
name = "a"
lat = 10.0
lon = 20.0
[[ground_stations]]
name = "b"
lat = 30.0
lon = 60.0
[[flows]]
src = "a"
dst = "b"
app = { kind = "ftp", size = "1MB" }
"#;

    /// Every moving link's delay, at instants inside the steps, against
    /// distance / c computed from the orbits at that instant.
    #[test]
    fn link_delay_is_distance_over_c_when_sent() {
        let scn = crate::scenario::parse_toml(SMALL, &[]).unwrap();
        let shell = WalkerShell { kind: WalkerKind::Delta, planes: 6, per_plane: 10, altitude_km: 1000.0, inclination_deg: 60.0, phasing: 1 };
        let station = [Station::new(10.0, 20.0, 0.0), Station::new(30.0, 60.0, 0.0)];
        let mut w = World::build(&scn);
        let first_sat = scn.leo.as_ref().unwrap().shells[0].first_node as u32;
        let pos = |node: u32, t: f64| {
            if node >= first_sat {
                shell.ecef(node - first_sat, t)
            } else {
                station[node as usize].pos
            }
        };
        let mut rng = Rng::new(7, 0);
        let (mut checked, mut worst) = (0, 0f64);
        for step in 0..300u64 {
            let t = step * 100_000_000;
            if step > 0 {
                w.now = t;
                w.topology_step();
            }
            for (d, dir) in w.dirs.iter().enumerate() {
                if !dir.up || d % 7 != (step % 7) as usize {
                    continue;
                }
                let at = t + (rng.uniform() * 1e8) as u64;
                let want = pos(dir.from, secs(at)).dist(pos(dir.to, secs(at))) / crate::leo::frames::C_KM_S * 1e9;
                worst = worst.max((dir.delay_at(at) as f64 - want).abs());
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
        // whole nanoseconds at the step's ends (0.5 ns each) and the
        // distance's curvature over the step
        assert!(worst <= 1.5, "worst difference {worst} ns");
        assert!(w.scn.links.len() > scn.links.len(), "ground-to-satellite links were made");
    }

    /// A static network beside a constellation keeps its routes through the
    /// topology steps: only the constellation's destinations get new trees
    /// (the fuzzer found a run that rebuilt 129 trees every 100 ms).
    #[test]
    fn topology_steps_leave_a_static_network_s_routes_alone() {
        let text = format!(
            "{SMALL}\n[nodes]\nx = {{}}\ny = {{}}\nz = {{}}\n\
             [[links]]\na = \"x\"\nb = \"y\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             [[links]]\na = \"y\"\nb = \"z\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             [[flows]]\nsrc = \"x\"\ndst = \"z\"\napp = {{ kind = \"ftp\", size = \"1MB\" }}\n"
        );
        let scn = crate::scenario::parse_toml(&text, &[]).unwrap();
        let mut w = World::build(&scn);
        let built = w.routes.trees_built;
        assert_eq!(built, 6, "a, b, x and z at build; a and b again at the first step");
        for step in 1..=50u64 {
            w.now = step * 100_000_000;
            w.topology_step();
        }
        assert_eq!(w.routes.trees_built - built, 2 * 50, "a and b at each step, never x or z");
        let node = |n: &str| scn.nodes.iter().position(|m| m.name == n).unwrap() as u32;
        assert_eq!(w.routes.path(node("x"), node("z")).map(|p| p.len()), Some(2));
    }

    /// Under `run.topology_threads = 2` the worker's routes are those of
    /// the step at (almost) every step, and equal the routes one thread
    /// computes from the step's links; a link changed behind the
    /// prediction's back is noticed and the step routes on its own.
    #[test]
    fn the_worker_foresees_the_steps_and_a_surprise_falls_back() {
        let text = SMALL.replace("topology_step = \"100ms\"", "topology_step = \"100ms\"\ntopology_threads = 2");
        let scn = crate::scenario::parse_toml(&text, &[]).unwrap();
        let mut w = World::build(&scn);
        let same_as_fresh = |w: &World| {
            let stations: Vec<u32> = w.scn.leo.as_ref().unwrap().stations.iter().map(|s| s.node as u32).collect();
            let fresh = crate::net::routing::compute(w.nodes.len(), &edges_of(&w.dirs), &stations, &w.relay);
            for a in 0..w.nodes.len() as u32 {
                for &b in &stations {
                    assert_eq!(w.routes.next_dir(a, b), fresh.next_dir(a, b), "{a} -> {b}");
                }
            }
        };
        let mut made_links = 0;
        for step in 1..=300u64 {
            w.now = step * 100_000_000;
            let links = w.scn.links.len();
            w.topology_step();
            made_links += w.scn.links.len() - links;
            assert!(!w.routes_dirty, "step {step}: routes in place");
            same_as_fresh(&w);
        }
        let ahead = w.leo.as_ref().unwrap().ahead.as_ref().unwrap();
        assert_eq!((ahead.taken, ahead.missed), (300, 0));
        assert!(made_links > 0, "a ground link was made along the way (appended where foreseen)");
        // a link the steps do not set changed between them (as by a
        // scenario's `changes` on a link beside the constellation): not
        // what was foreseen
        let text = format!("{text}\n[nodes]\nx = {{}}\ny = {{}}\n[[links]]\na = \"x\"\nb = \"y\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n");
        let scn = crate::scenario::parse_toml(&text, &[]).unwrap();
        let mut w = World::build(&scn);
        for step in 1..=3u64 {
            w.now = step * 100_000_000;
            w.topology_step();
        }
        let x = scn.nodes.iter().position(|m| m.name == "x").unwrap() as u32;
        let d = w.dirs.iter().position(|d| d.from == x).unwrap();
        w.dirs[d].delay_ns += 1;
        w.now = 4 * 100_000_000;
        w.topology_step();
        let ahead = w.leo.as_ref().unwrap().ahead.as_ref().unwrap();
        assert_eq!((ahead.taken, ahead.missed), (3, 1), "steps 1-3 foreseen, not step 4");
        same_as_fresh(&w);
    }

    #[test]
    fn reassignments_fall_at_12_27_42_57_seconds_past_the_minute() {
        assert_eq!(next_epoch(0, 0), 12 * S);
        assert_eq!(next_epoch(12 * S, 0), 27 * S);
        assert_eq!(next_epoch(58 * S, 0), 72 * S);
        assert!(is_epoch(57 * S, 0) && is_epoch(72 * S, 0) && !is_epoch(60 * S, 0));
        // t = 0 is 50 s past the minute: the next epoch is 57 s, 7 s later
        assert_eq!(next_epoch(0, 50 * S), 7 * S);
        assert!(is_epoch(22 * S, 50 * S));
    }
}

/// The issue's check: a moving station with an obstruction mask loses
/// exactly the satellites the mask covers. The station's place, the
/// satellites' azimuths and elevations and the mask's sectors are computed
/// here by other formulas than the engine's (the destination-point formula
/// on the sphere of n-vectors, the WGS84 closed form, the ECEF -> ENU
/// rotation matrix).
#[cfg(test)]
mod mask_tests {
    use super::*;
    use crate::leo::walker::{WalkerKind, WalkerShell};

    const SHELL: WalkerShell = WalkerShell { kind: WalkerKind::Delta, planes: 12, per_plane: 12, altitude_km: 1000.0, inclination_deg: 55.0, phasing: 1 };
    const FROM: (f64, f64) = (30.0, -20.0);
    const TO: (f64, f64) = (50.0, 40.0);
    const SPEED_KM_S: f64 = 2.0; // fast, so the heading turns over the run
    const MASK: [((f64, f64), (f64, f64)); 2] = [((300.0, 60.0), (0.0, 50.0)), ((150.0, 200.0), (30.0, 90.0))];

    fn scenario(mask: &str) -> String {
        format!(
            r#"
[run]
stop = "900s"
[[constellations]]
name = "s"
walker = {{ kind = "delta", planes = 12, per_plane = 12, altitude = "1000km", inclination = 55.0, phasing = 1 }}
isl = {{ rate = "100Mbps" }}
gsl = {{ rate = "20Mbps", min_elevation = 10 }}
[[ground_stations]]
name = "plane"
route = {{ from = [{}, {}], to = [{}, {}], speed = "{}m/s", depart = "30s" }}
{mask}
[[ground_stations]]
name = "b"
lat = 40.0
lon = 10.0
[[flows]]
src = "plane"
dst = "b"
app = {{ kind = "ftp", size = "1MB" }}
"#,
            FROM.0,
            FROM.1,
            TO.0,
            TO.1,
            SPEED_KM_S * 1000.0
        )
    }

    /// The station at `t` s and its heading, by the spherical
    /// destination-point formula along the initial course.
    fn place(t: f64) -> (f64, f64, f64) {
        let (p1, l1, p2, l2) = (FROM.0.to_radians(), FROM.1.to_radians(), TO.0.to_radians(), TO.1.to_radians());
        let bearing = |pa: f64, la: f64, pb: f64, lb: f64| {
            let dl = lb - la;
            (dl.sin() * pb.cos()).atan2(pa.cos() * pb.sin() - pa.sin() * pb.cos() * dl.cos())
        };
        let total = (p1.sin() * p2.sin() + p1.cos() * p2.cos() * (l2 - l1).cos()).acos();
        let delta = ((t - 30.0).max(0.0) * SPEED_KM_S / 6371.0).min(total);
        let th = bearing(p1, l1, p2, l2);
        let p = (p1.sin() * delta.cos() + p1.cos() * delta.sin() * th.cos()).asin();
        let l = l1 + (th.sin() * delta.sin() * p1.cos()).atan2(delta.cos() - p1.sin() * p.sin());
        let heading = if delta < total { bearing(p, l, p2, l2) } else { bearing(p2, l2, p1, l1) + std::f64::consts::PI };
        (p, l, heading.to_degrees().rem_euclid(360.0))
    }

    /// Azimuth and elevation (degrees) of ECEF point `sat` from geodetic
    /// (lat, lon) radians at height 0.
    fn az_el(lat: f64, lon: f64, sat: Vec3) -> (f64, f64) {
        let (a, f) = (6378.137, 1.0 / 298.257_223_563);
        let e2 = f * (2.0 - f);
        let n = a / (1.0 - e2 * lat.sin() * lat.sin()).sqrt();
        let (x, y, z) = (n * lat.cos() * lon.cos(), n * lat.cos() * lon.sin(), n * (1.0 - e2) * lat.sin());
        let (dx, dy, dz) = (sat.x - x, sat.y - y, sat.z - z);
        let e = -lon.sin() * dx + lon.cos() * dy;
        let nn = -lat.sin() * lon.cos() * dx - lat.sin() * lon.sin() * dy + lat.cos() * dz;
        let u = lat.cos() * lon.cos() * dx + lat.cos() * lon.sin() * dy + lat.sin() * dz;
        (e.atan2(nn).to_degrees().rem_euclid(360.0), u.atan2((e * e + nn * nn).sqrt()).to_degrees())
    }

    /// Inside a sector, and how far (degrees) from its nearest edge.
    fn in_mask(az: f64, el: f64) -> (bool, f64) {
        let mut inside = false;
        let mut margin = f64::INFINITY;
        for &((a0, a1), (e0, e1)) in &MASK {
            let width = (a1 - a0).rem_euclid(360.0);
            let from_a0 = (az - a0).rem_euclid(360.0);
            let in_az = from_a0 <= width;
            inside |= in_az && el >= e0 && el <= e1;
            let edge_az = |a: f64| {
                let d = (az - a).rem_euclid(360.0);
                d.min(360.0 - d)
            };
            margin = margin.min(edge_az(a0)).min(edge_az(a1)).min((el - e0).abs()).min((el - e1).abs());
        }
        (inside, margin)
    }

    /// The satellites station 0 links to at each step over the whole run
    /// (under "shortest-path": every satellite it may use).
    fn in_view_per_step(text: &str) -> Vec<Vec<u32>> {
        let scn = crate::scenario::parse_toml(text, &[]).unwrap();
        let mut w = World::build(&scn);
        let mut out = Vec::new();
        for step in 0..9000u64 {
            if step > 0 {
                w.now = step * 100_000_000;
                w.topology_step();
            }
            let leo = w.leo.as_ref().unwrap();
            let mut sats: Vec<u32> = leo.attach[0].up.iter().map(|&gi| leo.gsls[gi as usize].sat).collect();
            sats.sort_unstable();
            out.push(sats);
        }
        out
    }

    #[test]
    fn a_moving_station_loses_exactly_the_satellites_its_mask_covers() {
        let sectors = "mask = [{ azimuth = [300, 60], elevation = [0, 50] }, { azimuth = [150, 200], elevation = [30, 90] }]";
        let clear = in_view_per_step(&scenario(""));
        for reference in ["north", "heading"] {
            let masked = in_view_per_step(&scenario(&format!("{sectors}\nmask_azimuth = \"{reference}\"")));
            let (mut lost, mut near_edge, mut steps_losing) = (0, 0, 0);
            for (step, (c, m)) in clear.iter().zip(&masked).enumerate() {
                let t = step as f64 * 0.1;
                let (lat, lon, heading) = place(t);
                // without the mask: exactly the satellites at 10 degrees
                // or more, from the station computed here
                let want_clear: Vec<u32> = (0..144).filter(|&k| az_el(lat, lon, SHELL.ecef(k, t)).1 >= 10.0).collect();
                let mut want = Vec::new();
                for &k in &want_clear {
                    let (az, el) = az_el(lat, lon, SHELL.ecef(k, t));
                    let az = if reference == "heading" { (az - heading).rem_euclid(360.0) } else { az };
                    let (inside, margin) = in_mask(az, el);
                    near_edge += (margin < 1e-6) as u32;
                    if !inside {
                        want.push(k);
                    }
                }
                assert_eq!(c, &want_clear, "{reference}: at {t} s without the mask");
                assert_eq!(m, &want, "{reference}: at {t} s with the mask");
                lost += c.len() - m.len();
                steps_losing += (c.len() > m.len()) as u32;
            }
            assert_eq!(near_edge, 0, "no satellite within 1e-6 degrees of an edge (the comparison would be moot)");
            // the mask matters: it hides satellites at a good share of steps
            assert!(steps_losing > 1000 && lost > 1000, "{reference}: {steps_losing} steps, {lost} satellite-steps");
        }
    }
}
