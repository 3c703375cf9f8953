// @ts-check
// Replaying a game. The server plays the game again from its seed and its record with the
// engine, and gives each step (the deal, each action) with its events and the game after it,
// redacted for this reader as the events are: the page only shows the steps. The revealed
// seed is checked against the commitment published when the game was created.

import { allSteps, call } from "./api.js";
import { cardElement, readingName, wildIn, variantName, sortHand } from "./cards.js";
import { h, mainArea, announce } from "./dom.js";
import { describe, seatToken } from "./table.js";
import { spectatorToken } from "./watch.js";

/** @param {string} id */
export async function openReplay(id) {
  const token = seatToken(id) || (await spectatorToken(id));
  if (!token) throw new Error("Replaying a game needs a seat in it from this tab, or a server key typed in under Watch.");
  const view = await call("GET", `/v1/games/${id}`, { token });
  const steps = await allSteps(id, token);
  if (!steps.length) throw new Error("This game has not been dealt yet: there is nothing to replay.");
  const isWild = wildIn(view);
  const main = mainArea();
  let at = steps.length - 1;
  let timer = null;

  const verdict = h("span", { id: "seed-check" }, "checking…");
  checkSeed(view.seed, view.seed_commitment).then((text) => (verdict.textContent = text));
  const slider = /** @type {HTMLInputElement} */ (h("input", { type: "range", min: 0, max: steps.length - 1, value: at, id: "replay-step", "aria-label": "Step" }));
  const stage = h("div", { class: "replay-stage" });
  const play = h("button", { type: "button", id: "replay-play" }, "Play");
  slider.addEventListener("input", () => show(Number(slider.value)));
  const name = (/** @type {number} */ seat) => view.players[seat]?.name || `seat ${seat + 1}`;

  function show(/** @type {number} */ i) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    slider.value = String(at);
    const { seq, events, view: then } = steps[at];
    const told = events.map((/** @type {any} */ e) => describe(e.event, view)).filter(Boolean);
    const top = then.discard.top;
    stage.replaceChildren(
      h("p", { class: "now", role: "status" }, `#${seq}: ${told.join("; ")}`),
      h("p", {}, then.deal ? `deal ${then.deal} of ${then.deals}` : "", then.turn ? `, ${name(then.turn.seat)}'s turn` : "",
        `; stock ${then.stock_count}`),
      h("div", { class: "piles" }, h("span", {}, "discard: "), top ? cardElement(top, { wild: isWild(top) }) : "empty",
        h("span", {}, ` (${then.discard.count})`)),
      h("ul", { class: "players" }, ...then.players.map((/** @type {any} */ p) =>
        h("li", { class: "player" + (then.turn?.seat === p.seat ? " in-turn" : "") }, h("strong", {}, name(p.seat)),
          " ", h("span", { class: "mini-back", "aria-hidden": "true" }), ` ${p.hand_count} cards, ${p.total} pts`))),
      then.you ? h("p", { class: "hand" }, "your hand: ", ...sortHand(then.you.hand, isWild, "rank").map((c) => cardElement(c, { wild: isWild(c), small: true }))) : "",
      h("ul", { class: "melds" }, ...then.table.map((/** @type {any} */ m) => h("li", { class: "meld" },
        h("span", { class: "reading" }, `#${m.id} ${readingName(m.reading)}`),
        h("span", { class: "cards" }, ...m.reading.slots.map((/** @type {any} */ x) => cardElement(x.card, { wild: !x.natural, represents: x.represents, small: true })))))));
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
    h("h1", {}, `Replay of a game of ${variantName(view.variant)}`),
    h("p", {}, ...(view.seed ? ["Seed ", h("code", {}, view.seed), ": "] : ["The seed is revealed once the game is over. "]), verdict),
    h("div", { class: "actions", role: "toolbar", "aria-label": "Replay controls" },
      h("button", { type: "button", onclick: () => show(0) }, "« Start"),
      h("button", { type: "button", id: "replay-back", onclick: () => step(-1) }, "◀ Back"),
      play,
      h("button", { type: "button", id: "replay-next", onclick: () => step(1) }, "Next ▶"),
      h("button", { type: "button", onclick: () => show(steps.length - 1) }, "End »")),
    slider, stage,
    h("p", { class: "hint" }, "Played again by the server from the seed and the game's record, as this reader saw it: other hands stay hidden until a deal's end shows them.")));
  show(at);
  // Opened at its top: the controls first, whatever the page was scrolled to before.
  window.scrollTo(0, 0);
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
