//! Same scenario and seed give identical results; seeds change what is random.

mod common;
use common::*;

fn json_without_wall(out: &satcp_core::RunOutput) -> String {
    let mut s = out.summary.clone();
    s.wall_s = 0.0;
    serde_json::to_string(&s).unwrap()
}

#[test]
fn same_seed_same_bits() {
    let sets = ["flows.download.app.size=3MB", "links.1.errors_ab={ber=1e-5}", "run.sample_interval=1s"];
    let a = run_file("geo_bent_pipe.toml", &sets);
    let b = run_file("geo_bent_pipe.toml", &sets);
    assert_eq!(json_without_wall(&a), json_without_wall(&b));
    assert_eq!(a.flow_series.cwnd_bytes, b.flow_series.cwnd_bytes);
    assert!(a.summary.flows[0].retransmissions > 0, "the test needs losses to mean anything");
}

#[test]
fn different_seeds_differ_where_randomness_matters() {
    let base = ["flows.download.app.size=3MB", "links.1.errors_ab={ber=1e-5}"];
    let runs: Vec<String> = (1..=3)
        .map(|seed| {
            let s = format!("run.seed={seed}");
            let mut sets = base.to_vec();
            sets.push(&s);
            json_without_wall(&run_file("geo_bent_pipe.toml", &sets))
        })
        .collect();
    assert_ne!(runs[0], runs[1]);
    assert_ne!(runs[1], runs[2]);
    // and with no randomness in the scenario, the seed changes nothing
    let quiet = |seed: &str| {
        let s = format!("run.seed={seed}");
        let mut out = run_file("geo_bent_pipe.toml", &["flows.download.app.size=1MB", "links.1.errors_ab={per=0}", &s]).summary;
        out.wall_s = 0.0;
        out.seed = 0;
        serde_json::to_string(&out).unwrap()
    };
    assert_eq!(quiet("1"), quiet("2"));
}

#[test]
fn observing_a_run_changes_nothing_and_can_stop_it() {
    let text = std::fs::read_to_string(repo_root().join("scenarios/geo_bent_pipe.toml")).unwrap();
    let sets: Vec<String> = ["flows.download.app.size=3MB", "links.1.errors_ab={ber=1e-5}"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let scn = satcp_core::scenario::parse_toml(&text, &sets).unwrap();
    let plain = satcp_core::run(&scn);

    // every 1000 events: 1 call per 1000 events taken off the queue
    let mut seen: Vec<f64> = Vec::new();
    let observed = satcp_core::run_observed(&scn, 1000, &mut |t| {
        seen.push(t);
        true
    })
    .unwrap();
    assert_eq!(json_without_wall(&plain), json_without_wall(&observed));
    assert_eq!(seen.len() as u64, plain.summary.events / 1000);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "simulated time never goes back");
    assert!(*seen.last().unwrap() <= plain.summary.sim_time_s);

    // stopping at the third call: ended by "interrupted", 3000 events
    let mut calls = 0;
    let stopped = satcp_core::run_observed(&scn, 1000, &mut |_| {
        calls += 1;
        calls < 3
    })
    .unwrap();
    assert_eq!(stopped.summary.ended_by, "interrupted");
    assert_eq!(stopped.summary.events, 3000);
    assert!(stopped.summary.sim_time_s < plain.summary.sim_time_s);
}

#[test]
fn the_seams_keep_runs_bit_identical() {
    // an outage, rate and delay changes, a priority queue (the holding
    // transmitter), a window clamp and a monitor seeing corrupted packets
    let sets = [
        "flows.download.app.size=2MB",
        "links.1.errors_ab={per=0}",
        "links.1.errors_ba={per=0.01}",
        "links.1.queue_ab={ kind = \"priority\", packets = 50 }",
        "links.1.changes=[{ at = \"5s\", down = true }, { at = \"6s\", down = false }, { at = \"8s\", rate_ab = \"1Mbps\" }, { at = \"9s\", delay = \"200ms\" }]",
        "agents=[{ node = \"gateway\", kind = \"rwnd_clamp\", bytes = 40000 }, { node = \"gateway\", kind = \"monitor\" }]",
        "run.sample_interval=1s",
    ];
    let a = run_file("geo_bent_pipe.toml", &sets);
    let b = run_file("geo_bent_pipe.toml", &sets);
    assert_eq!(json_without_wall(&a), json_without_wall(&b));
    assert_eq!(a.link_series.rate_bps, b.link_series.rate_bps);
    let (down, up) = (&a.summary.links[2], &a.summary.links[3]);
    assert!(down.drops.down > 0 && up.drops.errors > 0, "{:?} {:?}", down.drops, up.drops);
    assert!(a.summary.agents[1].counters["corrupted_arrivals"] > 0);
}

/// The Modified Peach study's network (ten flows, dummies on priority
/// queues, the controller's own timer) twice with the same seed.
#[test]
fn peach_study_network_same_seed_same_bits() {
    let mut sets: Vec<String> = (0..10).map(|i| format!("flows.f{i}.tcp.variant=\"modified-peach\"")).collect();
    sets.extend(["links.satellite.errors_ab.per=0.1".to_string(), "run.stop=\"60s\"".to_string()]);
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let a = run_file("peach/ten_flows.toml", &sets);
    let b = run_file("peach/ten_flows.toml", &sets);
    assert_eq!(json_without_wall(&a), json_without_wall(&b));
    assert!(a.summary.flows.iter().all(|f| f.dummy_segments_sent > 0 && f.retransmissions > 0));
}

/// The CETEN-R study's network (estimators on three nodes, the sender's
/// coin) twice with the same seed.
#[test]
fn ceten_study_network_same_seed_same_bits() {
    let mut sets: Vec<String> = (1..=4).map(|i| format!("flows.f{i}.tcp.variant=\"ceten-newreno\"")).collect();
    sets.extend(["links.satellite.errors={ber=1e-5}".to_string(), "run.stop=\"60s\"".to_string()]);
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let a = run_file("ceten/four_clients.toml", &sets);
    let b = run_file("ceten/four_clients.toml", &sets);
    assert_eq!(json_without_wall(&a), json_without_wall(&b));
    assert!(a.summary.agents.iter().all(|g| g.counters["survival_updates"] > 0));
}

/// The XFWA study's networks (the agent with RTT errors drawn per flow;
/// ON-OFF TCP sources and jittered starts) twice with the same seed.
#[test]
fn xfwa_study_networks_same_seed_same_bits() {
    for (file, sets) in [
        ("xfwa/different_rtts.toml", vec!["multihop.xfwa={ rtt_error = 0.3 }", "run.stop=\"5s\""]),
        ("xfwa/onoff.toml", vec!["run.stop=\"8s\""]),
    ] {
        let a = run_file(file, &sets);
        let b = run_file(file, &sets);
        assert_eq!(json_without_wall(&a), json_without_wall(&b), "{file}");
        assert!(a.summary.agents.iter().all(|g| g.counters["acks_lowered"] > 0), "{file}");
    }
}
