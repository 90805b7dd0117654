//! A flow's endpoints and its application talking: endpoints send packets
//! (routed at once) and leave notes (data delivered, peer closed,
//! everything acknowledged, connection finished or aborted) that the
//! application turns into actions (listen, connect, write, close, wake me,
//! send a datagram), until nothing more happens at this instant.

use super::World;
use crate::app::{Action, AppNote};
use crate::ids::{EpId, FlowId};
use crate::net::Packet;
use crate::sim::Event;
use crate::tcp::{Ctx, Note};

impl World {
    /// Route what endpoints sent and hand notes to applications until
    /// nothing more happens at this instant.
    pub(super) fn settle(&mut self) {
        loop {
            for i in 0..self.out.len() {
                let mut p = self.out[i];
                self.forward(p.src_node, &mut p);
            }
            self.out.clear();
            if self.notes.is_empty() {
                return;
            }
            std::mem::swap(&mut self.notes, &mut self.notes_spare);
            for i in 0..self.notes_spare.len() {
                let n = self.notes_spare[i];
                self.on_note(n);
            }
            self.notes_spare.clear();
        }
    }

    fn on_note(&mut self, n: Note) {
        if self.peps.is_some() && self.pep_took_note(n) {
            return;
        }
        let (ep, note) = match n {
            Note::Acked { .. } => return, // asked for by PEPs' ends only
            Note::Delivered { ep, total } => {
                let ep = EpId(ep);
                if total < self.apps[ep.flow().index()].delivery_mark(ep.side()) {
                    return; // the application would do nothing with it
                }
                (ep, AppNote::Delivered(ep.side(), total))
            }
            Note::PeerClosed { ep } => (EpId(ep), AppNote::PeerClosed(EpId(ep).side())),
            Note::AllAcked { ep } => (EpId(ep), AppNote::AllAcked(EpId(ep).side())),
            Note::Finished { ep } => {
                let fr = &mut self.flows[EpId(ep).flow().index()];
                fr.finished_eps += 1;
                if fr.finished_eps < 2 {
                    return;
                }
                fr.fin_done_at = Some(self.now);
                (EpId(ep), AppNote::ConnectionFinished)
            }
            Note::Aborted { ep } => {
                self.flows[EpId(ep).flow().index()].aborted = true;
                (EpId(ep), AppNote::Aborted)
            }
        };
        let f = ep.flow();
        self.apps[f.index()].on_note(self.now, note, &mut self.actions);
        self.apply_actions(f);
    }

    /// Carry out what flow `f`'s application asked for.
    pub(super) fn apply_actions(&mut self, f: FlowId) {
        let mut i = 0;
        while i < self.actions.len() {
            let a = self.actions[i];
            i += 1;
            let mut ctx = Ctx { now: self.now, q: &mut self.q, out: &mut self.out, notes: &mut self.notes };
            if let Some(qf) = self.quic[f.index()].as_deref_mut() {
                match a {
                    Action::Listen(_) => {} // the QUIC server accepts what comes
                    Action::Connect(_) => qf.connect(&mut ctx),
                    Action::Write(s, n) => qf.write(&mut ctx, s, n),
                    Action::Close(s) => qf.close(&mut ctx, s),
                    Action::StopWriting(s) => qf.stop_writing(&mut ctx, s),
                    Action::WakeAt(t) => self.q.push(t, Event::App { app: f.0 }),
                    Action::Datagram(_) => unreachable!("the parser gives QUIC flows ftp only"),
                }
                continue;
            }
            match a {
                Action::Listen(s) => self.eps[f.endpoint(s).index()].listen(self.now),
                Action::Connect(s) => self.eps[f.endpoint(s).index()].connect(&mut ctx),
                Action::Write(s, n) => self.eps[f.endpoint(s).index()].write(&mut ctx, n),
                Action::Close(s) => self.eps[f.endpoint(s).index()].close(&mut ctx),
                Action::StopWriting(s) => self.eps[f.endpoint(s).index()].stop_writing(&mut ctx),
                Action::WakeAt(t) => self.q.push(t, Event::App { app: f.0 }),
                Action::Datagram(bytes) => {
                    let fc = &self.scn.flows[f.index()];
                    ctx.out.push(Packet::udp(fc.src as u32, fc.dst as u32, f.0, bytes));
                }
            }
        }
        self.actions.clear();
        let fr = &mut self.flows[f.index()];
        let app = &self.apps[f.index()];
        if !fr.done && (app.completed_at().is_some() || fr.aborted) {
            fr.done = true;
            if app.is_finite() {
                self.finite_left -= 1;
            }
        }
    }
}
