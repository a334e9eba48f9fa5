use super::*;

fn settle<B: Block>(b: &mut B) {
    assert!(simulate(b, 100));
}

fn bits(set: &[usize]) -> Bits<N> {
    let mut v: Bits<N> = Default::default();
    for &i in set {
        v = v.replace_bit(i, true);
    }
    v
}

#[test]
fn priority_search_in_two_halves() {
    for from_top in [false, true] {
        let mut a = SetGroups::new(from_top);
        let mut b = SetFinish::new(from_top);
        a.connect_all();
        b.connect_all();
        a.m.next = bits(&(0..N).collect::<Vec<_>>());
        for set in [
            vec![],
            vec![0],
            vec![255],
            vec![17, 18, 200],
            vec![5, 250, 16 * 7 + 3],
        ] {
            a.v.next = bits(&set);
            settle(&mut a);
            b.any.next = a.any.val();
            b.idx.next = a.idx.val();
            settle(&mut b);
            let want = if from_top {
                set.iter().max()
            } else {
                set.iter().min()
            };
            assert_eq!(b.found.val(), want.is_some(), "{set:?}");
            assert_eq!(
                b.pos.val().index(),
                *want.unwrap_or(&0),
                "{set:?} top {from_top}"
            );
        }
    }
}

#[test]
fn two_set_search_takes_a_first() {
    for from_top in [false, true] {
        let mut ga = SetGroups::new(from_top);
        let mut gb = SetGroups::new(from_top);
        let mut f = SetFinish2::new(from_top);
        ga.connect_all();
        gb.connect_all();
        f.connect_all();
        ga.m.next = bits(&(0..N).collect::<Vec<_>>());
        gb.m.next = bits(&(0..N).collect::<Vec<_>>());
        for (a, b) in [
            (vec![], vec![]),
            (vec![], vec![3, 90]),
            (vec![200, 7], vec![1]),
            (vec![255], vec![0, 255]),
        ] {
            ga.v.next = bits(&a);
            gb.v.next = bits(&b);
            settle(&mut ga);
            settle(&mut gb);
            f.any_a.next = ga.any.val();
            f.idx_a.next = ga.idx.val();
            f.any_b.next = gb.any.val();
            f.idx_b.next = gb.idx.val();
            settle(&mut f);
            let pick = |v: &Vec<usize>| {
                if from_top {
                    v.iter().max()
                } else {
                    v.iter().min()
                }
                .copied()
            };
            let want = pick(&a).map(|p| (p, false)).or(pick(&b).map(|p| (p, true)));
            assert_eq!(f.found.val(), want.is_some());
            if let Some((p, from_b)) = want {
                assert_eq!(
                    (f.pos.val().index(), f.from_b.val()),
                    (p, from_b),
                    "{a:?} {b:?}"
                );
            }
        }
    }
}

#[test]
fn group_search_applies_its_mask_or_its_inverse() {
    let v = [3usize, 40, 41, 130, 254];
    let keep = [40usize, 130, 200];
    for from_top in [false, true] {
        for invert_m in [false, true] {
            let mut a = SetGroups::new_apart(from_top, invert_m);
            let mut b = SetFinish::new(from_top);
            a.connect_all();
            b.connect_all();
            a.v.next = bits(&v);
            a.m.next = bits(&keep);
            settle(&mut a);
            b.any.next = a.any.val();
            b.idx.next = a.idx.val();
            settle(&mut b);
            let left: Vec<usize> = v
                .iter()
                .copied()
                .filter(|i| keep.contains(i) != invert_m)
                .collect();
            let want = if from_top {
                left.iter().max()
            } else {
                left.iter().min()
            };
            assert_eq!(b.found.val(), want.is_some());
            assert_eq!(
                b.pos.val().index(),
                *want.unwrap_or(&0),
                "top {from_top} invert {invert_m}"
            );
        }
    }
}

#[test]
fn popcount_rotate_decode_thermo() {
    let mut p = PopGroups::default();
    p.connect_all();
    let set: Vec<usize> = (0..256).filter(|i| i % 3 == 0 || i % 7 == 1).collect();
    p.v.next = bits(&set);
    settle(&mut p);
    let c = p.counts.val();
    let mut partial: Bits<28> = Default::default();
    let mut s = Sum4::default();
    s.connect_all();
    for q in 0..4 {
        let mut four: Bits<28> = Default::default();
        for i in 0..4 {
            four.set_bits::<7>(7 * i, bit_cast::<7, 5>(c.get_bits::<5>(5 * (4 * q + i))));
        }
        s.a.next = four;
        settle(&mut s);
        partial.set_bits::<7>(7 * q, s.total.val().get_bits::<7>(0));
    }
    s.a.next = partial;
    settle(&mut s);
    assert_eq!(s.total.val().index(), set.len());
    let (mut hi, mut lo) = (RotR16::new(16), RotR16::new(1));
    hi.connect_all();
    lo.connect_all();
    hi.v.next = bits(&[3, 200]);
    hi.amt.next = 12u64.into();
    settle(&mut hi);
    lo.v.next = hi.out.val();
    lo.amt.next = 8u64.into();
    settle(&mut lo);
    assert_eq!(lo.out.val(), bits(&[0, 59]));
    let mut grp = Group16::default();
    grp.connect_all();
    grp.v.next = bits(&[15, 16, 47, 255]);
    for (g, want) in [
        (0u64, 1u64 << 15),
        (1, 1),
        (2, 1 << 15),
        (15, 1 << 15),
        (7, 0),
    ] {
        grp.g.next = g.into();
        settle(&mut grp);
        assert_eq!(grp.out.val(), Bits::<16>::from(want), "group {g}");
    }
    let mut d = Decode256::default();
    let mut t = Thermo256::default();
    d.connect_all();
    t.connect_all();
    d.idx.next = 77u64.into();
    t.idx.next = 3u64.into();
    settle(&mut d);
    settle(&mut t);
    assert_eq!(d.oh.val(), bits(&[77]));
    assert_eq!(t.lt.val(), bits(&[0, 1, 2]));
}
