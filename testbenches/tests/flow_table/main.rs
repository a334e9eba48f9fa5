//! `flow_table` on the Verilator model, checked against the software model in prnic-verif.
//!
//! The scoreboard predicts every lookup from the model image and the documented update
//! rule: a lookup accepted in cycle c sees every update taken in cycle c - 1 or earlier,
//! whole, and none taken later. Each update's key is set up in the cycle before it. Every test checks the exact latency, the tags in order,
//! and that nothing is left in flight at the end.

use prnic_gen::PrnicConfig;
use prnic_rtl::flow_table::{
    FLOW_TABLE_LATENCY, FLOW_TABLE_READ_LATENCY, OP_INVALIDATE_STASH, OP_WRITE_SLOT, OP_WRITE_STASH,
};
use prnic_testbenches::bridge::{Dut, FlowTable};
use prnic_testbenches::flow_table::{FlowTableSim, HdlFlowTable, Inputs, Outputs, Update};
use prnic_verif::flow_table::{
    fill_until_failure, value_for, Geometry, HwImage, SlotWrite, SoftTable, Value, KEY_BITS,
};
use prnic_verif::rng::rng;
use std::collections::VecDeque;

fn geometry() -> Geometry {
    prnic_testbenches::flow_table::geometry(PrnicConfig::builtin())
}

/// Testbench: the DUT, the model image, and the lookups in flight.
struct Tb {
    dut: FlowTable,
    image: HwImage,
    inflight: VecDeque<(u64, u16, Option<Value>)>,
    /// Updates taken but not yet visible to lookups: (first cycle that sees it, update).
    landing: VecDeque<(u64, SlotWrite)>,
    /// The key set up on the update port.
    staged: Option<u64>,
    tag: u16,
    results: u64,
    last: Outputs,
}

impl Tb {
    fn new() -> Self {
        let mut tb = Tb {
            dut: FlowTable::new(),
            image: HwImage::new(&geometry()),
            inflight: VecDeque::new(),
            landing: VecDeque::new(),
            staged: None,
            tag: 0,
            results: 0,
            last: Outputs::default(),
        };
        tb.reset();
        tb
    }

    /// Reset, then wait for the clearing sweep; returns the sweep length in cycles.
    fn reset(&mut self) -> u64 {
        self.dut.clock(&Inputs {
            rst: true,
            ..Default::default()
        });
        let start = self.dut.cycle();
        let mut guard = 0;
        while self.dut.clock(&Inputs::default()).clearing {
            guard += 1;
            assert!(guard < 1 << 20, "clearing never ends");
        }
        self.image = HwImage::new(&geometry());
        self.inflight.clear();
        self.landing.clear();
        self.dut.cycle() - start
    }

    /// One cycle with an optional lookup and an optional update; checks any result. An
    /// write's key is set up in the cycle before: if the last cycle did not, an idle
    /// cycle with the key set up comes first.
    fn cycle(&mut self, lookup: Option<u64>, update: Option<&SlotWrite>) -> Outputs {
        let u = update.map(Update::from);
        let key = u
            .filter(|u| [OP_WRITE_SLOT, OP_WRITE_STASH].contains(&(u.op as u64)))
            .map(|u| u.key);
        if key.is_some() && self.staged != key {
            self.staged = key;
            self.cycle(None, None);
        }
        // The cycle these inputs are applied in.
        let c = self.dut.cycle();
        while self.landing.front().is_some_and(|(due, _)| *due <= c) {
            let (_, w) = self.landing.pop_front().unwrap();
            assert!(
                self.image.apply(&w),
                "the test wrote a key away from its slot"
            );
        }
        if let Some(w) = update {
            self.landing.push_back((c + 1, *w));
        }
        let mut inputs = Inputs {
            update: update.map(Update::from),
            stage_key: self.staged,
            ..Default::default()
        };
        // A command consumes the set-up: the next update needs its own.
        if update.is_some() {
            self.staged = None;
        }
        if let Some(k) = lookup {
            self.tag = self.tag.wrapping_add(1);
            let a = self.image.lookup(k);
            assert!(a.hits <= 1, "the model found a key in two places");
            self.inflight.push_back((
                self.dut.cycle() + FLOW_TABLE_LATENCY as u64,
                self.tag,
                a.value,
            ));
            inputs.lookup = Some((k, self.tag));
        }
        let o = self.dut.clock(&inputs);
        let now = self.dut.cycle();
        if let Some((hit, value, tag)) = o.result {
            let (due, want_tag, want) = self
                .inflight
                .pop_front()
                .unwrap_or_else(|| panic!("unexpected result at cycle {now}"));
            assert_eq!(now, due, "latency: result at {now}, due at {due}");
            assert_eq!(tag, want_tag, "results out of order");
            assert_eq!(hit, want.is_some(), "hit at cycle {now} (tag {tag})");
            assert_eq!(o.value(), want, "value at cycle {now}");
            if !hit {
                assert_eq!(value, 0, "a miss carries value 0");
            }
            self.results += 1;
        }
        if let Some((due, _, _)) = self.inflight.front() {
            assert!(*due > now, "result due at {due} never came");
        }
        self.last = o;
        o
    }

    fn drain(&mut self) {
        for _ in 0..FLOW_TABLE_LATENCY + 2 {
            self.cycle(None, None);
        }
        assert!(
            self.inflight.is_empty(),
            "{} lookups never answered",
            self.inflight.len()
        );
        assert_eq!(self.last.multi_hit_count, 0, "multi-hit error");
    }
}

fn random_key(r: u64) -> u64 {
    r & ((1 << KEY_BITS) - 1)
}

#[test]
fn reset_sweep_takes_one_cycle_per_slot_and_clears_everything() {
    let mut tb = Tb::new();
    let mut t = SoftTable::new(geometry());
    let ws = t.insert(123, value_for(5)).unwrap();
    tb.cycle(None, Some(&ws[0]));
    tb.cycle(Some(123), None);
    tb.drain();
    let sweep = tb.reset();
    assert_eq!(
        sweep,
        geometry().slots_per_way as u64,
        "sweep length: one cycle per slot"
    );
    tb.cycle(Some(123), None);
    tb.drain();
}

#[test]
fn fill_to_first_failure_then_every_key_hits_and_absent_keys_miss() {
    let (t, res) = fill_until_failure(&geometry(), 3);
    assert!(res.load_factor >= 0.97, "load factor {}", res.load_factor);
    let mut tb = Tb::new();
    // Replay the table's final image as writes (the order of a fill does not matter to
    // the final contents; the ordered writes are exercised by the concurrency test).
    let g = geometry();
    let img = t.image();
    for way in 0..4 {
        for index in 0..g.slots_per_way {
            if let Some(e) = img.at(prnic_verif::flow_table::Loc::Slot(way, index)) {
                tb.cycle(
                    None,
                    Some(&SlotWrite::Slot {
                        way,
                        index,
                        entry: Some(e),
                    }),
                );
            }
        }
    }
    for index in 0..g.stash {
        if let Some(e) = img.at(prnic_verif::flow_table::Loc::Stash(index)) {
            tb.cycle(
                None,
                Some(&SlotWrite::Stash {
                    index,
                    entry: Some(e),
                }),
            );
        }
    }
    let keys: Vec<u64> = t.keys().copied().collect();
    let mut next = rng(99);
    let mut absent = 0;
    // Back to back: every present key, then random absent ones.
    for &k in &keys {
        tb.cycle(Some(k), None);
    }
    for _ in 0..5000 {
        let k = random_key(next());
        if t.location(k).is_none() {
            tb.cycle(Some(k), None);
            absent += 1;
        }
    }
    tb.drain();
    assert_eq!(tb.results as usize, keys.len() + absent);
}

#[test]
fn lookups_never_miss_while_keys_are_inserted_relocated_and_deleted() {
    let mut tb = Tb::new();
    let mut t = SoftTable::new(geometry());
    let mut next = rng(7);
    // Stable keys: present throughout; absent keys: never inserted.
    let mut stable = vec![];
    let mut pending: VecDeque<SlotWrite> = VecDeque::new();
    for _ in 0..20_000 {
        let r = next();
        let k = random_key(r);
        if let Ok(ws) = t.insert(k, value_for(r)) {
            pending.extend(ws);
            stable.push(k);
        }
    }
    while let Some(w) = pending.pop_front() {
        tb.cycle(None, Some(&w));
    }
    let absent: Vec<u64> = (0..1000)
        .map(|_| random_key(next()))
        .filter(|k| t.location(*k).is_none())
        .collect();
    // Churn: fill towards 98% with relocations, delete some churn keys, one write per
    // cycle, while a lookup of a stable or absent key goes in every cycle.
    let mut churn: Vec<u64> = vec![];
    let mut relocations = 0;
    let mut lookups = 0u64;
    for step in 0..40_000u64 {
        if pending.is_empty() {
            let r = next();
            if churn.len() > 8000 && r.is_multiple_of(3) {
                let k = churn.swap_remove((r as usize / 3) % churn.len());
                pending.extend(t.delete(k).unwrap());
            } else {
                let k = random_key(r);
                if let Ok(ws) = t.insert(k, value_for(r)) {
                    relocations += ws.len() - 1;
                    pending.extend(ws);
                    churn.push(k);
                }
            }
        }
        let probe = if step % 4 == 3 {
            absent[(step as usize / 4) % absent.len()]
        } else {
            stable[(step as usize * 7919) % stable.len()]
        };
        tb.cycle(Some(probe), pending.pop_front().as_ref());
        lookups += 1;
    }
    tb.drain();
    assert!(
        relocations > 1000,
        "only {relocations} relocations: the test did not exercise moves"
    );
    assert_eq!(tb.results, lookups);
    // The scoreboard checked every answer against the model; stable keys were in the
    // model throughout, so none of them missed, and absent keys never hit.
    assert!(stable.iter().all(|k| t.lookup(*k).is_some()));
}

#[test]
fn stash_entry_rewritten_between_compare_and_select_returns_the_old_entry_whole() {
    let mut tb = Tb::new();
    let (k, old, new) = (0x42_0a00_0001u64, value_for(1), value_for(2));
    let o = |tb: &mut Tb, l, u: Option<SlotWrite>| {
        tb.dut.clock(&Inputs {
            lookup: l,
            update: u.as_ref().map(Update::from),
            stage_key: Some(k),
            ..Default::default()
        })
    };
    let stash3 = |entry| Some(SlotWrite::Stash { index: 3, entry });
    // The result of a lookup taken in this cycle (the cycles in between idle).
    let result = |tb: &mut Tb, l, u: Option<SlotWrite>| {
        o(tb, l, u);
        for _ in 0..FLOW_TABLE_LATENCY - 2 {
            o(tb, None, None);
        }
        o(tb, None, None)
    };
    o(&mut tb, None, None);
    o(&mut tb, None, stash3(Some((k, old))));
    for _ in 0..FLOW_TABLE_LATENCY {
        o(&mut tb, None, None);
    }
    // An update taken in cycle c writes the stash key on the edge after cycle c + 1 and
    // the value two edges later: between the compare (cycle c + 1) and the value select
    // (cycle c + 3) of a lookup taken in cycle c, which must not see the update at all.
    let r = result(&mut tb, Some((k, 1)), stash3(Some((k, new))));
    assert_eq!(r.result.map(|x| x.2), Some(1));
    assert_eq!(
        r.value(),
        Some(old),
        "the value select must see the entry that was compared"
    );
    // A lookup taken in the cycle after the update sees the new entry.
    assert_eq!(result(&mut tb, Some((k, 2)), None).value(), Some(new));
    // Invalidated between compare and select: still the old entry, whole.
    assert_eq!(
        result(&mut tb, Some((k, 3)), stash3(None)).value(),
        Some(new)
    );
    // And then gone.
    let r = result(&mut tb, Some((k, 4)), None);
    assert_eq!(r.result.map(|x| (x.0, x.2)), Some((false, 4)));
}

/// A write of a key that is already somewhere else moves it: the old place is emptied in
/// the same update, whatever the values, so no lookup ever finds the key twice.
#[test]
fn writing_a_key_to_a_second_place_moves_it_and_no_lookup_finds_two() {
    let mut tb = Tb::new();
    let g = geometry();
    let h = prnic_verif::flow_table::Hashes::new(&g);
    let k = 0x77_c0a8_0101u64;
    let other = 0x77_c0a8_0102u64;
    let places = [
        SlotWrite::Slot {
            way: 0,
            index: h.index(0, k),
            entry: Some((k, value_for(10))),
        },
        SlotWrite::Slot {
            way: 2,
            index: h.index(2, k),
            entry: Some((k, value_for(11))),
        },
        SlotWrite::Stash {
            index: 0,
            entry: Some((k, value_for(12))),
        },
        SlotWrite::Stash {
            index: 5,
            entry: Some((k, value_for(13))),
        },
        SlotWrite::Slot {
            way: 3,
            index: h.index(3, k),
            entry: Some((k, value_for(14))),
        },
    ];
    tb.cycle(
        None,
        Some(&SlotWrite::Stash {
            index: 1,
            entry: Some((other, value_for(20))),
        }),
    );
    for w in &places {
        // A lookup in every cycle around each move: the scoreboard requires the old
        // value before the update is visible and the new one after, never a miss.
        tb.cycle(Some(k), None);
        tb.cycle(Some(k), Some(w));
        for _ in 0..3 {
            tb.cycle(Some(k), None);
        }
    }
    tb.drain();
    assert_eq!(
        (
            tb.dut.status_dup_hit_count(),
            tb.dut.status_multi_hit_count(),
            tb.dut.status_multi_hit()
        ),
        (0, 0, 0),
        "a lookup found the key in two places"
    );
    // Every earlier place reads back empty; the other key is untouched.
    for _ in 0..2 {
        tb.dut.clock(&Inputs::default());
    }
    let mut got = vec![];
    let reads = [
        (false, 0u8, h.index(0, k)),
        (false, 2, h.index(2, k)),
        (true, 0, 0),
        (true, 5, 5),
        (false, 3, h.index(3, k)),
        (true, 1, 1),
    ];
    for &(stash, way, index) in &reads {
        let o = tb.dut.clock(&Inputs {
            read: Some((stash, if stash { 0 } else { way }, index as u16)),
            ..Default::default()
        });
        got.extend(o.read);
    }
    for _ in 0..=FLOW_TABLE_READ_LATENCY {
        got.extend(tb.dut.clock(&Inputs::default()).read);
    }
    let valid: Vec<bool> = got.iter().map(|r| r.0).collect();
    assert_eq!(valid, [false, false, false, false, true, true]);
    assert_eq!(got[4].1, k);
    assert_eq!(got[5].1, other);
    assert_eq!(tb.dut.status_bad_update_count(), 0);
}

mod agreement;
mod csr_ops;
