//! `prnic synth`: Yosys `synth_xilinx` per generated module, with LUT/FF/BRAM/DSP counts and
//! the longest path between registers, written as `docs/hardware-report.md`.
//!
//! The longest path is counted in cells (LUTs, CARRY4, MUXF7/F8) by Yosys `ltp` after the
//! flip-flops, block RAMs and I/O buffers are deleted from the mapped netlist, so paths
//! start and end at registers or ports. It is a depth, not a delay: there is no vendor
//! timing analysis here.

use crate::blocks::{self, Module};
use crate::config::PrnicConfig;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, Serialize)]
pub struct SynthRow {
    pub module: String,
    pub luts: u64,
    pub ffs: u64,
    pub ramb36: u64,
    pub ramb18: u64,
    pub dsps: u64,
    pub carry4: u64,
    pub muxf7: u64,
    pub muxf8: u64,
    /// Cells on the longest register-to-register (or port) path.
    pub longest_path_cells: u64,
    pub seconds: f64,
}

/// Yosys is missing or failed on a module.
#[derive(Debug)]
pub struct SynthError(pub String);

impl std::fmt::Display for SynthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn count(stat: &str, prefix: &str) -> u64 {
    stat.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next()?;
            let n = it.next()?.parse::<u64>().ok()?;
            name.starts_with(prefix).then_some(n)
        })
        .sum()
}

/// Synthesise one module in `dir`.
pub fn synth_module(m: &Module, dir: &Path) -> Result<SynthRow, SynthError> {
    let v = dir.join(format!("{}.v", m.name));
    std::fs::write(&v, &m.verilog)
        .map_err(|e| SynthError(format!("cannot write {}: {e}", v.display())))?;
    let stat = dir.join(format!("{}.stat", m.name));
    let ltp = dir.join(format!("{}.ltp", m.name));
    let script = format!(
        "read_verilog {v}; synth_xilinx -flatten -top {top}; tee -q -o {stat} stat; \
         delete t:FDRE t:FDSE t:FDCE t:FDPE t:RAMB36E1 t:RAMB18E1 t:IBUF t:OBUF t:BUFG; tee -q -o {ltp} ltp",
        v = v.display(),
        top = m.name,
        stat = stat.display(),
        ltp = ltp.display()
    );
    let t = std::time::Instant::now();
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .map_err(|e| SynthError(format!("cannot run yosys ({e}); run scripts/setup.sh")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(SynthError(format!(
            "yosys failed on {}: {}",
            m.name,
            err.lines().last().unwrap_or("")
        )));
    }
    let s = std::fs::read_to_string(&stat).unwrap_or_default();
    let l = std::fs::read_to_string(&ltp).unwrap_or_default();
    let longest = l
        .split("length=")
        .nth(1)
        .and_then(|x| x.split(')').next())
        .and_then(|x| x.trim().parse().ok())
        .unwrap_or(0);
    Ok(SynthRow {
        module: m.name.to_string(),
        luts: count(&s, "LUT"),
        ffs: count(&s, "FD"),
        ramb36: count(&s, "RAMB36"),
        ramb18: count(&s, "RAMB18"),
        dsps: count(&s, "DSP48"),
        carry4: count(&s, "CARRY4"),
        muxf7: count(&s, "MUXF7"),
        muxf8: count(&s, "MUXF8"),
        longest_path_cells: longest,
        seconds: t.elapsed().as_secs_f64(),
    })
}

/// Synthesise the chosen modules (all if `only` is empty), two at a time.
pub fn synth(cfg: &PrnicConfig, only: &[String]) -> Result<Vec<SynthRow>, SynthError> {
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
    let dir = std::env::temp_dir().join(format!("prnic-synth-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| SynthError(format!("cannot create {}: {e}", dir.display())))?;
    let mut rows = vec![];
    for pair in modules.chunks(2) {
        let handles: Vec<_> = pair
            .iter()
            .cloned()
            .map(|m| {
                let dir = dir.clone();
                std::thread::spawn(move || synth_module(&m, &dir))
            })
            .collect();
        for h in handles {
            rows.push(
                h.join()
                    .map_err(|_| SynthError("a synthesis thread panicked".into()))??,
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(rows)
}

/// `docs/hardware-report.md`.
pub fn report(cfg: &PrnicConfig, rows: &[SynthRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# prnic hardware report\n");
    let _ = writeln!(
        s,
        "Written by `prnic synth` (Yosys `synth_xilinx -flatten`, 7-series cells) for config `{}` at {} MHz ({:.3} ns). \
Re-run it after changing the RTL or the config; the figures are measured, not derived.\n",
        cfg.hash_hex(),
        cfg.clock.mhz,
        cfg.clock_period_ns()
    );
    let _ = writeln!(s, "| module | LUTs | FFs | RAMB36 | RAMB18 | DSP | CARRY4 | MUXF7 | MUXF8 | longest path (cells) |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.module,
            r.luts,
            r.ffs,
            r.ramb36,
            r.ramb18,
            r.dsps,
            r.carry4,
            r.muxf7,
            r.muxf8,
            r.longest_path_cells
        );
    }
    let _ = writeln!(
        s,
        "\nThe longest path counts cells (LUT, CARRY4, MUXF7, MUXF8) between registers, block RAMs \
and ports: Yosys `ltp` after deleting the FF, BRAM and I/O cells from the mapped netlist. \
A LUT followed by MUXF7 and MUXF8 in one slice is about one logic level. It is a depth, not \
a delay: timing closure at the configured clock needs a vendor tool.\n\n\
`prnic_top` contains csr, flow_table, tx_encap (with its sprayer), credit_tx, credit_rx, rx_decap and rx_reorder, plus the RX port arbiter and the CQE and ACK queues (`rx_events`), so its row is the whole RNIC; `credit_scope` is a monitor wrapper for waveforms and debug probes."
    );
    s
}
