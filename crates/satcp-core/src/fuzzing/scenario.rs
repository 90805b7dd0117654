//! Scenario text in, a clear error or a bounded run out.

/// Events a fuzzed run may take before it is stopped.
const EVENT_CAP: u64 = 200_000;

/// Topology steps x (satellites + ground stations) a fuzzed constellation
/// run may take before it is stopped (a step's cost grows with both).
const STEP_WORK: u64 = 1_000_000;

pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match crate::scenario::parse_toml(text, &[]) {
        Err(e) => {
            assert!(!e.path.is_empty(), "an error without a field: {e:?}");
            assert!(!e.allowed.is_empty(), "an error that says nothing of what is allowed: {e:?}");
        }
        Ok(scn) => {
            // very large valid scenarios are slow, not wrong: cap their size
            // (a topology step costs satellites x stations elevation checks,
            // and a run may take 200,000 of them)
            let sats: u64 = scn.leo.as_ref().map_or(0, |l| l.shells.iter().map(|s| s.satellites as u64).sum());
            let stations = scn.leo.as_ref().map_or(0, |l| l.stations.len() as u64);
            if scn.flows.len() > 2_000 || scn.links.len() > 20_000 || sats > 5_000 || sats * stations.max(1) > 2_000 {
                return;
            }
            // nor a time series of millions of rows (every event a sample;
            // the parser caps a run's rows at 1e8, which is memory, not a bug)
            if let Some(iv) = scn.run.sample_interval_ns {
                let samples = scn.run.stop_ns.map_or(EVENT_CAP, |s| (s / iv).min(EVENT_CAP));
                if samples * (scn.flows.len() + 2 * scn.links.len()) as u64 > 5_000_000 {
                    return;
                }
            }
            // a topology step is one event that costs as much as a hundred
            // packet events or more (positions, links in range, routes),
            // growing with the constellation: its run gets a tenth of the
            // events, and at most STEP_WORK / (satellites + stations)
            // steps (a 56-satellite shell with a 2 kb/s ground link ran
            // 200,000 steps, 2.6 s in a release build and over 10 s under
            // the fuzzer; a 576-satellite one with a 4 kb/s link, 170 us a
            // step in release, over 10 s in 20,000 steps)
            let (cap, every, max_t) = match &scn.leo {
                Some(leo) => {
                    let steps = STEP_WORK / (sats + stations).max(1);
                    (EVENT_CAP / 10, 16, leo.step_ns.saturating_mul(steps))
                }
                None => (EVENT_CAP, 1024, u64::MAX),
            };
            let mut w = crate::world::World::build(&scn);
            let mut seen = 0u64;
            let mut last = 0u64;
            w.run_observed(every, &mut |t| {
                assert!(t >= last, "time went back");
                last = t;
                seen += every;
                seen < cap && t <= max_t
            });
            let out = w.into_output();
            for f in &out.summary.flows {
                assert_eq!(f.integrity_errors, 0, "{f:?}");
            }
        }
    }
}
