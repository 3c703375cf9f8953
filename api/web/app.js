// @ts-check
// The page's entry: a router over the address's fragment (nothing of a game is ever sent to
// the server in the page's own address), the lobby where a game is set up, and joining by
// an invitation.

import { call } from "./api.js";
import { h, mainArea } from "./dom.js";
import { openTable, seatToken, keepSeatToken, aboutGame, ratingText } from "./table.js";
import { variantName } from "./cards.js";
import { openWatch, openSpectator, serverKey, setServerKey } from "./watch.js";
import { openReplay } from "./replay.js";
import { openLeaderboard, openPlayer } from "./board.js";
import { openBoardByToken } from "./results.js";
import { openEvents, openEntry } from "./tournaments.js";
import { quickPlay, openWait, waiting, tableSizes, sizesWords, levelWithRating } from "./quick.js";

/** What is on screen now; closed (its stream, its timers) before the next thing opens. */
let current = { close() {} };

async function route() {
  current.close();
  current = { close() {} };
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const [what, id, extra] = parts;
  try {
    if (what === "game" && id) current = await openTable(id);
    else if (what === "join" && id) await openJoin(id, extra);
    else if (what === "watch" && id) current = await openSpectator(id);
    else if (what === "watch") await openWatch();
    else if (what === "replay" && id) current = await openReplay(id);
    else if (what === "leaderboard") current = await openLeaderboard(id);
    else if (what === "board" && id) current = await openBoardByToken(id);
    else if (what === "player" && id) current = await openPlayer(decodeURIComponent(id));
    else if (what === "wait") current = await openWait();
    else if (what === "events") current = await openEvents();
    else if (what === "event" && id && extra) current = await openEntry(id, extra);
    else await openLobby();
  } catch (e) {
    const main = mainArea();
    main.append(h("p", { class: "problem", role: "alert" }, String(/** @type {Error} */ (e).message || e)),
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
  }
  const main = document.getElementById("main");
  // At a table, the table itself takes the focus: a screen reader starts from it.
  const target = /** @type {HTMLElement | null} */ (main?.querySelector(".game")) || main;
  const active = document.activeElement;
  if (main && (!main.contains(active) || active === main)) target?.focus({ preventScroll: true });
}

/** The rulesets, asked once. */
let rulesets = null;
async function loadRulesets() {
  rulesets ??= (await call("GET", "/v1/rulesets")).variants;
  return rulesets;
}

/** The bot levels' ratings at the tenant games are made at (the server key's, else the
 * public one), as `GET /v1/bots` lists them; none when it cannot say, and the levels show
 * their names alone. @returns {Promise<any[]>} */
async function loadBots() {
  try {
    return (await call("GET", "/v1/bots", { key: serverKey() || undefined })).bots;
  } catch {
    return [];
  }
}

/**
 * An option of the rules catalogue in a player's words: the catalogue's description split
 * into a label and its help, an option named in it (`turn_seconds`) called by its own label,
 * "null" said as an empty box.
 * @param {any} o @param {any[]} all
 * @returns {{label: string, help: string}}
 */
export function optionWords(o, all) {
  const labelOf = (/** @type {any} */ x) => optionWords(x, []).label;
  const named = (/** @type {string} */ text) => text.replace(/`([^`]+)`/g, (_, name) => {
    const other = all.find((x) => x.name === name);
    return other ? `“${labelOf(other)}”` : name.replace(/_/g, " ");
  });
  let text = o.description.trim().replace(/\.$/, "");
  const help = [];
  const onlyWith = /^With ([^:]+): (.*)$/.exec(text);
  if (onlyWith) {
    text = capital(onlyWith[2]);
    help.push(`Only with ${onlyWith[1]}.`);
  }
  const empty = /;\s*null (?:is|for) (.+)$/.exec(text);
  if (empty) text = text.slice(0, empty.index);
  let label = text;
  const colon = text.indexOf(": ");
  if (o.type !== "boolean" && colon > 0) {
    label = text.slice(0, colon);
    // Each clause a sentence; a clause that names a field of the API (not an option) is for
    // a developer, not a player, and is left out.
    const clauses = text.slice(colon + 2).split(/;\s+|\.\s+/).filter((c) =>
      [...c.matchAll(/`([^`]+)`/g)].every((m) => all.some((x) => x.name === m[1])));
    if (clauses.length) help.unshift(clauses.map((c) => `${capital(c)}.`).join(" "));
  }
  const aside = /\s*\(([^)]*)\)/.exec(label);
  // An aside that closes the label becomes help; one inside it stays where it explains.
  if (aside && o.type !== "boolean" && aside[1].split(" ").length > 2 && aside.index + aside[0].length === label.length) {
    label = label.slice(0, aside.index) + label.slice(aside.index + aside[0].length);
    help.unshift(/^\d+ to \d+$/.test(aside[1]) ? `From ${aside[1]}.` : `${capital(aside[1])}.`);
  }
  if (empty) help.push(`Leave it empty for ${empty[1]}.`);
  return { label: named(label), help: named(help.join(" ")) };
}

/** @param {string} text */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** What a number box holds wrong, and how to put it right; "" when it is fine.
 * @param {any} o @param {string} label @param {string} value */
function numberProblem(o, label, value) {
  if (value === "") return o.nullable ? "" : `“${label}” needs a number: type one (${o.default ?? o.minimum} is the usual).`;
  const n = Number(value);
  const range = o.maximum <= 100_000 ? `from ${o.minimum} to ${o.maximum}` : `${o.minimum} or more`;
  if (!Number.isInteger(n)) return `“${label}” takes a whole number ${range}.`;
  if ((o.minimum !== null && o.minimum !== undefined && n < o.minimum) || (o.maximum !== null && o.maximum !== undefined && n > o.maximum)) {
    return `“${label}” takes a number ${range}${o.nullable ? ", or nothing" : ""}: ${value} is out of bounds.`;
  }
  return "";
}

/** Sit down (a variant, who sits where) or quick play (the table sizes one accepts), with the
 * variant's house options. */
async function openLobby() {
  const [variants, bots] = await Promise.all([loadRulesets(), loadBots()]);
  const main = mainArea();
  /** @type {{kind: "you" | "bot" | "open", level?: string}[]} */
  const seats = [{ kind: "you" }, { kind: "bot", level: "normal" }];
  // Asked, never made up: another seat would see a default as this player's name.
  let yourName = "";
  const variantSelect = h("select", { id: "variant", name: "variant" },
    ...variants.map((/** @type {any} */ v) => h("option", { value: v.variant }, variantName(v.variant))));
  const nameInput = /** @type {HTMLInputElement} */ (h("input", { id: "your-name", maxlength: 40, autocomplete: "nickname", required: true, "aria-describedby": "your-name-help" }));
  nameInput.addEventListener("input", () => {
    yourName = nameInput.value;
    check();
  });
  const optionsBox = h("fieldset", { class: "options" });
  const seatsList = h("ol", { class: "seats-edit" });
  const problem = h("p", { class: "problem", role: "alert", id: "lobby-problem" });
  const keyInput = h("input", { id: "create-key", type: "password", autocomplete: "off", value: serverKey() || "" });
  const playerInput = h("input", { id: "quick-player", autocomplete: "off", maxlength: 128, "aria-describedby": "quick-player-help" });
  /** The table sizes quick play accepts, of those the variant seats. @type {Set<number>} */
  let sizes = new Set();
  const sizesBox = h("div", { class: "row sizes" });
  const quickProblem = h("p", { class: "problem", role: "alert", id: "quick-problem" });
  const ruleset = () => variants.find((/** @type {any} */ v) => v.variant === /** @type {HTMLSelectElement} */ (variantSelect).value);
  /** The server's refusal of the last "Sit down" or "Quick play", shown until the form changes. */
  let refused = "";

  function drawSizes() {
    const offered = tableSizes(ruleset());
    sizes = new Set(offered.filter((s) => s.usual).map((s) => s.size));
    sizesBox.replaceChildren(...offered.map(({ size }) => {
      const box = h("input", { type: "checkbox", id: `size-${size}`, checked: sizes.has(size) });
      box.addEventListener("change", () => {
        if (/** @type {HTMLInputElement} */ (box).checked) sizes.add(size);
        else sizes.delete(size);
        check();
      });
      return h("span", { class: "size" }, box, h("label", { for: `size-${size}` }, String(size), h("span", { class: "visually-hidden" }, " players")));
    }));
  }

  function drawOptions() {
    const rs = ruleset();
    optionsBox.replaceChildren(h("legend", {}, "House rules (the usual ones are set)"));
    for (const o of rs.options) {
      const id = `opt-${o.name}`;
      const { label, help } = optionWords(o, rs.options);
      const helpId = `${id}-help`;
      let input;
      if (o.type === "boolean") {
        input = h("input", { id, type: "checkbox", "data-option": o.name, checked: o.default === true, "aria-describedby": help ? helpId : undefined });
      } else {
        input = h("input", {
          id, type: "number", "data-option": o.name, min: o.minimum, max: o.maximum, step: 1,
          value: o.default ?? "", inputmode: "numeric", "aria-describedby": help ? helpId : undefined,
        });
      }
      input.addEventListener("input", check);
      optionsBox.append(h("div", { class: "option" }, input,
        h("div", {}, h("label", { for: id }, label), help ? h("p", { class: "hint", id: helpId }, help) : "")));
    }
    const deals = rs.deals.map((/** @type {any} */ d) => `${d.deal}: ${d.contract.description}`).join("; ");
    optionsBox.append(h("p", { class: "hint" }, `${rs.min_players === rs.max_players ? rs.min_players : `${rs.min_players} to ${rs.max_players}`} players. Deals: ${deals}. `,
      h("a", { href: `${document.getElementById("rules-link")?.getAttribute("href")}#${rs.variant}`, target: "_blank", rel: "noreferrer" }, `The rules of ${variantName(rs.variant)}`)));
    drawSizes();
    drawQuickBots();
    drawSeats();
  }

  /** Who fills quick play's empty seats: the variant's bot levels with their ratings, of which
   * the server seats the one nearest the people's ratings. */
  function drawQuickBots() {
    const levels = bots.filter((/** @type {any} */ b) => b.variant === ruleset().variant);
    const intro = "A table with whoever asks for the same game; bots fill the empty seats after a wait";
    if (!levels.length) {
      quickBots.replaceChildren(`${intro}.`);
      return;
    }
    const listed = levels.flatMap((/** @type {any} */ b, i) =>
      [i === 0 ? "" : i === levels.length - 1 ? " or " : ", ", levelWithRating(b)]);
    quickBots.replaceChildren(`${intro}, of the level nearest your rating: `, ...listed, ".");
  }

  /** A bot level with its rating in the chosen variant ("hard · 1,640"). @param {string} level */
  function levelText(level) {
    const rated = bots.find((/** @type {any} */ b) => b.variant === ruleset().variant && b.level === level);
    return rated ? `${level} · ${ratingText(rated.rating)}` : level;
  }

  function drawSeats() {
    seatsList.replaceChildren(...seats.map((s, i) => {
      const label = s.kind === "you" ? "You" : s.kind === "bot" ? "A bot" : "An open seat (invite someone)";
      const row = h("li", {}, h("span", {}, label));
      if (s.kind !== "you") {
        if (s.kind === "bot") {
          // docs/bots.md: how each level plays.
          const level = h("select", { "aria-label": `Level of the bot in seat ${i + 1}`, class: "bot-level" },
            ...["easy", "normal", "hard"].map((l) => h("option", { value: l, selected: l === s.level }, levelText(l))));
          level.addEventListener("change", () => (s.level = /** @type {HTMLSelectElement} */ (level).value));
          row.append(" ", level);
        }
        row.append(" ", h("button", { type: "button", class: "small", "aria-label": `Remove seat ${i + 1}`,
          onclick: () => { seats.splice(i, 1); drawSeats(); } }, "Remove"));
      }
      return row;
    }));
    check();
  }

  /** What stands between the form and a table, said so that the person can fix it; the
   * button and the message follow every change. */
  function check() {
    refused = "";
    const rs = ruleset();
    const full = seats.length >= rs.max_players;
    addBot.toggleAttribute("disabled", full);
    addOpen.toggleAttribute("disabled", full);
    const players = rs.min_players === rs.max_players ? `${rs.min_players} players` : `${rs.min_players} to ${rs.max_players} players`;
    const problems = [];
    const shared = [];
    if (seats.length < rs.min_players) {
      const more = rs.min_players - seats.length;
      problems.push(`${variantName(rs.variant)} needs ${players}: add ${more} more seat${more === 1 ? "" : "s"} (a bot or an open seat).`);
    } else if (seats.length > rs.max_players) {
      const fewer = seats.length - rs.max_players;
      problems.push(`${variantName(rs.variant)} takes ${players}: remove ${fewer} seat${fewer === 1 ? "" : "s"}.`);
    }
    if (!yourName.trim()) shared.push("Type your name: the other players see it.");
    for (const o of rs.options) {
      if (o.type === "boolean") continue;
      const input = /** @type {HTMLInputElement | null} */ (optionsBox.querySelector(`[data-option="${o.name}"]`));
      if (!input) continue;
      const wrong = numberProblem(o, optionWords(o, rs.options).label, input.value.trim());
      input.setAttribute("aria-invalid", wrong ? "true" : "false");
      if (wrong) shared.push(wrong);
    }
    count.textContent = `${seats.length} of ${players}`;
    problems.push(...shared);
    create.toggleAttribute("disabled", problems.length > 0);
    why.textContent = problems.join(" ");
    problem.textContent = "";
    const quickProblems = [...(sizes.size ? [] : ["Tick a table size you accept."]), ...shared];
    quick.toggleAttribute("disabled", quickProblems.length > 0);
    quickWhy.textContent = quickProblems.length ? quickProblems.join(" ") : `You sit at a table of ${sizesWords([...sizes])}.`;
    quickProblem.textContent = "";
  }

  /** The house options that differ from the usual ones, as the request names them. */
  function chosenOptions() {
    /** @type {Record<string, any>} */
    const options = {};
    for (const o of ruleset().options) {
      const input = /** @type {HTMLInputElement} */ (optionsBox.querySelector(`[data-option="${o.name}"]`));
      if (o.type === "boolean") {
        if (input.checked !== o.default) options[o.name] = input.checked;
      } else if (input.value === "") {
        if (o.default !== null) options[o.name] = null;
      } else if (Number(input.value) !== o.default) {
        options[o.name] = Number(input.value);
      }
    }
    return options;
  }

  /** A refusal in words that say what to do. @param {any} err */
  function refusal(err) {
    if (err.status === 401 || err.status === 403) return `${err.message}. This server asks for a key: type it under “Server key” below.`;
    if (err.code === "invalid_player" || err.code === "player_needs_server_key") return `${err.message}. With a server key, quick play needs your player id (under “Server key” below); without one, none.`;
    return err.message;
  }

  async function startQuickPlay() {
    check();
    if (quick.hasAttribute("disabled")) return;
    const rs = ruleset();
    const options = chosenOptions();
    const key = /** @type {HTMLInputElement} */ (keyInput).value.trim();
    const player = /** @type {HTMLInputElement} */ (playerInput).value.trim();
    if (key) setServerKey(key);
    const body = {
      name: yourName.trim(),
      variant: rs.variant,
      sizes: [...sizes].sort((a, b) => a - b),
      ...(key && player ? { player } : {}),
      ...(Object.keys(options).length ? { options } : {}),
    };
    try {
      quick.setAttribute("disabled", "");
      await quickPlay(body, key || undefined);
    } catch (e) {
      refused = refusal(e);
      quickProblem.textContent = refused;
      quick.removeAttribute("disabled");
    }
  }

  const addBot = h("button", { type: "button", id: "add-bot", onclick: () => { seats.push({ kind: "bot", level: "normal" }); drawSeats(); } }, "Add a bot");
  const addOpen = h("button", { type: "button", id: "add-open", onclick: () => { seats.push({ kind: "open" }); drawSeats(); } }, "Add an open seat");
  const count = h("span", { class: "hint" });
  const why = h("p", { class: "hint", id: "create-why" });
  const create = h("button", { type: "submit", class: "primary", id: "create", "aria-describedby": "create-why" }, "Sit down");
  const quickWhy = h("p", { class: "hint", id: "quick-why" });
  const quickBots = h("p", { class: "hint", id: "quick-bots" });
  const quick = h("button", { type: "button", class: "primary", id: "quick", "aria-describedby": "quick-why", onclick: startQuickPlay }, "Quick play");
  variantSelect.addEventListener("change", drawOptions);

  const form = h("form", { class: "lobby", "aria-labelledby": "lobby-title" },
    h("h1", { id: "lobby-title" }, "Play a game"),
    h("div", { class: "field" }, h("label", { for: "variant" }, "Game"), variantSelect),
    h("div", { class: "field" }, h("label", { for: "your-name" }, "Your name"), nameInput,
      h("span", { class: "hint", id: "your-name-help" }, "The other players see it.")),
    h("div", { class: "ways" },
      h("section", { class: "way", "aria-labelledby": "sit-title" },
        h("h2", { id: "sit-title" }, "Choose the seats"),
        h("fieldset", {}, h("legend", {}, "Seats, in play order"), seatsList, h("div", { class: "row" }, addBot, addOpen, count)),
        problem,
        h("div", { class: "row" }, create), why),
      h("section", { class: "way", "aria-labelledby": "quick-title" },
        h("h2", { id: "quick-title" }, "Or quick play"),
        quickBots,
        h("fieldset", {}, h("legend", {}, "Table sizes you accept"), sizesBox),
        quickProblem,
        h("div", { class: "row" }, quick), quickWhy)),
    optionsBox,
    h("details", {}, h("summary", {}, "Server key (only when the server asks for one)"),
      h("div", { class: "field" }, h("label", { for: "create-key" }, "Server key, kept in this page's memory only"), keyInput),
      h("div", { class: "field" }, h("label", { for: "quick-player" }, "Your player id at the studio"), playerInput,
        h("span", { class: "hint", id: "quick-player-help" }, "Quick play with a server key asks for it: your rating is the player's."))));
  form.addEventListener("input", () => { if (refused) check(); });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    check();
    if (create.hasAttribute("disabled")) return;
    const rs = ruleset();
    const options = chosenOptions();
    const body = {
      variant: rs.variant,
      seats: seats.map((s) => (s.kind === "you" ? { name: yourName.trim() } : s.kind === "bot" ? { bot: s.level || "normal" } : { open: true })),
      ...(Object.keys(options).length ? { options } : {}),
    };
    const key = /** @type {HTMLInputElement} */ (keyInput).value.trim();
    if (key) setServerKey(key);
    try {
      create.setAttribute("disabled", "");
      const created = await call("POST", "/v1/games", { body, key: key || undefined, idempotent: true });
      const mine = created.seats.find((/** @type {any} */ s) => s.token);
      keepSeatToken(created.id, mine.token);
      location.hash = `#/game/${created.id}`;
    } catch (e) {
      refused = refusal(e);
      problem.textContent = refused;
      create.removeAttribute("disabled");
    }
  });
  main.append(form, resumeList());
  drawOptions();
}

/** The games this tab holds a seat in, to go back to, each named by what it is. */
function resumeList() {
  const ids = Object.keys(sessionStorage).filter((k) => k.startsWith("continental.seat.")).map((k) => k.slice(17));
  const ticket = waiting();
  if (!ids.length && !ticket) return "";
  return h("section", { class: "resume" }, h("h2", {}, "Your games in this tab"),
    h("ul", {}, ticket ? h("li", {}, h("a", { href: "#/wait", id: "back-to-wait" },
      `Waiting for a table of ${variantName(ticket.body.variant)}, ${sizesWords(ticket.body.sizes)}`)) : "",
    ...ids.map((id) => {
      const about = aboutGame(id);
      const text = about
        ? `${variantName(about.variant)} with ${about.players.filter((p) => p !== "you").join(", ")}: ${about.status === "playing" && about.deal ? `deal ${about.deal} of ${about.deals}` : about.status}`
        : `A game (${id.slice(0, 8)})`;
      return h("li", {}, h("a", { href: `#/game/${id}` }, text));
    })));
}

/** An invitation: a name, then the open seat and a token of one's own.
 * @param {string} id @param {string | undefined} seat */
async function openJoin(id, seat) {
  if (seatToken(id)) {
    location.hash = `#/game/${id}`;
    return;
  }
  const main = mainArea();
  const name = h("input", { id: "join-name", maxlength: 40, required: true, autocomplete: "nickname" });
  const problem = h("p", { class: "problem", role: "alert" });
  const button = h("button", { type: "submit", class: "primary", id: "join" }, "Take the seat");
  const form = h("form", { class: "lobby" },
    h("h1", {}, seat !== undefined ? `You are invited to seat ${Number(seat) + 1}` : "You are invited to a game"),
    h("p", { class: "hint" }, `Game ${id}`),
    h("div", { class: "field" }, h("label", { for: "join-name" }, "Your name"), name),
    problem, h("div", { class: "row" }, button));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    problem.textContent = "";
    try {
      const joined = await call("POST", `/v1/games/${id}/join`, {
        body: { name: /** @type {HTMLInputElement} */ (name).value }, idempotent: true,
      });
      keepSeatToken(id, joined.token);
      location.hash = `#/game/${id}`;
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  });
  main.append(form);
  name.focus();
}

window.addEventListener("hashchange", route);
route();
