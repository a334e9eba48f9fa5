//! What a backend is (`Rnics`), and the golden-model backend.

use super::*;

/// What a receiving RNIC produced in one step.
#[derive(Default)]
pub(super) struct RxOut {
    /// (QP, VA, rkey, payload).
    pub(super) placed: Vec<(u32, u64, u32, Vec<u8>)>,
    /// (QP, PSN, immediate).
    pub(super) cqes: Vec<(u32, u32, u32)>,
    /// (QP, next expected PSN).
    pub(super) acks: Vec<(u32, u32)>,
    /// (QP, missing PSNs).
    pub(super) naks: Vec<(u32, Vec<u32>)>,
}

/// The pair of RNICs behind the sender and the checker.
pub(super) trait Rnics {
    /// The sender may hand RNIC A a frame now.
    fn tx_ready(&self) -> bool;
    /// Hand RNIC A one packet (inner frame, QP, VNI).
    fn tx_push(&mut self, p: &RdmaPacket);
    /// One step at `now_ns`: frames A sent go into `fabric`, `arrived` frames go to B.
    fn step(&mut self, now_ns: f64, fabric: &mut Fabric, arrived: Vec<Vec<u8>>) -> RxOut;
    /// Nothing left inside either RNIC.
    fn idle(&self) -> bool;
    fn peak_port_backlog(&self) -> u64 {
        0
    }
    fn counters(&mut self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
    /// (accesses, SLVERRs expected, violations) of the CSR fuzz.
    fn csr_fuzz(&self) -> (u64, u64, u64) {
        (0, 0, 0)
    }
    /// Frames delivered per port, marked bad per port, cycles with both ports busy.
    fn port_stats(&self) -> ([u64; 2], [u64; 2], u64) {
        ([0; 2], [0; 2], 0)
    }
}

/// The golden models as the two RNICs.
pub(super) struct ModelRnics {
    pub(super) sprayer: prnic_verif::sprayer::SprayerModel,
    pub(super) spray: Spray,
    pub(super) queue: Vec<Vec<u8>>,
    pub(super) local_vni: [u32; 8],
    pub(super) rx: ReorderModel,
    pub(super) max_frame: usize,
}

impl Rnics for ModelRnics {
    fn tx_ready(&self) -> bool {
        true
    }
    fn tx_push(&mut self, p: &RdmaPacket) {
        let mut f = wire_frame(p);
        let mode = match self.spray {
            Spray::PerPacket => prnic_verif::sprayer::Mode::PerPacket,
            Spray::PerFlow => prnic_verif::sprayer::Mode::PerFlow,
        };
        let sport = self.sprayer.port(
            mode,
            49152,
            65535,
            prnic_verif::sprayer::flow_id(p.vni, p.qp),
        );
        f[34..36].copy_from_slice(&sport.to_be_bytes());
        self.queue.push(f);
    }
    fn step(&mut self, now_ns: f64, fabric: &mut Fabric, arrived: Vec<Vec<u8>>) -> RxOut {
        for f in self.queue.drain(..) {
            fabric.send(now_ns, f);
        }
        let mut out = RxOut::default();
        for f in arrived {
            // Replies travel on the side channel in this harness, not as frames yet.
            let Ok(RxFrame::Data(p)) = decapsulate(&f, &self.local_vni, self.max_frame) else {
                continue;
            };
            let o = self.rx.packet(&p.header());
            if o.verdict == Verdict::Place {
                out.placed.push((p.qp, p.va, p.rkey, p.payload));
            }
            for (psn, imm) in o.cqes {
                out.cqes.push((p.qp, psn, imm));
            }
            if let Some(a) = o.ack {
                out.acks.push((p.qp, a));
            }
            if let Some(n) = o.nak {
                out.naks.push((p.qp, n.missing));
            }
        }
        out
    }
    fn idle(&self) -> bool {
        self.queue.is_empty()
    }
}
