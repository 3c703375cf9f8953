//! Validation in batches on the wire: `POST /v1/melds/validate-batch` and
//! `POST /v1/contracts/validate-batch`. Each item is read on its own, so that one that is not a
//! meld (or a contract) is answered in its place and never fails the others.

use std::fmt;

use engine::{Analysis, ProposedMeld, Ruleset, Variant};
use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
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
    /// The batch in `body`: read whole when every item is a meld, else item by item, each item
    /// that is not a meld answered with what `POST /v1/melds/validate` would refuse it with.
    ///
    /// # Errors
    /// What [`parse_json`] refuses the batch itself with.
    pub fn read(body: &[u8]) -> Result<MeldBatch, Invalid> {
        if let Some(batch) = MeldBatch::read_whole(body) {
            return Ok(batch);
        }
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

    /// The batch in `body` when it is a JSON object whose every item is a meld, read in one pass
    /// (`None` otherwise). Reading each item apart, as [`MeldBatchRequest`] has it, costs as much
    /// as validating the meld: a batch of good melds, nearly every batch, is read whole, and only
    /// one with an item that is not a meld is read again item by item, to answer that item in
    /// its place.
    pub fn read_whole(body: &[u8]) -> Option<MeldBatch> {
        // serde would read a struct from an array too: only an object is a batch.
        if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return None;
        }
        let whole: WholeMeldBatch = serde_json::from_slice(body).ok()?;
        Some(MeldBatch {
            variant: whole.variant,
            options: whole.options,
            melds: whole.melds.into_iter().map(|MeldObject(meld)| Ok(meld)).collect(),
        })
    }
}

/// [`MeldBatchRequest`] with every item a meld.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WholeMeldBatch {
    variant: Variant,
    #[serde(default)]
    options: Option<serde_json::Value>,
    melds: Vec<MeldObject>,
}

/// A meld written as a JSON object, the only form an item takes (never an array, which serde
/// would read a struct from).
struct MeldObject(ProposedMeld);

impl<'de> Deserialize<'de> for MeldObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = ProposedMeld;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a meld object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ProposedMeld, A::Error> {
                ProposedMeld::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_map(Object).map(MeldObject)
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
mod tests {
    use engine::{ProposedMeld, Ruleset, Variant, analyse, parse_cards};

    use super::{MeldBatch, MeldBatchResponse, MeldBatchResult, UnreadItem, of_item};
    use crate::wire::{Code, Invalid, MeldValidationResponse};

    /// Only a JSON object whose every item is a meld object is read whole; anything else is left
    /// to the reading item by item, which names each item's problem.
    #[test]
    fn a_batch_is_read_whole_only_when_every_item_is_a_meld() {
        let whole = MeldBatch::read_whole(
            br#" {"variant": "may_i", "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["5H"], "kind": "run"}]}"#,
        )
        .expect("two melds");
        assert_eq!(whole.melds.len(), 2);
        assert!(whole.melds.iter().all(Result::is_ok));
        for refused in [
            r#"{"variant": "may_i", "melds": [{"cards": ["7H", "7S", "7D"]}, [["7H", "7S", "7D"]]]}"#,
            r#"{"variant": "may_i", "melds": [{"cards": ["7H", "ZZ", "7D"]}]}"#,
            r#"{"variant": "may_i", "melds": [{"cards": ["7H"], "colour": "red"}]}"#,
            r#"{"variant": "may_i", "melds": [null]}"#,
            r#"{"variant": "may_i", "melds": [], "extra": 1}"#,
            r#"["may_i", null, [{"cards": ["7H", "7S", "7D"]}]]"#,
            r#"{"variant": "may_i", "melds": []"#,
        ] {
            assert!(MeldBatch::read_whole(refused.as_bytes()).is_none(), "{refused}");
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
