// The table in the browser, used as people use it (tests/browser/run starts the servers).
// Usage: node play.cjs PLAIN_URL STUDIO_URL STUDIO_KEY SHOTS_DIR
"use strict";
const assert = require("node:assert/strict");
const path = require("node:path");
const { chromium } = require("playwright-core");

const [plain, studio, key, shots] = process.argv.slice(2);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const started = Date.now();
const step = (what) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${what}`);

/** Every request a page makes, checked to go to the host that served it; page errors fail. */
const foreign = [];
const failures = [];

async function contextFor(browser, base, viewport) {
  const context = await browser.newContext({
    viewport,
    isMobile: viewport === PHONE,
    hasTouch: viewport === PHONE,
    deviceScaleFactor: viewport === PHONE ? 2 : 1,
  });
  const origin = new URL(base).origin;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  context.on("page", (page) => watchPage(page));
  return context;
}

function watchPage(page) {
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/Failed to load resource/.test(m.text())) failures.push(`console: ${m.text()}`);
  });
}

const isEnabled = async (page, sel) => {
  const el = page.locator(sel);
  return (await el.count()) > 0 && el.first().isEnabled();
};

/**
 * Clicks a move and waits for the table to show its answer: a newer version, or the refusal.
 * `null` when the button was taken away before the click (another seat's move, arriving live,
 * ended the turn or the game).
 */
async function move(page, sel) {
  const before = await page.$eval(".game", (g) => g.dataset.version);
  const answer = page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes("/v1/games/"));
  try {
    await page.click(sel, { timeout: 5000 });
  } catch (e) {
    answer.catch(() => {});
    if (await isEnabled(page, sel)) throw e;
    return null;
  }
  const r = await answer;
  if (r.ok()) await page.waitForFunction((v) => document.querySelector(".game")?.dataset.version !== v, before);
  else await page.waitForSelector("#message.problem");
  return r;
}

/** Selects a card to discard (the highest natural one that may go) and discards it. */
async function discardOne(page) {
  const hand = await page.$$eval(".hand button.card", (cs) =>
    cs.map((c) => ({ card: c.dataset.card, key: c.dataset.key, wild: c.classList.contains("wild") })));
  const order = [...hand.filter((c) => !c.wild).reverse(), ...hand.filter((c) => c.wild)];
  for (const { card, key } of order) {
    await page.click(`.hand button.card[data-key="${key}"]`);
    if (await isEnabled(page, "#act-discard")) {
      const answer = await move(page, "#act-discard");
      if (answer?.ok()) return card;
    }
    if (await isEnabled(page, "#act-clear")) await page.click("#act-clear");
  }
  throw new Error("no card could be discarded");
}

/** Whether it is this page's seat's turn to play (after drawing). */
const inPlay = async (page) => /discard/.test(await page.$eval(".your-turn", (e) => e.textContent).catch(() => ""));

/** Plays a turn in the play phase: suggested melds and lay-offs, then a discard. */
async function playTurn(page) {
  for (let tries = 0; tries < 8 && (await isEnabled(page, "#act-suggest")); tries++) {
    await page.click("#act-suggest");
    await page.waitForFunction(() => {
      const m = document.querySelector("#message");
      return m && (m.classList.contains("problem") || /Suggested|fits meld|No meld/.test(m.textContent));
    });
    let answer = null;
    if (await page.$("#staged")) answer = await move(page, "#act-meld");
    else if (await isEnabled(page, "#act-layoff")) answer = await move(page, "#act-layoff");
    if (!answer || !answer.ok()) break;
  }
  if (await isEnabled(page, "#act-clear")) await page.click("#act-clear");
  if (await inPlay(page)) await discardOne(page);
}

/** Whether one of the first lines of the event log says `text`. */
const logged = (page, text) =>
  page.waitForFunction((t) => [...document.querySelectorAll("#log li")].slice(0, 4).some((li) => li.textContent.includes(t)), text);

async function sitDown(page, base, seats, withKey) {
  await page.goto(base + "/");
  assert.equal(new URL(page.url()).pathname, "/play", "/ leads to the page");
  await page.waitForSelector("#create");
  await page.selectOption("#variant", "may_i");
  await page.fill("#your-name", "Ann");
  if (seats === "open") {
    await page.click('button[aria-label="Remove seat 2"]');
    await page.click("#add-open");
  }
  if (withKey) {
    await page.click("summary");
    await page.fill("#create-key", withKey);
  }
  await page.click("#create");
  await page.waitForSelector(".hand-panel");
}

async function twoBrowsers(browser) {
  step("two browsers, one game: an invitation");
  const ann = await (await contextFor(browser, plain, DESKTOP)).newPage();
  await sitDown(ann, plain, "open");
  const link = await ann.inputValue("#invite-1");
  assert.match(link, /#\/join\/[0-9a-f-]+\/1$/, "an open seat yields an invitation link");
  const bob = await (await contextFor(browser, plain, PHONE)).newPage();
  await bob.goto(link);
  await bob.fill("#join-name", "Bob");
  await bob.click("#join");
  await bob.waitForSelector(".hand button.card");
  await ann.waitForSelector(".hand button.card");
  // A reload would lose these marks: each page must see the other's move as it stays.
  await ann.evaluate(() => (window.stayed = true));
  await bob.evaluate(() => (window.stayed = true));

  for (let round = 0; round < 3; round++) {
    let mover = null;
    for (let i = 0; i < 100 && !mover; i++) {
      if (await isEnabled(ann, "#act-draw-stock")) mover = [ann, bob, "Ann"];
      else if (await isEnabled(bob, "#act-draw-stock")) mover = [bob, ann, "Bob"];
      else await ann.waitForTimeout(100);
    }
    assert.ok(mover, "one of the two seats is to draw");
    const [me, other, name] = mover;
    await move(me, "#act-draw-stock");
    await logged(other, `${name} drew`);
    const card = await discardOne(me);
    await other.waitForSelector(`.piles .pile .card[data-card="${card}"]`);
    await logged(other, `${name} discarded`);
    assert.equal(await other.evaluate(() => window.stayed), true, "the other page saw the move without reloading");
    step(`${name}'s draw and discard (${card}) appeared on the other page live`);
    if (round === 1) {
      await bob.evaluate(() => document.querySelector(".piles")?.scrollIntoView());
      await bob.screenshot({ path: path.join(shots, "phone-table.png"), fullPage: false });
      await bob.screenshot({ path: path.join(shots, "phone-table-full.png"), fullPage: true });
    }
  }
  await ann.context().close();
  await bob.context().close();
}

async function spectator(browser) {
  step("a studio's spectator");
  const ann = await (await contextFor(browser, studio, DESKTOP)).newPage();
  await sitDown(ann, studio, "bot", key);
  const annHand = await ann.$$eval(".hand button.card", (cs) => cs.map((c) => c.dataset.card));
  assert.ok(annHand.length > 0, "the player sees her hand");

  const watcher = await (await contextFor(browser, studio, DESKTOP)).newPage();
  const answers = [];
  watcher.on("response", async (r) => {
    if (/\/v1\/games\/[0-9a-f-]+(\/events.*)?$/.test(r.url()) && r.request().method() === "GET") {
      answers.push(await r.json().catch(() => null));
    }
  });
  await watcher.goto(studio + "/play#/watch");
  await watcher.fill("#watch-key", key);
  await watcher.click("#list");
  await watcher.waitForSelector("a[data-game]");
  await watcher.click("a[data-game]");
  await watcher.waitForSelector("#spectating");
  // Ann moves; the spectator sees it live.
  if (await isEnabled(ann, "#act-draw-stock")) {
    await move(ann, "#act-draw-stock");
    await logged(watcher, "Ann drew a card");
  }
  assert.equal(await watcher.$$eval(".hand, button.card", (x) => x.length), 0, "a spectator has no hand to see");
  const logText = await watcher.$eval("#log", (l) => l.textContent);
  assert.ok(!/ got (?!a hand)/.test(logText), "no dealt hand is shown to a spectator");
  for (const a of answers.filter(Boolean)) {
    if ("you" in a) assert.equal(a.you, null, "the spectator's view holds no hand");
    for (const e of a.events || []) {
      if (e.event.type === "dealt") assert.equal(e.event.cards, null, "no dealt card reaches the spectator");
      if (e.event.type === "drew" && e.event.source === "stock") assert.equal(e.event.card, null, "no drawn card reaches the spectator");
    }
  }
  assert.ok(answers.length >= 2, "the spectator read the view and the events");
  await watcher.screenshot({ path: path.join(shots, "desktop-spectator.png") });
  step("the spectator saw the game and no card of any hand");
  await ann.context().close();
  await watcher.context().close();
}

async function wholeGame(browser) {
  step("a whole may_i game against a bot, by clicking only");
  const page = await (await contextFor(browser, plain, DESKTOP)).newPage();
  await sitDown(page, plain, "bot");
  let turns = 0;
  let shot = false;
  let deal = "";
  while (!(await page.$("#standings"))) {
    if (await isEnabled(page, "#act-draw-stock")) {
      await move(page, "#act-draw-stock");
      turns++;
      const now = await page.$eval(".status", (s) => s.textContent.match(/deal \d+/)?.[0] || "");
      if (now !== deal) step(`${(deal = now)}`);
      if (!shot && (await page.$$(".meld")).length >= 2) {
        // A card selected for the picture. An answer or a live update that lands meanwhile
        // may take the selection away with the hand it was made in: select again until the
        // page shows it.
        for (let i = 0; i < 10 && !(await isEnabled(page, "#act-clear")); i++) {
          await page.click(".hand button.card:not(.wild)");
        }
        await page.screenshot({ path: path.join(shots, "desktop-table.png") });
        if (await isEnabled(page, "#act-clear")) await page.click("#act-clear");
        shot = true;
      }
      await playTurn(page);
    } else if (await inPlay(page)) {
      await playTurn(page);
    } else {
      await page.waitForTimeout(50);
    }
    assert.ok(Date.now() - started < 170_000, "the game finishes in time");
  }
  const standings = await page.$eval("#standings", (s) => s.textContent);
  assert.match(standings, /1\. .*points/, "the final standings show");
  step(`finished after ${turns} turns: ${standings}`);
  await page.screenshot({ path: path.join(shots, "desktop-finished.png"), fullPage: true });

  // The page shows the steps the server replays; it rebuilds nothing itself.
  const replayed = page.waitForResponse((r) => /\/v1\/games\/[^/]+\/replay/.test(r.url()) && r.status() === 200);
  await page.click("#replay-link");
  const steps = (await (await replayed).json()).steps;
  await page.waitForFunction(() => /matches/.test(document.querySelector("#seed-check")?.textContent || ""));
  await page.click('button:has-text("« Start")');
  const first = await page.$eval(".replay .now", (n) => n.textContent);
  assert.ok(first.startsWith(`#${steps[0].seq}: `), `the first step is the deal's: ${first}`);
  for (let i = 0; i < 40; i++) await page.click("#replay-next");
  const now = await page.$eval(".replay .now", (n) => n.textContent);
  const at = Math.min(40, steps.length - 1);
  assert.ok(now.startsWith(`#${steps[at].seq}: `), `the replay steps through the server's steps: ${now}`);
  const stock = await page.$eval(".replay-stage p:nth-of-type(2)", (n) => n.textContent);
  assert.ok(stock.endsWith(`stock ${steps[at].view.stock_count}`), `the step shows the server's stock count: ${stock}`);
  await page.screenshot({ path: path.join(shots, "desktop-replay.png") });
  step(`the replay checks the seed and steps: ${now}`);
  await page.context().close();
}

(async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    await twoBrowsers(browser);
    await spectator(browser);
    await wholeGame(browser);
  } finally {
    await browser.close();
  }
  assert.deepEqual(foreign, [], "the page asks no host but the one that served it");
  assert.deepEqual(failures, [], "no script error on any page");
  step("browser checks passed");
})().catch((e) => {
  console.error(e);
  if (failures.length) console.error(failures);
  process.exit(1);
});
