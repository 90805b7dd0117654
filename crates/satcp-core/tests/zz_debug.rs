mod common;
use common::*;
#[test]
fn dbg() {
    let sets: Vec<String> = std::env::var("SETS").unwrap().split_whitespace().map(String::from).collect();
    let s: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
    let out = run_file("transat_table1.toml", &s);
    let f = &out.flow_series;
    let mut last = -1.0;
    for i in 0..f.time_s.len() {
        if f.flow[i] == 0 && f.time_s[i] - last >= 0.099 {
            last = f.time_s[i];
            eprintln!("{:.2} cwnd {:.0} ssth {:.0} flight {:.0} sndmax {:.0} deliv {:.0} rto {:.2}", f.time_s[i], f.cwnd_bytes[i]/960.0, f.ssthresh_bytes[i]/960.0, f.flight_bytes[i]/960.0, f.snd_max_bytes[i]/960.0, f.delivered_bytes[i]/960.0, f.rto_s[i]);
        }
    }
    eprintln!("{:?}", out.summary.flows[0]);
}
