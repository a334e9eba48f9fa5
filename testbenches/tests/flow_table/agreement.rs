//! rust-hdl's simulator against the Verilator model, and random update sequences.

use super::*;

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
    let mut next_update: Option<Update> = None;
    for c in 0..600 {
        let r = next();
        if pending.is_empty() && c < 500 {
            let k = random_key(r) & 0xff_0000_ffff; // a small key space: stash and moves
            if r.is_multiple_of(5) && !keys.is_empty() {
                let k = keys.swap_remove(r as usize % keys.len());
                pending.extend(t.delete(k).unwrap());
            } else if let Ok(ws) = t.insert(k, value_for(r)) {
                pending.extend(ws);
                keys.push(k);
            }
        }
        // Updates in even cycles, each key set up in the odd cycle before (and, one in
        // seven, not: refused). Force some stash traffic: the small table is not full, so
        // write the stash directly.
        if c % 2 == 1 {
            next_update = if c % 17 == 0 {
                Some(Update::from(&SlotWrite::Stash {
                    index: (c / 17) % g.stash,
                    entry: Some((r >> 8, value_for(r))),
                }))
            } else {
                pending.pop_front().map(|w| Update::from(&w))
            };
        }
        let update = next_update.filter(|_| c % 2 == 0);
        let stage_key = next_update
            .filter(|_| c % 2 == 1 && c % 7 != 0)
            .map(|u| u.key);
        let lookup = if keys.is_empty() || r.is_multiple_of(4) {
            Some((random_key(r >> 3), c as u16))
        } else {
            Some((keys[r as usize % keys.len()], c as u16))
        };
        // Read-backs in cycles without an update, alternating stash and ways.
        let read = (update.is_none() && c % 3 == 0).then_some((
            c % 2 == 0,
            (r % 4) as u8,
            ((r >> 20) % 64) as u16,
        ));
        let i = Inputs {
            rst: c == 550,
            lookup,
            update,
            stage_key,
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
                let probe = if c.is_multiple_of(lookup_every) {
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
