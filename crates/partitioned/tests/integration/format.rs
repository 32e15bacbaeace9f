// The file format: round trips, every rejection rule, corruption.

use bloomlab_hash::{Family, HutoolHash};
use bloomlab_partitioned::{
    AnyPartitioned, Error, HutoolBitMap, HutoolBitSet, HutoolFilterClass,
    PartitionedBloomFilter, SliceReduction, SliceSpec,
};

/// Recomputes the trailing checksum, so a test can reach the checks
/// behind it.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 8;
    let sum = bloomlab_core::framing::checksum(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
}

fn general() -> PartitionedBloomFilter {
    let mut f = PartitionedBloomFilter::new(500, 0.01).unwrap();
    for i in 0..300u64 {
        f.insert(&i);
    }
    f
}

fn samples() -> Vec<AnyPartitioned> {
    let mut slices = PartitionedBloomFilter::with_slices(vec![
        SliceSpec::new(Family::Xxh64, 100).seed(5),
        SliceSpec::new(Family::Hutool(HutoolHash::Ap), 77)
            .reduction(SliceReduction::JavaAbsRemainder),
        SliceSpec::new(Family::Murmur3X86_32, 64)
            .reduction(SliceReduction::Modulo),
    ])
    .unwrap();
    slices.insert("x");
    let mut bitmap = HutoolBitMap::with_filters(
        7,
        &[(HutoolFilterClass::Tianl, 1024), (HutoolFilterClass::Hf, 64)],
    )
    .unwrap();
    bitmap.add("10.0.0.1");
    let mut bitset = HutoolBitSet::new(100, 50, 10).unwrap();
    bitset.add("k0");
    vec![general().into(), slices.into(), bitmap.into(), bitset.into()]
}

#[test]
fn round_trips_every_kind() {
    for f in samples() {
        let bytes = f.to_bytes().unwrap();
        assert_eq!(&bytes[..8], b"BLOOMLAB");
        assert_eq!(&bytes[8..12], &[1, 0, 3, 0]);
        let back = AnyPartitioned::read(&bytes).unwrap();
        assert_eq!(back, f);
        let info = back.info().to_string();
        assert!(info.contains("variant: partitioned"), "{info}");
    }
}

#[test]
fn the_default_hutool_bitmap_round_trips() {
    let mut f = HutoolBitMap::new(5).unwrap();
    f.add("word-0");
    let bytes = AnyPartitioned::from(f.clone()).to_bytes().unwrap();
    // Header, preset, m, 5 × (name + size), bits, words, checksum.
    let back = AnyPartitioned::read(&bytes).unwrap();
    let AnyPartitioned::HutoolBitMap(g) = back else { panic!() };
    assert!(g.is_default());
    assert_eq!(g.constructor(), "new BitMapBloomFilter(5)");
    assert!(g.contains("word-0"));
    assert_eq!(g, f);
}

fn err(bytes: &[u8]) -> Error {
    AnyPartitioned::read(bytes).unwrap_err()
}

#[test]
fn rejections() {
    let good = AnyPartitioned::from(general()).to_bytes().unwrap();
    // Header fields.
    assert!(matches!(err(b"GUAVA..."), Error::UnknownFormat(_)));
    let mut b = good.clone();
    b[8] = 2;
    assert!(matches!(err(&b), Error::UnsupportedVersion(2)));
    let mut b = good.clone();
    b[10] = 0;
    assert!(matches!(err(&b), Error::WrongVariant(0)));
    let mut b = good.clone();
    b[11] = 1;
    assert!(matches!(err(&b), Error::Corrupt { what: "flags", .. }));
    // Truncation anywhere, trailing bytes, checksum.
    for cut in 0..good.len() {
        assert!(AnyPartitioned::read(&good[..cut]).is_err(), "cut {cut}");
    }
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(err(&b), Error::TrailingBytes { extra: 1, .. }));
    let mut b = good.clone();
    let last_word = b.len() - 9;
    b[last_word] ^= 1;
    assert!(matches!(err(&b), Error::Checksum { .. }));
    // Behind a valid checksum: unknown preset, unknown names, k = 0.
    let mut b = good.clone();
    b[12] = 9;
    reseal(&mut b);
    assert!(matches!(err(&b), Error::Corrupt { what: "preset", .. }));
    let mut b = good.clone();
    b[15] = b'?'; // a letter of the family name
    reseal(&mut b);
    assert!(matches!(err(&b), Error::Hash(_)), "{}", err(&b));
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    // A strategy layout with k = 4096 slices of 2^50 bits, and a word
    // count to match: the reader must see that the words are not there.
    let f = general();
    let bytes = AnyPartitioned::from(f).to_bytes().unwrap();
    // Find the k / slice-bits fields: after header (12), preset (1),
    // layout (1), three names, seed (8).
    let mut pos = 14;
    for _ in 0..3 {
        pos += 1 + bytes[pos] as usize;
    }
    pos += 8;
    let mut b = bytes[..pos].to_vec();
    b.extend_from_slice(&4096u32.to_le_bytes());
    b.extend_from_slice(&(1u64 << 50).to_le_bytes());
    let total = 4096u64 << 50;
    b.extend_from_slice(&total.to_le_bytes());
    b.extend_from_slice(&total.div_ceil(64).to_le_bytes());
    b.extend_from_slice(&[0; 16]);
    assert!(matches!(
        err(&b),
        Error::Truncated { what: "words and checksum", .. }
    ));
    // k beyond the maximum.
    let mut c = bytes[..pos].to_vec();
    c.extend_from_slice(&u32::MAX.to_le_bytes());
    c.extend_from_slice(&[0; 40]);
    assert!(matches!(err(&c), Error::Corrupt { what: "k", .. }));
    // A stored total that disagrees with k · s.
    let mut d = bytes.clone();
    let at = pos + 12;
    d[at] ^= 1;
    reseal(&mut d);
    assert!(matches!(err(&d), Error::Corrupt { what: "bits", .. }));
    // The message gives the size the layout before it implies.
    let stored = u64::from_le_bytes(d[at..at + 8].try_into().unwrap());
    assert_eq!(
        err(&d).to_string(),
        format!(
            "corrupt input: bits = {stored} (the layout gives {}): does not \
             match the layout stored before it",
            stored ^ 1
        )
    );
}

#[test]
fn hutool_presets_are_validated_on_read() {
    // A BitSet whose c·k overflows, and a BitMap filter size that is not
    // a multiple of 32: refused even behind a valid checksum.
    let mut f = HutoolBitSet::new(64, 10, 2).unwrap();
    f.add("a");
    let good = AnyPartitioned::from(f).to_bytes().unwrap();
    let mut b = good.clone();
    b[13..17].copy_from_slice(&i32::MAX.to_le_bytes()); // c
    reseal(&mut b);
    assert!(AnyPartitioned::read(&b).is_err());
    let bm =
        HutoolBitMap::with_filters(5, &[(HutoolFilterClass::Rs, 64)]).unwrap();
    let good = AnyPartitioned::from(bm).to_bytes().unwrap();
    // preset 1: m (4), count (4), name "RSFilter" (1 + 8), size (8).
    let size_at = 13 + 4 + 4 + 9;
    let mut b = good.clone();
    b[size_at..size_at + 8].copy_from_slice(&63u64.to_le_bytes());
    reseal(&mut b);
    assert!(AnyPartitioned::read(&b).is_err());
}

#[test]
fn each_type_saves_and_reads_itself() {
    let mut general = PartitionedBloomFilter::new(500, 0.01).unwrap();
    let mut bitset = HutoolBitSet::new(1000, 300, 8).unwrap();
    for i in 0..200u64 {
        general.insert(&i);
        bitset.add(&i.to_string());
    }
    // The same bytes as through AnyPartitioned, without a copy.
    let bytes = general.to_bytes().unwrap();
    let via_any = AnyPartitioned::from(general.clone()).to_bytes().unwrap();
    assert_eq!(bytes, via_any);
    assert_eq!(PartitionedBloomFilter::read(&bytes).unwrap(), general);
    let set_bytes = bitset.to_bytes().unwrap();
    assert_eq!(HutoolBitSet::read(&set_bytes).unwrap(), bitset);

    // Another type's file says which it holds and how to read it.
    let err = HutoolBitSet::read(&bytes).unwrap_err();
    assert!(matches!(
        err,
        Error::WrongPreset {
            expected: "hutool-bitset",
            found: "general partitioned"
        }
    ));
    assert!(err.to_string().contains("AnyPartitioned::read"), "{err}");
    let err = HutoolBitMap::read(&set_bytes).unwrap_err();
    assert!(err.to_string().starts_with("the file holds a hutool-bitset"));

    // Corrupt input is still an error.
    let mut bad = bytes.clone();
    bad[40] ^= 1;
    assert!(PartitionedBloomFilter::read(&bad).is_err());
    assert!(PartitionedBloomFilter::read(&bytes[..30]).is_err());
}
