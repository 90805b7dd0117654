//! The fuzz targets' bodies (`satcp_core::fuzzing`) on the committed corpus
//! (`fuzz/corpus/TARGET/`: seeds and every input a fuzzer found to crash,
//! kept once fixed) and on deterministic random inputs: the cheap half of
//! `make fuzz`, in every test run.

mod common;

use satcp_core::fuzzing;
use satcp_core::sim::Rng;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = common::repo_root().join("fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn random_inputs(n: usize, len: usize, stream: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(20261126, stream);
    (0..n).map(|_| (0..1 + (rng.next_u64() as usize % len)).map(|_| rng.next_u64() as u8).collect()).collect()
}

fn run(target: &str, f: fn(&[u8]), n: usize, len: usize, stream: u64) {
    let mut inputs = corpus(target);
    inputs.extend(random_inputs(n, len, stream));
    for (i, data) in inputs.iter().enumerate() {
        if std::panic::catch_unwind(|| f(data)).is_err() {
            // kept for `cargo fuzz run TARGET FILE` and for the corpus once fixed
            let dir = common::repo_root().join("target/fuzz-failures");
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{target}-{i}.bin"));
            std::fs::write(&path, data).unwrap();
            panic!("{target}: input {i} ({} bytes) fails; written to {}", data.len(), path.display());
        }
    }
}

#[test]
fn receiver_corpus_and_random_inputs() {
    run("receiver", fuzzing::receiver, 400, 4000, 1);
}

#[test]
fn sender_corpus_and_random_inputs() {
    run("sender", fuzzing::sender, 400, 4000, 2);
}

#[test]
fn arq_corpus_and_random_inputs() {
    run("arq", fuzzing::arq, 400, 4000, 3);
}

#[test]
fn scenario_corpus() {
    // random bytes are rarely TOML; the corpus holds the scenarios
    run("scenario", fuzzing::scenario, 50, 300, 4);
}
