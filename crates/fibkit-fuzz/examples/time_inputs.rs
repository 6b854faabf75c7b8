//! `cargo run --release -p fibkit-fuzz --example time_inputs TARGET FILE...`: the time
//! each input takes through the target's function (slowest first), to keep the fuzz
//! targets fast.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: time_inputs TARGET FILE...");
        std::process::exit(2);
    };
    let Some(&(_, f)) = fibkit_fuzz::TARGETS.iter().find(|(t, _)| t == target) else {
        eprintln!("unknown target {target}");
        std::process::exit(2);
    };
    let mut times: Vec<(f64, &String)> = files
        .iter()
        .filter_map(|p| {
            let data = std::fs::read(p).ok()?;
            let t = Instant::now();
            f(&data);
            Some((t.elapsed().as_secs_f64() * 1e3, p))
        })
        .collect();
    let total: f64 = times.iter().map(|t| t.0).sum();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, p) in times.iter().take(10) {
        println!("{ms:9.2} ms  {p}");
    }
    println!("{} inputs, {total:.0} ms in all", times.len());
}
