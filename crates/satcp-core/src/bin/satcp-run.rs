//! Run one scenario file without Python (for profiling and scripting):
//! `satcp-run FILE [--set dotted.path=value ...]` prints the summary JSON;
//! `satcp-run --list-variants` prints every `tcp.variant` name, one a line
//! (the PGO training, `scripts/pgo.sh`, runs each); `--no-cut-through`
//! gives every hop its arrival event (the same results, more events).

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut sets = Vec::new();
    let mut cut_through = true;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--set" => match args.next() {
                Some(v) => sets.push(v),
                None => {
                    eprintln!("error: --set needs dotted.path=value");
                    return ExitCode::from(2);
                }
            },
            "--no-cut-through" => cut_through = false,
            "-h" | "--help" => {
                println!("usage: satcp-run FILE [--set dotted.path=value ...] [--no-cut-through] | --list-variants");
                return ExitCode::SUCCESS;
            }
            "--list-variants" => {
                for v in satcp_core::scenario::variant_names() {
                    println!("{v}");
                }
                return ExitCode::SUCCESS;
            }
            _ if file.is_none() => file = Some(a),
            _ => {
                eprintln!("error: unexpected argument {a}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("usage: satcp-run FILE [--set dotted.path=value ...] [--no-cut-through]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let base = std::path::Path::new(&file).parent();
    let scn = match satcp_core::scenario::parse_toml_in(&text, &sets, base) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let out = match if cut_through { satcp_core::try_run(&scn) } else { satcp_core::try_run_every_hop(&scn) } {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    println!("{}", out.summary_json());
    ExitCode::SUCCESS
}
