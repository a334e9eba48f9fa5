//! `prnic synth` and `prnic timing`: Yosys maps each generated module to UltraScale+ cells,
//! and [`crate::timing`] walks the netlist for resources, logic levels and an estimated
//! delay per register-to-register path. `prnic synth` writes `docs/hardware-report.md`;
//! `prnic timing` prints the worst paths and, with `--check`, is the timing gate.

use crate::blocks::{self, Module};
use crate::config::PrnicConfig;
use crate::timing::{self, DelayModel, ModuleTiming};
use std::fmt::Write as _;
use std::path::Path;

/// Yosys is missing or failed on a module.
#[derive(Debug)]
pub struct SynthError(pub String);

impl std::fmt::Display for SynthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Map one module in `dir` and analyse it at `period_ns`.
pub fn synth_module(m: &Module, dir: &Path, period_ns: f64) -> Result<ModuleTiming, SynthError> {
    let v = dir.join(format!("{}.v", m.name));
    std::fs::write(&v, &m.verilog)
        .map_err(|e| SynthError(format!("cannot write {}: {e}", v.display())))?;
    let json = dir.join(format!("{}.json", m.name));
    let t = std::time::Instant::now();
    // The top is mapped block by block, and a block's marked decoders each on their own
    // (see [`timing::map_with_yosys`]); everything else is mapped whole.
    let mut apart = if m.name == "prnic_top" {
        timing::child_modules(&m.verilog, m.name)
    } else {
        vec![]
    };
    apart.extend(timing::marked_apart(&m.verilog));
    timing::map_with_yosys(&v, m.name, &json, &apart).map_err(|e| SynthError(e.0))?;
    let text = std::fs::read_to_string(&json)
        .map_err(|e| SynthError(format!("cannot read {}: {e}", json.display())))?;
    let _ = std::fs::remove_file(&json);
    let mut r = timing::analyse(&text, m.name, period_ns, &DelayModel::ULTRASCALE_PLUS_2)
        .map_err(|e| SynthError(e.0))?;
    r.seconds = t.elapsed().as_secs_f64();
    Ok(r)
}

/// The modules named in `only` (all if empty), in registry order.
pub fn select(cfg: &PrnicConfig, only: &[String]) -> Result<Vec<Module>, SynthError> {
    let modules: Vec<Module> = blocks::modules(cfg)
        .map_err(|e| SynthError(e.to_string()))?
        .into_iter()
        .filter(|m| only.is_empty() || only.iter().any(|o| o == m.name))
        .collect();
    if let Some(o) = only
        .iter()
        .find(|o| !modules.iter().any(|m| m.name == o.as_str()))
    {
        return Err(SynthError(format!("no module named {o}")));
    }
    Ok(modules)
}

/// Map and analyse the chosen modules (all if `only` is empty) on two workers that each
/// take the next module as soon as they finish one, so the top, which takes longest,
/// runs beside all the blocks rather than beside one of them. Rows come back in registry
/// order.
pub fn synth(cfg: &PrnicConfig, only: &[String]) -> Result<Vec<ModuleTiming>, SynthError> {
    let modules = select(cfg, only)?;
    let dir = std::env::temp_dir().join(format!("prnic-synth-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| SynthError(format!("cannot create {}: {e}", dir.display())))?;
    let period = cfg.clock_period_ns();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<Vec<(usize, ModuleTiming)>, SynthError>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                s.spawn(|| {
                    let mut done = vec![];
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(m) = modules.get(i) else {
                            return Ok(done);
                        };
                        done.push((i, synth_module(m, &dir, period)?));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(SynthError("a synthesis thread panicked".into())))
            })
            .collect()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let mut rows = vec![];
    for r in results {
        rows.extend(r?);
    }
    rows.sort_by_key(|(i, _)| *i);
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

/// Yosys runs on one core; the machines this runs on have two.
const WORKERS: usize = 2;

fn kind_note(p: &timing::Path_) -> &'static str {
    match p.start.kind {
        timing::PointKind::BramOut => " (block RAM read, no output register)",
        timing::PointKind::Lutram => " (distributed RAM)",
        _ => "",
    }
}

/// `docs/hardware-report.md`.
pub fn report(cfg: &PrnicConfig, rows: &[ModuleTiming]) -> String {
    let m = DelayModel::ULTRASCALE_PLUS_2;
    let period = cfg.clock_period_ns();
    let mut s = String::new();
    let _ = writeln!(s, "# prnic hardware report\n");
    let _ = writeln!(
        s,
        "Written by `prnic synth` for config `{}` at {} MHz ({:.3} ns): Yosys \
`synth_xilinx -family xcup -flatten` per module (`prnic_top` with each block it instantiates \
mapped on its own, then flattened), then prnic's level and delay count over the mapped netlist (docs/timing.md explains the count, the delay figures and the budget). \
Re-run it after changing the RTL or the config; the figures are measured, not derived.\n",
        cfg.hash_hex(),
        cfg.clock.mhz,
        period
    );
    let _ = writeln!(
        s,
        "Budget at this clock: {} levels between flip-flops, {} after a block-RAM read \
without its output register ({:.2} ns per level, {:.2} ns margin).\n",
        m.budget_levels(period, m.ff_clk_to_q, m.ff_setup),
        m.budget_levels(period, m.bram_clk_to_out, m.ff_setup),
        m.level(),
        m.margin
    );
    let _ = writeln!(
        s,
        "| module | LUTs | FFs | RAMB36 | RAMB18 | LUTRAM/SRL | path most over budget: levels (budget) | its est. delay (ns) | from → to | path groups over budget |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for r in rows {
        let (lv, dl, path, ok) = match r.worst() {
            Some(p) => (
                format!("{} ({})", p.levels, p.budget_levels),
                format!("{:.2}", p.delay_ns),
                format!("`{}` → `{}`{}", p.start.name, p.end.name, kind_note(p)),
                match r.violations().count() {
                    0 => "0".to_string(),
                    n => format!("**{n}** of {}", r.reg_paths.len()),
                },
            ),
            None => ("-".into(), "-".into(), "-".into(), "0".to_string()),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.module, r.luts, r.ffs, r.ramb36, r.ramb18, r.lutram_cells, lv, dl, path, ok
        );
    }
    for r in rows {
        let _ = writeln!(s, "\n## `{}`\n", r.module);
        let n_bad = r.violations().count();
        let _ = writeln!(
            s,
            "{} register-to-register path groups, {} over budget. Worst five:\n",
            r.reg_paths.len(),
            n_bad
        );
        let _ = writeln!(s, "| levels (budget) | est. delay (ns) | from | to |");
        let _ = writeln!(s, "|---:|---:|---|---|");
        for p in r.reg_paths.iter().take(5) {
            let _ = writeln!(
                s,
                "| {} ({}) | {:.2} | `{}`{} | `{}` |",
                p.levels,
                p.budget_levels,
                p.delay_ns,
                p.start.name,
                kind_note(p),
                p.end.name
            );
        }
        if !r.bram_unregistered.is_empty() {
            let _ = writeln!(
                s,
                "\nBlock RAM reads that feed logic before a register: {}.",
                r.bram_unregistered.len()
            );
        }
        if let Some((n, f)) = r.fanout.first() {
            let _ = writeln!(s, "\nLargest fan-out: `{n}`, {f} loads.");
        }
    }
    s
}
