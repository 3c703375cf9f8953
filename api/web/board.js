// @ts-check
// A studio's leaderboard and a player's page, opened with a server key as the watch list is:
// `GET /v1/leaderboards/{variant}` (and, where the server has it, the page around a player),
// `GET /v1/players/{id}` and `GET /v1/players/{id}/games`.

import { call } from "./api.js";
import { h, mainArea } from "./dom.js";
import { variantName } from "./cards.js";
import { serverKey, setServerKey } from "./watch.js";
import { ownBoard } from "./results.js";

const VARIANTS = ["may_i", "contract_7", "continental", "push"];
const thousands = new Intl.NumberFormat("en-US");

/** The key's form: the server key, kept in the page's memory only, as the watch list's.
 * @param {string} title @param {HTMLElement[]} fields @param {() => void} submit */
function keyForm(title, fields, submit) {
  const input = h("input", { id: "board-key", type: "password", autocomplete: "off", value: serverKey() || "" });
  const form = h("form", { class: "lobby", "aria-labelledby": "board-title" },
    h("h1", { id: "board-title" }, title),
    h("div", { class: "field" }, h("label", { for: "board-key" }, "Server key (X-Api-Key), kept in this page's memory only"), input),
    h("div", { class: "row" }, ...fields, h("button", { type: "submit", class: "primary", id: "board-show" }, "Show")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    setServerKey(/** @type {HTMLInputElement} */ (input).value.trim());
    submit();
  });
  return form;
}

/** The tenant's leaderboard of a variant: rank, player, rating, games; a player's own place
 * found by their id. @param {string} [variant] */
export async function openLeaderboard(variant = "may_i") {
  const main = mainArea();
  const select = h("select", { id: "board-variant", "aria-label": "Game" },
    ...VARIANTS.map((v) => h("option", { value: v, selected: v === variant }, variantName(v))));
  const find = h("input", { id: "board-find", placeholder: "a player's id", "aria-label": "Find a player by their id", autocomplete: "off" });
  const problem = h("p", { class: "problem", role: "alert" });
  const list = h("div", { id: "board" });
  const more = h("button", { type: "button", id: "board-more", hidden: true }, "More");
  /** The next page's cursor, and the board it was given for: the server reads a cursor only
   * on that board (the key's tenant's, in its variant).
   * @type {{ cursor: string, board: string } | null} */
  let next = null;
  const boardOf = (/** @type {string} */ v) => JSON.stringify([serverKey(), v]);
  /** The board changed (another variant chosen): its "More" would be another board's. */
  function forget() {
    next = null;
    /** @type {HTMLButtonElement} */ (more).hidden = true;
  }

  async function load(/** @type {boolean} */ again) {
    problem.textContent = "";
    const v = /** @type {HTMLSelectElement} */ (select).value;
    const board = boardOf(v);
    const q = new URLSearchParams({ limit: "50" });
    const around = /** @type {HTMLInputElement} */ (find).value.trim();
    if (again && next?.board !== board) again = false;
    if (again && next) q.set("cursor", next.cursor);
    else if (around) q.set("around", around);
    try {
      const page = await call("GET", `/v1/leaderboards/${v}?${q}`, { key: serverKey() || undefined });
      if (!again) list.replaceChildren(boardTable(v));
      const body = /** @type {HTMLElement} */ (list.querySelector("tbody"));
      for (const e of page.entries) body.append(entryRow(e, around));
      if (!page.entries.length && !again) body.append(h("tr", {}, h("td", { colspan: 4 }, "Nobody is rated in this game yet.")));
      if (page.players !== undefined && !again) {
        list.prepend(h("p", { class: "hint", id: "board-count" }, `${thousands.format(page.players)} players on this board.`));
      }
      next = page.next_cursor ? { cursor: page.next_cursor, board } : null;
      /** @type {HTMLButtonElement} */ (more).hidden = !next;
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }

  more.addEventListener("click", () => load(true));
  select.addEventListener("change", forget);
  const form = keyForm("Leaderboard", [select, find], () => load(false));
  main.append(form, problem, list, more);
  // Without a server key, the board a player can read: the page's own.
  if (!serverKey()) main.prepend(ownBoard(variant));
  if (serverKey()) await load(false);
  return { close() {} };
}

/** @param {string} variant */
function boardTable(variant) {
  return h("table", { class: "games board" },
    h("caption", {}, `${variantName(variant)}: ordered by the conservative rating (rating less three deviations)`),
    h("thead", {}, h("tr", {}, ...["rank", "player", "rating", "games"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody"));
}

/** @param {any} e @param {string} around */
function entryRow(e, around) {
  return h("tr", { class: e.player === around ? "me" : "" },
    h("td", {}, String(e.rank)),
    h("td", {}, h("a", { href: `#/player/${encodeURIComponent(e.player)}`, "data-player": e.player }, e.player)),
    h("td", {}, thousands.format(e.rating.display)),
    h("td", {}, String(e.games)));
}

/** A player's page: their rating in each variant, their record and recent games. @param {string} id */
export async function openPlayer(id) {
  const main = mainArea();
  const problem = h("p", { class: "problem", role: "alert" });
  const out = h("div", { id: "player" });

  async function load() {
    problem.textContent = "";
    const opts = { key: serverKey() || undefined };
    try {
      const player = await call("GET", `/v1/players/${encodeURIComponent(id)}`, opts);
      const games = await call("GET", `/v1/players/${encodeURIComponent(id)}/games?limit=20`, opts);
      const r = player.record;
      out.replaceChildren(
        h("p", { id: "record" }, `${r.games} ${r.games === 1 ? "game" : "games"}, ${r.finished} finished, ${r.won} won.`),
        h("table", { class: "games", id: "player-ratings" },
          h("caption", {}, "Ratings"),
          h("thead", {}, h("tr", {}, ...["game", "rating", "games"].map((t) => h("th", { scope: "col" }, t)))),
          h("tbody", {}, ...(player.ratings.length ? player.ratings.map((/** @type {any} */ x) => h("tr", {},
            h("td", {}, h("a", { href: `#/leaderboard/${x.variant}` }, variantName(x.variant))),
            h("td", {}, thousands.format(x.rating.display)),
            h("td", {}, String(x.games))))
            : [h("tr", {}, h("td", { colspan: 3 }, "Not rated yet."))]))),
        h("table", { class: "games", id: "player-games" },
          h("caption", {}, "Recent games"),
          h("thead", {}, h("tr", {}, ...["created", "game", "status", "seats", ""].map((t) => h("th", { scope: "col" }, t)))),
          h("tbody", {}, ...(games.games.length ? games.games.map((/** @type {any} */ g) => h("tr", {},
            h("td", {}, new Date(g.created_at).toLocaleString()),
            h("td", {}, variantName(g.variant)),
            h("td", {}, g.status),
            h("td", {}, g.seats.map((/** @type {any} */ s) => s.name || "open").join(", ")),
            h("td", {}, g.status === "finished" ? h("a", { href: `#/replay/${g.id}`, class: "button" }, "Replay") : "")))
            : [h("tr", {}, h("td", { colspan: 5 }, "No games yet."))]))));
    } catch (e) {
      problem.textContent = /** @type {Error} */ (e).message;
    }
  }

  const form = keyForm(`Player ${id}`, [], load);
  main.append(form, problem, out);
  if (serverKey()) await load();
  return { close() {} };
}
