//! Read-back through the update port, and refused updates: counted, and nothing
//! changes.

use super::*;

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
    // Two idle cycles, then one read-back per cycle.
    for _ in 0..2 {
        tb.dut.clock(&Inputs::default());
    }
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
    for _ in 0..=FLOW_TABLE_READ_LATENCY {
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

/// Refused and counted: out of range, a way write away from the key's own slot, a key
/// not set up in the cycle before, an update in the cycle after an accepted one, a
/// read-back in the same cycle as an update.
#[test]
fn refused_updates_change_nothing_and_are_counted() {
    let mut tb = Tb::new();
    let g = geometry();
    let h = prnic_verif::flow_table::Hashes::new(&g);
    let v = Value::from_bits(0xabc);
    let home = |w: usize, k: u64| h.index(w, k) as u16;
    let bad = [
        Update {
            op: OP_WRITE_SLOT as u8,
            way: 1,
            index: g.slots_per_way as u16,
            key: 5,
            value: v.to_bits(),
        },
        Update {
            op: OP_WRITE_STASH as u8,
            way: 0,
            index: g.stash as u16,
            key: 5,
            value: v.to_bits(),
        },
        Update {
            op: OP_INVALIDATE_STASH as u8,
            way: 0,
            index: 60,
            key: 0,
            value: 0,
        },
        // Key 5 in way 2, one slot away from its own.
        Update {
            op: OP_WRITE_SLOT as u8,
            way: 2,
            index: (home(2, 5) + 1) % g.slots_per_way as u16,
            key: 5,
            value: v.to_bits(),
        },
    ];
    // Each with its key set up, so it is refused for its own reason.
    for u in bad {
        tb.dut.clock(&Inputs {
            stage_key: Some(u.key),
            ..Default::default()
        });
        tb.dut.clock(&Inputs {
            update: Some(u),
            ..Default::default()
        });
    }
    // Counted two cycles after the command (it executes one cycle after it).
    for _ in 0..2 {
        tb.dut.clock(&Inputs::default());
    }
    assert_eq!(tb.dut.status_bad_update_count(), 4);
    // A good update whose key was not set up in the cycle before (another key was).
    tb.dut.clock(&Inputs {
        stage_key: Some(6),
        ..Default::default()
    });
    tb.dut.clock(&Inputs {
        update: Some(Update {
            op: OP_WRITE_SLOT as u8,
            way: 1,
            index: home(1, 5),
            key: 5,
            value: v.to_bits(),
        }),
        ..Default::default()
    });
    for _ in 0..2 {
        tb.dut.clock(&Inputs::default());
    }
    assert_eq!(tb.dut.status_bad_update_count(), 5);
    tb.cycle(Some(5), None);
    tb.drain();
    // Two updates back to back: the first is taken, the second refused (and so is a
    // read-back in the same cycle as an update).
    let at_home = |k: u64| Update {
        op: OP_WRITE_SLOT as u8,
        way: 1,
        index: home(1, k),
        key: k,
        value: v.to_bits(),
    };
    tb.dut.clock(&Inputs {
        stage_key: Some(5),
        ..Default::default()
    });
    tb.dut.clock(&Inputs {
        update: Some(at_home(5)),
        ..Default::default()
    });
    tb.dut.clock(&Inputs {
        update: Some(at_home(6)),
        read: Some((false, 1, home(1, 5))),
        ..Default::default()
    });
    let mut reads = vec![];
    for _ in 0..=FLOW_TABLE_READ_LATENCY {
        reads.extend(tb.dut.clock(&Inputs::default()).read);
    }
    assert_eq!(tb.dut.status_bad_update_count(), 7);
    assert!(reads.is_empty(), "a refused read answered");
    tb.image.apply(&SlotWrite::Slot {
        way: 1,
        index: h.index(1, 5),
        entry: Some((5, v)),
    });
    tb.cycle(Some(5), None);
    tb.cycle(Some(6), None);
    tb.drain();
}
