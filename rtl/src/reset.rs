//! `ResetCopy`: one registered copy of the synchronized reset, for one block of
//! `prnic_top`.
//!
//! The reset reaches about 14,000 flip-flop resets, clock enables and handshake terms.
//! From one flip-flop (and the inverter after it, as the synchronizer holds "out of
//! reset") that is one net spanning the whole design: its delay alone took most of the
//! cycle at 322 MHz, and 303 path groups of `prnic_top` were over budget through it
//! (docs/timing.md). Each block gets its own copy instead, one clock later, driving only
//! that block's loads; the copies power up in reset (1).
//!
//! Copies of one register are equivalent, and synthesis merges equivalent flip-flops
//! (Yosys `opt_merge`, Vivado's equivalent-register removal, Quartus' duplicate-register
//! merging). So each copy is its own Verilog module, outside rust-hdl's naming
//! (`<top>_rst_<block>`), marked `keep_hierarchy` (Yosys, Vivado: no merging across the
//! boundary) with its register marked `dont_merge` (Quartus). The module is the only way
//! to carry those attributes: rust-hdl writes module headers and declarations itself, so
//! the copy is a rust-hdl `Wrapper` around it.
//!
//! ### Ports
//! * `clock`
//! * `d`: the reset, active high.
//! * `q`: `d` one clock later; 1 at power-up.

use crate::cdc::{check_module_name, KeptRegister};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ResetCopy {
    pub clock: Signal<In, Clock>,
    pub d: Signal<In, Bit>,
    pub q: Signal<Out, Bit>,
    // The Verilog module's name, and rust-hdl's simulation state (1 at power-up); the
    // leading underscore keeps them out of the derived Block walk.
    _module: String,
    _q: bool,
}

impl ResetCopy {
    /// A copy held in the Verilog module `module` (unique in the file: one per block).
    pub fn new(module: &str) -> Self {
        check_module_name(module);
        Self {
            clock: Default::default(),
            d: Default::default(),
            q: Default::default(),
            _module: module.to_string(),
            _q: true,
        }
    }
}

impl Logic for ResetCopy {
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
            instance: "copy",
            comment: "// A copy of the synchronized reset for one block of the top (rtl/src/reset.rs): its own
// module, kept apart, so synthesis does not merge the copies back into one net.",
            reg: "r",
            attributes: "(* dont_merge *)",
            width: 1,
            init: 1,
        }
        .hdl()
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "reset_copy".into(),
            clock: "clock".into(),
            inputs: vec!["d".into()],
            outputs: vec!["q".into()],
        }]
    }
}
