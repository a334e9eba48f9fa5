//! The credit-starvation waveform: the traced run, its starved intervals and the GTKWave
//! save file that opens on the longest one.

use super::*;

/// How many starved intervals `credit-starvation` reports, longest first; the save file
/// puts named markers A, B, ... on the same ones.
pub const REPORTED_INTERVALS: usize = 5;

/// The intervals longest first (the earlier of two equally long ones first): the order
/// `credit-starvation` prints them and marks them in the save file.
pub fn longest_first(intervals: &[Starvation]) -> Vec<&Starvation> {
    let mut v: Vec<&Starvation> = intervals.iter().collect();
    v.sort_by_key(|i| (std::cmp::Reverse(i.cycles), i.start_cycle));
    v
}

/// A GTKWave save file for a `credit_scope` trace: the starvation flag, then each
/// monitored QP's credit (signed decimal, and an analog trace eight rows high), wait
/// flag, receiver-held requests and counters, grouped. It opens on the longest starved
/// interval: the primary marker at its start, the view from 100 cycles before it to 100
/// after, and named markers A, B, ... on the intervals the command reports.
pub fn gtkw(trace: &std::path::Path, qps: u32, intervals: &[Starvation], period_ps: u64) -> String {
    use std::fmt::Write as _;
    // Signal area of a 1600-pixel-wide window (the rest is the signal and tree panes).
    const WAVE_PX: f64 = 1150.0;
    let ps = |i: &Starvation| i.start_cycle * period_ps;
    let listed = longest_first(intervals);
    let mut s = format!("[dumpfile] \"{}\"\n", trace.display());
    match listed.first() {
        Some(l) => {
            let from = l.start_cycle.saturating_sub(100) * period_ps;
            let span = (l.cycles + 200) as f64 * period_ps as f64;
            // GTKWave shows 2^-zoom / 200 time units (ps here) per pixel.
            let zoom = -(200.0 * span / WAVE_PX).log2();
            let mut named: Vec<String> = listed
                .iter()
                .take(REPORTED_INTERVALS)
                .map(|i| ps(i).to_string())
                .collect();
            named.resize(26, "-1".into());
            let _ = write!(
                s,
                "[timestart] {from}\n[size] 1600 900\n[pos] -1 -1\n*{zoom:.6} {} {}\n",
                ps(l),
                named.join(" ")
            );
        }
        None => s.push_str("[timestart] 0\n[size] 1600 900\n[pos] -1 -1\n"),
    }
    s.push_str("[sst_width] 220\n[signals_width] 300\n[sst_expanded] 1\n");
    s.push_str("@200\n-Starvation (every active QP waiting for credit)\n@28\ncredit_scope.starved\n@24\ncredit_scope.starved_cycles[31:0]\n");
    for q in 0..qps.min(4) {
        let _ = write!(
            s,
            "@200\n-QP {q}\n@424\ncredit_scope.qp{q}_credit[31:0]\n@8424\ncredit_scope.qp{q}_credit[31:0]\n@20000\n-\n-\n-\n-\n-\n-\n-\n@28\ncredit_scope.qp{q}_waiting\n@24\ncredit_scope.qp{q}_rx_pending[15:0]\ncredit_scope.qp{q}_requests[31:0]\ncredit_scope.qp{q}_grants[31:0]\n"
        );
    }
    s.push_str("@200\n-Credit path\n@28\ncredit_scope.tx_req_valid\ncredit_scope.rx_grant_valid\ncredit_scope.tx_grant_valid\ncredit_scope.tx_sent_valid\n@24\ncredit_scope.tx_sent_bytes[31:0]\n");
    s
}

/// `prnic-sim credit-starvation`: one run per rule with a trace, and the intervals.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StarvationReport {
    pub rule: &'static str,
    pub qps: u32,
    pub jitter_ns: f64,
    pub trace: String,
    pub gtkw: String,
    pub throughput_gbps: f64,
    pub starved_share: f64,
    pub intervals: Vec<Starvation>,
}

pub fn starvation(
    cfg: &PrnicConfig,
    trace: &std::path::Path,
    qps: u32,
    jitter_batches: f64,
    slots: u64,
) -> std::io::Result<Vec<StarvationReport>> {
    let mut out = vec![];
    for rule in [Rule::Eq1, Rule::Eq2] {
        let path = if rule == Rule::Eq1 {
            trace.to_path_buf()
        } else {
            let stem = trace
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("trace");
            let ext = trace.extension().and_then(|s| s.to_str()).unwrap_or("fst");
            trace.with_file_name(format!("{stem}-eq2.{ext}"))
        };
        let lc = LoopConfig {
            rule,
            qps,
            jitter: (jitter_batches * cfg.batch_cycles()).round() as u64,
            dist: JitterDist::Uniform,
            loop_delay: default_loop_delay(cfg),
            slots,
            seed: 1,
            trace: Some(path.clone()),
            bdp: bdp_for(cfg, BdpMode::Shared, qps),
        };
        let o = run_loop(cfg, &lc).map_err(|e| std::io::Error::other(e.to_string()))?;
        let save = path.with_extension("gtkw");
        std::fs::write(&save, gtkw(&path, qps, &o.intervals, cfg.clock_period_ps()))?;
        out.push(StarvationReport {
            rule: rule.name(),
            qps,
            jitter_ns: jitter_batches * cfg.batch_time_ns(),
            trace: path.display().to_string(),
            gtkw: save.display().to_string(),
            throughput_gbps: o.throughput_fraction * cfg.line_rate_gbps(),
            starved_share: o.starved_share,
            intervals: o.intervals,
        });
    }
    Ok(out)
}
