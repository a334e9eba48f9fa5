//! `credit_scope`: `credit_tx` and `credit_rx` side by side with per-QP monitor
//! registers, for waveforms (`prnic-sim credit-starvation`) and for an on-chip debug
//! probe (an ILA on the `qpN_*` outputs shows the same picture in hardware).
//!
//! The two blocks are not connected to each other: in a network the credit path runs
//! between two RNICs, and the testbench models it (delay, jitter). The monitor follows
//! QPs 0..3:
//! * `qpN_credit`: the QP's credit balance in bytes (signed), after every send decision
//!   and every grant;
//! * `qpN_waiting`: it has data, asked to send and was refused (no usable credit);
//! * `qpN_rx_pending`: credit requests the receiver holds for it;
//! * `qpN_requests`, `qpN_grants`: requests sent and grants received, counted.
//!
//! `starved` is high while some QP is active and no active QP may send.

use crate::credit_rx::CreditRx;
use crate::credit_tx::{CreditTx, QP_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CreditScope {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // credit_tx (sender side).
    pub tx_send_valid: Signal<In, Bit>,
    pub tx_send_ready: Signal<Out, Bit>,
    pub tx_send_qp: Signal<In, Bits<QP_BITS>>,
    pub tx_send_remaining: Signal<In, Bits<32>>,
    pub tx_sent_valid: Signal<Out, Bit>,
    pub tx_sent_qp: Signal<Out, Bits<QP_BITS>>,
    pub tx_sent_bytes: Signal<Out, Bits<32>>,
    pub tx_grant_valid: Signal<In, Bit>,
    pub tx_grant_qp: Signal<In, Bits<QP_BITS>>,
    pub tx_req_valid: Signal<Out, Bit>,
    pub tx_req_qp: Signal<Out, Bits<QP_BITS>>,
    pub tx_onoff_valid: Signal<Out, Bit>,
    pub tx_onoff_qp: Signal<Out, Bits<QP_BITS>>,
    pub tx_onoff_on: Signal<Out, Bit>,
    // credit_rx (receiver side).
    pub rx_req_valid: Signal<In, Bit>,
    pub rx_req_ready: Signal<Out, Bit>,
    pub rx_req_qp: Signal<In, Bits<QP_BITS>>,
    pub rx_onoff_valid: Signal<In, Bit>,
    pub rx_onoff_qp: Signal<In, Bits<QP_BITS>>,
    pub rx_onoff_on: Signal<In, Bit>,
    pub rx_grant_valid: Signal<Out, Bit>,
    pub rx_grant_qp: Signal<Out, Bits<QP_BITS>>,
    pub rx_pcie_depth: Signal<In, Bits<16>>,
    pub cfg_rule: Signal<In, Bit>,
    pub cfg_batch: Signal<In, Bits<32>>,
    pub cfg_bdp: Signal<In, Bits<32>>,
    pub cfg_bp_threshold: Signal<In, Bits<16>>,
    pub cfg_bp_slowdown: Signal<In, Bits<4>>,
    pub clearing: Signal<Out, Bit>,
    pub starved: Signal<Out, Bit>,
    pub starved_cycles: Signal<Out, Bits<32>>,
    pub qp0_credit: Signal<Out, Bits<32>>,
    pub qp1_credit: Signal<Out, Bits<32>>,
    pub qp2_credit: Signal<Out, Bits<32>>,
    pub qp3_credit: Signal<Out, Bits<32>>,
    pub qp0_waiting: Signal<Out, Bit>,
    pub qp1_waiting: Signal<Out, Bit>,
    pub qp2_waiting: Signal<Out, Bit>,
    pub qp3_waiting: Signal<Out, Bit>,
    pub qp0_rx_pending: Signal<Out, Bits<16>>,
    pub qp1_rx_pending: Signal<Out, Bits<16>>,
    pub qp2_rx_pending: Signal<Out, Bits<16>>,
    pub qp3_rx_pending: Signal<Out, Bits<16>>,
    pub qp0_requests: Signal<Out, Bits<32>>,
    pub qp1_requests: Signal<Out, Bits<32>>,
    pub qp2_requests: Signal<Out, Bits<32>>,
    pub qp3_requests: Signal<Out, Bits<32>>,
    pub qp0_grants: Signal<Out, Bits<32>>,
    pub qp1_grants: Signal<Out, Bits<32>>,
    pub qp2_grants: Signal<Out, Bits<32>>,
    pub qp3_grants: Signal<Out, Bits<32>>,
    tx: CreditTx,
    rx: CreditRx,
    credit: [DFF<Bits<32>>; 4],
    waiting: [DFF<Bit>; 4],
    pending: [DFF<Bits<16>>; 4],
    requests: [DFF<Bits<32>>; 4],
    grants: [DFF<Bits<32>>; 4],
    /// Counters and flags the scope does not show (Verilator's unused idiom).
    unused_status: Signal<Local, Bit>,
}

impl CreditScope {
    pub fn new(tx: CreditTx, rx: CreditRx) -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            tx_send_valid: Default::default(),
            tx_send_ready: Default::default(),
            tx_send_qp: Default::default(),
            tx_send_remaining: Default::default(),
            tx_sent_valid: Default::default(),
            tx_sent_qp: Default::default(),
            tx_sent_bytes: Default::default(),
            tx_grant_valid: Default::default(),
            tx_grant_qp: Default::default(),
            tx_req_valid: Default::default(),
            tx_req_qp: Default::default(),
            tx_onoff_valid: Default::default(),
            tx_onoff_qp: Default::default(),
            tx_onoff_on: Default::default(),
            rx_req_valid: Default::default(),
            rx_req_ready: Default::default(),
            rx_req_qp: Default::default(),
            rx_onoff_valid: Default::default(),
            rx_onoff_qp: Default::default(),
            rx_onoff_on: Default::default(),
            rx_grant_valid: Default::default(),
            rx_grant_qp: Default::default(),
            rx_pcie_depth: Default::default(),
            cfg_rule: Default::default(),
            cfg_batch: Default::default(),
            cfg_bdp: Default::default(),
            cfg_bp_threshold: Default::default(),
            cfg_bp_slowdown: Default::default(),
            clearing: Default::default(),
            starved: Default::default(),
            starved_cycles: Default::default(),
            qp0_credit: Default::default(),
            qp1_credit: Default::default(),
            qp2_credit: Default::default(),
            qp3_credit: Default::default(),
            qp0_waiting: Default::default(),
            qp1_waiting: Default::default(),
            qp2_waiting: Default::default(),
            qp3_waiting: Default::default(),
            qp0_rx_pending: Default::default(),
            qp1_rx_pending: Default::default(),
            qp2_rx_pending: Default::default(),
            qp3_rx_pending: Default::default(),
            qp0_requests: Default::default(),
            qp1_requests: Default::default(),
            qp2_requests: Default::default(),
            qp3_requests: Default::default(),
            qp0_grants: Default::default(),
            qp1_grants: Default::default(),
            qp2_grants: Default::default(),
            qp3_grants: Default::default(),
            tx,
            rx,
            credit: Default::default(),
            waiting: Default::default(),
            pending: Default::default(),
            requests: Default::default(),
            grants: Default::default(),
            unused_status: Default::default(),
        }
    }
}

impl Logic for CreditScope {
    #[hdl_gen]
    fn update(&mut self) {
        self.tx.clk.next = self.clk.val();
        self.rx.clk.next = self.clk.val();
        self.tx.rst.next = self.rst.val();
        self.rx.rst.next = self.rst.val();
        self.tx.s_send_valid.next = self.tx_send_valid.val();
        self.tx_send_ready.next = self.tx.s_send_ready.val();
        self.tx.s_send_qp.next = self.tx_send_qp.val();
        self.tx.s_send_remaining.next = self.tx_send_remaining.val();
        self.tx_sent_valid.next = self.tx.m_send_valid.val();
        self.tx_sent_qp.next = self.tx.m_send_qp.val();
        self.tx_sent_bytes.next = self.tx.m_send_bytes.val();
        self.tx.s_grant_valid.next = self.tx_grant_valid.val();
        self.tx.s_grant_qp.next = self.tx_grant_qp.val();
        self.tx_req_valid.next = self.tx.m_req_valid.val();
        self.tx_req_qp.next = self.tx.m_req_qp.val();
        self.tx_onoff_valid.next = self.tx.m_onoff_valid.val();
        self.tx_onoff_qp.next = self.tx.m_onoff_qp.val();
        self.tx_onoff_on.next = self.tx.m_onoff_on.val();
        self.tx.cfg_rule.next = self.cfg_rule.val();
        self.tx.cfg_batch.next = self.cfg_batch.val();
        self.tx.cfg_bdp.next = self.cfg_bdp.val();
        self.rx.s_req_valid.next = self.rx_req_valid.val();
        self.rx_req_ready.next = self.rx.s_req_ready.val();
        self.rx.s_req_qp.next = self.rx_req_qp.val();
        self.rx.s_onoff_valid.next = self.rx_onoff_valid.val();
        self.rx.s_onoff_qp.next = self.rx_onoff_qp.val();
        self.rx.s_onoff_on.next = self.rx_onoff_on.val();
        self.rx_grant_valid.next = self.rx.m_grant_valid.val();
        self.rx_grant_qp.next = self.rx.m_grant_qp.val();
        self.rx.s_pcie_depth.next = self.rx_pcie_depth.val();
        self.rx.cfg_bp_threshold.next = self.cfg_bp_threshold.val();
        self.rx.cfg_bp_slowdown.next = self.cfg_bp_slowdown.val();
        self.clearing.next = (self.tx.status_clearing.val() | self.rx.status_clearing.val());
        self.starved_cycles.next = self.tx.status_starved_cycles.val();

        for i in 0..4 {
            self.credit[i].clock.next = self.clk.val();
            self.waiting[i].clock.next = self.clk.val();
            self.pending[i].clock.next = self.clk.val();
            self.requests[i].clock.next = self.clk.val();
            self.grants[i].clock.next = self.clk.val();
            self.credit[i].d.next = self.credit[i].q.val();
            self.waiting[i].d.next = self.waiting[i].q.val();
            self.pending[i].d.next = self.pending[i].q.val();
            self.requests[i].d.next = self.requests[i].q.val();
            self.grants[i].d.next = self.grants[i].q.val();
            if (self.tx.m_credit_valid.val() & (self.tx.m_credit_qp.val().index() == i)) {
                self.credit[i].d.next = self.tx.m_credit_value.val();
                self.waiting[i].d.next = self.tx.m_credit_waiting.val();
            }
            if (self.tx.m_req_valid.val() & (self.tx.m_req_qp.val().index() == i)) {
                self.requests[i].d.next = (self.requests[i].q.val() + 1);
            }
            if (self.tx_grant_valid.val() & (self.tx_grant_qp.val().index() == i)) {
                self.grants[i].d.next = (self.grants[i].q.val() + 1);
            }
            // Requests the receiver holds: +1 on a request taken, -1 on a grant issued.
            if ((self.rx_req_valid.val() & self.rx.s_req_ready.val())
                & (self.rx_req_qp.val().index() == i))
            {
                if !(self.rx.m_grant_valid.val() & (self.rx.m_grant_qp.val().index() == i)) {
                    self.pending[i].d.next = (self.pending[i].q.val() + 1);
                }
            } else if (self.rx.m_grant_valid.val() & (self.rx.m_grant_qp.val().index() == i)) {
                self.pending[i].d.next = (self.pending[i].q.val() - 1);
            }
            if self.rst.val() {
                self.credit[i].d.next = 0.into();
                self.waiting[i].d.next = false;
                self.pending[i].d.next = 0.into();
                self.requests[i].d.next = 0.into();
                self.grants[i].d.next = 0.into();
            }
        }
        self.starved.next = self.tx.status_starved.val();
        self.qp0_credit.next = self.credit[0].q.val();
        self.qp1_credit.next = self.credit[1].q.val();
        self.qp2_credit.next = self.credit[2].q.val();
        self.qp3_credit.next = self.credit[3].q.val();
        self.qp0_waiting.next = self.waiting[0].q.val();
        self.qp1_waiting.next = self.waiting[1].q.val();
        self.qp2_waiting.next = self.waiting[2].q.val();
        self.qp3_waiting.next = self.waiting[3].q.val();
        self.qp0_rx_pending.next = self.pending[0].q.val();
        self.qp1_rx_pending.next = self.pending[1].q.val();
        self.qp2_rx_pending.next = self.pending[2].q.val();
        self.qp3_rx_pending.next = self.pending[3].q.val();
        self.qp0_requests.next = self.requests[0].q.val();
        self.qp1_requests.next = self.requests[1].q.val();
        self.qp2_requests.next = self.requests[2].q.val();
        self.qp3_requests.next = self.requests[3].q.val();
        self.qp0_grants.next = self.grants[0].q.val();
        self.qp1_grants.next = self.grants[1].q.val();
        self.qp2_grants.next = self.grants[2].q.val();
        self.qp3_grants.next = self.grants[3].q.val();
        self.unused_status.next = ((((((self.tx.status_requests.val().any()
            | self.tx.status_grants.val().any())
            | self.tx.status_wasted_bytes.val().any())
            | self.tx.status_grants_dropped.val().any())
            | self.tx.status_debt_error.val())
            | ((self.rx.status_requests.val().any() | self.rx.status_grants.val().any())
                | (self.rx.status_idle_slots.val().any() | self.rx.status_slots.val().any())))
            | self.tx.m_send_credit.val().any());
    }
}
