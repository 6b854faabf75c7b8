//! `cargo run --release -p fibkit-iproute --example random_scenario -- SEED [STEPS]`
//! prints the random scenario of SEED (default 40 steps; see
//! `fibkit_iproute::random`). `conformance/random-diff.sh` runs seeds through the oracle
//! and through `fib scenario --check`, keeping every disagreement.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(seed) = args.first().and_then(|s| s.parse::<u64>().ok()) else {
        eprintln!("usage: random_scenario SEED [STEPS]");
        std::process::exit(2);
    };
    let steps = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    print!("{}", fibkit_iproute::random::scenario(seed, steps));
}
