//! `flow_table` on the Verilator model, checked against the software model in prnic-verif.
//!
//! The scoreboard predicts every lookup from the model image and the documented
//! read-during-write rule: a lookup accepted in cycle c sees each way slot as it was
//! before cycle c's update and each stash slot as it is after it. Every test checks the
//! exact latency, the tags in order, and that nothing is left in flight at the end.

use prnic_gen::PrnicConfig;
use prnic_rtl::flow_table::FLOW_TABLE_LATENCY;
use prnic_testbenches::bridge::{Dut, FlowTable};
use prnic_testbenches::flow_table::{FlowTableSim, HdlFlowTable, Inputs, Outputs, Update};
use prnic_verif::flow_table::{
    fill_until_failure, rng, value_for, Geometry, HwImage, SlotWrite, SoftTable, Value, KEY_BITS,
};
use std::collections::VecDeque;

fn geometry() -> Geometry {
    let c = PrnicConfig::builtin();
    let s = &c.flow_table.hash_seeds;
    Geometry {
        slots_per_way: c.slots_per_way() as usize,
        stash: c.flow_table.stash as usize,
        seeds: [s[0], s[1], s[2], s[3]],
    }
}

/// Testbench: the DUT, the model image, and the lookups in flight.
struct Tb {
    dut: FlowTable,
    image: HwImage,
    inflight: VecDeque<(u64, u16, Option<Value>)>,
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
        self.dut.cycle() - start
    }

    /// One cycle with an optional lookup and an optional update; checks any result.
    fn cycle(&mut self, lookup: Option<u64>, update: Option<&SlotWrite>) -> Outputs {
        // Read-during-write rule: stash updates are visible to this cycle's lookup,
        // way updates are not.
        let stash_update = matches!(update, Some(SlotWrite::Stash { .. }));
        if stash_update {
            self.image.apply(update.unwrap());
        }
        let mut inputs = Inputs {
            update: update.map(Update::from),
            ..Default::default()
        };
        if let Some(k) = lookup {
            self.tag = self.tag.wrapping_add(1);
            let a = self.image.lookup(k);
            assert!(!a.disagree, "the test itself made a conflicting table");
            self.inflight.push_back((
                self.dut.cycle() + FLOW_TABLE_LATENCY as u64,
                self.tag,
                a.value,
            ));
            inputs.lookup = Some((k, self.tag));
        }
        if let (Some(w), false) = (update, stash_update) {
            self.image.apply(w);
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
            if churn.len() > 8000 && r % 3 == 0 {
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
    tb.cycle(
        None,
        Some(&SlotWrite::Stash {
            index: 3,
            entry: Some((k, old)),
        }),
    );
    // Lookup in cycle c; the slot is rewritten in cycle c + 1, between the lookup's
    // compare (cycle c + 1) and its value select (cycle c + 2).
    let o = |tb: &mut Tb, l, u: Option<SlotWrite>| {
        tb.dut.clock(&Inputs {
            lookup: l,
            update: u.as_ref().map(Update::from),
            ..Default::default()
        })
    };
    o(&mut tb, Some((k, 1)), None);
    o(
        &mut tb,
        None,
        Some(SlotWrite::Stash {
            index: 3,
            entry: Some((k, new)),
        }),
    );
    let r = o(&mut tb, None, None);
    assert_eq!(r.result.map(|x| x.2), Some(1));
    assert_eq!(
        r.value(),
        Some(old),
        "the shadow must supply the entry that was compared"
    );
    // The next lookup sees the new entry.
    o(&mut tb, Some((k, 2)), None);
    o(&mut tb, None, None);
    assert_eq!(o(&mut tb, None, None).value(), Some(new));
    // Invalidated between compare and select: still the old entry, whole.
    o(&mut tb, Some((k, 3)), None);
    o(
        &mut tb,
        None,
        Some(SlotWrite::Stash {
            index: 3,
            entry: None,
        }),
    );
    assert_eq!(o(&mut tb, None, None).value(), Some(new));
    // And then gone.
    o(&mut tb, Some((k, 4)), None);
    o(&mut tb, None, None);
    let r = o(&mut tb, None, None);
    assert_eq!(r.result.map(|x| (x.0, x.2)), Some((false, 4)));
}

#[test]
fn conflicting_hits_raise_the_sticky_multi_hit_error_duplicates_do_not() {
    let mut tb = Tb::new();
    let g = geometry();
    let h = prnic_verif::flow_table::Hashes::new(&g);
    let k = 0x77_c0a8_0101u64;
    let (a, b) = (value_for(10), value_for(11));
    let w0 = SlotWrite::Slot {
        way: 0,
        index: h.index(0, k),
        entry: Some((k, a)),
    };
    let w2 = SlotWrite::Slot {
        way: 2,
        index: h.index(2, k),
        entry: Some((k, a)),
    };
    let o = |tb: &mut Tb, l: Option<(u64, u16)>, u: Option<SlotWrite>, clr: bool| {
        tb.dut.clock(&Inputs {
            lookup: l,
            update: u.as_ref().map(Update::from),
            clear_errors: clr,
            ..Default::default()
        })
    };
    o(&mut tb, None, Some(w0), false);
    o(&mut tb, None, Some(w2), false);
    // Same key, same value in two ways: a duplicate (as during a relocation), not an error.
    o(&mut tb, Some((k, 1)), None, false);
    for _ in 0..3 {
        o(&mut tb, None, None, false);
    }
    assert_eq!(
        (
            tb.dut.status_dup_hit_count(),
            tb.dut.status_multi_hit_count(),
            tb.dut.status_multi_hit()
        ),
        (1, 0, 0)
    );
    // Same key, different values: the error.
    o(
        &mut tb,
        None,
        Some(SlotWrite::Stash {
            index: 0,
            entry: Some((k, b)),
        }),
        false,
    );
    o(&mut tb, Some((k, 2)), None, false);
    for _ in 0..3 {
        o(&mut tb, None, None, false);
    }
    assert_eq!(
        (tb.dut.status_multi_hit_count(), tb.dut.status_multi_hit()),
        (1, 1)
    );
    // Sticky until cleared; the counter keeps counting.
    o(&mut tb, None, None, true);
    assert_eq!(
        (tb.dut.status_multi_hit_count(), tb.dut.status_multi_hit()),
        (1, 0)
    );
}

#[test]
fn read_back_returns_every_slot_and_stash_entry_as_written() {
    let mut tb = Tb::new();
    let (t, _) = {
        let mut t = SoftTable::new(geometry());
        let mut next = rng(123);
        let mut ws = vec![];
        for _ in 0..3000 {
            let r = next();
            if let Ok(w) = t.insert(random_key(r) & 0xff_0000_0fff, value_for(r)) {
                ws.extend(w);
            }
        }
        (t, ws)
    };
    // Program the final image, then read every way slot the table uses and every stash entry.
    let img = t.image().clone();
    let g = geometry();
    let mut locs = vec![];
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
                locs.push((false, way, index));
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
        locs.push((true, 0, index));
    }
    // An empty slot reads back invalid.
    locs.push((false, 3, g.slots_per_way - 1));
    let mut want = VecDeque::new();
    let mut got = vec![];
    for &(stash, way, index) in &locs {
        let loc = if stash {
            prnic_verif::flow_table::Loc::Stash(index)
        } else {
            prnic_verif::flow_table::Loc::Slot(way, index)
        };
        want.push_back(
            img.at(loc)
                .map(|(k, v)| (true, k, v.to_bits()))
                .unwrap_or((false, 0, 0)),
        );
        let o = tb.dut.clock(&Inputs {
            read: Some((stash, way as u8, index as u16)),
            ..Default::default()
        });
        got.extend(o.read);
    }
    for _ in 0..3 {
        got.extend(tb.dut.clock(&Inputs::default()).read);
    }
    assert_eq!(got.len(), locs.len(), "one read-back per request");
    for (g, w) in got.iter().zip(want.iter()) {
        if w.0 {
            assert_eq!(g, w);
        } else {
            assert!(!g.0, "an empty slot read back valid");
        }
    }
}

#[test]
fn out_of_range_updates_are_ignored_and_counted() {
    let mut tb = Tb::new();
    let g = geometry();
    let v = Value::from_bits(0xabc);
    let bad = [
        Update {
            op: 0,
            way: 1,
            index: g.slots_per_way as u16,
            key: 5,
            value: v.to_bits(),
        },
        Update {
            op: 1,
            way: 0,
            index: g.stash as u16,
            key: 5,
            value: v.to_bits(),
        },
        Update {
            op: 3,
            way: 0,
            index: 60,
            key: 0,
            value: 0,
        },
    ];
    for u in bad {
        tb.dut.clock(&Inputs {
            update: Some(u),
            ..Default::default()
        });
    }
    tb.dut.clock(&Inputs::default());
    assert_eq!(tb.dut.status_bad_update_count(), 3);
    tb.cycle(Some(5), None);
    tb.drain();
}

/// The same stimulus through rust-hdl's simulator and the Verilator model: identical
/// outputs on every cycle (guards against rust-hdl's precedence emission bug).
#[test]
fn two_simulators_agree_cycle_by_cycle() {
    let cfg = PrnicConfig::builtin();
    let mut hdl = HdlFlowTable::new(prnic_gen::blocks::flow_table(cfg));
    let mut vl = FlowTable::new();
    let g = geometry();
    let mut t = SoftTable::new(g.clone());
    let mut next = rng(31);
    let mut keys = vec![];
    let mut pending: VecDeque<SlotWrite> = VecDeque::new();
    let mut hits = 0;
    for c in 0..600 {
        let r = next();
        if pending.is_empty() && c < 500 {
            let k = random_key(r) & 0xff_0000_ffff; // a small key space: stash and moves
            if r % 5 == 0 && !keys.is_empty() {
                let k = keys.swap_remove(r as usize % keys.len());
                pending.extend(t.delete(k).unwrap());
            } else if let Ok(ws) = t.insert(k, value_for(r)) {
                pending.extend(ws);
                keys.push(k);
            }
        }
        // Force some stash traffic: the small table is not full, so write the stash directly.
        let update = if c % 17 == 0 {
            Some(Update::from(&SlotWrite::Stash {
                index: (c / 17) % g.stash,
                entry: Some((r >> 8, value_for(r))),
            }))
        } else {
            pending.pop_front().map(|w| Update::from(&w))
        };
        let lookup = if keys.is_empty() || r % 4 == 0 {
            Some((random_key(r >> 3), c as u16))
        } else {
            Some((keys[r as usize % keys.len()], c as u16))
        };
        // Read-backs in cycles without an update, alternating stash and ways.
        let read = (update.is_none() && c % 3 == 0)
            .then(|| (c % 2 == 0, (r % 4) as u8, ((r >> 20) % 64) as u16));
        let i = Inputs {
            rst: c == 550,
            lookup,
            update,
            clear_errors: c % 97 == 0,
            read,
        };
        let a = vl.clock(&i);
        let b = hdl.clock(&i);
        assert_eq!(a, b, "simulators disagree at cycle {c} with inputs {i:?}");
        hits += a.result.is_some_and(|(h, _, _)| h) as u32;
    }
    assert!(
        hits > 100,
        "only {hits} hits: the run did not exercise the table"
    );
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Random key sets (VNI and IPv4 from proptest, including colliding VNIs and
    /// addresses), inserted and deleted one write per cycle while random lookups of
    /// present and absent keys go in every cycle; every answer checked by the scoreboard.
    #[test]
    fn random_keys_inserted_and_deleted_under_lookups(
        ops in prop::collection::vec((0u32..4, 0u32..(1 << 24), any::<u32>(), any::<u64>()), 1..1500),
        lookup_every in 1u64..3,
    ) {
        let mut tb = Tb::new();
        let mut t = SoftTable::new(geometry());
        let mut present: Vec<u64> = vec![];
        let mut pending: VecDeque<SlotWrite> = VecDeque::new();
        let mut c = 0u64;
        for (kind, vni, ip, r) in ops {
            let k = prnic_verif::flow_table::key(vni, ip);
            let writes = if kind == 0 && !present.is_empty() {
                let k = present.swap_remove(r as usize % present.len());
                t.delete(k).unwrap()
            } else {
                match t.insert(k, value_for(r)) {
                    Ok(ws) => {
                        if !present.contains(&k) {
                            present.push(k);
                        }
                        ws
                    }
                    Err(_) => vec![],
                }
            };
            pending.extend(writes);
            // Apply this change's writes one per cycle, with lookups in between.
            while let Some(w) = pending.pop_front() {
                c += 1;
                let probe = if c % lookup_every == 0 {
                    Some(if r % 3 == 0 || present.is_empty() { random_key(r.rotate_left(c as u32 % 64)) } else { present[(r as usize + c as usize) % present.len()] })
                } else {
                    None
                };
                tb.cycle(probe, Some(&w));
            }
        }
        for &k in &present {
            tb.cycle(Some(k), None);
        }
        tb.drain();
        for &k in &present {
            prop_assert!(t.lookup(k).is_some());
        }
    }
}
