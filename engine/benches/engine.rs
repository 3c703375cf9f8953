//! Benchmarks of reading melds and searching hands. Run with `cargo bench -p continental-engine`.
//!
//! Criterion times a few named cases; then a percentile pass times every hand of a corpus of
//! hard hands (16 cards, many wilds) one by one and prints p50, p99 and the worst, because a
//! hint must be fast on every hand, not on average.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use engine::{
    Card, ProposedMeld, Reading, Ruleset, Variant, analyse, find_contract, find_go_out, find_layoffs,
    parse_cards,
};

fn cards(list: &str) -> Vec<Card> {
    parse_cards(&list.split_whitespace().collect::<Vec<_>>()).expect("bench cards")
}

fn rules(variant: Variant) -> Ruleset {
    Ruleset::default_for(variant)
}

/// The tests' generator: the corpus is the same on every run.
#[path = "../tests/engine/rng.rs"]
#[expect(dead_code, reason = "the corpus draws with `below` only")]
mod rng;

/// `count` hands of `size` cards from the variant's pack for 4 players, each with `wilds`
/// wild cards (where the pack holds that many) and naturals from `ranks` ranks only, so that
/// melds are near and contended.
fn corpus(
    rules: &Ruleset,
    count: usize,
    size: usize,
    wilds: usize,
    ranks: usize,
    seed: u64,
) -> Vec<Vec<Card>> {
    let mut rng = rng::TestRng::new(seed);
    let pack = rules.pack(4);
    let wild: Vec<Card> = pack.iter().copied().filter(|c| rules.is_wild(*c)).collect();
    let natural: Vec<Card> = pack
        .iter()
        .copied()
        .filter(|c| !rules.is_wild(*c) && c.rank().is_some_and(|r| usize::from(r.number()) < 3 + ranks))
        .collect();
    (0..count)
        .map(|_| {
            let mut hand = Vec::with_capacity(size);
            let mut w = wild.clone();
            let mut n = natural.clone();
            for _ in 0..wilds.min(w.len()) {
                hand.push(w.swap_remove(rng.below(w.len())));
            }
            while hand.len() < size {
                hand.push(n.swap_remove(rng.below(n.len())));
            }
            hand
        })
        .collect()
}

fn read_benches(c: &mut Criterion) {
    let may_i = rules(Variant::MayI);
    let c7 = rules(Variant::Contract7);
    let push = rules(Variant::Push);
    let cont = rules(Variant::Continental);
    let cases: [(&str, &Ruleset, &str); 9] = [
        ("set of 4 naturals (may_i)", &may_i, "7C 7D 7H 7S"),
        ("run of 4 naturals (may_i)", &may_i, "8H 5H 7H 6H"),
        ("run of 4, a joker in the gap (may_i)", &may_i, "8H JK 5H 6H"),
        (
            "run of 4, a red ace at an end (may_i, 2 readings)",
            &may_i,
            "5S 6S 7S AD",
        ),
        ("run of 7, two jokers (contract_7)", &c7, "5C JK 7C 8C JK TC JC"),
        (
            "run of 9, deuces and a joker (continental)",
            &cont,
            "3D 2C 5D 6D JK 8D 2S TD JD",
        ),
        ("set of 6 with wilds (push)", &push, "9C 9D JK 2S 9H 2H"),
        (
            "run of 13 naturals (contract_7)",
            &c7,
            "KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AC",
        ),
        (
            "run of 13, two wilds in gaps (may_i)",
            &may_i,
            "KC QC JC TC JK 8C 7C 6C AD 4C 3C 2C AC",
        ),
    ];
    let mut group = c.benchmark_group("read");
    for (name, rules, list) in cases {
        let meld = ProposedMeld::of(&cards(list));
        group.bench_function(name, |b| b.iter(|| analyse(black_box(rules), black_box(&meld))));
    }
    group.finish();
}

/// The melds `bench/run.sh` sends in batches through HTTP (part 1), read here in process: the
/// engine's own rate on the same melds, one `analyse` each.
fn batch_bench(c: &mut Criterion) {
    let may_i = rules(Variant::MayI);
    let melds: Vec<ProposedMeld> = include_str!("melds.txt")
        .lines()
        .map(|line| ProposedMeld::of(&cards(line)))
        .collect();
    assert_eq!(melds.len(), 1000, "the batch's melds");
    c.bench_function("batch: the 1000 melds of benches/melds.txt (may_i)", |b| {
        b.iter(|| {
            for meld in &melds {
                black_box(analyse(black_box(&may_i), black_box(meld)));
            }
        })
    });
}

/// Named hard hands: many wilds, contended naturals, and hands with no answer (the search
/// must exhaust them).
fn search_benches(c: &mut Criterion) {
    let may_i = rules(Variant::MayI);
    let c7 = rules(Variant::Contract7);
    let push = rules(Variant::Push);
    let cont = rules(Variant::Continental);
    let contracts: [(&str, &Ruleset, u8, &str); 6] = [
        (
            "may_i deal 7, 8 wilds, found",
            &may_i,
            7,
            "JK JK JK JK AH AH AD AD 5H 8H 4C 6C 9S TS 3D KD",
        ),
        (
            "may_i deal 7, 8 wilds, 5 hearts: none",
            &may_i,
            7,
            "JK JK JK JK AH AH AD AD 4H 5H 6H 7H 8H KC 9D 2S",
        ),
        (
            "may_i deal 6, contended sevens",
            &may_i,
            6,
            "7C 7D 7H 7S 5H 6H 8H 5S 6S 8S JK AD 9C 9D 3C KD",
        ),
        (
            "contract_7 deal 7, 13 cards, 2 jokers: none",
            &c7,
            7,
            "JK JK 3H 4H 5H 6H 7H 8H 3S 5S 7S 9S JC",
        ),
        (
            "push deal 5, 10 cards, 6 wilds",
            &push,
            5,
            "JK JK 2C 2D 2H 2S 5H 9C KD 3S",
        ),
        (
            "push deal 4, 16 cards, no set of naturals",
            &push,
            4,
            "3C 4D 5H 6S 7C 8D 9H TS JC QD KH AS 3D 4H 5S 6C",
        ),
    ];
    let mut group = c.benchmark_group("contract");
    for (name, rules, deal, list) in contracts {
        let hand = cards(list);
        group.bench_function(name, |b| {
            b.iter(|| find_contract(black_box(rules), deal, black_box(&hand)))
        });
    }
    group.finish();

    let go_outs: [(&str, &str); 4] = [
        (
            "15 naturals, two long sequences",
            "3C 4C 5C 6C 7C 8C 9C TC 4D 5D 6D 7D 8D 9D TD",
        ),
        (
            "16 cards, 6 wilds",
            "2C 2D 2H 2S JK JK 3C 5C 7H 8H TD QD KS 9S 4C 6D",
        ),
        (
            "16 cards, 2 wilds, none",
            "3C 5C 7C 9C JC KC 3D 5D 7D 9D JD KD 3H 5H JK 2S",
        ),
        (
            "16 cards, 3 wilds, near misses: none",
            "3C 4C 6C 7C 9C TC QC KC 3D 4D 6D 7D 9D JK 2C 2D",
        ),
    ];
    let mut group = c.benchmark_group("go_out");
    for (name, list) in go_outs {
        let hand = cards(list);
        group.bench_function(name, |b| {
            b.iter(|| find_go_out(black_box(&cont), black_box(&hand)))
        });
    }
    group.finish();

    let table: Vec<Reading> = ["5H 6H 7H 8H", "7C 7D 7S", "9S TS JS QS", "KC KD KH"]
        .iter()
        .map(|m| engine::read(&may_i, &ProposedMeld::of(&cards(m))).expect("a meld"))
        .collect();
    let hand = cards("4H 9H 7H 9S JK 7C AD KS 8S 2C 3D QS 5C 6D TH JH");
    c.bench_function("layoffs: 16 cards on 4 melds (may_i)", |b| {
        b.iter(|| find_layoffs(black_box(&may_i), black_box(&hand), black_box(&table)))
    });
}

/// Times `run` on every hand (best of 3, to keep other processes' noise out) and prints the
/// percentiles across hands.
fn percentiles(name: &str, hands: &[Vec<Card>], run: &dyn Fn(&[Card]) -> bool) {
    let mut times: Vec<Duration> = Vec::with_capacity(hands.len());
    let mut found = 0;
    for hand in hands {
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            let ok = black_box(run(black_box(hand)));
            best = best.min(start.elapsed());
            found += usize::from(ok);
        }
        times.push(best);
    }
    times.sort_unstable();
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    println!(
        "{name:<58} {:>5} hands {:>4}% found  p50 {:>9.1?}  p99 {:>9.1?}  max {:>9.1?}",
        hands.len(),
        found * 100 / (3 * hands.len()),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

fn corpus_percentiles() {
    println!("\nsearch over corpora of hard hands (best of 3 per hand):");
    for (variant, deals, size) in [
        (Variant::MayI, 1..=7u8, 16),
        (Variant::Contract7, 1..=7, 13),
        (Variant::Push, 1..=5, 16),
    ] {
        let rules = rules(variant);
        for deal in deals {
            for wilds in [2, 5, 8] {
                let hands = corpus(&rules, 1000, size, wilds, 6, u64::from(deal) * 31 + wilds as u64);
                percentiles(
                    &format!("{variant} deal {deal}: {size} cards, {wilds} wilds"),
                    &hands,
                    &|h| find_contract(&rules, deal, h).is_some(),
                );
            }
        }
    }
    // Claims grow a may_i hand by two cards each: 24 cards after six of them.
    let may_i = rules(Variant::MayI);
    for wilds in [2, 5] {
        let hands = corpus(&may_i, 1000, 24, wilds, 6, 700 + wilds as u64);
        percentiles(
            &format!("may_i deal 7: 24 cards (after claims), {wilds} wilds"),
            &hands,
            &|h| find_contract(&may_i, 7, h).is_some(),
        );
    }
    let cont = rules(Variant::Continental);
    for (size, wilds, ranks) in [
        (15, 3, 10),
        (16, 3, 8),
        (16, 4, 6),
        (16, 6, 6),
        (16, 6, 10),
        (16, 8, 8),
        (16, 10, 10),
    ] {
        let hands = corpus(&cont, 1000, size, wilds, ranks, size as u64 * 7 + wilds as u64);
        percentiles(
            &format!("continental go out: {size} cards, {wilds} wilds, {ranks} ranks"),
            &hands,
            &|h| find_go_out(&cont, h).is_some(),
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    read_benches(&mut c);
    batch_bench(&mut c);
    search_benches(&mut c);
    c.final_summary();
    // `cargo test --benches` runs this binary with `--bench` absent: skip the slow pass.
    if std::env::args().any(|a| a == "--bench") {
        corpus_percentiles();
    }
}
