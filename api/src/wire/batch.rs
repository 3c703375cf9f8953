//! Validation in batches on the wire: `POST /v1/melds/validate-batch` and
//! `POST /v1/contracts/validate-batch`. Each item is read on its own, so that one that is not a
//! meld (or a contract) is answered in its place and never fails the others.

use engine::{Analysis, Card, MAX_CARDS, ProposedMeld, Ruleset, Variant};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::rules::{ContractValidationResponse, check_deal};
use super::{Code, Invalid, MAX_MELDS, MeldValidationResponse, at_most, parse_json};

/// Most melds of one `POST /v1/melds/validate-batch`.
pub const MAX_MELD_BATCH: usize = 1000;

/// Most readings the answer to one `POST /v1/melds/validate-batch` lists in all: a thousand
/// real melds list one or two each, while one of a dozen wild cards lists up to 512, which a
/// thousand copies would make hundreds of megabytes of answer.
pub const MAX_BATCH_READINGS: usize = 10_000;

/// Most contracts of one `POST /v1/contracts/validate-batch`.
pub const MAX_CONTRACT_BATCH: usize = 200;

/// `POST /v1/melds/validate-batch` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "melds": [
    {"cards": ["8H", "JK", "5H", "6H"]},
    {"cards": ["5H", "JK", "JK", "AD"]},
    {"cards": ["7H", "ZZ", "7D"]}]}))]
pub struct MeldBatchRequest {
    /// `may_i`, `contract_7`, `continental` or `push`: every meld's.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The variant's house-rule options (see `GET /v1/rulesets`); absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// At most 1,000 melds, each as `POST /v1/melds/validate` takes one without `variant` and
    /// `options`: `{"cards": [...], "kind": ..., "wilds": [...]}` (a `ProposedMeld`). An item
    /// that is not one is answered in its place with a `problem`; more items are refused whole
    /// (`422 too_many_items`).
    #[schema(value_type = Vec<Value>, max_items = 1000)]
    pub melds: Vec<Box<RawValue>>,
}

/// A batch of melds as the validator takes it: the variant's, and each meld read or why not.
#[derive(Debug)]
pub struct MeldBatch {
    /// Every meld's variant.
    pub variant: Variant,
    /// The variant's house-rule options, unread.
    pub options: Option<serde_json::Value>,
    /// Each item, in the order sent: the meld, or why it is not one.
    pub melds: Vec<Result<ProposedMeld, Invalid>>,
}

impl MeldBatch {
    /// The batch in `body`, each item read on its own: a meld, or why it is not one (what
    /// `POST /v1/melds/validate` would refuse it with).
    ///
    /// A batch written plainly, as nearly all are, is read by [`plain_batch`] in one pass.
    /// Any other is read by serde once, its items as slices of `body`: an item that is only a
    /// list of cards by [`plain_meld`], any other by serde, strictly.
    ///
    /// # Errors
    /// What [`parse_json`] refuses the batch itself with.
    pub fn read(body: &[u8]) -> Result<MeldBatch, Invalid> {
        if let Some(batch) = plain_batch(body) {
            return Ok(batch);
        }
        // serde would read a struct from an array too: only an object is a batch, and any other
        // body is refused as `parse_json` refuses it.
        let envelope = match body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => serde_json::from_slice::<Envelope<'_>>(body).ok(),
            _ => None,
        };
        let Some(envelope) = envelope else {
            let batch: MeldBatchRequest = parse_json(body)?;
            return Ok(MeldBatch {
                variant: batch.variant,
                options: batch.options,
                melds: batch.melds.iter().map(|item| read_meld(item)).collect(),
            });
        };
        Ok(MeldBatch {
            variant: envelope.variant,
            options: envelope.options,
            melds: envelope.melds.into_iter().map(read_meld).collect(),
        })
    }
}

/// [`MeldBatchRequest`] borrowing its items from the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    variant: Variant,
    #[serde(default)]
    options: Option<serde_json::Value>,
    #[serde(borrow)]
    melds: Vec<&'a RawValue>,
}

/// One item of a batch: a meld, or why it is not one.
fn read_meld(item: &RawValue) -> Result<ProposedMeld, Invalid> {
    let item = item.get().as_bytes();
    match plain_meld(item) {
        Some(meld) => Ok(meld),
        None => parse_json(item),
    }
}

/// The batch in `body` when it is written plainly, as nearly every batch is: an object of
/// `variant` and `melds` only (in either order), every meld nothing but its cards (see
/// [`plain_meld`]); `None` for any other body, which serde reads. Where it answers, serde reads
/// the same batch (a test holds them equal), without its passes over each item.
fn plain_batch(body: &[u8]) -> Option<MeldBatch> {
    let mut rest = Plain(body);
    rest.byte(b'{')?;
    let (mut variant, mut melds) = (None, None);
    loop {
        match rest.quoted()? {
            b"variant" if variant.is_none() => {
                rest.byte(b':')?;
                let name = rest.quoted()?;
                variant = Some(Variant::ALL.into_iter().find(|v| v.id().as_bytes() == name)?);
            }
            b"melds" if melds.is_none() => {
                rest.byte(b':')?;
                melds = Some(rest.melds()?);
            }
            _ => return None,
        }
        if rest.byte(b'}').is_some() {
            break;
        }
        rest.byte(b',')?;
    }
    rest.end()?;
    Some(MeldBatch {
        variant: variant?,
        options: None,
        melds: melds?,
    })
}

/// The meld `item` is when it is written as nothing but its cards, `{"cards": ["7H", ...]}`
/// with at most [`MAX_CARDS`] names and no escapes; `None` for any other item, which serde
/// reads. Where it answers, serde reads the same meld (a test holds them equal).
fn plain_meld(item: &[u8]) -> Option<ProposedMeld> {
    let mut rest = Plain(item);
    let meld = rest.meld()?;
    rest.end()?;
    Some(meld)
}

/// What is left of a body for [`plain_batch`] or [`plain_meld`] to read: JSON of a few shapes,
/// read a byte at a time, never a value of another shape.
struct Plain<'a>(&'a [u8]);

impl<'a> Plain<'a> {
    /// Skips whitespace as JSON has it (not the form feed Rust's ASCII whitespace includes).
    fn skip_space(&mut self) {
        while let [b' ' | b'\t' | b'\n' | b'\r', rest @ ..] = self.0 {
            self.0 = rest;
        }
    }

    /// Skips whitespace, then the byte `token`.
    fn byte(&mut self, token: u8) -> Option<()> {
        self.skip_space();
        match self.0 {
            [first, rest @ ..] if *first == token => {
                self.0 = rest;
                Some(())
            }
            _ => None,
        }
    }

    /// Skips whitespace, then reads a string without escapes (nor the control characters JSON
    /// refuses in one): its bytes between the quotes.
    fn quoted(&mut self) -> Option<&'a [u8]> {
        self.byte(b'"')?;
        let end = self.0.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        let (text, rest) = self.0.split_at(end);
        self.0 = rest.strip_prefix(b"\"")?;
        Some(text)
    }

    /// Nothing but whitespace is left.
    fn end(&mut self) -> Option<()> {
        self.skip_space();
        self.0.is_empty().then_some(())
    }

    /// A list of melds, each only its cards.
    fn melds(&mut self) -> Option<Vec<Result<ProposedMeld, Invalid>>> {
        self.byte(b'[')?;
        let mut melds = Vec::new();
        if self.byte(b']').is_some() {
            return Some(melds);
        }
        loop {
            melds.push(Ok(self.meld()?));
            if self.byte(b']').is_some() {
                return Some(melds);
            }
            self.byte(b',')?;
        }
    }

    /// `{"cards": [...]}`: at most [`MAX_CARDS`] card names.
    fn meld(&mut self) -> Option<ProposedMeld> {
        self.byte(b'{')?;
        if self.quoted()? != b"cards" {
            return None;
        }
        self.byte(b':')?;
        self.byte(b'[')?;
        let mut cards = Vec::with_capacity(8);
        if self.byte(b']').is_none() {
            loop {
                if cards.len() == MAX_CARDS {
                    return None;
                }
                cards.push(Card::from_name(self.quoted()?)?);
                if self.byte(b']').is_some() {
                    break;
                }
                self.byte(b',')?;
            }
        }
        self.byte(b'}')?;
        Some(ProposedMeld {
            cards,
            ..ProposedMeld::default()
        })
    }
}

/// `POST /v1/contracts/validate-batch` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "contracts": [
    {"deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]},
    {"deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}]},
    {"deal": 9, "melds": []}]}))]
pub struct ContractBatchRequest {
    /// `may_i`, `contract_7`, `continental` or `push`: every contract's.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The variant's house-rule options; absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// At most 200 contracts, each `{"deal": 1, "melds": [...]}` as
    /// `POST /v1/contracts/validate` takes it without `variant` and `options`. An item that is
    /// not one (or names a deal the variant does not have) is answered in its place with a
    /// `problem`; more items are refused whole (`422 too_many_items`).
    #[schema(value_type = Vec<Value>, max_items = 200)]
    pub contracts: Vec<Box<RawValue>>,
}

/// One contract of a batch: a deal and the melds laid down at once.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContractBatchItem {
    /// The deal (1-based) whose contract to check.
    #[schema(example = 1, minimum = 1, maximum = 255)]
    pub deal: u8,
    /// The melds laid down at once.
    #[serde(deserialize_with = "at_most::<MAX_MELDS, _, _>")]
    #[schema(max_items = 6)]
    pub melds: Vec<ProposedMeld>,
}

/// Why an item of a batch was not read: what the whole request would have been refused with,
/// alone.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ItemProblem {
    /// Stable code, as a problem document's: `unknown_card`, `invalid_body`, `unknown_field`,
    /// `not_an_object`, `invalid_deal` ...
    #[schema(example = "unknown_card")]
    pub code: String,
    /// A sentence a person can read, naming the item and the field.
    pub detail: String,
}

/// An item of a batch that was not read: never valid, with the problem.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct UnreadItem {
    /// Always `false`.
    pub valid: bool,
    /// Why the item was not read.
    pub problem: ItemProblem,
}

impl From<Invalid> for UnreadItem {
    fn from(e: Invalid) -> Self {
        UnreadItem {
            valid: false,
            problem: ItemProblem {
                code: e.code.as_str().to_owned(),
                detail: e.detail,
            },
        }
    }
}

/// The answer to one meld of a batch: the validator's verdict, or why the item was not read.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum MeldBatchResult {
    /// As `POST /v1/melds/validate` answers.
    Verdict(MeldValidationResponse),
    /// The item is not a meld.
    Unread(UnreadItem),
}

/// `POST /v1/melds/validate-batch` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"results": [
    {"valid": true, "ambiguous": false, "readings": [{"kind": "run", "suit": "H", "cards": ["5H", "6H", "JK", "8H"], "slots": [
        {"card": "5H", "represents": "5H", "natural": true}, {"card": "6H", "represents": "6H", "natural": true},
        {"card": "JK", "represents": "7H", "natural": false}, {"card": "8H", "represents": "8H", "natural": true}]}],
     "reasons": []},
    {"valid": false, "ambiguous": false, "readings": [], "reasons": [{"code": "too_many_wilds",
        "message": "3 wilds and 1 natural: wilds may not outnumber naturals"}]},
    {"valid": false, "problem": {"code": "unknown_card",
        "detail": "melds[2]: invalid request body at `cards[1]`: unknown card \"ZZ\": write rank then suit, like 7H, TD, 10D or JK"}}]}))]
pub struct MeldBatchResponse {
    /// One result per meld, in the order sent.
    pub results: Vec<MeldBatchResult>,
}

/// The answer to one contract of a batch.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ContractBatchResult {
    /// As `POST /v1/contracts/validate` answers.
    Verdict(ContractValidationResponse),
    /// The item is not a contract check the variant takes.
    Unread(UnreadItem),
}

/// `POST /v1/contracts/validate-batch` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"results": [
    {"valid": false, "contract": {"description": "a set of 3+, a set of 3+", "melds": [
        {"kind": "set", "min_len": 3}, {"kind": "set", "min_len": 3}], "go_out": false},
     "melds": [], "reasons": [{"code": "wrong_meld_count", "message": "the contract is exactly 2 melds, not 1"}]},
    {"valid": false, "problem": {"code": "invalid_deal", "detail": "contracts[1]: may_i has deals 1 to 7, not 9"}}]}))]
pub struct ContractBatchResponse {
    /// One result per contract, in the order sent.
    pub results: Vec<ContractBatchResult>,
}

/// The rules of a batch of `items` items of at most `most`.
///
/// # Errors
/// The options' refusals, and `too_many_items` (422).
pub fn batch_rules(
    variant: Variant,
    options: Option<serde_json::Value>,
    items: usize,
    most: usize,
) -> Result<Ruleset, Invalid> {
    if items > most {
        return Err(Invalid::refused(
            Code::TooManyItems,
            format!("a batch holds at most {most} items, not {items}"),
        ));
    }
    let (rules, _) = super::options::read(variant, options)?;
    Ok(rules)
}

/// `e`, an item's problem, naming the item (`melds[3]: ...`).
pub fn of_item(field: &str, i: usize, e: Invalid) -> Invalid {
    Invalid {
        detail: format!("{field}[{i}]: {}", e.detail),
        ..e
    }
}

impl ContractBatchResult {
    /// The check of `item` under `rules`, or why the item cannot be checked.
    pub fn of(rules: &Ruleset, item: Result<ContractBatchItem, Invalid>, i: usize) -> ContractBatchResult {
        let checked = item.and_then(|item| {
            check_deal(rules, item.deal)?;
            Ok(ContractValidationResponse::of(rules, item.deal, &item.melds))
        });
        match checked {
            Ok(verdict) => ContractBatchResult::Verdict(verdict),
            Err(e) => ContractBatchResult::Unread(of_item("contracts", i, e).into()),
        }
    }
}

impl MeldBatchResponse {
    /// The JSON of the response to `results` (each an analysis, or why the item was not read),
    /// written as they come: the very bytes serde writes for the [`MeldBatchResponse`] of the
    /// same results (a test holds them equal), each verdict written as
    /// [`MeldValidationResponse::json`] writes it.
    ///
    /// # Errors
    /// `too_many_readings` (422) once the results list more than [`MAX_BATCH_READINGS`]: the
    /// melds after it are not analysed.
    pub fn json(
        results: impl ExactSizeIterator<Item = Result<Analysis, Invalid>>,
    ) -> Result<Vec<u8>, Invalid> {
        let mut out = Vec::with_capacity(16 + 512 * results.len());
        out.extend_from_slice(b"{\"results\":[");
        let mut readings = 0;
        for (i, result) in results.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match result {
                Ok(analysis) => {
                    readings += analysis.readings.len();
                    if readings > MAX_BATCH_READINGS {
                        return Err(Invalid::refused(
                            Code::TooManyReadings,
                            format!(
                                "these melds read more than {MAX_BATCH_READINGS} ways in all, the most a batch \
                                 answers: send the melds with many wilds in smaller batches"
                            ),
                        ));
                    }
                    MeldValidationResponse::write(&mut out, &analysis);
                }
                Err(e) => {
                    // An item's problem always serialises, into a Vec that cannot fail.
                    let _ = serde_json::to_writer(&mut out, &UnreadItem::from(of_item("melds", i, e)));
                }
            }
        }
        out.extend_from_slice(b"]}");
        Ok(out)
    }
}

#[cfg(test)]
mod fuzz;

#[cfg(test)]
mod tests {
    use engine::{ProposedMeld, Ruleset, Variant, analyse, parse_cards};

    use super::{
        MeldBatch, MeldBatchRequest, MeldBatchResponse, MeldBatchResult, UnreadItem, of_item, plain_batch,
        plain_meld,
    };
    use crate::wire::{Code, Invalid, MeldValidationResponse, parse_json};

    /// Where the plain reading answers, serde reads the same meld; every other item is left
    /// to serde.
    #[test]
    fn a_plain_meld_is_the_meld_serde_reads() {
        let forty = format!(r#"{{"cards":[{}]}}"#, vec![r#""7H""#; 40].join(","));
        let plain = [
            r#"{"cards":["7H","7S","7D"]}"#,
            r#" { "cards" : [ "10C" , "jc","QC","KC","AC" ] } "#,
            r#"{"cards":[]}"#,
            "{\n\t\"cards\":\r\n[\"JK\"]}",
            &forty,
        ];
        for item in plain {
            let read = plain_meld(item.as_bytes());
            assert!(read.is_some(), "{item}");
            assert_eq!(read, serde_json::from_str::<ProposedMeld>(item).ok(), "{item}");
        }
        let forty_one = format!(r#"{{"cards":[{}]}}"#, vec![r#""7H""#; 41].join(","));
        let left = [
            r#"{"cards":["7H","7S","7D"],"kind":"set"}"#,
            r#"{"kind":"set","cards":["7H","7S","7D"]}"#,
            r#"{"cards":["7H","ZZ","7D"]}"#,
            r#"{"cards":["7\u0048"]}"#,
            r#"{"cards":["7H",]}"#,
            r#"{"cards":["7H"],"cards":["7S"]}"#,
            r#"{"cards":["7H"]} x"#,
            r#"[["7H","7S","7D"]]"#,
            r#"{"cards":[" 7H"]}"#,
            r#"{"cards":"7H"}"#,
            "{\u{c}\"cards\":[\"7H\"]}",
            &forty_one,
        ];
        for item in left {
            assert!(plain_meld(item.as_bytes()).is_none(), "{item}");
        }
    }

    /// Where the plain reading of a batch answers, serde reads the same batch; every other body
    /// is left to serde.
    #[test]
    fn a_plain_batch_is_the_batch_serde_reads() {
        let general = |body: &str| {
            let batch: MeldBatchRequest = parse_json(body.as_bytes()).expect(body);
            let melds: Vec<ProposedMeld> = batch
                .melds
                .iter()
                .map(|item| parse_json(item.get().as_bytes()).expect("a meld"))
                .collect();
            (batch.variant, batch.options, melds)
        };
        let plain = [
            r#"{"variant":"may_i","melds":[{"cards":["7H","7S","7D"]},{"cards":["5H","JK"]}]}"#,
            r#" { "melds" : [ { "cards" : [ "10C" , "jc" ] } ] , "variant" : "push" } "#,
            r#"{"variant": "continental", "melds": []}"#,
            "{\"variant\":\r\n\"contract_7\",\t\"melds\":[{\"cards\":[]}]}",
        ];
        for body in plain {
            let read = plain_batch(body.as_bytes()).expect(body);
            let melds: Vec<ProposedMeld> = read.melds.into_iter().map(|m| m.expect("a meld")).collect();
            assert_eq!((read.variant, read.options, melds), general(body), "{body}");
        }
        let left = [
            r#"{"variant":"may_i","options":{},"melds":[]}"#,
            r#"{"variant":"may_i","melds":[],"variant":"push"}"#,
            r#"{"variant":"may_i"}"#,
            r#"{"melds":[]}"#,
            r#"{"variant":"May_I","melds":[]}"#,
            r#"{"variant":"may\u005fi","melds":[]}"#,
            r#"{"variant":"may_i","melds":[{"cards":["7H"],"kind":"set"}]}"#,
            r#"{"variant":"may_i","melds":[{"cards":["ZZ"]}]}"#,
            r#"{"variant":"may_i","melds":[null]}"#,
            r#"{"variant":"may_i","melds":[{"cards":["7H"]},]}"#,
            r#"{"variant":"may_i","melds":[]} []"#,
            r#"{"variant":"may_i","melds":[]"#,
            r#"["may_i", [{"cards":["7H"]}]]"#,
            "{\u{c}\"variant\":\"may_i\",\"melds\":[]}",
            "{\"variant\":\"may_i\u{1}\",\"melds\":[]}",
        ];
        for body in left {
            assert!(plain_batch(body.as_bytes()).is_none(), "{body}");
        }
    }

    /// A batch answers each item as serde reads it alone, however it is written.
    #[test]
    fn a_batch_reads_each_item_as_serde_reads_it() {
        let items = [
            r#"{"cards": ["7H", "7S", "7D"]}"#,
            r#"{"cards": ["7H", "ZZ", "7D"]}"#,
            r#"[["7H", "7S", "7D"]]"#,
            r#"{"cards": ["5H", "6H", "7H"], "kind": "run"}"#,
            r#"{"cards": ["7\u0048", "7S", "7D"]}"#,
            "null",
        ];
        let body = format!(r#"{{"variant": "may_i", "melds": [{}]}}"#, items.join(", "));
        let batch = MeldBatch::read(body.as_bytes()).expect("a batch");
        assert_eq!(batch.melds.len(), items.len());
        for (item, read) in items.iter().zip(&batch.melds) {
            let alone = parse_json::<ProposedMeld>(item.as_bytes());
            assert_eq!(
                read.as_ref().map_err(|e| &e.detail),
                alone.as_ref().map_err(|e| &e.detail),
                "{item}"
            );
        }
        for refused in [
            r#"["may_i", null, []]"#,
            r#"{"variant": "may_i", "melds": [], "extra": 1}"#,
        ] {
            assert!(MeldBatch::read(refused.as_bytes()).is_err(), "{refused}");
        }
    }

    /// The batch's answer, written by hand, is what serde writes for the same results.
    #[test]
    fn the_written_batch_is_what_serde_writes() {
        let rules = Ruleset::default_for(Variant::MayI);
        let melds = ["8H JK 5H 6H", "5H JK JK AD", "5S 6S 7S AD", "7C 7D"];
        let analyses = || {
            melds.iter().map(|m| {
                let cards = parse_cards(&m.split(' ').collect::<Vec<_>>()).expect("cards");
                Ok(analyse(&rules, &ProposedMeld::of(&cards)))
            })
        };
        let problem = || {
            Invalid::new(
                Code::UnknownCard,
                "invalid request body at `cards[1]`: unknown card",
            )
        };
        let mut results: Vec<Result<_, Invalid>> = analyses().collect();
        results.insert(2, Err(problem()));
        let written = MeldBatchResponse::json(results.into_iter()).expect("a few readings");
        let mut expected: Vec<MeldBatchResult> = analyses()
            .map(|a: Result<_, Invalid>| {
                MeldBatchResult::Verdict(MeldValidationResponse::from(&a.expect("read")))
            })
            .collect();
        expected.insert(
            2,
            MeldBatchResult::Unread(UnreadItem::from(of_item("melds", 2, problem()))),
        );
        let expected = serde_json::to_vec(&MeldBatchResponse { results: expected }).expect("JSON");
        assert_eq!(
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&expected)
        );
    }
}
