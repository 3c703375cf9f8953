// @ts-check
// Replaying a finished game. The API has no replay endpoint (the engine's `replay` takes the
// seed and every action, and no reader is shown the others' actions whole), so the page
// steps through the game's event log, rebuilding from each event the table it shows: the
// melds, the piles, hand sizes and scores. The revealed seed is checked against the
// commitment published when the game was created.

import { allEvents, call } from "./api.js";
import { cardElement, readingName, wildIn } from "./cards.js";
import { h, mainArea, announce } from "./dom.js";
import { describe, seatToken } from "./table.js";
import { spectatorToken } from "./watch.js";

/** @param {string} id */
export async function openReplay(id) {
  const token = seatToken(id) || (await spectatorToken(id));
  if (!token) throw new Error("Replaying a game needs a seat in it from this tab, or a server key typed in under Watch.");
  const view = await call("GET", `/v1/games/${id}`, { token });
  const events = await allEvents(id, token);
  const steps = rebuild(events, view.players.length);
  const isWild = wildIn(view);
  const main = mainArea();
  let at = steps.length - 1;
  let timer = null;

  const verdict = h("span", { id: "seed-check" }, "checking…");
  checkSeed(view.seed, view.seed_commitment).then((text) => (verdict.textContent = text));
  const slider = /** @type {HTMLInputElement} */ (h("input", { type: "range", min: 0, max: steps.length - 1, value: at, id: "replay-step", "aria-label": "Event" }));
  const stage = h("div", { class: "replay-stage" });
  const play = h("button", { type: "button", id: "replay-play" }, "Play");
  slider.addEventListener("input", () => show(Number(slider.value)));

  function show(/** @type {number} */ i) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    slider.value = String(at);
    const s = steps[at];
    const line = s.event ? `#${s.seq}: ${describe(s.event, view)}` : "before the first event";
    stage.replaceChildren(
      h("p", { class: "now", role: "status" }, line),
      h("p", {}, s.deal ? `deal ${s.deal}` : "", s.turn !== null ? `, ${view.players[s.turn]?.name}'s turn` : "",
        `; stock ${s.stock}`),
      h("div", { class: "piles" }, h("span", {}, "discard: "), s.discard.length ? cardElement(s.discard[s.discard.length - 1], { wild: isWild(s.discard[s.discard.length - 1]) }) : "empty",
        h("span", {}, ` (${s.discard.length})`)),
      h("ul", { class: "players" }, ...view.players.map((/** @type {any} */ p, /** @type {number} */ i) =>
        h("li", { class: "player" + (s.turn === i ? " in-turn" : "") }, h("strong", {}, p.name || `seat ${i + 1}`), ` 🂠 ${s.counts[i]}, ${s.totals[i]} pts`))),
      h("ul", { class: "melds" }, ...[...s.melds.entries()].map(([mid, reading]) => h("li", { class: "meld" },
        h("span", { class: "reading" }, `#${mid} ${readingName(reading)}`),
        h("span", { class: "cards" }, ...reading.slots.map((/** @type {any} */ x) => cardElement(x.card, { wild: !x.natural, represents: x.represents, small: true })))))),
      s.note ? h("p", { class: "hint" }, s.note) : "");
  }

  function step(/** @type {number} */ by) {
    show(at + by);
  }
  play.addEventListener("click", () => {
    if (timer) {
      clearInterval(timer);
      timer = null;
      play.textContent = "Play";
      return;
    }
    if (at >= steps.length - 1) show(0);
    play.textContent = "Pause";
    timer = setInterval(() => {
      if (at >= steps.length - 1) {
        clearInterval(timer);
        timer = null;
        play.textContent = "Play";
        announce("Replay finished.");
        return;
      }
      step(1);
    }, 400);
  });

  main.append(h("section", { class: "panel replay", "aria-label": "Replay" },
    h("h1", {}, `Replay of a ${view.variant} game`),
    h("p", {}, ...(view.seed ? ["Seed ", h("code", {}, view.seed), ": "] : ["The seed is revealed once the game is over. "]), verdict),
    h("div", { class: "actions", role: "toolbar", "aria-label": "Replay controls" },
      h("button", { type: "button", onclick: () => show(0) }, "« Start"),
      h("button", { type: "button", id: "replay-back", onclick: () => step(-1) }, "◀ Back"),
      play,
      h("button", { type: "button", id: "replay-next", onclick: () => step(1) }, "Next ▶"),
      h("button", { type: "button", onclick: () => show(steps.length - 1) }, "End »")),
    slider, stage,
    h("p", { class: "hint" }, "Rebuilt from the event log as this reader may see it: other hands stay hidden until a deal's end shows them.")));
  show(at);
  return {
    close() {
      if (timer) clearInterval(timer);
    },
  };
}

/** Whether the seed's SHA-256 is the commitment. Browsers give SHA-256 only to secure pages
 * (https or localhost). @param {string | null} seed @param {string} commitment */
async function checkSeed(seed, commitment) {
  if (!seed) return "";
  if (!crypto.subtle) return `its SHA-256 should be ${commitment} (this page cannot hash outside https or localhost)`;
  const bytes = new Uint8Array(seed.match(/../g)?.map((x) => parseInt(x, 16)) || []);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment
    ? "matches the commitment published when the game was created: the shuffles were fixed before play"
    : `does NOT match the commitment ${commitment}`;
}

/**
 * The table after each event.
 * @param {any[]} events @param {number} seats
 */
function rebuild(events, seats) {
  /** @type {any} */
  let s = { seq: 0, event: null, deal: 0, turn: null, stock: 0, discard: [], counts: Array(seats).fill(0), totals: Array(seats).fill(0), melds: new Map(), note: "" };
  const out = [s];
  // The table as the turn began: taking back a whole turn's plays returns to it.
  let atTurnStart = new Map();
  let handSize = 0;
  for (const { seq, event: e } of events) {
    s = { ...s, seq, event: e, discard: [...s.discard], counts: [...s.counts], totals: [...s.totals], melds: new Map(s.melds), note: "" };
    switch (e.type) {
      case "deal_started":
        handSize = e.hand_size;
        Object.assign(s, { deal: e.deal, discard: [], melds: new Map(), counts: Array(seats).fill(0) });
        break;
      case "dealt":
        s.counts[e.seat] = e.cards ? e.cards.length : handSize;
        break;
      case "upcard":
        s.discard.push(e.card);
        s.stock = e.stock_count;
        break;
      case "upcard_buried":
        s.discard.pop();
        break;
      case "drew":
        if (e.source === "stock") s.stock -= 1;
        else s.discard.pop();
        s.counts[e.seat] += 1;
        break;
      case "claim_won":
        s.discard.pop();
        s.stock -= 1;
        s.counts[e.seat] += 2;
        break;
      case "pushed":
        s.counts[e.to] += 2;
        s.stock -= 1;
        break;
      case "melded":
        for (const m of e.melds) {
          s.melds.set(m.id, m.reading);
          s.counts[e.seat] -= m.reading.slots.length;
        }
        break;
      case "laid_off":
        s.melds.set(e.meld_id, e.reading);
        s.counts[e.seat] -= e.cards.length;
        break;
      case "swapped":
        s.melds.set(e.meld_id, e.reading);
        break;
      case "joker_moved":
        s.melds.set(e.from_meld, e.from_reading);
        s.melds.set(e.to_meld, e.to_reading);
        break;
      case "took_back":
        s.counts[e.seat] += e.cards.length;
        if (e.play === null || e.play === undefined) s.melds = new Map(atTurnStart);
        else s.note = "Part of a turn was taken back: the table shown may differ until the next meld.";
        break;
      case "discarded":
        s.discard.push(e.card);
        s.counts[e.seat] -= 1;
        break;
      case "stock_turned_over":
        s.stock = e.stock_count;
        s.discard = s.discard.slice(-1);
        break;
      case "turn":
        s.turn = e.seat;
        atTurnStart = new Map(s.melds);
        break;
      case "deal_ended":
        s.totals = [...e.totals];
        s.turn = null;
        s.note = `Hands left: ${e.hands.map((/** @type {string[]} */ hand, /** @type {number} */ i) => `seat ${i + 1}: ${hand.join(" ") || "none"}`).join("; ")}`;
        break;
    }
    out.push(s);
  }
  return out;
}
