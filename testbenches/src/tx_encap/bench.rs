//! The two benches of `tx_encap` alone: its Verilator model with a flow-table responder,
//! and rust-hdl's simulation of the same block, both behind `TxDut`.

use super::*;

/// `tx_encap` alone under Verilator, with a model flow table answering its lookups.
pub struct TxEncapBench {
    pub dut: bridge::TxEncap,
    pub table: Responder,
}

/// CSR inputs of `tx_encap` for one configuration.
pub(super) fn cfg_words(s: &TxSettings, mode: Mode, min: u16, max: u16) -> [u64; 10] {
    [
        s.port_mac[0],
        s.port_mac[1],
        s.port_ip[0] as u64,
        s.port_ip[1] as u64,
        s.dscp as u64,
        s.ttl as u64,
        s.bth_mark as u64,
        mode as u64,
        min as u64,
        max as u64,
    ]
}

impl TxEncapBench {
    pub fn new(s: &TxSettings, mode: Mode, min: u16, max: u16) -> Self {
        let mut dut = bridge::TxEncap::new();
        let c = cfg_words(s, mode, min, max);
        dut.set_cfg_port0_mac(c[0]);
        dut.set_cfg_port1_mac(c[1]);
        dut.set_cfg_port0_ip(c[2]);
        dut.set_cfg_port1_ip(c[3]);
        dut.set_cfg_dscp(c[4]);
        dut.set_cfg_ttl(c[5]);
        dut.set_cfg_bth_mark(c[6]);
        dut.set_cfg_spray_mode(c[7]);
        dut.set_cfg_spray_min(c[8]);
        dut.set_cfg_spray_max(c[9]);
        let mut b = TxEncapBench {
            dut,
            table: Responder::new(FLOW_TABLE_LATENCY as u64),
        };
        b.reset(2);
        b
    }

    /// Synchronous reset for `cycles` cycles (the responder's lookups in flight are lost).
    pub fn reset(&mut self, cycles: u64) {
        self.dut.set_rst(1);
        for _ in 0..cycles {
            self.step();
        }
        self.dut.set_rst(0);
        self.table.reset();
    }

    /// Counters: frames sent, then drops by reason in `DropReason::ALL` order.
    pub fn counters(&self) -> [u64; 6] {
        let d = &self.dut;
        [
            d.status_frames(),
            d.status_drop_too_long(),
            d.status_drop_bad_keep(),
            d.status_drop_short(),
            d.status_drop_not_ipv4(),
            d.status_drop_miss(),
        ]
    }
}

pub(super) fn value_words(v: Option<Value>) -> [u32; 4] {
    let b = v.map_or(0, |v| v.to_bits());
    [
        b as u32,
        (b >> 32) as u32,
        (b >> 64) as u32,
        (b >> 96) as u32 & 0xffff,
    ]
}

impl Dut for TxEncapBench {
    fn step(&mut self) {
        self.dut.eval();
        let lookup = (self.dut.m_lookup_valid() != 0).then(|| self.dut.m_lookup_key());
        match self.table.cycle(lookup) {
            Some(v) => {
                self.dut.set_s_result_valid(1);
                self.dut.set_s_result_hit(v.is_some() as u64);
                self.dut.set_s_result_value(&value_words(v));
            }
            None => self.dut.set_s_result_valid(0),
        }
        self.dut.step();
    }
    fn cycle(&self) -> u64 {
        self.dut.cycle()
    }
}

impl TxDut for TxEncapBench {
    fn drive_in(&mut self, beat: Option<&Beat>) {
        self.dut.drive_in(beat)
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.dut.set_out_ready(ready)
    }
    fn settle(&mut self) {
        self.dut.eval()
    }
    fn in_ready(&self) -> bool {
        self.dut.in_ready()
    }
    fn out_beat(&self) -> Option<OutBeat> {
        self.dut.out_beat()
    }
}

/// `tx_encap` under rust-hdl's own simulator, for the two-simulator agreement test.
pub struct HdlTxEncap {
    pub uut: prnic_rtl::tx_encap::TxEncap<1024, 128>,
    pub table: Responder,
    cycle: u64,
}

pub(super) fn to_bits<const N: usize>(w: &[u32]) -> rust_hdl::prelude::Bits<N> {
    let mut b = rust_hdl::prelude::Bits::<N>::default();
    for j in 0..N {
        b = b.replace_bit(j, w[j / 32] >> (j % 32) & 1 == 1);
    }
    b
}

pub(super) fn from_bits<const N: usize, const W: usize>(b: rust_hdl::prelude::Bits<N>) -> [u32; W] {
    std::array::from_fn(|i| b.get_bits::<32>(32 * i).to_u32())
}

impl HdlTxEncap {
    pub fn new(cfg: &PrnicConfig, s: &TxSettings, mode: Mode, min: u16, max: u16) -> Self {
        let mut uut = prnic_gen::blocks::tx_encap::<1024, 128>(cfg);
        let c = cfg_words(s, mode, min, max);
        uut.cfg_port0_mac.next = c[0].into();
        uut.cfg_port1_mac.next = c[1].into();
        uut.cfg_port0_ip.next = c[2].into();
        uut.cfg_port1_ip.next = c[3].into();
        uut.cfg_dscp.next = c[4].into();
        uut.cfg_ttl.next = c[5].into();
        uut.cfg_bth_mark.next = c[6] != 0;
        uut.cfg_spray_mode.next = c[7].into();
        uut.cfg_spray_min.next = c[8].into();
        uut.cfg_spray_max.next = c[9].into();
        uut.clk.next = false.into();
        crate::hdl_sim::settle(&mut uut, "initial values");
        let mut h = HdlTxEncap {
            uut,
            table: Responder::new(FLOW_TABLE_LATENCY as u64),
            cycle: 0,
        };
        h.uut.rst.next = true;
        h.step();
        h.step();
        h.uut.rst.next = false;
        h
    }
}

impl Dut for HdlTxEncap {
    fn step(&mut self) {
        crate::hdl_sim::settle(&mut self.uut, "inputs");
        let u = &mut self.uut;
        let lookup = u
            .m_lookup_valid
            .val()
            .then(|| u.m_lookup_key.val().to_u64());
        match self.table.cycle(lookup) {
            Some(v) => {
                u.s_result_valid.next = true;
                u.s_result_hit.next = v.is_some();
                u.s_result_value.next = to_bits::<112>(&value_words(v));
            }
            None => u.s_result_valid.next = false,
        }
        crate::hdl_sim::cycle(u, |u, c| u.clk.next = c.into(), |_| ());
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}

impl TxDut for HdlTxEncap {
    fn drive_in(&mut self, beat: Option<&Beat>) {
        let u = &mut self.uut;
        u.s_axis_tvalid.next = beat.is_some();
        if let Some(b) = beat {
            u.s_axis_tdata.next = to_bits::<1024>(&b.data);
            u.s_axis_tkeep.next = to_bits::<128>(&b.keep);
            u.s_axis_tlast.next = b.last;
            u.s_axis_tuser.next = b.tuser.into();
        }
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.uut.m_axis_tready.next = ready;
    }
    fn settle(&mut self) {
        crate::hdl_sim::settle(&mut self.uut, "inputs");
    }
    fn in_ready(&self) -> bool {
        self.uut.s_axis_tready.val()
    }
    fn out_beat(&self) -> Option<OutBeat> {
        let u = &self.uut;
        u.m_axis_tvalid.val().then(|| OutBeat {
            data: from_bits::<1024, DW>(u.m_axis_tdata.val()),
            keep: from_bits::<128, KW>(u.m_axis_tkeep.val()),
            last: u.m_axis_tlast.val(),
            dest: u.m_axis_tdest.val() as u8,
        })
    }
}
