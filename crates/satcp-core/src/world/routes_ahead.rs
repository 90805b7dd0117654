//! The next topology step's routes on a second thread
//! (`run.topology_threads = 2`).
//!
//! A constellation's routes are recomputed at every topology step, and
//! with a hundred destinations that is most of what a step costs
//! (`docs/performance.md`). The links of the next step are known before it
//! comes: positions, visibility and attachments are functions of time and
//! of the attachments before (`world/leo.rs`). So at step k, once its links
//! are set, the main thread predicts the link directions of step k+1 (ends,
//! delay at the step, up or down; directions a new ground link will get
//! appended in the order the step will make them) and hands them, with a
//! spare [`Routes`], to a worker thread, which brings the spare up to date
//! while the event loop runs step k. At step k+1 the worker's routes are
//! taken only if the directions the step actually set are, all of them,
//! those predicted; otherwise (a scenario's `changes` on a link between the
//! steps, a link a model brought down) the step computes its routes on the
//! main thread, as with one thread. Routes are a function of the
//! directions alone (`net/routing.rs`: an update equals a fresh
//! computation), so a run gives the same bits with one thread or two.
//!
//! Choices:
//! * Predicted only when every shell attaches by "shortest-path" (its
//!   links are the satellites in view, a function of the positions); the
//!   single-attachment policies ("nearest", "longest-visible",
//!   "reassign-15s") keep one link per station, whose routes cost little,
//!   and are computed on the main thread.
//! * One persistent worker and two channels (no thread per step); the
//!   handover blocks until the worker is done, so nothing is shared while
//!   either side runs.

use crate::net::routing::{Edge, Routes};
use std::sync::mpsc;
use std::thread;

pub(super) struct RoutesAhead {
    jobs: Option<mpsc::Sender<(Routes, Vec<Edge>)>>,
    done: mpsc::Receiver<Routes>,
    worker: Option<thread::JoinHandle<()>>,
    /// The routes the worker may have next (None while it has them).
    spare: Option<Routes>,
    /// Steps whose routes came from the worker, and steps that predicted
    /// other directions than the step set (counts for tests).
    pub(super) taken: u64,
    pub(super) missed: u64,
}

impl RoutesAhead {
    /// A worker that updates copies of `routes` (the same destinations)
    /// over nodes that may relay as `relay` says.
    pub(super) fn new(routes: &Routes, relay: Vec<bool>) -> Self {
        let (jobs, todo) = mpsc::channel::<(Routes, Vec<Edge>)>();
        let (finished, done) = mpsc::channel();
        let worker = thread::Builder::new()
            .name("satcp-routes".into())
            .spawn(move || {
                for (mut r, edges) in todo {
                    r.update(&edges, &relay);
                    if finished.send(r).is_err() {
                        break;
                    }
                }
            })
            .expect("a thread for the next topology step's routes");
        RoutesAhead { jobs: Some(jobs), done, worker: Some(worker), spare: Some(routes.clone()), taken: 0, missed: 0 }
    }

    /// Hand the worker the directions predicted for the next step.
    pub(super) fn start(&mut self, predicted: Vec<Edge>) {
        let r = self.spare.take().expect("no job in flight");
        self.jobs.as_ref().expect("the worker runs").send((r, predicted)).expect("the routes worker stopped");
    }

    /// The routes of the job in flight, if it predicted `actual`; the
    /// caller then gives back the routes they replace
    /// ([`RoutesAhead::give_back`]).
    pub(super) fn take(&mut self, actual: &[Edge]) -> Option<Routes> {
        if self.spare.is_some() {
            return None; // nothing in flight
        }
        let r = self.done.recv().expect("the routes worker stopped");
        if r.edges() == actual {
            self.taken += 1;
            Some(r)
        } else {
            self.missed += 1;
            self.spare = Some(r);
            None
        }
    }

    pub(super) fn give_back(&mut self, old: Routes) {
        self.spare = Some(old);
    }
}

impl Drop for RoutesAhead {
    fn drop(&mut self) {
        // closing the job channel ends the worker's loop
        self.jobs = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
