//! Scenario text in, a clear error or a bounded run out.

/// Events a fuzzed run may take before it is stopped.
const EVENT_CAP: u64 = 200_000;

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
            // packet events (positions, links in range, routes): a
            // constellation's run gets a tenth of the events (a 56-satellite
            // shell and a 2 kb/s ground link ran 200,000 steps, 2.6 s in a
            // release build and over 10 s under the fuzzer)
            let cap = if scn.leo.is_some() { EVENT_CAP / 10 } else { EVENT_CAP };
            let mut w = crate::world::World::build(&scn);
            let mut seen = 0u64;
            let mut last = 0u64;
            w.run_observed(1024, &mut |t| {
                assert!(t >= last, "time went back");
                last = t;
                seen += 1024;
                seen < cap
            });
            let out = w.into_output();
            for f in &out.summary.flows {
                assert_eq!(f.integrity_errors, 0, "{f:?}");
            }
        }
    }
}
