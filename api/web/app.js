// @ts-check
// The page's entry: a router over the address's fragment (nothing of a game is ever sent to
// the server in the page's own address), the lobby where a game is set up, and joining by
// an invitation.

import { call } from "./api.js";
import { h, mainArea } from "./dom.js";
import { openTable, seatToken, keepSeatToken } from "./table.js";
import { openWatch, openSpectator, serverKey, setServerKey } from "./watch.js";
import { openReplay } from "./replay.js";

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
    else await openLobby();
  } catch (e) {
    const main = mainArea();
    main.append(h("p", { class: "problem", role: "alert" }, String(/** @type {Error} */ (e).message || e)),
      h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
  }
  const main = document.getElementById("main");
  if (main && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
}

/** The rulesets, asked once. */
let rulesets = null;
async function loadRulesets() {
  rulesets ??= (await call("GET", "/v1/rulesets")).variants;
  return rulesets;
}

/** Sit down: a variant, its house options, and who sits where. */
async function openLobby() {
  const variants = await loadRulesets();
  const main = mainArea();
  /** @type {{kind: "you" | "bot" | "open", name?: string, level?: string}[]} */
  const seats = [{ kind: "you", name: "You" }, { kind: "bot", level: "normal" }];
  const variantSelect = h("select", { id: "variant", name: "variant" },
    ...variants.map((/** @type {any} */ v) => h("option", { value: v.variant }, v.variant)));
  const optionsBox = h("fieldset", { class: "options" });
  const seatsList = h("ol", { class: "seats-edit" });
  const problem = h("p", { class: "problem", role: "alert", id: "lobby-problem" });
  const keyInput = h("input", { id: "create-key", type: "password", autocomplete: "off", value: serverKey() || "" });
  const ruleset = () => variants.find((/** @type {any} */ v) => v.variant === /** @type {HTMLSelectElement} */ (variantSelect).value);

  function drawOptions() {
    const rs = ruleset();
    optionsBox.replaceChildren(h("legend", {}, "House options"));
    for (const o of rs.options) {
      const id = `opt-${o.name}`;
      let input;
      if (o.type === "boolean") {
        input = h("input", { id, type: "checkbox", "data-option": o.name, checked: o.default === true });
      } else {
        input = h("input", {
          id, type: "number", "data-option": o.name, min: o.minimum, max: o.maximum,
          value: o.default ?? "", placeholder: o.nullable ? "none" : "", inputmode: "numeric",
        });
      }
      optionsBox.append(h("div", { class: "option" }, input,
        h("label", { for: id }, h("code", {}, o.name), " ", o.description)));
    }
    const deals = rs.deals.map((/** @type {any} */ d) => `${d.deal}: ${d.contract.description}`).join("; ");
    optionsBox.append(h("p", { class: "hint" }, `${rs.min_players} to ${rs.max_players} players. Deals: ${deals}. `,
      h("a", { href: `${document.getElementById("rules-link")?.getAttribute("href")}#${rs.variant}`, target: "_blank", rel: "noreferrer" }, "The rules")));
    drawSeats();
  }

  function drawSeats() {
    const rs = ruleset();
    seatsList.replaceChildren(...seats.map((s, i) => {
      const label = s.kind === "you" ? "You" : s.kind === "bot" ? "A bot" : "An open seat (invite someone)";
      const row = h("li", {}, h("span", {}, label));
      if (s.kind === "you") {
        const name = h("input", { "aria-label": "Your name", value: s.name, maxlength: 40, id: "your-name" });
        name.addEventListener("input", () => (s.name = /** @type {HTMLInputElement} */ (name).value));
        row.append(" ", name);
      } else {
        if (s.kind === "bot") {
          // docs/bots.md: how each level plays.
          const level = h("select", { "aria-label": `Level of the bot in seat ${i + 1}`, class: "bot-level" },
            ...["easy", "normal", "hard"].map((l) => h("option", { value: l, selected: l === s.level }, l)));
          level.addEventListener("change", () => (s.level = /** @type {HTMLSelectElement} */ (level).value));
          row.append(" ", level);
        }
        row.append(" ", h("button", { type: "button", class: "small", "aria-label": `Remove seat ${i + 1}`,
          onclick: () => { seats.splice(i, 1); drawSeats(); } }, "Remove"));
      }
      return row;
    }));
    const full = seats.length >= rs.max_players;
    addBot.toggleAttribute("disabled", full);
    addOpen.toggleAttribute("disabled", full);
    create.toggleAttribute("disabled", seats.length < rs.min_players || seats.length > rs.max_players);
    count.textContent = `${seats.length} seats (${rs.min_players} to ${rs.max_players})`;
  }

  const addBot = h("button", { type: "button", id: "add-bot", onclick: () => { seats.push({ kind: "bot", level: "normal" }); drawSeats(); } }, "Add a bot");
  const addOpen = h("button", { type: "button", id: "add-open", onclick: () => { seats.push({ kind: "open" }); drawSeats(); } }, "Add an open seat");
  const count = h("span", { class: "hint" });
  const create = h("button", { type: "submit", class: "primary", id: "create" }, "Sit down");
  variantSelect.addEventListener("change", drawOptions);

  const form = h("form", { class: "lobby", "aria-labelledby": "lobby-title" },
    h("h1", { id: "lobby-title" }, "Sit down at a table"),
    h("div", { class: "field" }, h("label", { for: "variant" }, "Variant"), variantSelect),
    optionsBox,
    h("fieldset", {}, h("legend", {}, "Seats, in play order"), seatsList, h("div", { class: "row" }, addBot, addOpen, count)),
    h("details", {}, h("summary", {}, "Server key (only when the server asks for one)"),
      h("div", { class: "field" }, h("label", { for: "create-key" }, "X-Api-Key, kept in this page's memory only"), keyInput)),
    problem,
    h("div", { class: "row" }, create));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    problem.textContent = "";
    const rs = ruleset();
    /** @type {Record<string, any>} */
    const options = {};
    for (const o of rs.options) {
      const input = /** @type {HTMLInputElement} */ (optionsBox.querySelector(`[data-option="${o.name}"]`));
      if (o.type === "boolean") {
        if (input.checked !== o.default) options[o.name] = input.checked;
      } else if (input.value === "") {
        if (o.default !== null) options[o.name] = null;
      } else if (Number(input.value) !== o.default) {
        options[o.name] = Number(input.value);
      }
    }
    const body = {
      variant: rs.variant,
      seats: seats.map((s) => (s.kind === "you" ? { name: s.name || "You" } : s.kind === "bot" ? { bot: s.level || "normal" } : { open: true })),
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
      problem.textContent = /** @type {Error} */ (e).message;
      create.removeAttribute("disabled");
    }
  });
  main.append(form, resumeList());
  drawOptions();
}

/** The games this tab holds a seat in, to go back to. */
function resumeList() {
  const ids = Object.keys(sessionStorage).filter((k) => k.startsWith("continental.seat.")).map((k) => k.slice(17));
  if (!ids.length) return "";
  return h("section", { class: "resume" }, h("h2", {}, "Your games in this tab"),
    h("ul", {}, ...ids.map((id) => h("li", {}, h("a", { href: `#/game/${id}` }, id)))));
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
