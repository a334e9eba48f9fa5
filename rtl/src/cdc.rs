//! Clock-domain crossing: a two-flip-flop synchronizer ([`SyncReg`]), a reset
//! synchronizer ([`ResetSync`]) and an asynchronous FIFO ([`AsyncFifo`]) whose pointers
//! cross in Gray code, and [`CdcStream`], an AXI4-Stream crossing built from them.
//!
//! ```text
//!            clk_s domain                 |            clk_m domain
//!  s_valid ─► push ─► LUTRAM write (wbin) |  LUTRAM read (rbin next) ─► rdata ─► m_data
//!  s_ready ◄─ !full ◄─ rq ◄─ SyncReg ◄────┼── rgray                   m_valid ◄─ !empty
//!               wgray ────────────────────┼─► SyncReg ─► wq ─► empty
//! ```
//!
//! This is the classic design of C. E. Cummings, "Simulation and Synthesis Techniques
//! for Asynchronous FIFO Design" (SNUG 2002): each side counts in binary for its RAM
//! address and keeps a registered Gray copy of its pointer (one more bit than the
//! address, to tell full from empty). Only the Gray copy crosses, through two flip-flops
//! of the other clock, so a pointer sampled mid-change is off by at most one step and
//! only ever conservative: the writer may see the FIFO fuller, the reader emptier, than
//! it is. `full` and `empty` are registers.
//!
//! The synchronizer flip-flops are their own Verilog module per crossing, marked
//! `ASYNC_REG` (Vivado places the two stages together and reports them as a
//! synchronizer) and `keep_hierarchy` (Yosys): rust-hdl writes declarations itself, so a
//! `Wrapper` around a hand-written module is the only way to carry the attribute, as for
//! the reset copies (`reset.rs`). The same module name must not be used twice in one
//! design: each FIFO takes a unique name prefix.

use crate::ram::DistRam;
use rust_hdl::prelude::*;

/// Panics unless `module` is a plain Verilog identifier (letters, digits, `_`).
pub(crate) fn check_module_name(module: &str) {
    assert!(
        !module.is_empty()
            && module
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "hand-written module name {module}"
    );
}

/// One register kept apart in its own Verilog module `(clock, d, q)`: how [`GrayReg`] and
/// the reset copies (`reset.rs`) carry synthesis attributes rust-hdl cannot write.
pub(crate) struct KeptRegister<'a> {
    /// The module (unique in the design) and the instance inside the wrapper.
    pub module: &'a str,
    pub instance: &'a str,
    /// The comment above the module.
    pub comment: &'a str,
    /// The register's name and its attributes, e.g. `(* dont_merge *)`.
    pub reg: &'a str,
    pub attributes: &'a str,
    /// Width in bits; a width of 1 declares scalars.
    pub width: usize,
    /// The power-up value.
    pub init: u64,
}

impl KeptRegister<'_> {
    pub fn hdl(&self) -> Verilog {
        let (m, r, w) = (self.module, self.reg, self.width);
        let range = if w == 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        };
        Verilog::Wrapper(Wrapper {
            code: format!("{m} {i}(.clock(clock), .d(d), .q(q));\n", i = self.instance),
            cores: format!(
                "
{comment}
(* keep_hierarchy = \"yes\" *)
module {m}(clock, d, q);
    input wire clock;
    input wire {range}d;
    output wire {range}q;
    {attr} reg {range}{r} = {w}'d{init};
    always @(posedge clock) begin
        {r} <= d;
    end
    assign q = {r};
endmodule // {m}
",
                comment = self.comment,
                attr = self.attributes,
                init = self.init,
            ),
        })
    }
}

/// Two flip-flops of the destination clock in a row, nothing between them, both marked
/// `ASYNC_REG`: `q` is `d` two `clock` edges later. `d` must come straight from a
/// register of the source domain, and where it is wider than one bit, at most one bit
/// may change at a time (a Gray-coded pointer). `rst` (synchronous to `clock`) clears
/// both stages.
///
/// ### Ports
/// * `clock`, `rst`
/// * `d`: from the other clock domain.
/// * `q`: `d`, synchronized; 0 at power-up and in reset.
#[derive(LogicBlock)]
pub struct SyncReg<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub d: Signal<In, Bits<N>>,
    pub q: Signal<Out, Bits<N>>,
    // The Verilog module's name and rust-hdl's simulation state; the leading underscore
    // keeps them out of the derived Block walk.
    _module: String,
    _meta: Bits<N>,
    _sync: Bits<N>,
    /// Simulation only: when set (an LCG state), each bit of `d` that changed since the
    /// last edge is sampled old or new at random, as a real first stage may resolve
    /// either way when `d` changes close to the edge. Tests set it to show that what
    /// crosses survives that (a Gray pointer does; a binary one does not).
    _jitter: Option<u64>,
    _last_d: Bits<N>,
}

impl<const N: usize> SyncReg<N> {
    /// A synchronizer held in the Verilog module `module` (unique in the design).
    pub fn new(module: &str) -> Self {
        check_module_name(module);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            d: Default::default(),
            q: Default::default(),
            _module: module.to_string(),
            _meta: Default::default(),
            _sync: Default::default(),
            _jitter: None,
            _last_d: Default::default(),
        }
    }
}

impl<const N: usize> Logic for SyncReg<N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.rst.val() {
                self._meta = Bits::default();
                self._sync = Bits::default();
            } else {
                self._sync = self._meta;
                let d = self.d.val();
                self._meta = match self._jitter.as_mut() {
                    None => d,
                    Some(s) => {
                        *s = s
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let mask = if N >= 64 { u64::MAX } else { (1u64 << N) - 1 };
                        let late: Bits<N> = ((*s >> 11) & mask).into();
                        (d & !late) | (self._last_d & late)
                    }
                };
                self._last_d = d;
            }
        }
        self.q.next = self._sync;
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Wrapper(Wrapper {
            code: format!(
                "{m} sync_ff(.clock(clock), .rst(rst), .d(d), .q(q));\n",
                m = self._module
            ),
            cores: format!(
                "
// A two-flip-flop synchronizer (rtl/src/cdc.rs): `d` comes from another clock domain.
(* keep_hierarchy = \"yes\" *)
module {m}(clock, rst, d, q);
    input wire clock;
    input wire rst;
    input wire [{msb}:0] d;
    output wire [{msb}:0] q;
    (* ASYNC_REG = \"TRUE\" *) reg [{msb}:0] stage1 = {n}'d0;
    (* ASYNC_REG = \"TRUE\" *) reg [{msb}:0] stage2 = {n}'d0;
    always @(posedge clock) begin
        if (rst) begin
            stage1 <= {n}'d0;
            stage2 <= {n}'d0;
        end else begin
            stage1 <= d;
            stage2 <= stage1;
        end
    end
    assign q = stage2;
endmodule // {m}
",
                m = self._module,
                msb = N - 1,
                n = N,
            ),
        })
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "sync_reg".into(),
            clock: "clock".into(),
            inputs: vec!["d".into(), "rst".into()],
            outputs: vec!["q".into()],
        }]
    }
}

/// A register that holds a Gray-coded pointer on its way to another clock's
/// [`SyncReg`]: its own Verilog module, the register marked `dont_touch` (Vivado) and
/// `preserve` (Quartus). A Gray code's top bit equals the binary pointer's, so without
/// the marks synthesis may merge the two registers, and the crossing constraints, which
/// name this register (`<fifo>/wgray/gray_ff/gray`), would miss that bit.
///
/// ### Ports
/// * `clock`, `d`
/// * `q`: `d` one `clock` edge later; 0 at power-up.
#[derive(LogicBlock)]
pub struct GrayReg<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, Bits<N>>,
    pub q: Signal<Out, Bits<N>>,
    _module: String,
    _q: Bits<N>,
}

impl<const N: usize> GrayReg<N> {
    /// A register held in the Verilog module `module` (unique in the design).
    pub fn new(module: &str) -> Self {
        check_module_name(module);
        Self {
            clock: Default::default(),
            d: Default::default(),
            q: Default::default(),
            _module: module.to_string(),
            _q: Default::default(),
        }
    }
}

impl<const N: usize> Logic for GrayReg<N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self._q = self.d.val();
        }
        self.q.next = self._q;
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        KeptRegister {
            module: &self._module,
            instance: "gray_ff",
            comment: "// A Gray-coded pointer register (rtl/src/cdc.rs): its bits cross to another clock's
// synchronizer. Kept whole so synthesis does not merge it with the binary pointer.",
            reg: "gray",
            attributes: "(* dont_touch = \"true\", preserve = 1 *)",
            width: N,
            init: 0,
        }
        .hdl()
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "gray_reg".into(),
            clock: "clock".into(),
            inputs: vec!["d".into()],
            outputs: vec!["q".into()],
        }]
    }
}

/// The stages of [`ResetSync`].
pub const RESET_SYNC_STAGES: u32 = 2;

/// A reset synchronizer: `arst` (active high, from any clock or none) puts `rst` high at
/// once, without waiting for `clock`, and `rst` falls [`RESET_SYNC_STAGES`] `clock`
/// edges after `arst` falls. Asserted asynchronously, every domain enters reset together
/// even when a clock is slow or stopped; released synchronously, every flip-flop of the
/// domain leaves it on the same edge. The two stages are marked `ASYNC_REG`.
///
/// ### Ports
/// * `clock`, `arst`
/// * `rst`: the domain's reset, synchronous release; 1 at power-up.
#[derive(LogicBlock)]
pub struct ResetSync {
    pub clock: Signal<In, Clock>,
    pub arst: Signal<In, Bit>,
    pub rst: Signal<Out, Bit>,
    _module: String,
    _stages: [bool; 2],
}

impl ResetSync {
    /// A synchronizer held in the Verilog module `module` (unique in the design).
    pub fn new(module: &str) -> Self {
        check_module_name(module);
        Self {
            clock: Default::default(),
            arst: Default::default(),
            rst: Default::default(),
            _module: module.to_string(),
            _stages: [true; 2],
        }
    }
}

impl Logic for ResetSync {
    fn update(&mut self) {
        if self.arst.val() {
            self._stages = [true; 2];
        } else if self.clock.pos_edge() {
            self._stages = [false, self._stages[0]];
        }
        self.rst.next = self._stages[1];
    }

    fn connect(&mut self) {
        self.rst.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Wrapper(Wrapper {
            code: format!(
                "{m} reset_ff(.clock(clock), .arst(arst), .rst(rst));\n",
                m = self._module
            ),
            cores: format!(
                "
// A reset synchronizer (rtl/src/cdc.rs): asynchronous assertion, release on `clock`.
(* keep_hierarchy = \"yes\" *)
module {m}(clock, arst, rst);
    input wire clock;
    input wire arst;
    output wire rst;
    (* ASYNC_REG = \"TRUE\" *) reg [1:0] stages = 2'b11;
    always @(posedge clock or posedge arst) begin
        if (arst) begin
            stages <= 2'b11;
        end else begin
            stages <= {{stages[0], 1'b0}};
        end
    end
    assign rst = stages[1];
endmodule // {m}
",
                m = self._module
            ),
        })
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reset_sync".into(),
            clock: "clock".into(),
            inputs: vec!["arst".into()],
            outputs: vec!["rst".into()],
        }]
    }
}

/// An asynchronous FIFO of `N`-bit words, 2^`A` deep; `P` = `A` + 1 (the pointer width).
///
/// ### Ports
/// * `s_clk`, `s_rst`: the writer's clock and its synchronous reset.
/// * `s_valid`, `s_ready`, `s_data`: a word moves on an `s_clk` edge with both high.
///   `s_ready` is a register (`!full`).
/// * `m_clk`, `m_rst`: the reader's clock and its synchronous reset.
/// * `m_valid`, `m_ready`, `m_data`: first word fall-through; `m_valid` and `m_data` are
///   registers.
///
/// Reset both sides together (each from its own [`ResetSync`] of one reset, which asserts
/// them at once): the pointers and the synchronizers clear, and whichever side leaves
/// reset first sees the other's pointer at 0 until it moves. Words in the FIFO are lost.
///
/// Latency: a word written on an `s_clk` edge is at `m_data` with `m_valid` on the third
/// `m_clk` edge after it (two synchronizer stages, then `empty`), or one later when the
/// Gray pointer changed just too late to be sampled. The writer sees space freed by a
/// read likewise three or four `s_clk` edges later. A FIFO runs at the slower clock's
/// full rate when its depth covers that round trip: at 250 and 322 MHz 8 words do and 4
/// do not (the unit tests measure both).
#[derive(LogicBlock)]
pub struct AsyncFifo<const N: usize, const A: usize, const P: usize> {
    pub s_clk: Signal<In, Clock>,
    pub s_rst: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub s_data: Signal<In, Bits<N>>,
    pub m_clk: Signal<In, Clock>,
    pub m_rst: Signal<In, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub m_data: Signal<Out, Bits<N>>,
    /// Distributed RAM (LUTRAM): written on `s_clk`, read without a clock into `rdata`.
    ram: DistRam<Bits<N>>,
    rdata: DFF<Bits<N>>,
    // Writer: the binary pointer and its successor (so a push only selects between
    // registers), their Gray codes, the reader's pointer as synchronized, `full`.
    wbin: DFF<Bits<P>>,
    wbin1: DFFWithInit<Bits<P>>,
    wgray: GrayReg<P>,
    wgray1: DFFWithInit<Bits<P>>,
    rsync: SyncReg<P>,
    full: DFFWithInit<Bit>,
    push: Signal<Local, Bit>,
    wbin_next: Signal<Local, Bits<P>>,
    wgray_next: Signal<Local, Bits<P>>,
    wbin2: Signal<Local, Bits<P>>,
    /// The reader's pointer as it reads when the FIFO is full: the top two Gray bits
    /// inverted.
    full_mask: Constant<Bits<P>>,
    // Reader: the same, and `empty`.
    rbin: DFF<Bits<P>>,
    rbin1: DFFWithInit<Bits<P>>,
    rgray: GrayReg<P>,
    rgray1: DFFWithInit<Bits<P>>,
    wsync: SyncReg<P>,
    empty: DFFWithInit<Bit>,
    pop: Signal<Local, Bit>,
    rbin_next: Signal<Local, Bits<P>>,
    rgray_next: Signal<Local, Bits<P>>,
    rbin2: Signal<Local, Bits<P>>,
}

impl<const N: usize, const A: usize, const P: usize> AsyncFifo<N, A, P> {
    /// RAM bits: 2^`A` words of `N` bits.
    pub const RAM_BITS: usize = N << A;

    /// A FIFO whose two synchronizers are the Verilog modules `<name>_wsync` and
    /// `<name>_rsync` (`name` unique in the design). 2 <= `A` <= 15, `P` = `A` + 1.
    pub fn new(name: &str) -> Self {
        assert!(
            (2..=15).contains(&A) && P == A + 1,
            "AsyncFifo<{N}, {A}, {P}>"
        );
        let gray1 = Bits::<P>::from(1u64);
        Self {
            s_clk: Default::default(),
            s_rst: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_data: Default::default(),
            m_clk: Default::default(),
            m_rst: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_data: Default::default(),
            ram: DistRam::new(1 << A),
            rdata: Default::default(),
            wbin: Default::default(),
            wbin1: DFFWithInit::new(1u64.into()),
            wgray: GrayReg::new(&format!("{name}_wgray")),
            wgray1: DFFWithInit::new(gray1),
            rsync: SyncReg::new(&format!("{name}_rsync")),
            full: DFFWithInit::new(true),
            push: Default::default(),
            wbin_next: Default::default(),
            wgray_next: Default::default(),
            wbin2: Default::default(),
            full_mask: Constant::new((3u64 << (P - 2)).into()),
            rbin: Default::default(),
            rbin1: DFFWithInit::new(1u64.into()),
            rgray: GrayReg::new(&format!("{name}_rgray")),
            rgray1: DFFWithInit::new(gray1),
            wsync: SyncReg::new(&format!("{name}_wsync")),
            empty: DFFWithInit::new(true),
            pop: Default::default(),
            rbin_next: Default::default(),
            rgray_next: Default::default(),
            rbin2: Default::default(),
        }
    }
}

impl<const N: usize, const A: usize, const P: usize> Logic for AsyncFifo<N, A, P> {
    #[hdl_gen]
    fn update(&mut self) {
        // Writer domain.
        self.wbin.clock.next = self.s_clk.val();
        self.wbin1.clock.next = self.s_clk.val();
        self.wgray.clock.next = self.s_clk.val();
        self.wgray1.clock.next = self.s_clk.val();
        self.full.clock.next = self.s_clk.val();
        self.rsync.clock.next = self.s_clk.val();
        self.rsync.rst.next = self.s_rst.val();
        self.rsync.d.next = self.rgray.q.val();
        self.ram.clk.next = self.s_clk.val();
        // Reader domain.
        self.rbin.clock.next = self.m_clk.val();
        self.rbin1.clock.next = self.m_clk.val();
        self.rgray.clock.next = self.m_clk.val();
        self.rgray1.clock.next = self.m_clk.val();
        self.empty.clock.next = self.m_clk.val();
        self.wsync.clock.next = self.m_clk.val();
        self.wsync.rst.next = self.m_rst.val();
        self.wsync.d.next = self.wgray.q.val();
        self.rdata.clock.next = self.m_clk.val();

        // Write: the word goes to the RAM at `wbin`; the pointers step to their
        // registered successors, and `full` compares the next Gray pointer with the
        // reader's (full: equal but for the top two bits).
        self.push.next = self.s_valid.val() & !self.full.q.val();
        self.ram.write_address.next = bit_cast::<16, P>(self.wbin.q.val());
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.push.val();
        self.wbin_next.next = self.wbin.q.val();
        self.wgray_next.next = self.wgray.q.val();
        if self.push.val() {
            self.wbin_next.next = self.wbin1.q.val();
            self.wgray_next.next = self.wgray1.q.val();
        }
        // The successor's successor comes from the register, not from the push: the
        // push only selects.
        self.wbin2.next = self.wbin1.q.val() + 1;
        self.wbin.d.next = self.wbin_next.val();
        self.wgray.d.next = self.wgray_next.val();
        self.wbin1.d.next = self.wbin1.q.val();
        self.wgray1.d.next = self.wgray1.q.val();
        if self.push.val() {
            self.wbin1.d.next = self.wbin2.val();
            self.wgray1.d.next = self.wbin2.val() ^ (self.wbin2.val() >> 1);
        }
        self.full.d.next = (self.wgray_next.val() == (self.rsync.q.val() ^ self.full_mask.val()));
        if self.s_rst.val() {
            self.wbin.d.next = 0.into();
            self.wgray.d.next = 0.into();
            self.wbin1.d.next = 1.into();
            self.wgray1.d.next = 1.into();
            self.full.d.next = true;
        }
        self.s_ready.next = !self.full.q.val();

        // Read: `rdata` takes the next head from the RAM every edge, so it holds the
        // head; `empty` compares the next Gray pointer with the writer's. A word the
        // writer is still writing may be read, but only while `empty` says the slot is
        // not yet there: by the edge `empty` falls, the write is two edges old.
        self.pop.next = self.m_ready.val() & !self.empty.q.val();
        self.rbin_next.next = self.rbin.q.val();
        self.rgray_next.next = self.rgray.q.val();
        if self.pop.val() {
            self.rbin_next.next = self.rbin1.q.val();
            self.rgray_next.next = self.rgray1.q.val();
        }
        self.rbin2.next = self.rbin1.q.val() + 1;
        self.ram.read_address.next = bit_cast::<16, P>(self.rbin_next.val());
        self.rdata.d.next = self.ram.read_data.val();
        self.rbin.d.next = self.rbin_next.val();
        self.rgray.d.next = self.rgray_next.val();
        self.rbin1.d.next = self.rbin1.q.val();
        self.rgray1.d.next = self.rgray1.q.val();
        if self.pop.val() {
            self.rbin1.d.next = self.rbin2.val();
            self.rgray1.d.next = self.rbin2.val() ^ (self.rbin2.val() >> 1);
        }
        self.empty.d.next = (self.rgray_next.val() == self.wsync.q.val());
        if self.m_rst.val() {
            self.rbin.d.next = 0.into();
            self.rgray.d.next = 0.into();
            self.rbin1.d.next = 1.into();
            self.rgray1.d.next = 1.into();
            self.empty.d.next = true;
        }
        self.m_valid.next = !self.empty.q.val();
        self.m_data.next = self.rdata.q.val();
    }
}

/// An AXI4-Stream crossing (`tdata`, `tkeep`, `tlast`) from `clk_s` to `clk_m` on an
/// [`AsyncFifo`] of 32 beats, with a [`ResetSync`] per domain from one reset `rst`
/// (asynchronous, active high; hold it for at least [`RESET_SYNC_STAGES`] + 1 edges of
/// the slower clock). `W` = `D` + `K` + 1.
///
/// ### Ports
/// * `clk_s`, `clk_m`, `rst`
/// * `s_axis_tdata`, `s_axis_tkeep`, `s_axis_tlast`, `s_axis_tvalid`, `s_axis_tready`
///   (`clk_s`)
/// * `m_axis_tdata`, `m_axis_tkeep`, `m_axis_tlast`, `m_axis_tvalid`, `m_axis_tready`
///   (`clk_m`)
#[derive(LogicBlock)]
pub struct CdcStream<const D: usize, const K: usize, const W: usize> {
    pub clk_s: Signal<In, Clock>,
    pub clk_m: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axis_tdata: Signal<In, Bits<D>>,
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    pub s_axis_tlast: Signal<In, Bit>,
    pub s_axis_tvalid: Signal<In, Bit>,
    pub s_axis_tready: Signal<Out, Bit>,
    pub m_axis_tdata: Signal<Out, Bits<D>>,
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    s_reset: ResetSync,
    m_reset: ResetSync,
    fifo: AsyncFifo<W, 5, 6>,
    /// Where `tdata` sits in a FIFO word (`tlast` is bit 0, `tkeep` the next `K`).
    data_at: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const W: usize> CdcStream<D, K, W> {
    /// RAM bits of the one FIFO.
    pub const RAM_BITS: usize = AsyncFifo::<W, 5, 6>::RAM_BITS;

    /// `name`: the prefix of the synchronizer modules (unique in the design).
    pub fn new(name: &str) -> Self {
        assert!(W == D + K + 1, "CdcStream<{D}, {K}, {W}>");
        Self {
            clk_s: Default::default(),
            clk_m: Default::default(),
            rst: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            s_reset: ResetSync::new(&format!("{name}_s_reset")),
            m_reset: ResetSync::new(&format!("{name}_m_reset")),
            fifo: AsyncFifo::new(&format!("{name}_fifo")),
            data_at: Constant::new(((K + 1) as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize, const W: usize> Logic for CdcStream<D, K, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.s_reset.clock.next = self.clk_s.val();
        self.s_reset.arst.next = self.rst.val();
        self.m_reset.clock.next = self.clk_m.val();
        self.m_reset.arst.next = self.rst.val();
        self.fifo.s_clk.next = self.clk_s.val();
        self.fifo.s_rst.next = self.s_reset.rst.val();
        self.fifo.m_clk.next = self.clk_m.val();
        self.fifo.m_rst.next = self.m_reset.rst.val();
        // One word: {tdata, tkeep, tlast}.
        self.fifo.s_data.next = (bit_cast::<W, D>(self.s_axis_tdata.val()) << self.data_at.val())
            | (bit_cast::<W, K>(self.s_axis_tkeep.val()) << 1)
            | bit_cast::<W, 1>(self.s_axis_tlast.val().into());
        self.fifo.s_valid.next = self.s_axis_tvalid.val();
        self.s_axis_tready.next = self.fifo.s_ready.val();
        self.m_axis_tdata.next = bit_cast::<D, W>(self.fifo.m_data.val() >> self.data_at.val());
        self.m_axis_tkeep.next = bit_cast::<K, W>(self.fifo.m_data.val() >> 1);
        self.m_axis_tlast.next = self.fifo.m_data.val().get_bit(0);
        self.m_axis_tvalid.next = self.fifo.m_valid.val();
        self.fifo.m_ready.next = self.m_axis_tready.val();
    }
}

#[cfg(test)]
mod tests;
