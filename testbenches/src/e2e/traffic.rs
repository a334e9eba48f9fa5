//! The traffic a scenario describes: every packet the sender builds, per QP.

use super::*;

/// The VNI of tenant `t`.
pub fn tenant_vni(t: u32) -> u32 {
    0x1000 + 0x111 * t
}

pub(super) const A_PORT_IP: [u32; 2] = [0x0a00_0101, 0x0a00_0102];
pub(super) const B_PORT_IP: [u32; 2] = [0x0a00_0201, 0x0a00_0202];
/// The inner destination the sender's frames carry (`wire_frame`'s).
pub(super) const INNER_DST_IP: u32 = 0xc0a8_0002;

/// One packet the sender built.
#[derive(Debug, Clone)]
pub(super) struct Pkt {
    pub(super) p: RdmaPacket,
    pub(super) msg: u32,
}

/// All packets, per QP in PSN order, and the messages.
pub(super) struct Traffic {
    pub(super) per_qp: Vec<Vec<Pkt>>,
    /// Per message: QP, number of packets, immediate.
    pub(super) msgs: Vec<(u32, u32, Option<u32>)>,
}

pub(super) fn build_traffic(s: &Scenario) -> Traffic {
    let mut next = rng(s.seed ^ 0x7ea5);
    let mut per_qp: Vec<Vec<Pkt>> = vec![vec![]; s.qps as usize];
    let mut msgs = vec![];
    let mut va_next = vec![0u64; s.qps as usize];
    for m in 0..s.messages {
        let qp = (next() % s.qps as u64) as u32;
        let span = (s.message_bytes_max - s.message_bytes_min) as u64 + 1;
        let len = s.message_bytes_min + (next() % span) as usize;
        let imm = unit(next()) < s.imm_share;
        let imm = imm.then(|| next() as u32);
        let n = len.div_ceil(s.packet_bytes) as u32;
        let tenant = qp % s.tenants;
        // Each QP writes its own region; the VA names QP and offset.
        let base = ((qp as u64) << 40) | va_next[qp as usize];
        va_next[qp as usize] += len as u64;
        for k in 0..n {
            let lo = k as usize * s.packet_bytes;
            let hi = (lo + s.packet_bytes).min(len);
            let opcode = match (n, k == n - 1, imm.is_some()) {
                (1, _, true) => OP_WRITE_ONLY_IMM,
                (1, _, false) => OP_WRITE_ONLY,
                (_, true, true) => OP_WRITE_LAST_IMM,
                (_, true, false) => OP_WRITE_LAST,
                _ if k == 0 => OP_WRITE_FIRST,
                _ => OP_WRITE_MIDDLE,
            };
            let psn = per_qp[qp as usize].len() as u32;
            let fill = next();
            let payload: Vec<u8> = (0..hi - lo)
                .map(|i| (fill.rotate_left((i % 64) as u32) as u8) ^ (i as u8))
                .collect();
            per_qp[qp as usize].push(Pkt {
                p: RdmaPacket {
                    vni: tenant_vni(tenant),
                    qp,
                    psn,
                    opcode,
                    ack_req: k == n - 1 || psn % 8 == 7,
                    va: base + lo as u64,
                    rkey: 0x5000 + qp,
                    imm: if k == n - 1 { imm } else { None },
                    payload,
                },
                msg: m,
            });
        }
        msgs.push((qp, n, imm));
    }
    Traffic { per_qp, msgs }
}
