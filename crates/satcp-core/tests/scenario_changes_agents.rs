//! Scenario keys of the engine seams: a link's scheduled `changes`, the
//! priority queue, and `[[agents]]`: what they resolve to, and an error
//! naming the dotted path, the value and what is allowed for each mistake.

use satcp_core::scenario::*;
use satcp_core::router::ceten::CetenRouterCfg;
use satcp_core::router::monitor::MonitorCfg;
use satcp_core::router::rwnd_clamp::RwndClampCfg;
use satcp_core::router::xfwa::{ErrorDist, NewFlows, QSize, XfwaCfg};

fn scenario(link_extra: &str, rest: &str) -> String {
    format!(
        r#"
[nodes]
a = {{}}
g = {{}}
b = {{}}
[[links]]
a = "a"
b = "g"
rate = "10Mbps"
delay = "5ms"
[[links]]
name = "sat"
a = "g"
b = "b"
rate = "2Mbps"
delay = "250ms"
{link_extra}
[[flows]]
name = "f"
src = "a"
dst = "b"
tcp = {{ mss = 1000 }}
app = {{ kind = "ftp", size = 1000 }}
{rest}
"#
    )
}

fn ok(link_extra: &str, rest: &str) -> Scenario {
    parse_toml(&scenario(link_extra, rest), &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn err(link_extra: &str, rest: &str) -> ScenarioError {
    parse_toml(&scenario(link_extra, rest), &[]).expect_err("must be refused")
}

#[test]
fn changes_resolve_per_direction_in_time_order() {
    let s = ok(
        r#"changes = [{ at = "20s", down = true }, { at = "22s", down = false }, { at = "40s", rate_ab = "1Mbps" }, { at = "60s", delay = "300ms", rate = "4Mbps", rate_ba = "128kbps" }]"#,
        "",
    );
    let c = &s.links[1].changes;
    assert_eq!(c.len(), 4);
    assert_eq!((c[0].at_ns, c[0].up), (20_000_000_000, Some(false)));
    assert_eq!(c[1].up, Some(true));
    assert_eq!(c[2].dirs, [DirChange { rate_bps: Some(1_000_000), delay_ns: None }, DirChange::default()]);
    assert_eq!(c[3].dirs[0], DirChange { rate_bps: Some(4_000_000), delay_ns: Some(300_000_000) });
    assert_eq!(c[3].dirs[1], DirChange { rate_bps: Some(128_000), delay_ns: Some(300_000_000) }, "the specific key wins");
    assert!(s.links[0].changes.is_empty());
}

#[test]
fn change_errors_name_the_entry() {
    let e = err(r#"changes = [{ at = "20s", down = true }, { at = "10s", down = false }]"#, "");
    assert_eq!(e.path, "links.1.changes.1.at");
    assert!(e.allowed.contains("after the previous change"), "{}", e.allowed);
    let e = err(r#"changes = [{ at = "20s" }]"#, "");
    assert_eq!(e.path, "links.1.changes.0");
    assert!(e.allowed.contains("at least one of down"), "{}", e.allowed);
    let e = err(r#"changes = [{ down = true }]"#, "");
    assert_eq!(e.path, "links.1.changes.0.at");
    let e = err(r#"changes = [{ at = "1s", rate_ab = 0 }]"#, "");
    assert_eq!(e.path, "links.1.changes.0.rate_ab");
    assert!(e.allowed.contains("> 0"), "{}", e.allowed);
    let e = err(r#"changes = [{ at = "1s", loss = 0.1 }]"#, "");
    assert_eq!(e.path, "links.1.changes.0.loss");
    assert!(e.allowed.contains("unknown key"), "{}", e.allowed);
    let e = err(r#"changes = { at = "1s", down = true }"#, "");
    assert_eq!(e.path, "links.1.changes");
    let e = err(r#"changes = [{ at = "1s", down = "yes" }]"#, "");
    assert_eq!(e.path, "links.1.changes.0.down");
    // down for good: the run needs a stop (every run ends)
    let e = err(r#"changes = [{ at = "1s", down = true }, { at = "2s", down = false }, { at = "3s", down = true }, { at = "4s", rate = "1Mbps" }]"#, "");
    assert_eq!(e.path, "run.stop");
    assert!(e.allowed.contains("links.1.changes.2"), "{}", e.allowed);
    let s = parse_toml(&scenario(r#"changes = [{ at = "1s", down = true }]"#, ""), &["run.stop=10s".into()]).unwrap();
    assert_eq!(s.links[1].changes[0].up, Some(false));
}

#[test]
fn priority_queues_take_packet_or_byte_limits() {
    let s = ok(r#"queue_ab = { kind = "priority", packets = 20 }"#, "");
    assert_eq!(s.links[1].dirs[0].queue, QueueCfg::Priority { limit: QueueLimit::Packets(20), low_drop: LowDrop::Full });
    assert_eq!(s.links[1].dirs[1].queue, QueueCfg::DropTail { limit: QueueLimit::Unlimited });
    let s = ok(r#"queue = { kind = "priority", bytes = "30KB" }"#, "");
    assert_eq!(s.links[1].dirs[1].queue, QueueCfg::Priority { limit: QueueLimit::Bytes(30_000), low_drop: LowDrop::Full });
    let e = err(r#"queue = { kind = "fifo" }"#, "");
    assert_eq!(e.path, "links.1.queue.kind");
    assert!(e.allowed.contains("\"priority\""), "{}", e.allowed);
    let s = ok(r#"queue = { kind = "priority", packets = 25, dummy_drop = "queued" }"#, "");
    assert_eq!(s.links[1].dirs[0].queue, QueueCfg::Priority { limit: QueueLimit::Packets(25), low_drop: LowDrop::Queued });
    assert_eq!(err(r#"queue = { kind = "priority", dummy_drop = "red" }"#, "").path, "links.1.queue.dummy_drop");
    assert_eq!(err(r#"queue = { kind = "droptail", dummy_drop = "full" }"#, "").path, "links.1.queue.dummy_drop");
    let e = err(r#"queue = { kind = "priority", min_th = 3 }"#, "");
    assert_eq!(e.path, "links.1.queue.min_th");
}

#[test]
fn agents_resolve_node_link_and_kind() {
    let s = ok("", "[[agents]]\nnode = \"g\"\nkind = \"rwnd_clamp\"\nbytes = \"32KB\"\n[[agents]]\nnode = \"b\"\nkind = \"monitor\"\nlink = \"sat\"\n");
    assert_eq!(s.agents.len(), 2);
    assert_eq!(s.agents[0], AgentCfg { node: 1, link: None, kind: AgentKind::RwndClamp(RwndClampCfg { bytes: 32_000 }) });
    assert_eq!(s.agents[1], AgentCfg { node: 2, link: Some(1), kind: AgentKind::Monitor(MonitorCfg) });
    let s = ok("", "[[agents]]\nnode = \"g\"\nkind = \"monitor\"\nlink = 0\n");
    assert_eq!(s.agents[0].link, Some(0));
    assert!(ok("", "").agents.is_empty());
    let s = ok("", "[[agents]]\nnode = \"b\"\nkind = \"ceten\"\n[[agents]]\nnode = \"g\"\nkind = \"ceten\"\ninitial = 0.5\noverflow_decays_survival = true\nestimator = \"per_packet\"\n");
    assert_eq!(s.agents[0].kind, AgentKind::Ceten(CetenRouterCfg { initial: 1.0, overflow_decays_survival: false, per_packet: false }));
    assert_eq!(s.agents[1].kind, AgentKind::Ceten(CetenRouterCfg { initial: 0.5, overflow_decays_survival: true, per_packet: true }));
    let s = ok("", "[[agents]]\nnode = \"g\"\nkind = \"xfwa\"\nlink = \"sat\"\nalpha = 2\nq_size = \"free\"\nrtt_error = 0.1\nrtt_error_dist = \"normal\"\nnew_flows = \"wait\"\nisl_delay = \"10ms\"\nextra_hops = 0\n");
    let AgentKind::Xfwa(x) = s.agents[0].kind else { panic!("{:?}", s.agents[0].kind) };
    assert_eq!((x.alpha, x.isl_delay_ns, x.extra_hops, x.rtt_error), (2.0, 10_000_000, 0, 0.1));
    assert_eq!((x.q_size, x.new_flows, x.rtt_error_dist), (QSize::Free, NewFlows::Wait, ErrorDist::Normal));
    let s = ok("", "[[agents]]\nnode = \"g\"\nkind = \"xfwa\"\nlink = \"sat\"\n");
    assert_eq!(s.agents[0].kind, AgentKind::Xfwa(XfwaCfg::default()));
}

#[test]
fn agent_errors_name_the_field() {
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"ewa\"\n");
    assert_eq!(e.path, "agents.0.kind");
    assert!(e.allowed.contains("\"rwnd_clamp\", \"monitor\", \"ceten\", \"xfwa\""), "{}", e.allowed);
    // XFWA sits on one interface: its link is required; its keys are checked
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"xfwa\"\n");
    assert_eq!(e.path, "agents.0.link");
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"xfwa\"\nlink = \"sat\"\nq_size = \"half\"\n");
    assert_eq!(e.path, "agents.0.q_size");
    assert!(e.allowed.contains("\"free\""), "{}", e.allowed);
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"xfwa\"\nlink = \"sat\"\nrtt_error = 1.5\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("agents.0.rtt_error", "1.5"));
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"ceten\"\ninitial = 1.5\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("agents.0.initial", "1.5"));
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"ceten\"\nestimator = \"per_flow\"\n");
    assert_eq!(e.path, "agents.0.estimator");
    assert!(e.allowed.contains("\"per_packet\""), "{}", e.allowed);
    let e = err("", "[[agents]]\nnode = \"g\"\n");
    assert_eq!(e.path, "agents.0.kind");
    let e = err("", "[[agents]]\nnode = \"x\"\nkind = \"monitor\"\n");
    assert_eq!(e.path, "agents.0.node");
    assert!(e.allowed.contains("\"g\""), "{}", e.allowed);
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"rwnd_clamp\"\n");
    assert_eq!(e.path, "agents.0.bytes");
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"rwnd_clamp\"\nbytes = 999\n");
    assert_eq!((e.path.as_str(), e.value.as_str()), ("agents.0.bytes", "999"));
    assert!(e.allowed.contains("largest mss") && e.allowed.contains("1000 bytes"), "{}", e.allowed);
    let e = err("", "[[agents]]\nnode = \"g\"\nkind = \"monitor\"\nbytes = 5000\n");
    assert_eq!(e.path, "agents.0.bytes");
    assert!(e.allowed.contains("unknown key"), "{}", e.allowed);
    let e = err("", "[[agents]]\nnode = \"a\"\nkind = \"monitor\"\nlink = \"sat\"\n");
    assert_eq!(e.path, "agents.0.link");
    assert!(e.allowed.contains("attached to node \"a\""), "{}", e.allowed);
    let e = err("", "[[agents]]\nnode = \"a\"\nkind = \"monitor\"\nlink = 7\n");
    assert_eq!(e.path, "agents.0.link");
    assert!(e.allowed.contains("0..=1"), "{}", e.allowed);
    let e = parse_toml(&scenario("", ""), &["agents=3".into()]).expect_err("must be refused");
    assert_eq!(e.path, "agents");
}

#[test]
fn set_paths_reach_changes_and_agents() {
    let text = scenario("", "[[agents]]\nnode = \"g\"\nkind = \"rwnd_clamp\"\nbytes = 32000\n");
    let s = parse_toml(&text, &["links.sat.changes=[{ at = \"5s\", down = true }, { at = \"6s\", down = false }]".into(), "agents.0.bytes=16000".into()]).unwrap();
    assert_eq!(s.links[1].changes[0].up, Some(false));
    assert_eq!(s.agents[0].kind, AgentKind::RwndClamp(RwndClampCfg { bytes: 16_000 }));
}
