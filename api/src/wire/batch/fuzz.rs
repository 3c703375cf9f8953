//! The hand-written batch reader fuzzed against serde: over generated bodies (batches written
//! plainly, near misses of one, and hostile bytes), wherever [`plain_batch`] or [`plain_meld`]
//! answers, serde reads the same; and the whole reader ([`MeldBatch::read`]) answers every body
//! with the very bytes (or the very problem) that serde's reading of it gives, never panicking.
//!
//! 2,000 bodies a run; `PROPTEST_CASES` asks for more. A failure is kept by proptest in
//! `api/proptest-regressions/` and replayed first on every run: commit it with the fix.

use engine::{ProposedMeld, analyse};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::{
    MAX_MELD_BATCH, MeldBatch, MeldBatchRequest, MeldBatchResponse, batch_rules, plain_batch, plain_meld,
};
use crate::wire::{Invalid, parse_json};

/// JSON as a tree whose strings are the bytes between their quotes, written as they are
/// (escapes, control characters and bytes that are not UTF-8 included), so that a tree may
/// be well-formed JSON or any near miss of it.
#[derive(Clone, Debug)]
enum Shape {
    /// A token written as it is: `null`, `true`, a number or a near miss of one.
    Raw(&'static str),
    /// A string with these bytes between its quotes.
    Str(Vec<u8>),
    /// A list.
    List(Vec<Shape>),
    /// An object: each key (the bytes between its quotes) and value, in order.
    Object(Vec<(Vec<u8>, Shape)>),
}

impl Shape {
    /// A string of `text`.
    fn text(text: &str) -> Shape {
        Shape::Str(text.as_bytes().to_vec())
    }

    /// The JSON of the tree, with the whitespace of `space` (taken in turn, again and again)
    /// around every token.
    fn write(&self, space: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut spaces = space.iter().cycle();
        let mut gap = |out: &mut Vec<u8>| out.extend_from_slice(spaces.next().copied().unwrap_or_default());
        gap(&mut out);
        self.write_into(&mut out, &mut gap);
        gap(&mut out);
        out
    }

    fn write_into(&self, out: &mut Vec<u8>, gap: &mut impl FnMut(&mut Vec<u8>)) {
        let quoted = |out: &mut Vec<u8>, bytes: &[u8]| {
            out.push(b'"');
            out.extend_from_slice(bytes);
            out.push(b'"');
        };
        match self {
            Shape::Raw(token) => out.extend_from_slice(token.as_bytes()),
            Shape::Str(bytes) => quoted(out, bytes),
            Shape::List(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    gap(out);
                    if i > 0 {
                        out.push(b',');
                        gap(out);
                    }
                    item.write_into(out, gap);
                }
                gap(out);
                out.push(b']');
            }
            Shape::Object(fields) => {
                out.push(b'{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    gap(out);
                    if i > 0 {
                        out.push(b',');
                        gap(out);
                    }
                    quoted(out, key);
                    gap(out);
                    out.push(b':');
                    gap(out);
                    value.write_into(out, gap);
                }
                gap(out);
                out.push(b'}');
            }
        }
    }
}

/// Whitespace between tokens: none or JSON's own four, mostly.
fn space() -> impl Strategy<Value = &'static [u8]> {
    select(vec![
        &b""[..],
        b"",
        b"",
        b" ",
        b"\t",
        b"\n",
        b"\r",
        b"\r\n",
        b"  \n\t ",
    ])
}

/// Whitespace JSON does not take: form feed, vertical tab, a no-break space, a line separator,
/// a byte order mark, a NUL.
fn foreign_space() -> impl Strategy<Value = &'static [u8]> {
    select(vec![
        &b"\x0c"[..],
        b"\x0b",
        "\u{a0}".as_bytes(),
        "\u{2028}".as_bytes(),
        "\u{feff}".as_bytes(),
        b"\0",
    ])
}

/// The whitespace of a body, taken in turn between its tokens: JSON's alone in most bodies,
/// with some of what JSON does not take in a few.
fn spaces() -> impl Strategy<Value = Vec<&'static [u8]>> {
    prop_oneof![
        6 => vec(space(), 1..12),
        1 => vec(prop_oneof![4 => space(), 1 => foreign_space()], 1..12),
    ]
}

/// Tokens that are not strings: JSON's, and near misses of a number.
fn token() -> impl Strategy<Value = &'static str> {
    select(vec![
        "null",
        "true",
        "false",
        "0",
        "-0",
        "7",
        "42",
        "1.5",
        "2.0",
        "1e400",
        "-1E-2",
        "01",
        "1.",
        "-",
        "+1",
        "NaN",
        "Infinity",
        "nul",
        "123456789012345678901234567890",
    ])
}

/// The bytes of a card's name between its quotes: a card (as JSON may write it) or a near miss.
fn card_name() -> impl Strategy<Value = Vec<u8>> {
    let ranks = vec![
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "a", "t", "j", "q", "k",
    ];
    let suits = vec!["C", "D", "H", "S", "c", "d", "h", "s"];
    let misses: Vec<&[u8]> = vec![
        b"",
        b"ZZ",
        b"1C",
        b"11H",
        b"0H",
        b"7X",
        b" 7H",
        b"7H ",
        b"\\u0037H",
        b"7\\u0048",
        b"7H\\u0000",
        b"7\\\\H",
        b"\\\"",
        b"7H\\n",
        b"7H\\",
        b"\\ud800",
        b"\\x41",
        b"7\0H",
        b"7\x1fH",
        b"7\x7fH",
        b"J K",
        b"JKR",
        b"joker",
        "７H".as_bytes(),
        "é".as_bytes(),
        b"\xff",
        b"7\xc3",
        b"\xed\xa0\x80",
        b"\xc0\xb7H",
    ];
    prop_oneof![
        24 => (select(ranks), select(suits)).prop_map(|(r, s)| format!("{r}{s}").into_bytes()),
        3 => select(vec!["JK", "jk", "Jk"]).prop_map(|j| j.as_bytes().to_vec()),
        1 => select(misses).prop_map(<[u8]>::to_vec),
    ]
}

/// A list of cards: mostly a hand's worth, at times around the most a meld may hold, at times
/// with items that are no card's name.
fn cards() -> impl Strategy<Value = Shape> {
    prop_oneof![
        16 => vec(card_name().prop_map(Shape::Str), 0..8).prop_map(Shape::List),
        1 => (card_name(), 38..43_usize).prop_map(|(name, n)| Shape::List(vec![Shape::Str(name); n])),
        1 => vec(prop_oneof![card_name().prop_map(Shape::Str), token().prop_map(Shape::Raw)], 0..4)
            .prop_map(Shape::List),
    ]
}

/// Lists nested `depth` deep around a card: past serde's limit of 128 at times.
fn nested(depth: usize) -> Shape {
    (0..depth).fold(Shape::text("7H"), |inner, _| Shape::List(vec![inner]))
}

/// An item of a batch: mostly a meld of its cards alone, at times one with more fields (or a
/// field twice, or unknown, or its key escaped), at times no meld at all.
fn meld() -> impl Strategy<Value = Shape> {
    let field = prop_oneof![
        Just((b"kind".to_vec(), Shape::text("set"))),
        Just((b"kind".to_vec(), Shape::text("run"))),
        Just((b"kind".to_vec(), Shape::text("pair"))),
        Just((b"kind".to_vec(), Shape::Raw("null"))),
        Just((
            b"wilds".to_vec(),
            Shape::List(vec![Shape::Object(vec![
                (b"card".to_vec(), Shape::text("JK")),
                (b"represents".to_vec(), Shape::text("7H")),
            ])]),
        )),
        Just((b"wilds".to_vec(), Shape::List(vec![]))),
        cards().prop_map(|c| (b"cards".to_vec(), c)),
        cards().prop_map(|c| (b"Cards".to_vec(), c)),
        cards().prop_map(|c| (b"card\\u0073".to_vec(), c)),
        Just((b"colour".to_vec(), Shape::text("red"))),
        token().prop_map(|t| (b"cards".to_vec(), Shape::Raw(t))),
    ];
    prop_oneof![
        40 => cards().prop_map(|c| Shape::Object(vec![(b"cards".to_vec(), c)])),
        3 => (cards(), vec(field, 1..3))
            .prop_flat_map(|(c, mut more)| {
                more.push((b"cards".to_vec(), c));
                Just(more).prop_shuffle()
            })
            .prop_map(Shape::Object),
        1 => token().prop_map(Shape::Raw),
        1 => card_name().prop_map(Shape::Str),
        1 => cards(),
        1 => Just(Shape::Object(vec![])),
        1 => (1..300_usize).prop_map(nested),
    ]
}

/// A batch: `variant` and `melds` in either order, mostly as the document has them, at times
/// a variant that is none, an `options`, a field twice, or one unknown.
fn batch() -> impl Strategy<Value = Shape> {
    let variant = prop_oneof![
        24 => select(vec!["may_i", "contract_7", "continental", "push"]).prop_map(Shape::text),
        2 => select(vec![
            "May_I", "may_i ", "may\\u005fi", "mayi", "push\\u0000", "", "contract7", "CONTINENTAL", "rummy",
        ])
        .prop_map(Shape::text),
        1 => token().prop_map(Shape::Raw),
    ];
    let extra = prop_oneof![
        3 => Just((b"options".to_vec(), Shape::Object(vec![]))),
        3 => Just((b"options".to_vec(), Shape::Raw("null"))),
        3 => Just((
            b"options".to_vec(),
            Shape::Object(vec![(b"deuces_wild".to_vec(), Shape::Raw("true"))])
        )),
        1 => Just((b"variant".to_vec(), Shape::text("push"))),
        1 => Just((b"melds".to_vec(), Shape::List(vec![]))),
        1 => Just((b"extra".to_vec(), Shape::Raw("1"))),
        1 => Just((b"meld\\u0073".to_vec(), Shape::List(vec![]))),
    ];
    let melds = prop_oneof![
        24 => vec(meld(), 0..6).prop_map(Shape::List),
        1 => meld(),
        1 => token().prop_map(Shape::Raw),
    ];
    let extras = prop_oneof![3 => Just(Vec::new()), 1 => vec(extra, 1..3)];
    let left_out = || proptest::bool::weighted(0.03);
    (variant, melds, extras, left_out(), left_out())
        .prop_flat_map(|(variant, melds, extra, without_variant, without_melds)| {
            let mut fields = Vec::new();
            if !without_variant {
                fields.push((b"variant".to_vec(), variant));
            }
            if !without_melds {
                fields.push((b"melds".to_vec(), melds));
            }
            fields.extend(extra);
            Just(fields).prop_shuffle()
        })
        .prop_map(Shape::Object)
}

/// What is done to a body's bytes once written: nothing (most of the time), or a cut, a byte
/// put in, changed or taken out, bytes after its end.
#[derive(Clone, Debug)]
enum Damage {
    None,
    Truncate(Index),
    Insert(Index, u8),
    Replace(Index, u8),
    Delete(Index),
    Trailing(&'static [u8]),
}

fn damage() -> impl Strategy<Value = Damage> {
    let hostile = prop_oneof![
        3 => select(vec![
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'0', b'-', b'e', 0, 0x1f, 0x0c, 0x7f, 0x80, 0xc3,
            0xff,
        ]),
        1 => any::<u8>(),
    ];
    prop_oneof![
        15 => Just(Damage::None),
        1 => any::<Index>().prop_map(Damage::Truncate),
        1 => (any::<Index>(), hostile.clone()).prop_map(|(at, b)| Damage::Insert(at, b)),
        1 => (any::<Index>(), hostile).prop_map(|(at, b)| Damage::Replace(at, b)),
        1 => any::<Index>().prop_map(Damage::Delete),
        1 => select(vec![&b"x"[..], b"[]", b"{}", b" \x0c", b"\0", b",", b"}"]).prop_map(Damage::Trailing),
    ]
}

impl Damage {
    fn to(&self, mut body: Vec<u8>) -> Vec<u8> {
        let at = |i: &Index, len: usize| if len == 0 { 0 } else { i.index(len) };
        match self {
            Damage::None => {}
            Damage::Truncate(i) => body.truncate(at(i, body.len())),
            Damage::Insert(i, b) => body.insert(at(i, body.len() + 1), *b),
            Damage::Replace(i, b) => {
                if !body.is_empty() {
                    let i = at(i, body.len());
                    body[i] = *b;
                }
            }
            Damage::Delete(i) => {
                if !body.is_empty() {
                    body.remove(at(i, body.len()));
                }
            }
            Damage::Trailing(more) => body.extend_from_slice(more),
        }
        body
    }
}

/// A body: a batch (or an item alone), written with whitespace, then maybe damaged.
fn body(of: impl Strategy<Value = Shape>) -> impl Strategy<Value = Vec<u8>> {
    (of, spaces(), damage()).prop_map(|(shape, space, damage)| damage.to(shape.write(&space)))
}

/// A refusal as the client reads it: its code, its detail, and what refused it.
fn problem(e: &Invalid) -> String {
    format!("{} {:?}: {}", e.code.as_str(), e.by, e.detail)
}

/// The batch in `body` as serde reads it, and each item as serde reads it alone: what the
/// hand-written reader must answer alike.
fn by_serde(body: &[u8]) -> Result<MeldBatch, Invalid> {
    let batch: MeldBatchRequest = parse_json(body)?;
    Ok(MeldBatch {
        variant: batch.variant,
        options: batch.options,
        melds: batch
            .melds
            .iter()
            .map(|item| parse_json::<ProposedMeld>(item.get().as_bytes()))
            .collect(),
    })
}

/// The answer `POST /v1/melds/validate-batch` makes of a batch read: its body, or its problem.
fn answer(read: Result<MeldBatch, Invalid>) -> Result<Vec<u8>, String> {
    let batch = read.map_err(|e| problem(&e))?;
    let rules = batch_rules(batch.variant, batch.options, batch.melds.len(), MAX_MELD_BATCH)
        .map_err(|e| problem(&e))?;
    let results = batch
        .melds
        .into_iter()
        .map(|meld| meld.map(|meld| analyse(&rules, &meld)));
    MeldBatchResponse::json(results).map_err(|e| problem(&e))
}

/// Whether the reader of `body` agrees with serde: the plain reading, where it answers, is the
/// batch serde reads, each item the meld serde reads; and the whole reader answers as serde.
fn agrees(body: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(body);
    if let Some(plain) = plain_batch(body) {
        let serde = by_serde(body);
        let Ok(serde) = serde else {
            return Err(TestCaseError::fail(format!(
                "plain_batch read {text:?}, which serde refuses: {:?}",
                serde.err().map(|e| problem(&e))
            )));
        };
        prop_assert_eq!(plain.variant, serde.variant, "{}", text);
        prop_assert_eq!(&plain.options, &serde.options, "{}", text);
        let plain: Vec<Option<&ProposedMeld>> = plain.melds.iter().map(|m| m.as_ref().ok()).collect();
        let serde: Vec<Option<&ProposedMeld>> = serde.melds.iter().map(|m| m.as_ref().ok()).collect();
        prop_assert!(plain.iter().all(Option::is_some), "{}", text);
        prop_assert_eq!(plain, serde, "{}", text);
    }
    let read = std::panic::catch_unwind(|| MeldBatch::read(body))
        .map_err(|_| TestCaseError::fail(format!("the reader panicked on {text:?}")))?;
    let (read, serde) = (answer(read), answer(by_serde(body)));
    prop_assert_eq!(
        read.as_ref().map(|b| String::from_utf8_lossy(b)),
        serde.as_ref().map(|b| String::from_utf8_lossy(b)),
        "{}",
        text
    );
    prop_assert_eq!(read, serde, "the same bytes: {}", text);
    Ok(())
}

/// Whether [`plain_meld`] of `item`, where it answers, is the meld serde reads.
fn meld_agrees(item: &[u8]) -> Result<(), TestCaseError> {
    if let Some(plain) = plain_meld(item) {
        let serde = parse_json::<ProposedMeld>(item).map_err(|e| problem(&e));
        prop_assert_eq!(Ok(plain), serde, "{}", String::from_utf8_lossy(item));
    }
    Ok(())
}

/// Bodies a run: 2,000, or `PROPTEST_CASES`.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn the_batch_reader_answers_as_serde(body in body(batch())) {
        agrees(&body)?;
    }

    #[test]
    fn the_meld_reader_reads_as_serde(item in body(meld())) {
        meld_agrees(&item)?;
        // An item is a body too: never a batch, answered as serde answers it.
        agrees(&item)?;
    }
}

/// A few bodies of the kinds the generator makes, written out: a reader that breaks on one of
/// them fails here by name, whatever the search draws.
#[test]
fn hostile_bodies_are_answered_as_serde() {
    let bodies: [&[u8]; 8] = [
        br#"{"variant":"may_i","melds":[{"cards":["7H","7S","7D"]}]}"#,
        b"{\"variant\":\"may_i\",\"melds\":[{\"cards\":[\"7\xffH\"]}]}",
        b"{\"variant\":\"may_i\",\"melds\":[{\"cards\":[\"7H\"]}]}\x0c",
        b"\xef\xbb\xbf{\"variant\":\"may_i\",\"melds\":[]}",
        br#"{"variant":"may_i","melds":[{"cards":["7H"]}"#,
        br#"{"variant":"push","melds":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["7H"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        br#"{"variant":"may_i","melds":[{"cards":["7H"],"cards":["7S"]}],"variant":"push"}"#,
        br#"{"melds":[{"cards":["10c","JK"]}],"variant":"contract_7","options":null}"#,
    ];
    for body in bodies {
        if let Err(e) = agrees(body) {
            panic!("{e}");
        }
        if let Err(e) = meld_agrees(body) {
            panic!("{e}");
        }
    }
}

/// The bodies generated are of every kind the reader meets, in shares that test each: batches
/// the plain reading answers, batches only serde reads, items serde refuses in a batch it reads,
/// and bodies refused whole, as malformed JSON and as JSON of the wrong shape.
#[test]
fn the_bodies_are_of_every_kind() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let strategy = body(batch());
    let (mut plain, mut serde_only, mut bad_item, mut malformed, mut refused) = (0, 0, 0, 0, 0);
    let bodies = 1000;
    for _ in 0..bodies {
        let body = strategy.new_tree(&mut runner).expect("a body").current();
        match (plain_batch(&body), by_serde(&body)) {
            (Some(_), _) => plain += 1,
            (None, Ok(batch)) if batch.melds.iter().any(Result::is_err) => bad_item += 1,
            (None, Ok(_)) => serde_only += 1,
            (None, Err(e)) if e.code.as_str() == "malformed_json" => malformed += 1,
            (None, Err(_)) => refused += 1,
        }
    }
    let shares = format!(
        "of {bodies}: {plain} read plainly, {serde_only} by serde only, {bad_item} with an item refused, \
         {malformed} malformed, {refused} refused whole"
    );
    for (kind, count) in [
        ("read plainly", plain),
        ("read by serde only", serde_only),
        ("an item refused", bad_item),
        ("malformed", malformed),
        ("refused whole", refused),
    ] {
        assert!(count >= bodies / 40, "{kind}: {shares}");
    }
}
